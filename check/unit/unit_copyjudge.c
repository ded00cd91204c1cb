// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tap_copy's judge (tests/tap_copy.c, compiled here with
 * its main renamed): a case's sends tallied and judged against what the
 * row expects. Every send as expected: PASS; every send
 * the other way: FAIL, the one deviation an expected failure may cover;
 * a mix: FAIL that no expected failure covers (ktap_fail_unexpected).
 * Whether a FAIL was expected is the row's (the runner decides). A path
 * the kernel refuses to set up (XDP) is a fact, not a status.
 * With no witness open (no root here) the witness takes no part; the
 * live checks judge with it.
 */
#include "unit_tap.h"

#define main tap_copy_main
#include "tests/tap_copy.c"
#undef main

#define SENDS	8

/* Judges SENDS sends (copied: how many the kernel called copied). */
static enum ktap_status judge_seen(enum seen wit, int want, int copied,
				   bool *unexpected, struct tally *t)
{
	struct zc_witness_counts none = { 0 };
	struct ktap_body b;
	long i;

	memset(t, 0, sizeof(*t));
	t->wit = wit;
	for (i = 0; i < SENDS; i++)
		tally_add(t, i, i < copied ? ZC_VERDICT_COPIED :
			  ZC_VERDICT_ZEROCOPY, want, &none);
	ktap_body_begin();
	judge("judged", t);
	ktap_body_end(&b);
	*unexpected = b.unexpected;
	return b.status;
}

static enum ktap_status judge_ubufs(int want, int copied, bool *unexpected,
				    struct tally *t)
{
	return judge_seen(SEE_COPY_UBUFS, want, copied, unexpected, t);
}

/* What the body reports when its path could not be set up. */
static struct ktap_body open_body(const struct zc_why *why)
{
	struct ktap_body b;

	ktap_body_begin();
	open_failed("opened", why);
	ktap_body_end(&b);
	return b;
}

/*
 * XDP refused on the test's own device (EOPNOTSUPP, EINVAL) is the
 * kernel's: a fact that the case cannot run, SKIP of class kernel by
 * case_status(); any other errno, and any other reason, a FAIL.
 */
static void check_open_failed(void)
{
	static struct ctx ctx = { .sink.t.b.ifname = "zcb", .drv_b = "veth" };
	struct zc_why why = { "" };
	struct ktap_body b;

	xdp_failed(&ctx, -EOPNOTSUPP, &why);
	b = open_body(&why);
	unit_check(b.fact == KTAP_FACT_CANNOT_RUN && b.cls == ZC_CLASS_KERNEL &&
		   unit_has(b.reason, "zcb (veth)"),
		   "copyjudge.xdp_refused_is_the_kernel_cannot_run", b.reason);
	xdp_failed(&ctx, -EINVAL, &why);
	b = open_body(&why);
	unit_check(b.fact == KTAP_FACT_CANNOT_RUN && b.cls == ZC_CLASS_KERNEL,
		   "copyjudge.xdp_einval_is_the_kernel_cannot_run", b.reason);
	xdp_failed(&ctx, -ENOMEM, &why);
	b = open_body(&why);
	unit_check(b.fact == KTAP_FACT_NONE && b.status == KTAP_FAIL,
		   "copyjudge.xdp_other_errno_fails", b.reason);
	zc_why_set(&why, "connect: %s", strerror(ECONNREFUSED));
	b = open_body(&why);
	unit_check(b.fact == KTAP_FACT_NONE && b.status == KTAP_FAIL,
		   "copyjudge.other_open_failure_fails", b.reason);
}

int main(void)
{
	struct tally t;
	bool unexp;
	enum ktap_status st;
	FILE *sink = fopen("/dev/null", "w");

	if (!sink) {
		printf("1..0 # SKIP no /dev/null\n");
		return 0;
	}
	ktap_set_output(sink);

	st = judge_ubufs(ZC_VERDICT_ZEROCOPY, 0, &unexp, &t);
	unit_check(st == KTAP_PASS && !unexp && t.zc == SENDS && !t.kern_bad,
		   "copyjudge.all_zerocopy_as_expected_passes", t.first_bad);
	st = judge_ubufs(ZC_VERDICT_COPIED, SENDS, &unexp, &t);
	unit_check(st == KTAP_PASS && !unexp && t.copied == SENDS,
		   "copyjudge.all_copied_as_expected_passes", t.first_bad);
	st = judge_ubufs(ZC_VERDICT_ZEROCOPY, SENDS, &unexp, &t);
	unit_check(st == KTAP_FAIL && !unexp && t.kern_bad == SENDS,
		   "copyjudge.all_the_other_way_is_the_deviation", t.first_bad);
	st = judge_ubufs(ZC_VERDICT_ZEROCOPY, SENDS / 2, &unexp, &t);
	unit_check(st == KTAP_FAIL && unexp && t.kern_bad == SENDS / 2 &&
		   unit_has(t.first_bad, "0"),
		   "copyjudge.a_mix_is_unexpected", t.first_bad);
	/*
	 * veth under XDP: the row wants copied; the kernel's zero-copy flag
	 * on every send is a plain FAIL the row's expected failure covers.
	 */
	st = judge_seen(SEE_XDP_COPY, ZC_VERDICT_COPIED, 0, &unexp, &t);
	unit_check(st == KTAP_FAIL && !unexp && t.zc == SENDS,
		   "copyjudge.xdp_hidden_copy_is_the_deviation", t.first_bad);
	st = judge_seen(SEE_XDP_COPY, ZC_VERDICT_COPIED, SENDS, &unexp, &t);
	unit_check(st == KTAP_PASS && !unexp,
		   "copyjudge.xdp_copy_reported_passes", t.first_bad);
	unit_check(!strcmp(verdict_name(ZC_VERDICT_COPIED), "copied") &&
		   !strcmp(verdict_name(ZC_VERDICT_ZEROCOPY), "zerocopy"),
		   "copyjudge.verdict_names", NULL);
	check_open_failed();
	ktap_set_output(stdout);
	fclose(sink);
	return unit_done();
}
