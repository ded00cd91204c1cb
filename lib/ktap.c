// SPDX-License-Identifier: GPL-2.0
/* kselftest-compatible TAP output and the case table runner. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "kmsg.h"
#include "ktap.h"
#include "meter.h"
#include "opts.h"
#include "util.h"

static FILE *ktap_out;
static struct ktap_counts counts;
static unsigned int test_num;
static bool header_done;

/*
 * TAP parsers want the version line first: diagnostics printed before
 * it (during setup) wait here and follow the header.
 */
#define MAX_EARLY	16
static char *early[MAX_EARLY];
static int nearly;

/*
 * While a case runs under the kernel log watch its result waits here:
 * a splat in the case's window may still turn it into a failure, or an
 * expected failure naming a known kernel bug.
 */
static struct {
	bool active, have, ok;
	unsigned int *counter;
	const char *directive;
	char name[160];
	char reason[512];
} held;

static FILE *out(void)
{
	return ktap_out ? ktap_out : stdout;
}

void ktap_set_output(FILE *f)
{
	ktap_out = f;
}

void ktap_reset(void)
{
	memset(&counts, 0, sizeof(counts));
	test_num = 0;
	header_done = false;
	memset(&held, 0, sizeof(held));
	while (nearly > 0)
		free(early[--nearly]);
}

static void flush_early(void)
{
	int i;

	for (i = 0; i < nearly; i++) {
		fprintf(out(), "# %s\n", early[i]);
		free(early[i]);
	}
	nearly = 0;
	fflush(out());
}

void ktap_header(void)
{
	if (header_done)
		return;
	header_done = true;
	fprintf(out(), "TAP version 13\n");
	flush_early();
}

void ktap_no_header(void)
{
	header_done = true;
	flush_early();
}

void ktap_plan(unsigned int n)
{
	fprintf(out(), "1..%u\n", n);
	fflush(out());
}

static void vmsg(const char *fmt, va_list ap)
{
	char buf[1024];
	char *line, *save = NULL;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* Every line of a multi-line message stays a diagnostic. */
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!header_done && nearly < MAX_EARLY)
			early[nearly++] = strdup(line);
		else
			fprintf(out(), "# %s\n", line);
	}
	fflush(out());
}

void ktap_print_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

/* A directive reason must stay on one line and must not contain '#'. */
static void clean_reason(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r' || *s == '#')
			*s = ' ';
}

static void result_line(bool ok, const char *name, const char *directive,
			const char *reason)
{
	test_num++;
	fprintf(out(), "%s %u %s", ok ? "ok" : "not ok", test_num, name);
	if (directive)
		fprintf(out(), " # %s%s%s", directive,
			reason && reason[0] ? " " : "", reason ? reason : "");
	fputc('\n', out());
	fflush(out());
}

static void result(unsigned int *counter, bool ok, const char *name,
		   const char *directive, const char *reason)
{
	(*counter)++;
	if (!held.active || held.have) {
		result_line(ok, name, directive, reason);
		return;
	}
	held.have = true;
	held.ok = ok;
	held.counter = counter;
	held.directive = directive;
	snprintf(held.name, sizeof(held.name), "%s", name);
	snprintf(held.reason, sizeof(held.reason), "%s", reason ? reason : "");
}

static void hold_release(void)
{
	if (held.have)
		result_line(held.ok, held.name, held.directive, held.reason);
	memset(&held, 0, sizeof(held));
}

static void hold_change(unsigned int *counter, bool ok, const char *directive,
			const char *reason)
{
	if (!held.have || held.counter == &counts.fail)
		return;		/* no result, or a failure already */
	(*held.counter)--;
	(*counter)++;
	held.counter = counter;
	held.ok = ok;
	held.directive = directive;
	snprintf(held.reason, sizeof(held.reason), "%s", reason ? reason : "");
	clean_reason(held.reason);
}

void ktap_pass(const char *name)
{
	result(&counts.pass, true, name, NULL, NULL);
}

void ktap_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vmsg(fmt, ap);
		va_end(ap);
	}
	result(&counts.fail, false, name, NULL, NULL);
}

static void directive(unsigned int *counter, const char *name,
		      const char *dir, const char *fmt, va_list ap)
{
	char reason[512] = "";

	if (fmt)
		vsnprintf(reason, sizeof(reason), fmt, ap);
	clean_reason(reason);
	result(counter, true, name, dir, reason);
}

#define DIRECTIVE_FN(fn, field, dir)					\
void fn(const char *name, const char *fmt, ...)				\
{									\
	va_list ap;							\
									\
	va_start(ap, fmt);						\
	directive(&counts.field, name, dir, fmt, ap);			\
	va_end(ap);							\
}

DIRECTIVE_FN(ktap_skip, skip, "SKIP")
DIRECTIVE_FN(ktap_xfail, xfail, "XFAIL")
DIRECTIVE_FN(ktap_xpass, xpass, "XPASS")

