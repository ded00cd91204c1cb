// SPDX-License-Identifier: GPL-2.0
/* The device an AF_XDP test binds to; see xsk_dut.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "xsk/xsk_dut.h"
#include "xsk/xsk_gen.h"

#define MTU	1500
/* virtio feature bits (include/uapi/linux/virtio_config.h, virtio_net.h) */
#define VIRTIO_BIT_ACCESS_PLATFORM	33
#define VIRTIO_BIT_MRG_RXBUF		15
#define VIRTIO_BIT_GUEST_TSO4		7
#define VIRTIO_BIT_GUEST_UFO		10

/*
 * The virtio device under a virtio_net netdev, from its ethtool bus-info:
 * the transport's name ("0000:00:03.0" for virtio_pci, the virtioN
 * device below it) or "virtioN" itself. Sysfs by bus works even after
 * the netdev moved to a namespace /sys/class/net does not show.
 */
static int virtio_dev(const char *bus, char *out, size_t len)
{
	char dir[96];
	struct dirent *e;
	DIR *dp;

	if (!strncmp(bus, "virtio", 6)) {
		snprintf(out, len, "%s", bus);
		return 0;
	}
	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", bus);
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while ((e = readdir(dp)))
		if (!strncmp(e->d_name, "virtio", 6))
			break;
	if (e)
		snprintf(out, len, "%.60s", e->d_name);
	closedir(dp);
	return e ? 0 : -ENOENT;
}

/* Feature bit `bit` of a virtio device ("virtio0"): 1, 0, or -errno. */
static int virtio_feature(const char *dev, int bit)
{
	char path[96], bits[256];
	FILE *f;
	int ret = -ENOENT;

	snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/features", dev);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	/* One '0'/'1' per feature bit, bit 0 first. */
	if (fgets(bits, sizeof(bits), f) && (size_t)bit < strlen(bits))
		ret = bits[bit] == '1';
	fclose(f);
	return ret;
}

/*
 * Known preconditions of a driver's zero-copy bind beyond the feature
 * bit: 0 when none is missing, else the errno the bind gives, with the
 * reason in d->refusal.
 */
static int zc_refusal(struct zc_xsk_dut *d)
{
	char bus[32], dev[64];
	int ap, mrg, big = 0, b;

	if (strcmp(d->driver, "virtio_net") ||
	    zc_netdev_bus_info(d->ifindex, bus, sizeof(bus)) ||
	    virtio_dev(bus, dev, sizeof(dev)))
		return 0;
	/* virtnet_xsk_pool_enable(): the pool needs the virtqueue's DMA device. */
	ap = virtio_feature(dev, VIRTIO_BIT_ACCESS_PLATFORM);
	if (ap == 0) {
		zc_why_set(&d->refusal,
			   "virtio_net advertises XSK_ZEROCOPY, but %s lacks VIRTIO_F_ACCESS_PLATFORM (bit %d; qemu: iommu_platform=on): EINVAL",
			   dev, VIRTIO_BIT_ACCESS_PLATFORM);
		return -EINVAL;
	}
	/* Big-packets mode (GUEST_TSO/ECN/UFO without MRG_RXBUF): ENOENT. */
	mrg = virtio_feature(dev, VIRTIO_BIT_MRG_RXBUF);
	for (b = VIRTIO_BIT_GUEST_TSO4; b <= VIRTIO_BIT_GUEST_UFO; b++)
		big |= virtio_feature(dev, b) == 1;
	if (mrg == 0 && big) {
		zc_why_set(&d->refusal,
			   "virtio_net advertises XSK_ZEROCOPY, but %s is in big-packets mode (GUEST_TSO/UFO without MRG_RXBUF): ENOENT",
			   dev);
		return -ENOENT;
	}
	return 0;
}

static int query_dut(void *arg)
{
	struct zc_xsk_dut *d = arg;
	unsigned int rxq, txq;

	if (zc_netdev_driver(d->ifindex, d->driver, sizeof(d->driver)))
		snprintf(d->driver, sizeof(d->driver), "%s", d->ifname);
	d->info_err = zc_netdev_get(d->ifindex, &d->info);
	d->zc_capable = !d->info_err &&
			(d->info.xdp_features & NETDEV_XDP_ACT_XSK_ZEROCOPY);
	if (d->zc_capable)
		d->zc_refused = zc_refusal(d);
	/* Past every queue in use; a driver without channel info gets the largest id. */
	d->bad_queue = 65535;
	if (!zc_netdev_queues(d->ifindex, &rxq, &txq))
		d->bad_queue = rxq > txq ? rxq : txq;
	return 0;
}

