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
#include "core/why.h"

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
	unsigned long netns;		/* inode of its network namespace */
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
/* The owner's /proc/PID/cmdline, arguments joined by spaces: 0 or -errno. */
int zc_tap_cmdline(const struct zc_tap *t, char *buf, size_t len);
/* One line per tap: "tap inode=... pid=... comm=... ifindex=..." */
int zc_tap_format(const struct zc_tap *t, char *buf, size_t len);
/*
 * Print the taps of nsfd as "# " diagnostics (ktap_print_msg), the
 * summary first. Returns the number that copy on transmit, or -errno.
 */
int zc_taps_report(int nsfd, const char *where);
/*
 * zc_taps_report() for the namespace at path (/proc/PID/ns/net,
 * /run/netns/X; NULL: the caller's). -1 with why when path is none.
 */
int zc_taps_report_path(const char *path, struct zc_why *why);
/* The tap among taps[n] that is this process's socket fd, or NULL. */
const struct zc_tap *zc_tap_find(const struct zc_tap *taps, int n, int fd);

/*
 * Packet sockets of every network namespace this process can find (of
 * its processes' /proc/PID/ns/net and the mounts in /run/netns), each
 * with t->netns set. Returns how many exist (may exceed max) or -errno.
 */
int zc_taps_all(struct zc_tap *taps, int max);

/*
 * Does a packet tap this process did not open copy zero-copy sends
 * leaving through a device of the namespaces nsfds[]? Taps inside them
 * always do; on a kernel with one global tap list (no struct
 * net.ptype_all in BTF, before 6.15) so does every running unbound
 * ETH_P_ALL tap in any namespace, and where the scope is unknown (no BTF)
 * those count too. Returns how many apply (or -errno), and for the first
 * a reason in why, "environment: packet tap of pid P (COMM) ... netns
 * net:[INODE], copies zero-copy sends: WHY ON THIS KERNEL".
 */
int zc_taps_foreign(const int *nsfds, int n, struct zc_why *why);
/*
 * Why tap t copies zero-copy sends through the namespaces own[] (inodes)
 * on a kernel whose tap lists are per namespace (netns_taps 1), global
 * (0) or unknown (< 0); NULL when it does not.
 */
const char *zc_tap_applies(const struct zc_tap *t, int netns_taps,
			   const unsigned long *own, int nown);

#endif
