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

/* While a case's body runs, what it reports waits here for the runner. */
static struct {
	bool active;
	struct ktap_body b;
} body;

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
	memset(&body, 0, sizeof(body));
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

static unsigned int *counter(enum ktap_status st)
{
	switch (st) {
	case KTAP_PASS:
		return &counts.pass;
	case KTAP_SKIP:
		return &counts.skip;
	case KTAP_XFAIL:
		return &counts.xfail;
	case KTAP_XPASS:
		return &counts.xpass;
	default:
		return &counts.fail;
	}
}

void ktap_skip_class(const char *name, enum zc_class cls)
{
	fprintf(out(), "# skip-class %s %s\n", name, zc_why_class_name(cls));
}

void ktap_report(const char *name, enum ktap_status st, const char *reason,
		 enum zc_class cls)
{
	static const char *const dirs[] = {
		[KTAP_SKIP] = "SKIP", [KTAP_XFAIL] = "XFAIL", [KTAP_XPASS] = "XPASS",
	};
	const char *dir = dirs[st];
	char clean[512];

	(*counter(st))++;
	test_num++;
	if (st == KTAP_SKIP)
		ktap_skip_class(name, cls);
	fprintf(out(), "%s %u %s", st == KTAP_FAIL || st == KTAP_NONE ? "not ok" : "ok",
		test_num, name);
	if (dir) {
		snprintf(clean, sizeof(clean), "%s", reason ? reason : "");
		clean_reason(clean);
		fprintf(out(), " # %s%s%s", dir, clean[0] ? " " : "", clean);
	}
	fputc('\n', out());
	fflush(out());
}

static void result(enum ktap_status st, bool unexpected, const char *name,
		   const char *reason, enum zc_class cls)
{
	if (!body.active) {
		ktap_report(name, st, reason, cls);
		return;
	}
	if (body.b.status != KTAP_NONE || body.b.fact != KTAP_FACT_NONE) {
		body.b.extra++;
		ktap_print_msg("%s: a second verdict (%s) of one case, not counted",
			       name, st == KTAP_FAIL ? "fail" : "not a failure");
		return;
	}
	body.b.status = st;
	body.b.unexpected = unexpected;
	body.b.cls = cls;
	snprintf(body.b.reason, sizeof(body.b.reason), "%s", reason ? reason : "");
}

void ktap_body_begin(void)
{
	memset(&body, 0, sizeof(body));
	body.active = true;
}

void ktap_body_end(struct ktap_body *b)
{
	*b = body.b;
	memset(&body, 0, sizeof(body));
}

void ktap_count_error(void)
{
	counts.error++;
}

void ktap_pass(const char *name)
{
	result(KTAP_PASS, false, name, NULL, ZC_CLASS_NONE);
}

/* "# FILE:LINE: NAME: MSG", the failing check's place first. */
static void fail_msg(const char *file, int line, const char *name,
		     const char *msg)
{
	ktap_print_msg("%s:%d: %s: %s", file, line, name,
		       msg && msg[0] ? msg : "failed");
}

void ktap_fail_at(const char *file, int line, const char *name,
		  bool unexpected, const char *fmt, ...)
{
	char msg[1024] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
	}
	fail_msg(file, line, name, msg);
	result(KTAP_FAIL, unexpected, name, NULL, ZC_CLASS_NONE);
}

void ktap_fail_why_at(const char *file, int line, const char *name,
		      bool unexpected, const struct zc_why *why)
{
	if (why->file)
		fail_msg(why->file, why->line, name, why->msg);
	else
		fail_msg(file, line, name, why->msg);
	result(KTAP_FAIL, unexpected, name, NULL, ZC_CLASS_NONE);
}

static void directive(enum ktap_status st, enum zc_class cls,
		      const char *name, const char *fmt, va_list ap)
{
	char reason[512] = "";

	if (fmt)
		vsnprintf(reason, sizeof(reason), fmt, ap);
	result(st, false, name, reason, cls);
}

void ktap_xfail(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	directive(KTAP_XFAIL, ZC_CLASS_NONE, name, fmt, ap);
	va_end(ap);
}

void ktap_skip(const char *name, enum zc_class cls, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	directive(KTAP_SKIP, cls, name, fmt, ap);
	va_end(ap);
}

void ktap_seen(const char *name, enum ktap_fact fact, const struct zc_why *why)
{
	if (!body.active) {
		ktap_print_msg("%s: a fact reported outside a case's body: %s",
			       name, why->msg);
		counts.error++;
		return;
	}
	if (body.b.status != KTAP_NONE || body.b.fact != KTAP_FACT_NONE) {
		body.b.extra++;
		ktap_print_msg("%s: a second verdict (a fact: %s) of one case, not counted",
			       name, why->msg);
		return;
	}
	body.b.fact = fact;
	body.b.cls = fact == KTAP_FACT_CANNOT_RUN ? why->cls : ZC_CLASS_NONE;
	snprintf(body.b.reason, sizeof(body.b.reason), "%s", why->msg);
}

void ktap_skip_why(const char *name, const struct zc_why *why)
{
	result(KTAP_SKIP, false, name, why->msg, why->cls);
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
	if (s->screened)
		fprintf(f, " discarded=%d", s->discarded);
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
