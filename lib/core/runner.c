// SPDX-License-Identifier: GPL-2.0
/*
 * The case runner: options, selection, listing, per-case precondition
 * and body, the one decision of each case's status (case_status), and
 * the machine-speed report at the end.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/kmsg.h"
#include "core/runner.h"
#include "core/util.h"

bool zc_case_selected(const struct zc_opts *o, const char *name)
{
	int i;

	if (!o || !o->npatterns)
		return true;
	/* A pattern matches as a glob, or as a plain substring. */
	for (i = 0; i < o->npatterns; i++) {
		if (!fnmatch(o->patterns[i], name, 0))
			return true;
		if (!strpbrk(o->patterns[i], "*?[") &&
		    strstr(name, o->patterns[i]))
			return true;
	}
	return false;
}

static unsigned int count_selected(const struct zc_case *cases, size_t n,
				   const struct zc_opts *o)
{
	unsigned int cnt = 0;
	size_t i;

	for (i = 0; i < n; i++)
		cnt += zc_case_selected(o, cases[i].name);
	return cnt;
}

static int no_case_selected(const struct zc_opts *o)
{
	fprintf(stderr, "%s: no case matches the given -t pattern (try --list)\n",
		o && o->desc ? o->desc->name : "test");
	return ZC_EXIT_USAGE;
}

/* Does the running kernel carry a known bug? Its probe says, or its pattern alone. */
static bool bug_carried(const struct zc_known_bug *b, struct zc_why *why)
{
	zc_why_clear(why);
	if (!b->probe)
		return true;
	return b->probe(why) != 0;
}

/* What the kernel log of a case's window says about the case. */
struct kmsg_finding {
	enum { KMSG_CLEAN, KMSG_KNOWN_BUG, KMSG_STARVED, KMSG_UNKNOWN } kind;
	char reason[512];	/* a known bug's name and first line */
};

/*
 * A splat of one of our threads, or of no task while no other run of
 * the suite was active, belongs to the case; a splat of no task while
 * another run was active cannot be placed and fails the binary (error);
 * another process's splat is only reported. Where stall reports measure
 * the host (zc_starved_blind), a case's stall reports starve it.
 */
static void kmsg_read(const char *name, struct kmsg_finding *f)
{
	const struct zc_known_bug *known = NULL, *b;
	const struct zc_splat *starve = NULL;
	struct zc_splat s[8];
	char sum[512];
	struct zc_why why;
	bool shared, unknown = false, blind = zc_starved_blind();
	enum zc_splat_owner own;
	int n, i;

	n = zc_kmsg_collect(s, ZC_ARRAY_SIZE(s), &shared);
	for (i = 0; i < n && i < (int)ZC_ARRAY_SIZE(s); i++) {
		own = zc_kmsg_owner(&s[i]);
		b = zc_known_bug_match(&s[i]);
		zc_splat_summary(&s[i], sum, sizeof(sum));
		if (own == ZC_SPLAT_OTHER) {
			ktap_print_msg("kmsg: another process's report, not counted: %s", sum);
			continue;
		}
		if (own == ZC_SPLAT_KERNEL && shared) {
			ktap_print_msg("kmsg: cannot be tied to one case (another zc-selftests run was active)%s: %s",
				       b ? ", known bug, not counted" : "", sum);
			if (!b)
				ktap_count_error();
			continue;
		}
		ktap_print_msg("kmsg: %s: %s", name, sum);
		if (b && bug_carried(b, &why)) {
			known = b;
			continue;
		}
		if (b)
			ktap_print_msg("kmsg: %s should not happen here (%s)", b->name, why.msg);
		if (!b && blind && zc_splat_starve(&s[i])) {
			starve = starve ? starve : &s[i];
			continue;
		}
		unknown = true;
	}
	if (n > (int)ZC_ARRAY_SIZE(s)) {
		ktap_print_msg("kmsg: %d more reports in the window", n - (int)ZC_ARRAY_SIZE(s));
		unknown = true;
	}
	/* a known bug beside a stall is no stall alone: it fails as before */
	if (starve && known)
		unknown = true;
	f->kind = unknown ? KMSG_UNKNOWN : starve ? KMSG_STARVED :
		  known ? KMSG_KNOWN_BUG : KMSG_CLEAN;
	if (f->kind == KMSG_KNOWN_BUG)
		snprintf(f->reason, sizeof(f->reason), "known kernel bug %s: %s",
			 known->name, s[0].first);
	if (f->kind == KMSG_STARVED)
		snprintf(f->reason, sizeof(f->reason),
			 "starved: the guest logged a stall report during the case (%.90s); under wall-clock TCG that is how this host ran its vCPUs, not a verdict",
			 starve->first);
}

/* Everything a case's status is decided from. */
struct case_facts {
	const char *name;
	enum zc_pre pre;		/* the precondition's word */
	const char *pre_why;		/* its reason */
	enum zc_class pre_cls;		/* whose its SKIP is */
	const char *xfail;		/* the row's known failure, or NULL */
	struct ktap_body body;		/* what the body reported */
	const char *starved;		/* a wait that ran out of patience, or NULL */
	double paused;			/* seconds this process was not scheduled */
	struct kmsg_finding kmsg;
};

