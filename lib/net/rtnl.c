// SPDX-License-Identifier: GPL-2.0
/*
 * Links, addresses and neighbours over raw rtnetlink, in the calling
 * thread's namespace: one request, one acknowledgement.
 */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>

#include "net/rtnl.h"

#define NL_BUF	4096

struct nl_req {
	struct nlmsghdr *n;
	char buf[NL_BUF];
};

static struct nlmsghdr *nl_init(struct nl_req *r, int type, int flags,
				const void *hdr, size_t hlen)
{
	memset(r->buf, 0, sizeof(r->buf));
	r->n = (struct nlmsghdr *)r->buf;
	r->n->nlmsg_len = NLMSG_LENGTH(hlen);
	r->n->nlmsg_type = type;
	r->n->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	memcpy(NLMSG_DATA(r->n), hdr, hlen);
	return r->n;
}

static struct rtattr *nl_put(struct nl_req *r, int type, const void *data,
			     size_t len)
{
	struct rtattr *rta;
	size_t need = NLMSG_ALIGN(r->n->nlmsg_len) + RTA_SPACE(len);

	if (need > sizeof(r->buf))
		return NULL;
	rta = (struct rtattr *)(r->buf + NLMSG_ALIGN(r->n->nlmsg_len));
	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	r->n->nlmsg_len = need;
	return rta;
}

static void nl_nest_end(struct nl_req *r, struct rtattr *nest)
{
	nest->rta_len = r->buf + r->n->nlmsg_len - (char *)nest;
}

/* Send r and read one answer into ans: its length, or -errno. */
static ssize_t nl_exchange(struct nl_req *r, char *ans, size_t size)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	ssize_t len;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	len = sendto(fd, r->buf, r->n->nlmsg_len, 0, (struct sockaddr *)&sa,
		     sizeof(sa));
	if (len >= 0)
		len = recv(fd, ans, size, 0);
	if (len < 0)
		len = -errno;
	close(fd);
	return len;
}

static int nl_talk(struct nl_req *r)
{
	char ans[NL_BUF];
	struct nlmsghdr *h;
	ssize_t len = nl_exchange(r, ans, sizeof(ans));

	if (len < 0)
		return len;
	for (h = (struct nlmsghdr *)ans; NLMSG_OK(h, (size_t)len);
	     h = NLMSG_NEXT(h, len))
		if (h->nlmsg_type == NLMSG_ERROR)
			return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
	return -EPROTO;
}

static int link_change(int ifindex, unsigned int flags, unsigned int change,
		       int mtu)
{
	struct ifinfomsg ifi = {
		.ifi_family = AF_UNSPEC, .ifi_index = ifindex,
		.ifi_flags = flags, .ifi_change = change,
	};
	struct nl_req r;

	nl_init(&r, RTM_NEWLINK, 0, &ifi, sizeof(ifi));
	if (mtu > 0)
		nl_put(&r, IFLA_MTU, &mtu, sizeof(mtu));
	return nl_talk(&r);
}

int zc_link_set_up(int ifindex, bool up)
{
	return link_change(ifindex, up ? IFF_UP : 0, IFF_UP, 0);
}

int zc_link_set_promisc(int ifindex, bool on)
{
	return link_change(ifindex, on ? IFF_PROMISC : 0, IFF_PROMISC, 0);
}

int zc_link_set_mtu(int ifindex, int mtu)
{
	return link_change(ifindex, 0, 0, mtu);
}

