/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kselftest-compatible TAP output and metric lines: the writer at the
 * bottom of lib/, knowing only struct zc_stats (stats.h) and the reasons
 * it prints (why.h). The case table
 * is runner.h, the config and rate lines report.h.
 */
#ifndef ZC_KTAP_H
#define ZC_KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/why.h"

/* kselftest exit codes */
#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_XFAIL	2
#define KSFT_XPASS	3
#define KSFT_SKIP	4
/*
 * A usage error (unknown option, bad value, missing argument) in every
 * command of the suite: outside kselftest's 0-4 and outside git bisect's
 * good/bad/skip, so a bisect aborts instead of calling a kernel bad.
 */
#define ZC_EXIT_USAGE	128

struct zc_stats;

struct ktap_counts {
	unsigned int pass, fail, xfail, xpass, skip, error;
};

/* Redirect output (unit tests); NULL means stdout. */
void ktap_set_output(FILE *out);
void ktap_reset(void);
void ktap_header(void);
/*
 * For modes that print diagnostics only (no TAP header ever follows):
 * what was held back for the header, and all that follows, goes out now.
 */
void ktap_no_header(void);
void ktap_plan(unsigned int n);
void ktap_print_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void ktap_pass(const char *name);
/* A skip states whose it is (why.h's enum zc_class): its raiser knows. */
void ktap_skip(const char *name, enum zc_class cls, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The skip of a reason that carries its class (a precondition's, a probe's). */
void ktap_skip_why(const char *name, const struct zc_why *why);
/*
 * "# skip-class NAME CLASS", the line directly before a SKIP of NAME
 * ("*": the whole binary, before its plan); ktap_report prints it itself.
 */
void ktap_skip_class(const char *name, enum zc_class cls);
/*
 * A fact a body reports instead of a status: the runner's case_status()
 * turns it into one (a known bug seen: XFAIL; the environment or the
 * harness in the way: SKIP of that class). CANNOT_RUN is for a body
 * whose reason for not running comes with its class already decided
 * (why.cls: kernel, environment or harness, e.g. zc_env_copy_cause or an
 * opt-in whose refusal may be either): a SKIP of why's class.
 */
enum ktap_fact {
	KTAP_FACT_NONE,
	KTAP_FACT_KNOWN_BUG,
	KTAP_FACT_ENV,
	KTAP_FACT_HARNESS,
	KTAP_FACT_CANNOT_RUN,
};

/* A fact seen by a body (why.msg: the detail, a known bug's name first). */
void ktap_seen(const char *name, enum ktap_fact fact, const struct zc_why *why);
void ktap_xfail(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Failures name where they were found, as the kernel's harness does:
 * "# FILE:LINE: NAME: what was expected, what was seen". The plain forms
 * take the line they are called from; the _why forms the line of the
 * check that wrote the reason (zc_why_set, ZC_CHECK), else their own.
 */
#define ktap_fail(name, ...) \
	ktap_fail_at(ZC_FILE, __LINE__, (name), false, __VA_ARGS__)
#define ktap_fail_why(name, why) \
	ktap_fail_why_at(ZC_FILE, __LINE__, (name), false, (why))
/* pass when ok, otherwise fail with the reason */
#define ktap_result(name, ok, ...) \
	((ok) ? ktap_pass(name) : ktap_fail(name, __VA_ARGS__))
#define ktap_result_why(name, ok, why) \
	((ok) ? ktap_pass(name) : ktap_fail_why(name, why))
/*
 * A failure that is not the deviation the case's expected failure names
 * (a mix of outcomes where all one way was expected, a witness that
 * disagrees with the kernel): FAIL, and it stays FAIL when the runner
 * applies an expected failure (a row's xfail, a precondition's ZC_XFAIL).
 */
#define ktap_fail_unexpected(name, ...) \
	ktap_fail_at(ZC_FILE, __LINE__, (name), true, __VA_ARGS__)
#define ktap_fail_unexpected_why(name, why) \
	ktap_fail_why_at(ZC_FILE, __LINE__, (name), true, (why))
void ktap_fail_at(const char *file, int line, const char *name,
		  bool unexpected, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void ktap_fail_why_at(const char *file, int line, const char *name,
		      bool unexpected, const struct zc_why *why);

/*
 * One metric line, the grammar documented in doc/results.md:
 * # metric NAME MEDIAN UNIT n=N min=MIN max=MAX cv=CV% samples=S1,S2,...
 */
void ktap_metric(const char *name, const struct zc_stats *s, const char *unit);
/*
 * The same with the machine speed (Mops) measured before each sample:
 * ... samples=S1,S2,... speed=M1,M2,...
 */
void ktap_metric_speed(const char *name, const struct zc_stats *s,
		       const char *unit, const struct zc_stats *speed);
/* A single derived figure (a ratio of two medians): n=1, no spread. */
void ktap_metric_value(const char *name, double v, const char *unit);
/*
 * Copy verdict of a case for the comparison tool:
 * # zcmode NAME zerocopy|copied|mixed
 */
void ktap_zcmode(const char *name, unsigned long zerocopy, unsigned long copied);
/* The same with more words after the counts (key=value first, then prose). */
void ktap_zcmode_note(const char *name, unsigned long zerocopy, unsigned long copied,
		      const char *note);
/* "zerocopy", "copied", "mixed" or "none" for these counts. */
const char *ktap_zcmode_word(unsigned long zerocopy, unsigned long copied);

const struct ktap_counts *ktap_counts(void);
/* Totals line; returns the kselftest exit code for the counts. */
int ktap_finish(void);
int ktap_exit_code(const struct ktap_counts *c);

/* Whole-binary failure before any case could run: "Bail out!", exit. */
void __attribute__((noreturn)) ktap_exit_fail_msg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/*
 * A case's body does not print its result line: what it reports is
 * held, and the runner decides the case's status from it and from what
 * the body cannot know (an expected failure, a kernel splat in the
 * case's window, a starved or paused process), then reports that.
 */
enum ktap_status { KTAP_NONE, KTAP_PASS, KTAP_FAIL, KTAP_SKIP, KTAP_XFAIL, KTAP_XPASS };

struct ktap_body {
	enum ktap_status status;	/* KTAP_NONE: it reported nothing */
	bool unexpected;		/* a ktap_fail_unexpected() */
	unsigned int extra;		/* results reported after the first */
	char reason[512];		/* a SKIP's, XFAIL's or XPASS's reason */
	enum zc_class cls;		/* a SKIP's class */
	enum ktap_fact fact;		/* what the body saw, for case_status() */
};

/* From here to ktap_body_end(), results are held, not printed. */
void ktap_body_begin(void);
void ktap_body_end(struct ktap_body *b);
/* The case's result line (a SKIP's after its class line), counted in the totals. */
void ktap_report(const char *name, enum ktap_status st, const char *reason,
		 enum zc_class cls);
/* A fault of the binary rather than of a case (fails the run). */
void ktap_count_error(void);

#endif