/*
 * A fact the body saw: a known bug's mark on the contract is its XFAIL;
 * the environment or the harness in the way is a SKIP of that class; a
 * case that cannot run here is a SKIP of the class its reason carried
 * (ktap_seen kept it in b->cls; NONE is reported as kernel, as any
 * unstated skip).
 */
static enum ktap_status fact_status(const struct ktap_body *b,
				    enum zc_class *cls)
{
	switch (b->fact) {
	case KTAP_FACT_KNOWN_BUG:
		return KTAP_XFAIL;
	case KTAP_FACT_ENV:
		*cls = ZC_CLASS_ENV;
		return KTAP_SKIP;
	case KTAP_FACT_HARNESS:
		*cls = ZC_CLASS_HARNESS;
		return KTAP_SKIP;
	case KTAP_FACT_CANNOT_RUN:
		*cls = b->cls;
		return KTAP_SKIP;
	default:
		return b->status;
	}
}

/*
 * The one place a case's status, and a SKIP's class, is decided, in
 * this order:
 * - a precondition's SKIP: the body never ran; its class is the
 *   precondition's;
 * - the body's result, or the fact it saw (fact_status; none is a FAIL);
 * - a FAIL while a wait starved, or while this process was not running
 *   (SIGSTOP, a frozen VM), is no verdict on the kernel: SKIP, class
 *   harness (a body's own SKIP keeps the class it gave);
 * - an expected failure (the precondition's ZC_XFAIL, else the row's
 *   xfail) turns FAIL into XFAIL and PASS into XPASS, but not a failure
 *   the body reported as unexpected (ktap_fail_unexpected);
 * - the kernel log last: a splat that is no known bug fails the case, a
 *   known bug carried by this kernel makes any other status XFAIL; stall
 *   reports alone, where they measure the host (wall-clock TCG), make it
 *   a SKIP of class harness whatever the body said.
 */
static enum ktap_status case_status(const struct case_facts *f,
				    char *reason, size_t len,
				    enum zc_class *cls)
{
	enum ktap_status st = f->body.status;
	const char *expected = f->pre == ZC_XFAIL ? f->pre_why : f->xfail;

	reason[0] = '\0';
	*cls = f->body.cls;
	if (f->pre == ZC_SKIP) {
		snprintf(reason, len, "%s", f->pre_why);
		*cls = f->pre_cls;
		return KTAP_SKIP;
	}
	if (f->body.fact != KTAP_FACT_NONE)
		st = fact_status(&f->body, cls);
	if (st == KTAP_NONE) {
		ktap_print_msg("%s: case reported no result", f->name);
		st = KTAP_FAIL;
	}
	snprintf(reason, len, "%s", f->body.reason);
	if (st == KTAP_FAIL && f->starved) {
		snprintf(reason, len,
			 "starved: a wait of the case was %s: this machine is too slow or loaded for %s, not the kernel's",
			 f->starved, f->name);
		st = KTAP_SKIP;
		*cls = ZC_CLASS_HARNESS;
	} else if (st == KTAP_FAIL && f->paused > 0) {
		snprintf(reason, len,
			 "harness stall: this test process was not scheduled for %.1f s during the case (stopped, or a frozen or starved machine), not the kernel's",
			 f->paused);
		st = KTAP_SKIP;
		*cls = ZC_CLASS_HARNESS;
	}
	if (expected && st == KTAP_FAIL && f->body.unexpected) {
		ktap_print_msg("%s: not the expected failure (%s)", f->name, expected);
	} else if (expected && (st == KTAP_FAIL || st == KTAP_PASS)) {
		snprintf(reason, len, "%s", expected);
		st = st == KTAP_FAIL ? KTAP_XFAIL : KTAP_XPASS;
	}
	if (f->kmsg.kind == KMSG_UNKNOWN) {
		reason[0] = '\0';
		st = KTAP_FAIL;
	} else if (f->kmsg.kind == KMSG_STARVED) {
		snprintf(reason, len, "%s", f->kmsg.reason);
		st = KTAP_SKIP;
		*cls = ZC_CLASS_HARNESS;
	} else if (f->kmsg.kind == KMSG_KNOWN_BUG && st != KTAP_FAIL) {
		snprintf(reason, len, "%s", f->kmsg.reason);
		st = KTAP_XFAIL;
	}
	return st;
}

static void run_case(const struct zc_case *c, void *ctx, bool watch)
{
	struct case_facts f = { .name = c->name, .pre = ZC_RUN, .xfail = c->xfail };
	struct zc_why why = { "" };
	char note[160], reason[512];
	unsigned int starved;
	enum ktap_status st;
	enum zc_class cls;

	if (c->pre)
		f.pre = c->pre(c, ctx, &why);
	f.pre_why = why.msg;
	f.pre_cls = why.cls;
	if (f.pre != ZC_SKIP) {
		f.paused = zc_paused_s();
		starved = zc_starved_count(NULL, 0);
		ktap_body_begin();
		c->fn(c, ctx);
		ktap_body_end(&f.body);
		if (f.body.extra)
			ktap_count_error();
		f.paused = zc_paused_s() - f.paused;
		if (zc_starved_count(note, sizeof(note)) != starved)
			f.starved = note;
		if (watch)
			kmsg_read(c->name, &f.kmsg);
	}
	st = case_status(&f, reason, sizeof(reason), &cls);
	ktap_report(c->name, st, reason, cls);
}

