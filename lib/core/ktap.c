// SPDX-License-Identifier: GPL-2.0
/* kselftest-compatible TAP output. */
#include <stdlib.h>
#include <string.h>

#include "core/ktap.h"
#include "core/stats.h"

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
	bool unexpected;	/* a FAIL no expected failure may cover */
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

void ktap_hold(void)
{
	memset(&held, 0, sizeof(held));
	held.active = true;
}

void ktap_hold_release(void)
{
	if (held.have)
		result_line(held.ok, held.name, held.directive, held.reason);
	memset(&held, 0, sizeof(held));
}

bool ktap_held_unexpected(void)
{
	return held.have && held.unexpected;
}

enum ktap_status ktap_held(void)
{
	if (!held.have)
		return KTAP_NONE;
	if (held.counter == &counts.pass)
		return KTAP_PASS;
	if (held.counter == &counts.fail)
		return KTAP_FAIL;
	if (held.counter == &counts.skip)
		return KTAP_SKIP;
	if (held.counter == &counts.xfail)
		return KTAP_XFAIL;
	return KTAP_XPASS;
}

void ktap_hold_change(enum ktap_status to, const char *reason)
{
	static const char *const dirs[] = {
		[KTAP_SKIP] = "SKIP", [KTAP_XFAIL] = "XFAIL", [KTAP_XPASS] = "XPASS",
	};
	unsigned int *const ctr[] = {
		[KTAP_PASS] = &counts.pass, [KTAP_FAIL] = &counts.fail,
		[KTAP_SKIP] = &counts.skip, [KTAP_XFAIL] = &counts.xfail,
		[KTAP_XPASS] = &counts.xpass,
	};

	if (!held.have || to == KTAP_NONE)
		return;
	(*held.counter)--;
	held.counter = ctr[to];
	(*held.counter)++;
	held.ok = to != KTAP_FAIL;
	held.directive = dirs[to];
	snprintf(held.reason, sizeof(held.reason), "%s", reason ? reason : "");
	clean_reason(held.reason);
}

void ktap_count_error(void)
{
	counts.error++;
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

void ktap_fail_unexpected(const char *name, const char *fmt, ...)
{
	bool had = held.have;
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	result(&counts.fail, false, name, NULL, NULL);
	if (held.active && !had && held.have)
		held.unexpected = true;
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

const char *ktap_zcmode_word(unsigned long zerocopy, unsigned long copied)
{
	if (!copied && !zerocopy)
		return "none";
	if (!copied)
		return "zerocopy";
	return zerocopy ? "mixed" : "copied";
}

void ktap_zcmode_note(const char *name, unsigned long zerocopy, unsigned long copied,
		      const char *note)
{
	fprintf(out(), "# zcmode %s %s zerocopy=%lu copied=%lu%s%s\n", name,
		ktap_zcmode_word(zerocopy, copied), zerocopy, copied,
		note && *note ? " " : "", note ? note : "");
	fflush(out());
}

void ktap_zcmode(const char *name, unsigned long zerocopy, unsigned long copied)
{
	ktap_zcmode_note(name, zerocopy, copied, NULL);
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
