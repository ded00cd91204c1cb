// SPDX-License-Identifier: GPL-2.0
/*
 * The case runner: options, selection, listing, per-case precondition,
 * setup, body, teardown and time limit, the kernel log verdict of each
 * case's window, and the machine-speed report at the end.
 */
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/*
 * The kernel log of a case's window decides with the case: a splat of
 * one of our threads, or of no task while no other run of the suite was
 * active, belongs to the case; a splat of no task while another run was
 * active cannot be placed and fails the binary (error); another
 * process's splat is only reported.
 */
static void kmsg_verdict(const char *name)
{
	const struct zc_known_bug *known = NULL, *b;
	struct zc_splat s[8];
	char sum[512], reason[512];
	struct zc_why why;
	bool shared, unknown = false;
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
		unknown = true;
	}
	if (n > (int)ZC_ARRAY_SIZE(s)) {
		ktap_print_msg("kmsg: %d more reports in the window", n - (int)ZC_ARRAY_SIZE(s));
		unknown = true;
	}
	if (unknown) {
		ktap_hold_change(KTAP_FAIL, NULL);
	} else if (known && ktap_held() != KTAP_FAIL) {
		snprintf(reason, sizeof(reason), "known kernel bug %s: %s",
			 known->name, s[0].first);
		ktap_hold_change(KTAP_XFAIL, reason);
	}
}

/*
 * An expected failure turns FAIL into XFAIL and PASS into XPASS; a
 * failure the body reported as unexpected (ktap_fail_unexpected) is not
 * the one expected and stays FAIL.
 */
static void expect_failure(const char *name, const char *reason)
{
	enum ktap_status st = ktap_held();

	if (st == KTAP_FAIL && ktap_held_unexpected())
		ktap_print_msg("%s: not the expected failure (%s)", name, reason);
	else if (st == KTAP_FAIL)
		ktap_hold_change(KTAP_XFAIL, reason);
	else if (st == KTAP_PASS)
		ktap_hold_change(KTAP_XPASS, reason);
}

/*
 * A case's time limit is kept by a watchdog thread, not a signal
 * handler: printing the verdict and running the exit cleanups (every
 * namespace and program) is not async-signal-safe, but is safe from a
 * thread of its own while the hung body sleeps in the kernel.
 */
struct watchdog {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	bool done;
	bool armed;
	const struct zc_case *c;
};

static struct watchdog wd = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * A case past its limit is hung in the kernel or in a loop that is not
 * bounded: name it, then leave through exit() so the cleanups still run.
 */
static void *watchdog_fn(void *arg)
{
	struct timespec end;
	bool done;
	int ret = 0;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += wd.c->timeout;
	pthread_mutex_lock(&wd.lock);
	while (!wd.done && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&wd.done_cond, &wd.lock, &end);
	done = wd.done;
	pthread_mutex_unlock(&wd.lock);
	if (done)
		return NULL;
	ktap_hold_release();
	ktap_fail(wd.c->name, "%s: timed out after %u s", wd.c->name,
		  wd.c->timeout);
	exit(ktap_finish());
}

