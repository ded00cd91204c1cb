/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Constants newer than Debian 12's 6.1 UAPI headers and liburing 2.3.
 * Values are the kernel's ABI; each is guarded so newer headers win.
 */
#ifndef ZC_COMPAT_H
#define ZC_COMPAT_H

/* io_uring (include/uapi/linux/io_uring.h) */
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE	(1U << 3)
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED	(1U << 31)
#endif
#ifndef IORING_RECVSEND_FIXED_BUF
#define IORING_RECVSEND_FIXED_BUF	(1U << 2)
#endif

/* MSG_ZEROCOPY (include/uapi/linux/errqueue.h, socket.h) */
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY		60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY		0x4000000
#endif
#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY	5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED	1
#endif

/* AF_PACKET */
#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING	23
#endif

/* CAP_BPF / CAP_PERFMON (5.8) */
#ifndef CAP_PERFMON
#define CAP_PERFMON		38
#endif
#ifndef CAP_BPF
#define CAP_BPF			39
#endif

/* netdev generic netlink family (include/uapi/linux/netdev.h, 6.3+) */
#ifndef NETDEV_FAMILY_NAME
#define NETDEV_FAMILY_NAME	"netdev"
#define NETDEV_FAMILY_VERSION	1
#define NETDEV_CMD_DEV_GET	1
#define NETDEV_A_DEV_IFINDEX	1
#define NETDEV_A_DEV_PAD	2
#define NETDEV_A_DEV_XDP_FEATURES	3
#define NETDEV_A_DEV_XDP_ZC_MAX_SEGS	4
#define NETDEV_XDP_ACT_BASIC		(1U << 0)
#define NETDEV_XDP_ACT_REDIRECT		(1U << 1)
#define NETDEV_XDP_ACT_NDO_XMIT		(1U << 2)
#define NETDEV_XDP_ACT_XSK_ZEROCOPY	(1U << 3)
#define NETDEV_XDP_ACT_HW_OFFLOAD	(1U << 4)
#define NETDEV_XDP_ACT_RX_SG		(1U << 5)
#define NETDEV_XDP_ACT_NDO_XMIT_SG	(1U << 6)
#endif

/* AF_XDP (include/uapi/linux/if_xdp.h) */
#ifndef XDP_USE_SG
#define XDP_USE_SG		(1 << 4)
#endif
#ifndef XDP_OPTIONS_ZEROCOPY
#define XDP_OPTIONS		8
#define XDP_OPTIONS_ZEROCOPY	(1 << 0)
#endif

/* io_uring_disabled sysctl (6.6) is probed at run time, nothing to define. */

#endif
