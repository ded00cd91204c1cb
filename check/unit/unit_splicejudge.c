// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the splice copy witness's judgment (lib/sockmap/
 * splice_witness.c): counts recorded from real runs must be judged as
 * the kernel that produced them behaves, and the bounds between the
 * judgments hold. The recorded counts are "# splicemode" lines of
 * sockmap_splice (where each came from is said beside it).
 */
#include <stdlib.h>

#include "core/util.h"
#include "sockmap/splice_witness.h"
#include "unit_tap.h"

struct rec {
	const char *name;
	const char *line;	/* "# splicemode CASE MODE pages=.. ..." */
	enum zc_spl_mode want;
};

static const struct rec recs[] = {
	/* plain TCP on lo, 6.18.44 host, 2026-12-03: tcp_splice_read */
	{ "host_6.18_plain_tcp_referenced",
	  "# splicemode splice_plain_tcp referenced pages=0 allocs=0 bytes=67108864 calls=1026",
	  ZC_SPL_REFERENCED },
	/*
	 * Debian's 6.12.118 source with kpatch/0001-0003 (ingress splice),
	 * TCG guest, 2026-12-03: frag pages into the pipe by reference ...
	 */
	{ "kpatch_6.12_ingress_referenced",
	  "# splicemode splice_ingress referenced pages=0 allocs=0 bytes=67108864 calls=1024",
	  ZC_SPL_REFERENCED },
	{ "kpatch_6.12_eof_referenced",
	  "# splicemode eof_splice referenced pages=0 allocs=0 bytes=777777 calls=12",
	  ZC_SPL_REFERENCED },
	/* ... and a stray page of the kernel's own in a plain TCP splice */
	{ "kpatch_6.12_plain_tcp_one_stray_page",
	  "# splicemode splice_plain_tcp referenced pages=1 allocs=1 bytes=67108864 calls=1040",
	  ZC_SPL_REFERENCED },
	/* ... booted with tcp_bpf.splice_copy=1: every byte in new pages */
	{ "kpatch_6.12_copy_knob_ingress_copied",
	  "# splicemode splice_ingress copied pages=17409 allocs=17409 bytes=67108864 calls=1024",
	  ZC_SPL_COPIED },
	{ "kpatch_6.12_copy_knob_eof_copied",
	  "# splicemode eof_splice copied pages=208 allocs=208 bytes=777777 calls=12",
	  ZC_SPL_COPIED },
};

/* The counts of a recorded line, parsed back. */
static int parse(const char *line, struct zc_spl_counts *c)
{
	static const char *const keys[] = { "pages=", "allocs=", "bytes=", "calls=" };
	uint64_t *vals[] = { &c->pages, &c->allocs, &c->bytes, &c->calls };
	size_t i;

	for (i = 0; i < 4; i++) {
		const char *p = strstr(line, keys[i]);

		if (!p)
			return -1;
		*vals[i] = strtoull(p + strlen(keys[i]), NULL, 10);
	}
	return 0;
}

static void bound(const char *name, uint64_t pages, uint64_t bytes,
		  enum zc_spl_mode want)
{
	struct zc_spl_counts c = { .pages = pages, .bytes = bytes, .calls = 1 };
	char detail[160];

	snprintf(detail, sizeof(detail), "pages=%llu bytes=%llu judged %s, want %s",
		 (unsigned long long)pages, (unsigned long long)bytes,
		 zc_spl_mode_name(zc_spl_judge(&c)), zc_spl_mode_name(want));
	unit_check(zc_spl_judge(&c) == want, name, detail);
}

int main(void)
{
	char buf[200], detail[400];
	struct zc_spl_counts c;
	size_t i;

	for (i = 0; i < ZC_ARRAY_SIZE(recs); i++) {
		int ok = !parse(recs[i].line, &c) && zc_spl_judge(&c) == recs[i].want;

		zc_spl_format(&c, buf, sizeof(buf));
		snprintf(detail, sizeof(detail), "recorded '%s', judged now '%s'",
			 recs[i].line, buf);
		/* The line it prints again is the line recorded. */
		ok = ok && unit_has(recs[i].line, buf);
		snprintf(buf, sizeof(buf), "splicejudge.recorded.%s", recs[i].name);
		unit_check(ok, buf, detail);
	}
	bound("splicejudge.nothing_spliced_is_unseen", 0, 0, ZC_SPL_UNSEEN);
	bound("splicejudge.no_page_is_referenced", 0, 1 << 20, ZC_SPL_REFERENCED);
	bound("splicejudge.a_sixteenth_is_referenced", 16, 1 << 20, ZC_SPL_REFERENCED);
	bound("splicejudge.more_than_a_sixteenth_is_mixed", 17, 1 << 20, ZC_SPL_MIXED);
	bound("splicejudge.below_three_quarters_is_mixed", 191, 1 << 20, ZC_SPL_MIXED);
	bound("splicejudge.three_quarters_is_copied", 192, 1 << 20, ZC_SPL_COPIED);
	bound("splicejudge.a_page_a_page_is_copied", 256, 1 << 20, ZC_SPL_COPIED);
	bound("splicejudge.partial_pages_are_copied", 512, 1 << 20, ZC_SPL_COPIED);
	return unit_done();
}
