/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The case table every test binary is: rows of cases over one runner.
 *
 * A test file declares its cases as a table of struct zc_case rows and
 * its binary-wide hooks in one struct zc_test, and its main() is
 * "return zc_main(&test, argc, argv, &ctx.o, &ctx);". The runner parses
 * the options, lists or selects cases, probes, sets up, runs each
 * selected row (precondition, body), reads the kernel log of each
 * case's window, decides each case's status in one function and prints
 * the totals.
 */
#ifndef ZC_RUNNER_H
#define ZC_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ktap.h"
#include "core/opts.h"
#include "core/report.h"
#include "core/why.h"

struct zc_case;

/* The body: reports exactly one result for c->name (ktap_pass/fail/...). */
typedef void (*zc_case_fn)(const struct zc_case *c, void *ctx);

/* What a precondition decides about a case before it runs. */
enum zc_pre {
	ZC_RUN = 0,	/* run it; it must pass */
	ZC_SKIP,	/* do not run it; why names what is missing */
	ZC_XFAIL,	/* run it; a failure is expected, why names the cause */
};

/*
 * The one hook for what only run time knows (a foreign tap, a device
 * property, a kernel feature): it returns the row's expectation, or a
 * SKIP or XFAIL with its reason. It never changes what the body checks.
 *
 * Under ZC_XFAIL (as under a row's xfail) the body's FAIL becomes XFAIL
 * and its PASS XPASS; a body that sees a failure other than the expected
 * deviation reports it with ktap_fail_unexpected() (ktap.h), which stays
 * FAIL: "every send copied" may be the known deviation, "half of them
 * copied" never is.
 */
typedef enum zc_pre (*zc_pre_fn)(const struct zc_case *c, void *ctx,
				 struct zc_why *why);

struct zc_case {
	const char *name;	/* stable identifier: baselines match on it */
	zc_case_fn fn;
	const void *arg;	/* the row's data: what the case does and expects */
	/*
	 * A known failure: when set, the body's FAIL is reported as XFAIL
	 * with this reason, its PASS as XPASS (ktap_fail_unexpected: FAIL).
	 */
	const char *xfail;
	zc_pre_fn pre;		/* optional */
};

/* A test binary: its options, its cases and its binary-wide hooks. */
struct zc_test {
	const struct zc_test_desc *desc;
	const struct zc_case *cases;
	size_t ncases;
	/* Bad option combinations: -1 with why (one line, exit ZC_EXIT_USAGE). */
	int (*check_opts)(void *ctx, struct zc_why *why);
	/* Another mode an option asked for, run instead of the cases: its exit code, or -1. */
	int (*mode)(void *ctx);
	/* What the binary needs (capabilities, config, features): -1 with why skips every case. */
	int (*probe)(void *ctx, struct zc_why *why);
	/* 0; KSFT_SKIP with why (every case skips); -1 with why (Bail out!). */
	int (*setup)(void *ctx, struct zc_why *why);
	void (*teardown)(void *ctx);
};

int zc_main(const struct zc_test *t, int argc, char **argv,
	    struct zc_opts *o, void *ctx);
/*
 * A mode that runs on the binary's own set-up (--peer-exec): probe (a
 * refusal: the reason on stderr, KSFT_SKIP), limits raised, setup, fn,
 * teardown. fn's result, its exit code; a set-up that fails, or fn < 0,
 * one line (opt: the reason) and exit 1.
 */
int zc_mode_with_setup(const struct zc_test *t, void *ctx, const char *opt,
		       int (*fn)(void *ctx, struct zc_why *why));

bool zc_case_selected(const struct zc_opts *o, const char *name);
/*
 * Print header and plan for the selected cases, run them, print totals.
 * A case that reports nothing is failed. Returns the kselftest exit code.
 */
int zc_run_cases(const struct zc_case *cases, size_t n,
		 const struct zc_opts *o, void *ctx);

#endif
