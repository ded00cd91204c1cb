// SPDX-License-Identifier: GPL-2.0
/* Wrong bytes of a sockmap stream traced back to its pattern, see slip.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sockmap/slip.h"

#define KEY_BYTES	16	/* a run is found in the pattern by this many */

/* The pattern: its ring, the ring's period, the producer's write size. */
struct pat {
	const unsigned char *ring;
	size_t period, chunk;
};

static bool at_pattern(const struct pat *p, const unsigned char *b,
		       size_t n, uint64_t off)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != p->ring[(off + i) % p->period])
			return false;
	return true;
}

/* The stream offset whose pattern bytes got holds, nearest to at; -1: none. */
static int64_t find_source(const struct pat *p, uint64_t at,
			   const unsigned char *got, size_t n)
{
	const unsigned char *hit;
	int64_t q, best = -1;
	int k;

	/* The ring holds chunk bytes past the period: matches across its end. */
	hit = memmem(p->ring, p->period + (n - 1 < p->chunk ? n - 1 : p->chunk),
		     got, n);
	if (!hit)
		return -1;
	q = hit - p->ring;
	/* Of the offsets with these bytes, the nearest to where they came. */
	for (k = -1; k <= 1; k++) {
		int64_t cand = (int64_t)(at - at % p->period) + q +
			       k * (int64_t)p->period;

		if (cand >= 0 && (best < 0 ||
				  llabs(cand - (int64_t)at) < llabs(best - (int64_t)at)))
			best = cand;
	}
	return best;
}

void zc_sm_describe_slip(const unsigned char *ring, size_t period,
			 size_t chunk, uint64_t off,
			 const unsigned char *got, size_t n, int before,
			 struct zc_sm_slip *s, char *buf, size_t len)
{
	const struct pat pp = { ring, period, chunk }, *pat = &pp;
	const unsigned char *g = got + before;
	size_t pos = 0, k, gn = n - before;
	char hex_want[3 * 12 + 1] = "", hex_got[3 * 12 + 1] = "", runs[256] = "";
	int64_t d;
	int i, w;

	memset(s, 0, sizeof(*s));
	s->slip_at = off;
	while (pos < gn && s->nseg < ZC_SM_SLIP_SEGS) {
		uint64_t at = off + pos;
		size_t key = gn - pos < KEY_BYTES ? gn - pos : KEY_BYTES;
		int64_t src = find_source(pat, at, g + pos, key);

		s->seg[s->nseg].at = at;
		s->seg[s->nseg].src = src;
		if (src < 0) {
			/* Not the pattern: up to where the stream is in place again. */
			for (k = pos + 1; k + KEY_BYTES <= gn; k++)
				if (at_pattern(pat, g + k, KEY_BYTES, off + k))
					break;
			if (k + KEY_BYTES > gn)
				k = gn;
		} else {
			for (k = pos; k < gn &&
			     g[k] == pat->ring[(src + k - pos) % pat->period]; k++)
				;
		}
		s->seg[s->nseg++].len = k - pos;
		pos = k;
	}
	/*
	 * A run that belongs elsewhere may begin a byte or two before the
	 * first wrong one, where its bytes happen to equal the expected.
	 */
	if (s->seg[0].src > 0) {
		for (i = 1; i <= before && s->seg[0].src >= i &&
		     g[-i] == pat->ring[(s->seg[0].src - i) % pat->period]; i++)
			;
		s->slip_at = off - (i - 1);
	}
	d = s->seg[0].src - (int64_t)s->seg[0].at;
	if (s->seg[0].src < 0) {
		s->kind = s->nseg > 1 && s->seg[1].src == (int64_t)s->seg[1].at ?
			"corrupted in place: bytes that are not the pattern, then the stream goes on where it was" :
			"not the pattern: foreign or corrupted bytes";
	} else if (s->nseg > 1 && s->seg[1].src == (int64_t)s->seg[1].at) {
		/* Nothing lost or repeated: other bytes stand in for these. */
		s->kind = d > 0 ?
			"overwritten in place: bytes from later in the stream (a buffer reused too early?), then the stream goes on where it was" :
			"overwritten in place: bytes from earlier in the stream, then the stream goes on where it was";
	} else if (d > 0) {
		s->kind = "missing: the stream jumped ahead";
		for (i = 1; i < s->nseg; i++)
			if (s->seg[i].src >= 0 && s->seg[i].src < s->seg[0].src) {
				s->kind = "reordered: later bytes came first, the skipped ones after them";
				s->back_at = s->seg[i].at;
				break;
			}
	} else {
		s->kind = "repeated: bytes already received came again";
	}
	for (i = 0; i < 12 && (size_t)i < gn; i++) {
		snprintf(hex_want + 3 * i, 4, " %02x",
			 pat->ring[(off + i) % pat->period]);
		snprintf(hex_got + 3 * i, 4, " %02x", g[i]);
	}
	for (i = 0, w = 0; i < s->nseg && w < (int)sizeof(runs); i++) {
		if (s->seg[i].src < 0)
			w += snprintf(runs + w, sizeof(runs) - w, "%s%zu B not pattern",
				      i ? ", " : "", s->seg[i].len);
		else
			w += snprintf(runs + w, sizeof(runs) - w, "%s%zu B of %lld (%+lld)",
				      i ? ", " : "", s->seg[i].len,
				      (long long)s->seg[i].src,
				      (long long)(s->seg[i].src - (int64_t)s->seg[i].at));
	}
	snprintf(buf, len, "expected%s, received%s; %s; from offset %llu (%llu B past a multiple of the %zu-byte write size) the %zu bytes received are: %s%s",
		 hex_want, hex_got, s->kind, (unsigned long long)s->slip_at,
		 (unsigned long long)(s->slip_at % pat->chunk), pat->chunk,
		 gn + (off - s->slip_at), runs,
		 pos < gn ? ", ..." : "");
}

long zc_sm_slip_repeats(const struct zc_sm_slip *s, long unit)
{
	int64_t d;

	if (!s->nseg || s->seg[0].src < 0 || unit <= 0)
		return 0;
	d = (int64_t)s->seg[0].at - s->seg[0].src;
	return d > 0 && d % unit == 0 ? d / unit : 0;
}
