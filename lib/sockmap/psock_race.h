/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A race between the psock backlog work, which charges a socket's
 * forward-alloc without its socket lock, and a reader of that socket,
 * which uncharges under it (sockmap_splice's psock_teardown_warn).
 * ZC_PR_PAIRS ingress-redirect topologies run at once on swapped CPUs:
 * in each, a producer writes ZC_PR_CHUNK bytes at a time into c1 with
 * TCP_NODELAY (one skb each, so the work charges c2 very often) and a
 * reader thread pinned to the other CPU spins on c2 without sleeping.
 * Under qemu TCG one such pair lost an update in 0 of 5 runs on 6.18,
 * two pairs in 5 of 5.
 */
#ifndef ZC_PSOCK_RACE_H
#define ZC_PSOCK_RACE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "sockmap/sockmap.h"
#include "sockmap/sockmap_stream.h"
#include "core/why.h"

#define ZC_PR_PAIRS	2
#define ZC_PR_CHUNK	4096	/* per write: one skb each */

struct zc_pr_pair {
	struct zc_sm_topo t;
	struct zc_sm_producer p;
	struct zc_sm_pattern pat;	/* the caller's ring, this pair's CPU and chunk */
	pthread_t reader;
	bool reading;
	int cpu_rx;
	unsigned char *buf;	/* the reader's, the caller's chunk long */
	size_t buf_len;
	uint64_t bytes;		/* per round */
	long ret;		/* the reader's: 0 or -errno */
};

struct zc_psock_race {
	struct zc_pr_pair pair[ZC_PR_PAIRS];
};

/*
 * Pair 0 produces on cpu_a and reads on cpu_b, pair 1 the reverse; each
 * consumer gets rcvbuf by SO_RCVBUFFORCE. pat's ring must outlive r.
 */
int zc_psock_race_open(struct zc_psock_race *r, const struct zc_sm_pattern *pat,
		       int cpu_a, int cpu_b, long rcvbuf, uint64_t bytes,
		       struct zc_why *why);
/* One round: bytes through every pair at once, all read. */
int zc_psock_race_round(struct zc_psock_race *r, struct zc_why *why);
/* Closes c2 of each pair first: its psock work frees it. */
void zc_psock_race_close(struct zc_psock_race *r);

#endif
