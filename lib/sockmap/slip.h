/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a sockmap stream received instead of its pattern: each run of the
 * wrong bytes traced back to the stream offset it belongs to, so a
 * failure line says whether bytes went missing, came twice, came late or
 * are not the pattern at all (an offset slip in the kernel's queues, or
 * corruption).
 */
#ifndef ZC_SOCKMAP_SLIP_H
#define ZC_SOCKMAP_SLIP_H

#include <stddef.h>
#include <stdint.h>

/* Up to ZC_SM_SLIP_SEGS runs of received bytes, each traced to the pattern. */
#define ZC_SM_SLIP_SEGS	4

struct zc_sm_slip {
	uint64_t slip_at;	/* where the runs part from the pattern */
	int nseg;
	struct {
		uint64_t at;	/* stream offset where the run was received */
		int64_t src;	/* stream offset it belongs to; -1: not pattern */
		size_t len;
	} seg[ZC_SM_SLIP_SEGS];
	const char *kind;	/* what the runs say happened */
	uint64_t back_at;	/* "reordered": where the missing bytes came */
};

/*
 * Trace got (n bytes received from stream offset off - before on,
 * got[before] the first wrong one, at off) back to the pattern in ring
 * (period bytes, then its first chunk bytes again; chunk: the producer's
 * write size): which offset each run of it belongs to and what that makes it: bytes missing,
 * repeated, reordered, corrupted in place, or not the pattern at all. A
 * summary for a TAP line goes to buf.
 */
void zc_sm_describe_slip(const unsigned char *ring, size_t period,
			 size_t chunk, uint64_t off,
			 const unsigned char *got, size_t n, int before,
			 struct zc_sm_slip *s, char *buf, size_t len);

/*
 * How many whole units of unit bytes (a TCP segment) the first run of s
 * repeats: received again from that many units back; 0 when it is not
 * such a repeat.
 */
long zc_sm_slip_repeats(const struct zc_sm_slip *s, long unit);

#endif
