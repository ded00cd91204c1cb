// SPDX-License-Identifier: GPL-2.0
/* Per-send copy verdicts against the copy witness (copyjudge.h). */
#include <stdio.h>
#include <string.h>

#include "tap_copy/copyjudge.h"
#include "core/ktap.h"
#include "send/zcsend.h"

const char *zc_verdict_name(int v)
{
	return v == ZC_VERDICT_COPIED ? "copied" : "zerocopy";
}

static void note_bad(struct zc_copy_tally *t, const char *fmt, long i,
		     const char *a, const char *b,
		     const struct zc_witness_counts *d)
{
	char w[200];

	if (t->first_bad[0])
		return;
	zc_witness_format(d, w, sizeof(w));
	snprintf(t->first_bad, sizeof(t->first_bad), fmt, i, a, b);
	snprintf(t->first_bad + strlen(t->first_bad),
		 sizeof(t->first_bad) - strlen(t->first_bad), " (%s)", w);
}

/* Copies seen for this process, or in ksoftirqd (deferred receive work). */
static uint64_t seen_copy_ubufs(const struct zc_witness_counts *d)
{
	return d->copy_ubufs + d->softirqd_copy_ubufs;
}

static uint64_t seen_pp_cow(const struct zc_witness_counts *d)
{
	return d->pp_cow + d->softirqd_pp_cow;
}

/*
 * Does the witness agree with the kernel's verdict on one send? A copied
 * send must show the function the case names; a zero-copy send nothing,
 * except under XDP where veth copies (skb_pp_cow_data, or inline before
 * 6.8) every time: where the witness cannot count that copy, it must at
 * least see no skb_copy_ubufs.
 */
static bool witness_agrees(enum zc_copy_seen wit, int verdict,
			   const struct zc_witness_counts *d)
{
	if (!zc_witness_kind(NULL))
		return true;
	switch (wit) {
	case ZC_SEE_XDP_COPY:
		if (!zc_witness_xdp_copy(NULL, NULL))
			return !d->copy_ubufs;
		return seen_pp_cow(d) && !d->copy_ubufs;
	case ZC_SEE_NO_COPY:
		return !zc_witness_copied(d);
	case ZC_SEE_COPY_UBUFS:
	default:
		if (verdict == ZC_VERDICT_COPIED)
			return seen_copy_ubufs(d) && !d->pp_cow;
		return !zc_witness_copied(d);
	}
}

/* What the witness should have seen on a send with this verdict. */
static const char *wit_want(enum zc_copy_seen wit, int verdict)
{
	const char *fn;

	if (wit == ZC_SEE_XDP_COPY) {
		fn = zc_witness_xdp_copy(NULL, NULL);
		return fn ? fn : "no skb_copy_ubufs";
	}
	if (wit == ZC_SEE_COPY_UBUFS && verdict == ZC_VERDICT_COPIED)
		return "skb_copy_ubufs";
	return "no copy";
}

void zc_copy_tally_add(struct zc_copy_tally *t, long i, int verdict, int want,
		       const struct zc_witness_counts *d)
{
	zc_witness_add(&t->wsum, d);
	t->n++;
	t->wit_copy_sends += seen_copy_ubufs(d) > 0;
	t->wit_cow_sends += seen_pp_cow(d) > 0;
	if (verdict == ZC_VERDICT_COPIED)
		t->copied++;
	else
		t->zc++;
	if (verdict != want) {
		t->kern_bad++;
		note_bad(t, "send %ld: kernel says %s, expected %s", i,
			 zc_verdict_name(verdict), zc_verdict_name(want), d);
	}
	if (!witness_agrees(t->wit, verdict, d)) {
		t->wit_bad++;
		note_bad(t, "send %ld: witness disagrees with the kernel's %s, wants %s", i,
			 zc_verdict_name(verdict), wit_want(t->wit, verdict), d);
	}
}

void zc_copy_judge(const char *name, const struct zc_copy_tally *t)
{
	if (!t->kern_bad && !t->wit_bad) {
		ktap_pass(name);
		return;
	}
	if (t->wit_bad || t->kern_bad != t->n)
		ktap_fail_unexpected(name,
				     "%ld kernel mismatches, %ld witness disagreements; first: %s",
				     t->kern_bad, t->wit_bad, t->first_bad);
	else
		ktap_fail(name, "%ld kernel mismatches, %ld witness disagreements; first: %s",
			  t->kern_bad, t->wit_bad, t->first_bad);
}
