/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copy witness: a second observer of zero-copy fallbacks, independent of
 * the copied flag the kernel reports to the sender (SO_EE_CODE_ZEROCOPY_COPIED,
 * IORING_NOTIF_USAGE_ZC_COPIED). It counts copies made by
 * skb_copy_ubufs (zero-copy frags copied, e.g. for a packet tap or local
 * delivery) and by veth's XDP path copying the skb (skb_pp_cow_data on
 * 6.8+, the veth module's own copy before), only for this process (tgid),
 * through BPF:
 *   "fentry"     fentry on both functions: counts calls;
 *   "tracepoint" where fentry is refused: mm_page_alloc whose kernel stack
 *                passes through skb_copy_ubufs (counts the pages it
 *                allocates for the copy) and consume_skb called from
 *                skb_pp_cow_data (counts calls).
 * Before skb_pp_cow_data, veth's copy (veth_xdp_rcv_skb, alloc_page per
 * page) is counted in pages through mm_page_alloc, with either kind.
 * One witness per process. Its links are fds: nothing outlives the process.
 */
#ifndef ZC_WITNESS_H
#define ZC_WITNESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/libbpf.h>
#include "core/why.h"

struct zc_witness_counts {
	uint64_t copy_ubufs;	/* skb_copy_ubufs: calls or pages, see unit */
	uint64_t pp_cow;	/* veth's XDP copy: see zc_witness_xdp_copy() */
	uint64_t copy_bytes;	/* bytes of copy pages (tracepoint only) */
	/*
	 * The same two, seen in ksoftirqd: receive-side copies deferred
	 * there belong to no process (ours or anyone's traffic).
	 */
	uint64_t softirqd_copy_ubufs;
	uint64_t softirqd_pp_cow;
	uint64_t foreign;	/* copies seen in other processes */
};

/*
 * Load and attach the best witness the kernel allows. Returns 0, or
 * -errno with a one-line reason ("fentry: EPERM; tp_btf: ...") in reason.
 */
int zc_witness_open(struct zc_why *why);
void zc_witness_close(void);
/* "fentry", "tracepoint" or NULL; *reason says why not fentry / why none. */
const char *zc_witness_kind(const char **reason);
/*
 * The function whose copies pp_cow counts (veth's XDP copy):
 * "skb_pp_cow_data", or on kernels before it the veth function that copies
 * ("veth_xdp_rcv_skb"), with *unit "calls" or "pages". NULL when nothing
 * counts them, *why saying why (no probe point on this kernel, ...).
 */
const char *zc_witness_xdp_copy(const char **unit, const char **why);
/*
 * One "# copy witness: ..." line: what is loaded and what it counts, or
 * why none is (off: the caller's own reason for loading none, or NULL).
 */
void zc_witness_report(const char *off);
/* Pause/resume counting (the tracepoint witness costs a stack walk per page). */
void zc_witness_enable(bool on);

/* Counts since open; zeros when not loaded. */
void zc_witness_read(struct zc_witness_counts *c);
void zc_witness_delta(const struct zc_witness_counts *after,
		      const struct zc_witness_counts *before,
		      struct zc_witness_counts *d);
/* sum += d */
void zc_witness_add(struct zc_witness_counts *sum,
		    const struct zc_witness_counts *d);
/* Did the witness see any copy in these counts (this process only)? */
bool zc_witness_copied(const struct zc_witness_counts *c);
/*
 * "witness=tracepoint skb_copy_ubufs=16pg skb_pp_cow_data=0 ..." (the XDP
 * copy named as zc_witness_xdp_copy() says, "xdp_copy=0(n/a)" when not
 * counted) or "witness=none (why)"
 */
int zc_witness_format(const struct zc_witness_counts *c, char *buf, size_t len);


/*
 * For the AF_XDP part (lib/xsk/xsk_witness.c), which loads its own
 * instance of the same object (witness.skel.h): libbpf kept quiet while
 * variants are tried, every program off (each user turns on its own),
 * and the [lo, hi) ranges of fn and its clones as kind (count or -errno).
 */
struct witness;
int zc_witness_silent_print(enum libbpf_print_level level, const char *fmt, va_list ap);
void zc_witness_autoload_none(struct bpf_object *obj);
int zc_witness_add_ranges(struct witness *skel, const char *fn, unsigned int kind);

#endif