int zc_run_cases(const struct zc_case *cases, size_t n,
		 const struct zc_opts *o, void *ctx)
{
	unsigned int planned = count_selected(cases, n, o);
	bool watch;
	size_t i;

	if (!planned)
		return no_case_selected(o);
	watch = zc_kmsg_start();
	zc_kmsg_settle_gp(o && o->desc ? o->desc->settle_gp : 0);
	zc_pause_watch();
	ktap_header();
	ktap_plan(planned);
	for (i = 0; i < n; i++)
		if (zc_case_selected(o, cases[i].name))
			run_case(&cases[i], ctx, watch);
	if (o && o->desc)
		zc_report_calibration(o->desc->name);
	if (watch) {
		/* The runner looks at what comes after, once we have exited. */
		ktap_print_msg("kmsg: watched to seq %llu", zc_kmsg_last_seq());
		zc_kmsg_stop();
	}
	return ktap_finish();
}

static void list_cases(const struct zc_test *t, const struct zc_opts *o)
{
	size_t i;

	for (i = 0; i < t->ncases; i++)
		if (zc_case_selected(o, t->cases[i].name))
			printf("%s\n", t->cases[i].name);
}

/*
 * Every selected case skipped for one reason (the probe's, or setup's),
 * the whole binary's class said first.
 */
static int skip_cases(const struct zc_test *t, const struct zc_opts *o,
		      const struct zc_why *why)
{
	unsigned int planned = count_selected(t->cases, t->ncases, o);
	size_t i;

	if (!planned)
		return no_case_selected(o);
	ktap_header();
	ktap_skip_class("*", why->cls);
	ktap_plan(planned);
	for (i = 0; i < t->ncases; i++)
		if (zc_case_selected(o, t->cases[i].name))
			ktap_skip_why(t->cases[i].name, why);
	return ktap_finish();
}

int zc_mode_with_setup(const struct zc_test *t, void *ctx, const char *opt,
		       int (*fn)(void *ctx, struct zc_why *why))
{
	const char *name = t->desc->name;
	struct zc_why why = { "" };
	int ret;

	if (t->probe && t->probe(ctx, &why)) {
		fprintf(stderr, "%s: %s: %s\n", name, opt, why.msg);
		return KSFT_SKIP;
	}
	zc_raise_limits();
	ret = t->setup ? t->setup(ctx, &why) : 0;
	if (!ret)
		ret = fn(ctx, &why);
	if (t->teardown)
		t->teardown(ctx);
	if (ret == KSFT_SKIP && why.msg[0]) {
		fprintf(stderr, "%s: %s: %s\n", name, opt, why.msg);
		return KSFT_SKIP;
	}
	if (ret < 0)
		ktap_exit_fail_msg("%s: %s: %s", name, opt, why.msg);
	return ret;
}

int zc_main(const struct zc_test *t, int argc, char **argv,
	    struct zc_opts *o, void *ctx)
{
	struct zc_why why = { "" };
	long nofile;
	int ret;

	zc_opts_parse_or_exit(o, argc, argv, t->desc, ctx);
	if (t->check_opts && t->check_opts(ctx, &why)) {
		fprintf(stderr, "%s: %s (try --help)\n", t->desc->name, why.msg);
		return ZC_EXIT_USAGE;
	}
	if (t->mode) {
		ret = t->mode(ctx);
		if (ret >= 0)
			return ret;
	}
	if (o->list) {
		list_cases(t, o);
		return KSFT_PASS;
	}
	/*
	 * A pattern that selects nothing is the caller's mistake: said
	 * before the probe and the set-up spend seconds on namespaces and
	 * BPF programs for no case.
	 */
	if (!count_selected(t->cases, t->ncases, o))
		return no_case_selected(o);
	if (t->probe && t->probe(ctx, &why))
		return skip_cases(t, o, &why);
	nofile = zc_raise_limits();
	if (nofile >= 0 && nofile < ZC_NOFILE_MIN) {
		zc_why_skip(&why, ZC_CLASS_ENV,
			    "open files limit RLIMIT_NOFILE is %ld and cannot be raised (no CAP_SYS_RESOURCE): the harness needs %d (ulimit -n)",
			    nofile, ZC_NOFILE_MIN);
		return skip_cases(t, o, &why);
	}
	ret = t->setup ? t->setup(ctx, &why) : 0;
	if (ret == KSFT_SKIP) {
		ret = skip_cases(t, o, &why);
	} else if (ret) {
		if (t->teardown)
			t->teardown(ctx);
		ktap_exit_fail_msg("%s: %s", t->desc->name, why.msg);
	} else {
		ret = zc_run_cases(t->cases, t->ncases, o, ctx);
	}
	if (t->teardown)
		t->teardown(ctx);
	return ret;
}