int zc_veth_add(const char *name, const char *peer, int peer_nsfd, int mtu)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct rtattr *linkinfo, *data, *peerinfo;
	struct nl_req r;

	nl_init(&r, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, &ifi, sizeof(ifi));
	nl_put(&r, IFLA_IFNAME, name, strlen(name) + 1);
	if (mtu > 0)
		nl_put(&r, IFLA_MTU, &mtu, sizeof(mtu));
	linkinfo = nl_put(&r, IFLA_LINKINFO, NULL, 0);
	nl_put(&r, IFLA_INFO_KIND, "veth", 4);
	data = nl_put(&r, IFLA_INFO_DATA, NULL, 0);
	peerinfo = nl_put(&r, VETH_INFO_PEER, &ifi, sizeof(ifi));
	nl_put(&r, IFLA_IFNAME, peer, strlen(peer) + 1);
	if (mtu > 0)
		nl_put(&r, IFLA_MTU, &mtu, sizeof(mtu));
	if (peer_nsfd >= 0)
		nl_put(&r, IFLA_NET_NS_FD, &peer_nsfd, sizeof(peer_nsfd));
	nl_nest_end(&r, peerinfo);
	nl_nest_end(&r, data);
	nl_nest_end(&r, linkinfo);
	return nl_talk(&r);
}

int zc_link_move(int ifindex, int nsfd)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	struct nl_req r;

	nl_init(&r, RTM_NEWLINK, 0, &ifi, sizeof(ifi));
	nl_put(&r, IFLA_NET_NS_FD, &nsfd, sizeof(nsfd));
	return nl_talk(&r);
}

int zc_addr_add(int ifindex, int family, const void *addr, int prefix)
{
	struct ifaddrmsg ifa = {
		.ifa_family = family, .ifa_prefixlen = prefix,
		.ifa_index = ifindex,
		/* No duplicate address detection: the address is usable at once. */
		.ifa_flags = family == AF_INET6 ? IFA_F_NODAD : 0,
	};
	size_t alen = family == AF_INET ? 4 : 16;
	struct nl_req r;

	nl_init(&r, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &ifa, sizeof(ifa));
	nl_put(&r, IFA_LOCAL, addr, alen);
	nl_put(&r, IFA_ADDRESS, addr, alen);
	return nl_talk(&r);
}

int zc_neigh_add(int ifindex, int family, const void *addr,
		 const unsigned char *mac)
{
	struct ndmsg nd = {
		.ndm_family = family, .ndm_ifindex = ifindex,
		.ndm_state = NUD_PERMANENT,
	};
	struct nl_req r;

	nl_init(&r, RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_REPLACE, &nd, sizeof(nd));
	nl_put(&r, NDA_DST, addr, family == AF_INET ? 4 : 16);
	nl_put(&r, NDA_LLADDR, mac, 6);
	return nl_talk(&r);
}

/* A link dump carries every attribute the device has: room for them all. */
#define NL_LINK_BUF	32768

int zc_link_counts(int ifindex, struct zc_link_counts *c)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	static __thread char ans[NL_LINK_BUF];
	struct rtnl_link_stats64 st;
	struct nlmsghdr *h;
	struct nl_req r;
	struct rtattr *a;
	ssize_t len;
	int alen;

	nl_init(&r, RTM_GETLINK, 0, &ifi, sizeof(ifi));
	len = nl_exchange(&r, ans, sizeof(ans));
	if (len < 0)
		return len;
	for (h = (struct nlmsghdr *)ans; NLMSG_OK(h, (size_t)len);
	     h = NLMSG_NEXT(h, len)) {
		if (h->nlmsg_type == NLMSG_ERROR)
			return ((struct nlmsgerr *)NLMSG_DATA(h))->error ? : -ENODATA;
		if (h->nlmsg_type != RTM_NEWLINK)
			continue;
		alen = IFLA_PAYLOAD(h);
		for (a = IFLA_RTA(NLMSG_DATA(h)); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
			if (a->rta_type != IFLA_STATS64 || RTA_PAYLOAD(a) < sizeof(st))
				continue;
			memcpy(&st, RTA_DATA(a), sizeof(st));
			c->rx_packets = st.rx_packets;
			c->tx_packets = st.tx_packets;
			c->rx_dropped = st.rx_dropped;
			c->tx_dropped = st.tx_dropped;
			c->rx_missed = st.rx_missed_errors + st.rx_over_errors +
				       st.rx_fifo_errors;
			return 0;
		}
	}
	return -ENODATA;
}
