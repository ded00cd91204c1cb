/* SPDX-License-Identifier: GPL-2.0 */
/* Options every test binary accepts, plus per-test extras. */
#ifndef ZC_OPTS_H
#define ZC_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/why.h"

#define ZC_MAX_PATTERNS	16

struct zc_opt_extra {
	const char *name;	/* long option name */
	int has_arg;		/* no_argument / required_argument */
	int val;		/* >= 256, passed to parse() */
	const char *arg_name;	/* for usage, e.g. "IFACE" */
	const char *help;
};

struct zc_opts;

struct zc_test_desc {
	const char *name;	/* binary name, e.g. "sendzc_notif" */
	const char *summary;	/* one line */
	const struct zc_opt_extra *extra;	/* terminated by name == NULL */
	/* Handle an extra option into ctx; return 0, or -1 with why. */
	int (*parse)(int val, const char *arg, void *ctx, struct zc_why *why);
	long size_default;	/* default --size in bytes */
	long size_max;		/* largest accepted --size */
	/*
	 * RCU grace periods the kernel-log watch waits after each case
	 * before it reads, so that a report from the case's deferred
	 * teardown lands in the case's own window (0: one, enough for
	 * sockets; sockmap's psock chain needs three).
	 */
	int settle_gp;
};

struct zc_opts {
	double duration;	/* seconds per measured repeat */
	int repeat;		/* measured repeats per rate */
	double warmup;		/* seconds of warm-up before a rate's first repeat */
	long size;		/* payload bytes */
	bool verify;
	bool list;
	bool quiet;
	int cpu_tx, cpu_rx;	/* -1: not pinned */
	const char *patterns[ZC_MAX_PATTERNS];
	int npatterns;
	const struct zc_test_desc *desc;
};

/*
 * 0.4 since 2026-12-03 (was 0.5), to keep a default run near a minute:
 * 33 rate arms x 3 repeats. The bisect recipes name --duration 0.5, the
 * setting their power was measured at (doc/noise.md).
 */
#define ZC_DURATION_DEFAULT	0.4
#define ZC_DURATION_MAX		600.0
#define ZC_REPEAT_DEFAULT	3
#define ZC_REPEAT_MAX		100
/*
 * Seconds of a rate's loop before its first measured repeat (each arm of
 * a paired rate its own). 0.1 since 2026-12-02: with none at all the
 * first repeat was not below the others (doc/noise.md), 0.2 cost 6.6 s
 * of a default run.
 */
#define ZC_WARMUP_DEFAULT	0.1

/*
 * Returns 0 to run, 1 when --help was printed (exit 0), -1 on bad input
 * with a one-line message in err (a bad ZC_DURATION or ZC_REPEAT too).
 * Defaults come from ZC_DURATION, ZC_REPEAT and ZC_VERIFY in the
 * environment (run_tests.sh --duration/--repeat/-v), bounded as the
 * options are.
 */
int zc_opts_parse(struct zc_opts *o, int argc, char **argv,
		  const struct zc_test_desc *d, void *ctx, struct zc_why *why);
/* Parse or exit: usage on --help (0), one-line error on bad input (1). */
void zc_opts_parse_or_exit(struct zc_opts *o, int argc, char **argv,
			   const struct zc_test_desc *d, void *ctx);

/* Strict number parsers used by tests for their own options. */
int zc_parse_long(const char *s, long min, long max, long *out);
int zc_parse_double(const char *s, double min, double max, double *out);

#endif
