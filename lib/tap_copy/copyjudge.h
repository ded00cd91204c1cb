/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Judging zero-copy sends one by one: the kernel's verdict on each send
 * (tests/tap_copy.c reads it from the error queue or the notification)
 * against what the case expects, and against the copy witness
 * (lib/net/witness.h), which sees the copy functions run. A tally of
 * one case's sends, and the judgement against the expectation: facts,
 * the deviation an expected failure covers told from any other. Whether
 * a deviation is expected (veth's XDP copy the kernel's flag does not
 * report) is the row's, decided by the runner.
 */
#ifndef ZC_COPYJUDGE_H
#define ZC_COPYJUDGE_H

#include "net/witness.h"

/*
 * What the witness must see on a copied send (not the witness's own kinds,
 * bpf/witness_abi.h's enum zc_wit_kind: those are what it counts).
 */
enum zc_copy_seen {
	ZC_SEE_COPY_UBUFS,	/* the fallback copy: skb_copy_ubufs */
	ZC_SEE_NO_COPY,		/* copied before zero-copy was tried */
	ZC_SEE_XDP_COPY,	/* veth XDP: skb_pp_cow_data on every send */
};

struct zc_copy_tally {
	enum zc_copy_seen wit;	/* set before the first send */
	long n, zc, copied, kern_bad, wit_bad;
	long wit_copy_sends, wit_cow_sends;	/* sends the witness saw copy */
	struct zc_witness_counts wsum;
	char first_bad[256];	/* the first disagreement, described */
};

/* "copied" or "zerocopy" for a ZC_VERDICT_*. */
const char *zc_verdict_name(int v);
/* Books send i: the kernel said verdict, want was expected, d witnessed. */
void zc_copy_tally_add(struct zc_copy_tally *t, long i, int verdict, int want,
		       const struct zc_witness_counts *d);
/*
 * Every send as expected, the witness agreeing: PASS. Every send the
 * other way, the witness agreeing: FAIL, the one deviation an expected
 * failure (lib/core/runner.h) may cover. A mix, or the witness disagreeing
 * with the kernel: ktap_fail_unexpected, FAIL whatever was expected.
 */
void zc_copy_judge(const char *name, const struct zc_copy_tally *t);

#endif
