// SPDX-License-Identifier: GPL-2.0
/* XDP features of a device over generic netlink; see netdev_nl.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/ethtool.h>
#include <linux/genetlink.h>
#include <bpf/libbpf.h>
#include <linux/netlink.h>
#include <linux/sockios.h>

#include "net/netdev_nl.h"
#include "core/util.h"

struct nl_req {
	struct nlmsghdr nh;
	struct genlmsghdr gh;
	char attrs[64];
};

static int nl_open(void)
{
	struct timeval tv = { .tv_sec = 2 };	/* a reply never takes this long */
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		close(fd);
		return -errno;
	}
	return fd;
}

static void req_init(struct nl_req *r, uint16_t type, uint8_t cmd, uint8_t version)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = NLM_F_REQUEST;
	r->nh.nlmsg_seq = 1;
	r->gh.cmd = cmd;
	r->gh.version = version;
}

static void req_put(struct nl_req *r, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

typedef void (*attr_fn)(const struct nlattr *a, void *arg);

/* Send r, walk the reply's attributes through fn. 0 or -errno. */
static int nl_transact(int fd, struct nl_req *r, attr_fn fn, void *arg)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[8192] __attribute__((aligned(4)));
	struct nlmsghdr *nh;
	ssize_t n;

	if (sendto(fd, r, r->nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return errno == EAGAIN ? -ETIMEDOUT : -errno;
	for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
		struct nlattr *a;
		int rem;

		if (nh->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *e = NLMSG_DATA(nh);

			return e->error ? e->error : -EPROTO;
		}
		if (nh->nlmsg_type != r->nh.nlmsg_type)
			continue;
		a = (struct nlattr *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN);
		rem = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
		while (rem >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
		       a->nla_len <= rem) {
			fn(a, arg);
			rem -= NLA_ALIGN(a->nla_len);
			a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
		}
		return 0;
	}
	return -EPROTO;
}

static void family_attr(const struct nlattr *a, void *arg)
{
	if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID &&
	    a->nla_len >= NLA_HDRLEN + 2)
		memcpy(arg, (const char *)a + NLA_HDRLEN, 2);
}

static void dev_attr(const struct nlattr *a, void *arg)
{
	struct zc_netdev_info *info = arg;
	const char *d = (const char *)a + NLA_HDRLEN;
	int len = a->nla_len - NLA_HDRLEN;

	switch (a->nla_type & NLA_TYPE_MASK) {
	case NETDEV_A_DEV_XDP_FEATURES:
		if (len >= 8)
			memcpy(&info->xdp_features, d, 8);
		break;
	case NETDEV_A_DEV_XDP_ZC_MAX_SEGS:
		if (len >= 4) {
			memcpy(&info->xdp_zc_max_segs, d, 4);
			info->has_zc_max_segs = true;
		}
		break;
	}
}

int zc_netdev_get(int ifindex, struct zc_netdev_info *info)
{
	static const char name[] = NETDEV_FAMILY_NAME;
	uint32_t idx = ifindex;
	uint16_t family = 0;
	struct nl_req r;
	int fd, err;

	memset(info, 0, sizeof(*info));
	info->ifindex = ifindex;
	fd = nl_open();
	if (fd < 0)
		return fd;

	req_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	req_put(&r, CTRL_ATTR_FAMILY_NAME, name, sizeof(name));
	err = nl_transact(fd, &r, family_attr, &family);
	if (!err && !family)
		err = -ENOENT;
	if (err)
		goto out;

	req_init(&r, family, NETDEV_CMD_DEV_GET, NETDEV_FAMILY_VERSION);
	req_put(&r, NETDEV_A_DEV_IFINDEX, &idx, sizeof(idx));
	err = nl_transact(fd, &r, dev_attr, info);
out:
	close(fd);
	return err;
}

const char *zc_xdp_features_str(uint64_t features, char *buf, size_t len)
{
	static const char *const names[] = {
		"basic", "redirect", "ndo-xmit", "xsk-zerocopy",
		"hw-offload", "rx-sg", "ndo-xmit-sg",
	};
	size_t used = 0;
	unsigned int i;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < 64 && used < len; i++) {
		int n;

		if (!(features & (1ULL << i)))
			continue;
		if (i < ZC_ARRAY_SIZE(names))
			n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", names[i]);
		else
			n = snprintf(buf + used, len - used, "%sbit%u", used ? "," : "", i);
		if (n < 0)
			break;
		used += n;
	}
	if (!features)
		snprintf(buf, len, "none");
	return buf;
}

static int ethtool_ioctl(int ifindex, void *cmd)
{
	struct ifreq ifr;
	int fd, err = 0;

	memset(&ifr, 0, sizeof(ifr));
	if (!if_indextoname(ifindex, ifr.ifr_name))
		return -errno;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ifr.ifr_data = cmd;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		err = -errno;
	close(fd);
	return err;
}

/* One string of ETHTOOL_GDRVINFO: the driver name or the bus address. */
static int drvinfo_str(int ifindex, bool bus, char *buf, size_t len)
{
	struct ethtool_drvinfo drv = { .cmd = ETHTOOL_GDRVINFO };
	int err = ethtool_ioctl(ifindex, &drv);

	if (err)
		return err;
	if (bus)
		snprintf(buf, len, "%.*s", (int)sizeof(drv.bus_info), drv.bus_info);
	else
		snprintf(buf, len, "%.*s", (int)sizeof(drv.driver), drv.driver);
	return 0;
}

int zc_netdev_driver(int ifindex, char *buf, size_t len)
{
	return drvinfo_str(ifindex, false, buf, len);
}

int zc_netdev_bus_info(int ifindex, char *buf, size_t len)
{
	return drvinfo_str(ifindex, true, buf, len);
}

int zc_netdev_queues(int ifindex, unsigned int *rx, unsigned int *tx)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	int err = ethtool_ioctl(ifindex, &ch);

	if (err)
		return err;
	*rx = ch.rx_count + ch.combined_count;
	*tx = ch.tx_count + ch.combined_count;
	return 0;
}

int zc_netdev_rx_ring(int ifindex, unsigned int *rx)
{
	struct ethtool_ringparam ring = { .cmd = ETHTOOL_GRINGPARAM };
	int err = ethtool_ioctl(ifindex, &ring);

	if (err)
		return err;
	*rx = ring.rx_pending;
	return 0;
}

/* ethtool's legacy get of one on/off offload; 1, 0 or -errno. */
static int ethtool_flag(int ifindex, __u32 cmd)
{
	struct ethtool_value v = { .cmd = cmd };
	int err = ethtool_ioctl(ifindex, &v);

	return err ? err : !!v.data;
}

int zc_netdev_offloads(int ifindex, int *sg, int *tx_csum)
{
	*sg = ethtool_flag(ifindex, ETHTOOL_GSG);
	*tx_csum = ethtool_flag(ifindex, ETHTOOL_GTXCSUM);
	return *sg < 0 ? *sg : *tx_csum < 0 ? *tx_csum : 0;
}

int zc_netdev_xdp(int ifindex, int *mode, unsigned int *prog_id)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int err = bpf_xdp_query(ifindex, 0, &q);

	if (err)
		return err;
	*mode = q.attach_mode;
	*prog_id = q.prog_id ? q.prog_id : q.drv_prog_id ? q.drv_prog_id :
		   q.skb_prog_id ? q.skb_prog_id : q.hw_prog_id;
	return 0;
}