void ktap_result(const char *name, bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		ktap_pass(name);
		return;
	}
	if (fmt) {
		va_start(ap, fmt);
		vmsg(fmt, ap);
		va_end(ap);
	}
	ktap_fail(name, NULL);
}

void ktap_metric_speed(const char *name, const struct zc_stats *s,
		       const char *unit, const struct zc_stats *speed)
{
	FILE *f = out();
	int i;

	fprintf(f, "# metric %s %.6g %s n=%d min=%.6g max=%.6g cv=%.2f%%",
		name, s->median, unit, s->n, s->min, s->max, s->cv);
	for (i = 0; i < s->n; i++)
		fprintf(f, "%s%.6g", i ? "," : " samples=", s->samples[i]);
	for (i = 0; speed && i < speed->n; i++)
		fprintf(f, "%s%.6g", i ? "," : " speed=", speed->samples[i]);
	fputc('\n', f);
	fflush(f);
}

void ktap_metric(const char *name, const struct zc_stats *s, const char *unit)
{
	ktap_metric_speed(name, s, unit, NULL);
}

void ktap_metric_value(const char *name, double v, const char *unit)
{
	fprintf(out(), "# metric %s %.6g %s n=1 min=%.6g max=%.6g cv=0.00%% samples=%.6g\n",
		name, v, unit, v, v, v);
	fflush(out());
}

void ktap_zcmode(const char *name, unsigned long zerocopy, unsigned long copied)
{
	const char *mode = "mixed";

	if (!copied && !zerocopy)
		mode = "none";
	else if (!copied && zerocopy)
		mode = "zerocopy";
	else if (copied && !zerocopy)
		mode = "copied";
	fprintf(out(), "# zcmode %s %s zerocopy=%lu copied=%lu\n", name, mode,
		zerocopy, copied);
	fflush(out());
}

const struct ktap_counts *ktap_counts(void)
{
	return &counts;
}

unsigned int ktap_reported(void)
{
	return test_num + held.have;
}

int ktap_exit_code(const struct ktap_counts *c)
{
	if (c->fail || c->error)
		return KSFT_FAIL;
	if (c->pass)
		return KSFT_PASS;
	if (c->xpass)
		return KSFT_XPASS;
	if (c->xfail)
		return KSFT_XFAIL;
	if (c->skip)
		return KSFT_SKIP;
	return KSFT_PASS;
}

int ktap_finish(void)
{
	fprintf(out(), "# Totals: pass:%u fail:%u xfail:%u xpass:%u skip:%u error:%u\n",
		counts.pass, counts.fail, counts.xfail, counts.xpass,
		counts.skip, counts.error);
	fflush(out());
	return ktap_exit_code(&counts);
}

void ktap_exit_skip_all(const char *fmt, ...)
{
	char reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	clean_reason(reason);
	ktap_header();
	fprintf(out(), "1..0 # SKIP %s\n", reason);
	fflush(out());
	exit(KSFT_SKIP);
}

void ktap_exit_fail_msg(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	clean_reason(msg);
	ktap_header();
	fprintf(out(), "Bail out! %s\n", msg);
	counts.error++;
	exit(ktap_finish());
}

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

void zc_list_cases(const struct zc_case *cases, size_t n,
		   const struct zc_opts *o)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (zc_case_selected(o, cases[i].name))
			printf("%s\n", cases[i].name);
}

static int no_case_selected(const struct zc_opts *o)
{
	fprintf(stderr, "%s: no case matches the given -t pattern\n",
		o && o->desc ? o->desc->name : "test");
	return KSFT_FAIL;
}

/* Does the running kernel carry a known bug? Its probe says, or its pattern alone. */
static bool bug_carried(const struct zc_known_bug *b, char *why, size_t len)
{
	*why = '\0';
	if (!b->probe)
		return true;
	return b->probe(why, len) != 0;
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
	char sum[512], why[256], reason[512];
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
			counts.error += !b;
			continue;
		}
		ktap_print_msg("kmsg: %s: %s", name, sum);
		if (b && bug_carried(b, why, sizeof(why))) {
			known = b;
			continue;
		}
		if (b)
			ktap_print_msg("kmsg: %s should not happen here (%s)", b->name, why);
		unknown = true;
	}
	if (n > (int)ZC_ARRAY_SIZE(s)) {
		ktap_print_msg("kmsg: %d more reports in the window", n - (int)ZC_ARRAY_SIZE(s));
		unknown = true;
	}
	if (unknown) {
		hold_change(&counts.fail, false, NULL, NULL);
	} else if (known) {
		snprintf(reason, sizeof(reason), "known kernel bug %s: %s",
			 known->name, s[0].first);
		hold_change(&counts.xfail, true, "XFAIL", reason);
	}
}

static void run_case(const struct zc_case *c, void *ctx, bool watch)
{
	unsigned int before = ktap_reported();

	held.active = watch;
	c->fn(c, ctx);
	if (ktap_reported() == before)
		ktap_fail(c->name, "case reported no result");
	else if (ktap_reported() != before + 1)
		counts.error++;
	if (watch)
		kmsg_verdict(c->name);
	hold_release();
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
