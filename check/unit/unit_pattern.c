// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/core/util's data pattern: a byte's value depends on
 * its offset alone, whichever way a buffer cuts the stream (on a block
 * boundary or mid-block, as TCP reads and datagrams past their sequence
 * number do), and the pattern in memory is the same on every host: on
 * big-endian s390x the 8-byte blocks once lay in host order while the
 * bytes of a cut block were numbered little-endian, and every check that
 * began mid-block failed there. No root.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "unit_tap.h"

#define SEED	0x5eedULL
#define LEN	200

/* The stream [0, LEN) filled in one piece. */
static unsigned char whole[LEN];

/* Cut at every offset and length: each piece matches the whole stream. */
static int pieces_match(char *detail, size_t len)
{
	unsigned char buf[LEN];
	size_t off, n;
	long bad;

	for (off = 0; off < 24; off++) {
		for (n = 1; off + n <= LEN; n += 7) {
			zc_pattern_fill(buf, n, SEED, off);
			if (memcmp(buf, whole + off, n)) {
				snprintf(detail, len, "fill of %zu bytes at %zu differs from the whole stream",
					 n, off);
				return 0;
			}
			bad = zc_pattern_check(whole + off, n, SEED, off);
			if (bad >= 0) {
				snprintf(detail, len, "check of %zu bytes at %zu: bad byte %ld",
					 n, off, bad);
				return 0;
			}
		}
	}
	return 1;
}

/*
 * The same bytes on every host: a block's bytes are its word's, least
 * significant first. The word comes from a one-byte fill at each
 * position (the byte path) and must equal the block path's bytes.
 */
static int byte_order_fixed(char *detail, size_t len)
{
	unsigned char one;
	size_t i;

	for (i = 0; i < 64; i++) {
		zc_pattern_fill(&one, 1, SEED, i);
		if (one != whole[i]) {
			snprintf(detail, len, "byte %zu: %#x alone, %#x in a block", i, one,
				 whole[i]);
			return 0;
		}
	}
	return 1;
}

int main(void)
{
	char detail[160] = "";
	unsigned char other[LEN];
	int ok;

	printf("TAP version 13\n");
	zc_pattern_fill(whole, LEN, SEED, 0);
	ok = pieces_match(detail, sizeof(detail));
	unit_check(ok, "pattern.any_cut_matches_the_stream", detail);
	ok = byte_order_fixed(detail, sizeof(detail));
	unit_check(ok, "pattern.block_bytes_least_significant_first", detail);
	zc_pattern_fill(other, LEN, SEED + 1, 0);
	unit_check(memcmp(other, whole, LEN) && zc_pattern_check(other, LEN, SEED, 0) >= 0,
		   "pattern.another_seed_is_caught", "a second seed gave the same bytes");
	return unit_done();
}