static void arm_timeout(const struct zc_case *c)
{
	pthread_condattr_t attr;

	if (!c->timeout)
		return;
	/* The deadline is on the monotonic clock: a clock step must not move it. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&wd.done_cond, &attr);
	pthread_condattr_destroy(&attr);
	wd.c = c;
	wd.done = false;
	wd.armed = !pthread_create(&wd.thread, NULL, watchdog_fn, NULL);
	if (!wd.armed)
		ktap_print_msg("%s: no watchdog thread, no time limit", c->name);
}

static void disarm_timeout(void)
{
	if (!wd.armed)
		return;
	pthread_mutex_lock(&wd.lock);
	wd.done = true;
	pthread_cond_signal(&wd.done_cond);
	pthread_mutex_unlock(&wd.lock);
	pthread_join(wd.thread, NULL);
	pthread_cond_destroy(&wd.done_cond);
	wd.armed = false;
}

static void run_body(const struct zc_case *c, void *ctx)
{
	unsigned int before = ktap_reported();
	struct zc_why why = { "" };

	if (c->setup && c->setup(c, ctx, &why)) {
		ktap_fail(c->name, "%s: setup: %s", c->name, why.msg);
		return;
	}
	arm_timeout(c);
	c->fn(c, ctx);
	disarm_timeout();
	if (c->teardown)
		c->teardown(c, ctx);
	if (ktap_reported() == before)
		ktap_fail(c->name, "case reported no result");
	else if (ktap_reported() != before + 1)
		ktap_count_error();
}

static const char *harness_paused(double secs)
{
	static char msg[160];

	snprintf(msg, sizeof(msg),
		 "harness stall: this test process was not scheduled for %.1f s during the case (stopped, or a frozen or starved machine), not the kernel's",
		 secs);
	return msg;
}

/*
 * A failure while a bounded wait of the case ran out of patience with
 * progress still coming (zc_bound_over): a machine too slow for the
 * case, no verdict.
 */
static void starved_skip(const char *name, unsigned int before)
{
	char note[160], msg[320];

	if (ktap_held() != KTAP_FAIL || zc_starved_count(note, sizeof(note)) == before)
		return;
	snprintf(msg, sizeof(msg),
		 "starved: a wait of the case was %s: this machine is too slow or loaded for %s, not the kernel's",
		 note, name);
	ktap_hold_change(KTAP_SKIP, msg);
}

static void run_case(const struct zc_case *c, void *ctx, bool watch)
{
	enum zc_pre pre = ZC_RUN;
	struct zc_why why = { "" };
	unsigned int starved;
	double paused;

	ktap_hold();
	if (c->pre)
		pre = c->pre(c, ctx, &why);
	if (pre == ZC_SKIP) {
		ktap_skip(c->name, "%s", why.msg);
		ktap_hold_release();
		return;
	}
	paused = zc_paused_s();
	starved = zc_starved_count(NULL, 0);
	run_body(c, ctx);
	paused = zc_paused_s() - paused;
	starved_skip(c->name, starved);
	/*
	 * A failure while this process itself was not running (SIGSTOP, a
	 * frozen VM) may be a stall of the harness, not of the kernel's path:
	 * no verdict, and the reason says so.
	 */
	if (paused > 0 && ktap_held() == KTAP_FAIL)
		ktap_hold_change(KTAP_SKIP, harness_paused(paused));
	if (pre == ZC_XFAIL)
		expect_failure(c->name, why.msg);
	else if (c->xfail)
		expect_failure(c->name, c->xfail);
	if (watch)
		kmsg_verdict(c->name);
	ktap_hold_release();
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

void zc_list_cases(const struct zc_case *cases, size_t n,
		   const struct zc_opts *o)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (zc_case_selected(o, cases[i].name))
			printf("%s\n", cases[i].name);
}

int zc_skip_cases(const struct zc_case *cases, size_t n,
		  const struct zc_opts *o, const char *fmt, ...)
{
	unsigned int planned = count_selected(cases, n, o);
	char reason[512];
	va_list ap;
	size_t i;

	if (!planned)
		return no_case_selected(o);
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	ktap_header();
	ktap_plan(planned);
	for (i = 0; i < n; i++)
		if (zc_case_selected(o, cases[i].name))
			ktap_skip(cases[i].name, "%s", reason);
	return ktap_finish();
}

static void list_cases(const struct zc_test *t, const struct zc_opts *o)
{
	zc_list_cases(t->cases, t->ncases, o);
}

static int skip_cases(const struct zc_test *t, const struct zc_opts *o,
		      const char *reason)
{
	return zc_skip_cases(t->cases, t->ncases, o, "%s", reason);
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
	if (t->probe && t->probe(ctx, &why))
		return skip_cases(t, o, why.msg);
	nofile = zc_raise_limits();
	if (nofile >= 0 && nofile < ZC_NOFILE_MIN) {
		snprintf(why.msg, sizeof(why.msg),
			 "open files limit RLIMIT_NOFILE is %ld and cannot be raised (no CAP_SYS_RESOURCE): the harness needs %d (ulimit -n)",
			 nofile, ZC_NOFILE_MIN);
		return skip_cases(t, o, why.msg);
	}
	ret = t->setup ? t->setup(ctx, &why) : 0;
	if (ret == KSFT_SKIP) {
		ret = skip_cases(t, o, why.msg);
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
