/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A device's XDP capabilities from the generic netlink "netdev" family
 * (NETDEV_CMD_DEV_GET, kernel 6.3+), and its driver name.
 * Everything runs in the calling thread's network namespace.
 */
#ifndef ZC_NETDEV_NL_H
#define ZC_NETDEV_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/compat.h"

struct zc_netdev_info {
	int ifindex;
	uint64_t xdp_features;		/* NETDEV_XDP_ACT_* bits */
	uint32_t xdp_zc_max_segs;	/* 0 when the kernel did not say */
	bool has_zc_max_segs;
};

/*
 * Query one device. Returns 0, -ENOENT when the kernel has no "netdev"
 * family (before 6.3, or CONFIG_NET without it), -ENODEV for an unknown
 * ifindex, or another -errno.
 */
int zc_netdev_get(int ifindex, struct zc_netdev_info *info);

/* "basic,redirect,ndo-xmit,xsk-zerocopy,..." for diagnostics ("none" for 0). */
const char *zc_xdp_features_str(uint64_t features, char *buf, size_t len);

/* Driver name via ETHTOOL_GDRVINFO ("veth", "mlx5_core"); 0 or -errno. */
int zc_netdev_driver(int ifindex, char *buf, size_t len);
/*
 * Bus address via ETHTOOL_GDRVINFO ("0000:00:03.0"; "virtio0" for
 * virtio_net): names the device in /sys/bus even when the netdev lives
 * in another namespace than sysfs shows. 0 or -errno.
 */
int zc_netdev_bus_info(int ifindex, char *buf, size_t len);
/*
 * Queues in use via ETHTOOL_GCHANNELS (rx/tx counts plus combined ones):
 * the first queue id past both is out of range for bind. 0 or -errno
 * (-EOPNOTSUPP when the driver does not report channels).
 */
int zc_netdev_queues(int ifindex, unsigned int *rx, unsigned int *tx);
/* Receive ring entries in use via ETHTOOL_GRINGPARAM; 0 or -errno. */
int zc_netdev_rx_ring(int ifindex, unsigned int *rx);

/*
 * Scatter-gather and transmit checksum offloads (ETHTOOL_GSG/GTXCSUM):
 * without them a zero-copy send is copied before it leaves. Each 1, 0 or
 * -errno; returns 0 when both were read.
 */
int zc_netdev_offloads(int ifindex, int *sg, int *tx_csum);
/*
 * The XDP program on a device: mode XDP_ATTACHED_* (linux/if_link.h; 0
 * none, DRV native, SKB generic, HW, MULTI) and its id. 0 or -errno.
 */
int zc_netdev_xdp(int ifindex, int *mode, unsigned int *prog_id);

#endif
