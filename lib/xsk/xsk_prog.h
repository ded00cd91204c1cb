/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The XDP programs of an AF_XDP test (bpf/xsk.bpf.c), one skeleton per
 * side of the link: zc_xsk_redirect hands test frames to the socket of
 * their queue, zc_xdp_count counts (and checks) them and drops them.
 * Attached through a bpf_link, so they go with the process even on
 * SIGKILL and never stay on a device.
 */
#ifndef ZC_XSK_PROG_H
#define ZC_XSK_PROG_H

#include <stdbool.h>
#include <stdint.h>

#include "xsk/xsk.h"

/* How a program is attached: the generic (skb) or the driver's path. */
enum zc_xsk_attach { ZC_XSK_AT_SKB, ZC_XSK_AT_NATIVE, ZC_XSK_AT_N };

/* By attach mode: the cases' name parts. */
extern const char *const zc_xsk_at_names[ZC_XSK_AT_N];
const char *zc_xsk_at_name(enum zc_xsk_attach at);

struct xsk;

/* One skeleton and the XDP link of one of its programs. */
struct zc_xsk_prog {
	struct xsk *skel;
	int link;		/* -1: not attached */
	/*
	 * The redirect program carries the per-frame witness (counts
	 * ZC_XSK_C_POOL / ZC_XSK_C_NOPOOL); else nowit says why not.
	 */
	bool wit;
	char nowit[160];
};

/*
 * Open and load; verify makes zc_xdp_count check every payload byte.
 * The redirect is the witnessing one where the kernel has
 * bpf_cast_to_kern_ctx (6.2+), the plain one otherwise.
 */
int zc_xsk_prog_load(struct zc_xsk_prog *p, bool verify);
/* zc_xdp_count counts every frame, test frame or not: 0 or -errno. */
int zc_xsk_prog_count_any(struct zc_xsk_prog *p);
/* Attach zc_xdp_count (count) or zc_xsk_redirect to ifindex in nsfd. */
int zc_xsk_prog_attach(struct zc_xsk_prog *p, int nsfd, int ifindex,
		       bool count, enum zc_xsk_attach at);
/* Put a bound socket into the XSKMAP at its queue. */
int zc_xsk_prog_map_add(struct zc_xsk_prog *p, const struct zc_xsk *x);
void zc_xsk_prog_close(struct zc_xsk_prog *p);

/* The counters (ZC_XSK_C_*), summed over CPUs. */
int zc_xsk_cnt_read(const struct zc_xsk_prog *p, uint64_t out[ZC_XSK_C_NSLOTS]);
uint64_t zc_xsk_cnt_get(const struct zc_xsk_prog *p, int slot);
/* Wait (at most timeout seconds) until a counter reaches want. */
uint64_t zc_xsk_cnt_settle(const struct zc_xsk_prog *p, int slot, uint64_t want,
			   double timeout);

#endif
