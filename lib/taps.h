/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet taps: the AF_PACKET sockets of a network namespace, which of
 * them make the kernel copy zero-copy sends (dev_queue_xmit_nit ->
 * skb_orphan_frags_rx -> skb_copy_ubufs), and who owns them.
 *
 * /proc/net/packet gives inode, type, protocol, ifindex and "running";
 * the owner comes from /proc/PID/fd links; PACKET_IGNORE_OUTGOING is in
 * neither (nor in sock_diag's packet_diag_info), so it is read with
 * getsockopt on a duplicate of the owner's fd (pidfd_getfd, 5.6+).
 */
#ifndef ZC_TAPS_H
#define ZC_TAPS_H

#include <stdbool.h>
#include <stdio.h>
#include <net/if.h>

struct zc_tap {
	unsigned long inode;
	int type;			/* SOCK_RAW or SOCK_DGRAM */
	unsigned int proto;		/* ETH_P_*, host order; 0: not bound */
	int ifindex;			/* 0: every device */
	char ifname[IF_NAMESIZE];	/* "" when ifindex is 0 or unknown */
	bool running;			/* hook registered: sees packets */
	int ignore_outgoing;		/* 1, 0, or -1 unknown (no owner fd) */
	int pid;			/* owner, 0 when not found */
	int fd;				/* owner's fd number, -1 unknown */
	char comm[16];
	bool copies_tx;		/* copies zero-copy sends leaving this netns */
	bool copies_rx;		/* copies zero-copy skbs received in it */
};

/*
 * Packet sockets of the namespace nsfd (-1: the caller's), up to max in
 * taps. Returns how many exist (may exceed max) or -errno.
 */
int zc_taps_list(int nsfd, struct zc_tap *taps, int max);
/* Parse one /proc/net/packet line; 0, or -1 for the header/garbage. */
int zc_taps_parse_line(const char *line, struct zc_tap *t);
/* One line per tap: "tap inode=... pid=... comm=... ifindex=..." */
int zc_tap_format(const struct zc_tap *t, char *buf, size_t len);
/*
 * Print the taps of nsfd as "# " diagnostics (ktap_print_msg), the
 * summary first. Returns the number that copy on transmit, or -errno.
 */
int zc_taps_report(int nsfd, const char *where);

/*
 * zc_open_tap() (netns.h) bound to ifindex when non-zero, with
 * PACKET_IGNORE_OUTGOING when asked. Returns the fd or -errno.
 */
int zc_tap_open_on(int nsfd, int ifindex, bool ignore_outgoing);

#endif