static int open_iface(struct zc_xsk_dut *d, const char *iface, struct zc_why *why)
{
	d->nsfd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	d->ifindex = if_nametoindex(iface);
	snprintf(d->ifname, sizeof(d->ifname), "%s", iface);
	if (d->nsfd >= 0 && d->ifindex)
		return 0;
	zc_why_set(why, "--iface %s: no such device", iface);
	return -ENODEV;
}

static int read_rx_ring(void *arg)
{
	struct zc_xsk_dut *d = arg;
	unsigned int rx;

	if (!zc_netdev_rx_ring(d->topo.b.ifindex, &rx) && rx)
		d->tx_window = rx;
	return 0;
}

static int open_topo(struct zc_xsk_dut *d, struct zc_why *why)
{
	int ret = zc_topo_setup(&d->topo, MTU, why);

	if (ret)
		return ret == -EOPNOTSUPP ? ret : -EIO;
	/*
	 * No more frames beyond b's count than b's driver has buffers for:
	 * a hub or a switch drops what finds none (ZC_XSK_PAIR_WINDOW when
	 * the driver does not say).
	 */
	d->tx_window = ZC_XSK_PAIR_WINDOW;
	if (d->topo.real_pair)
		zc_netns_run(d->topo.b.nsfd, read_rx_ring, d);
	d->veth = true;
	d->nsfd = d->topo.a.nsfd;
	d->ifindex = d->topo.a.ifindex;
	snprintf(d->ifname, sizeof(d->ifname), "%s", d->topo.a.ifname);
	return 0;
}

int zc_xsk_dut_open(struct zc_xsk_dut *d, const char *iface, uint32_t queue,
		    struct zc_why *why)
{
	int fd, ret;

	memset(d, 0, sizeof(*d));
	d->nsfd = -1;
	d->topo.a.nsfd = d->topo.b.nsfd = -1;
	d->queue = queue;
	ret = iface ? open_iface(d, iface, why) : open_topo(d, why);
	if (ret)
		return ret;
	fd = zc_socket_in(d->nsfd, AF_XDP, SOCK_RAW, 0);
	if (fd == -EAFNOSUPPORT) {
		zc_why_skip(why, ZC_CLASS_ENV, "CONFIG_XDP_SOCKETS not set");
		return -EOPNOTSUPP;
	}
	if (fd < 0) {
		zc_why_set(why, "AF_XDP socket: %s", strerror(-fd));
		return fd;
	}
	close(fd);
	zc_netns_run(d->nsfd, query_dut, d);
	if (d->queue < d->bad_queue)
		return 0;
	zc_why_set(why, "--queue %u: %s has queues 0..%u", d->queue, d->ifname,
		   d->bad_queue - 1);
	return -EINVAL;
}

void zc_xsk_dut_close(struct zc_xsk_dut *d)
{
	if (d->veth)
		zc_topo_teardown(&d->topo);
	else if (d->nsfd >= 0)
		close(d->nsfd);
	d->veth = false;
	d->nsfd = -1;
}

void zc_xsk_dut_zc_lacks(const struct zc_xsk_dut *d, struct zc_why *why)
{
	if (d->zc_refused)
		*why = d->refusal;
	else if (d->info_err == -ENOENT)
		zc_why_set(why, "%s: XDP_ZEROCOPY refused (xdp_features unknown: kernel lacks the netdev generic netlink family, 6.3)",
			   d->driver);
	else if (d->info_err)
		zc_why_set(why, "%s: XDP_ZEROCOPY refused (xdp_features unknown: %s)",
			   d->driver, strerror(-d->info_err));
	else
		zc_why_set(why, "%s lacks NETDEV_XDP_ACT_XSK_ZEROCOPY", d->driver);
	/* the device's features, or what it says of them */
	zc_why_as(why, ZC_CLASS_ENV);
}
