/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP segments that overlap what the receiver already has, seen and made
 * on the sockmap topology's lo (bpf/tcp_overlap.bpf.c). A segment that
 * begins below the receiver's rcv_nxt and ends above it is queued whole;
 * tcp_recvmsg skips its head by sequence number, tcp_read_skb (the
 * sockmap verdict's reader) hands the whole skb on.
 */
#ifndef ZC_SM_OVERLAP_H
#define ZC_SM_OVERLAP_H

#include <stdint.h>

#include "sockmap/sockmap.h"
#include "core/why.h"

struct tcp_overlap;	/* the skeleton of bpf/tcp_overlap.bpf.c */

struct zc_sm_overlap {
	struct tcp_overlap *skel;
};

struct zc_sm_overlap_counts {
	uint64_t data_segs;
	uint64_t overlaps;	/* began below the highest end seen at lo */
	uint64_t overlap_last;	/* its bytes below that end */
	uint64_t repeats;	/* wholly below it: sent again whole */
	uint64_t splits;	/* sent again, ending inside an earlier one */
	uint64_t split_last;	/* bytes of that one it covered */
	uint64_t dropped_data, dropped_acks;
};

/* Watch c1 -> p1 at t's lo ingress; 0 or -errno. */
int zc_sm_overlap_attach(struct zc_sm_overlap *o, const struct zc_sm_topo *t);
void zc_sm_overlap_detach(struct zc_sm_overlap *o);
void zc_sm_overlap_read(const struct zc_sm_overlap *o,
			struct zc_sm_overlap_counts *n);

/* What zc_sm_overlap_force saw. */
struct zc_sm_overlap_run {
	struct zc_sm_overlap_counts n;
	int sent;		/* bytes written into c1 */
	int got;		/* bytes the consumer gave read(2) */
	unsigned char rx[4096];
};

#define ZC_SM_OVERLAP_HEAD	700	/* the write the receiver has twice */
#define ZC_SM_OVERLAP_TAIL	1000	/* the write lost once */

/*
 * Make one: c1 writes HEAD bytes (p1 gets them, its ACK is dropped) and
 * TAIL bytes (dropped), so c1's retransmission timer sends both as one
 * segment that overlaps p1's rcv_nxt by HEAD. Everything the topology's
 * consumer (t->rx) gives read(2) is kept in r->rx. 0, or -1 with why;
 * r->n.overlaps 0: the sender never made the overlapping segment.
 */
int zc_sm_overlap_force(const unsigned char *pattern, struct zc_sm_topo *t,
			struct zc_sm_overlap_run *r, struct zc_why *why);

#endif
