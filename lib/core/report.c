// SPDX-License-Identifier: GPL-2.0
/* The lines a measurement prints: its configuration and its rates. */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/ktap.h"
#include "core/meter.h"
#include "core/probe.h"
#include "core/report.h"

struct line {
	char *buf;
	size_t len, pos;
};

static void put(struct line *l, const char *s, size_t n)
{
	if (l->pos + 1 >= l->len)
		return;
	if (n > l->len - 1 - l->pos)
		n = l->len - 1 - l->pos;
	memcpy(l->buf + l->pos, s, n);
	l->pos += n;
	l->buf[l->pos] = '\0';
}

/*
 * Copy the words of s: a word holding '=' starts a new key=value pair,
 * any other word belongs to the value before it and is joined with '_'
 * (a value never holds a space). With one_word, every word is joined.
 */
static void put_words(struct line *l, const char *s, bool one_word)
{
	bool first = true;
	size_t n;

	while (*s) {
		while (isspace((unsigned char)*s))
			s++;
		n = strcspn(s, " \t\r\n\v\f");
		if (!n)
			break;
		if (!first || !one_word)
			put(l, one_word || !memchr(s, '=', n) ? "_" : " ", 1);
		put(l, s, n);
		s += n;
		first = false;
	}
}

static void zc_config_format(char *buf, size_t len, const struct zc_opts *o,
		      const char *what, const char *pairs)
{
	struct line l = { buf, len, 0 };
	char tail[160];

	if (!len)
		return;
	buf[0] = '\0';
	put(&l, "config: ", 8);
	put_words(&l, what && *what ? what : "-", true);
	if (pairs)
		put_words(&l, pairs, false);
	snprintf(tail, sizeof(tail), " duration=%g repeat=%d warmup=%g kernel=%s",
		 o->duration, o->repeat, o->warmup, zc_kernel_release());
	put(&l, tail, strlen(tail));
}

void zc_report_config(const struct zc_opts *o, const char *what, const char *fmt, ...)
{
	char pairs[768] = "", line[1024];
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(pairs, sizeof(pairs), fmt, ap);
		va_end(ap);
	}
	zc_config_format(line, sizeof(line), o, what, pairs);
	ktap_print_msg("%s", line);
}

void zc_report_rate(const char *prefix, const struct zc_rate *r, bool pkts_based)
{
	char name[256];

	if (pkts_based) {
		snprintf(name, sizeof(name), "%s.pps", prefix);
		ktap_metric_speed(name, &r->mpps, "Mpps", &r->speed);
		snprintf(name, sizeof(name), "%s.cpu_ns", prefix);
		ktap_metric_speed(name, &r->ns_per_pkt, "ns/pkt", &r->speed);
		return;
	}
	snprintf(name, sizeof(name), "%s.throughput", prefix);
	ktap_metric_speed(name, &r->mbps, "MB/s", &r->speed);
	snprintf(name, sizeof(name), "%s.cpu", prefix);
	ktap_metric_speed(name, &r->cpu_per_gb, "cpu-s/GB", &r->speed);
	/* System-wide: softirq work done for us may run on any CPU. */
	snprintf(name, sizeof(name), "%s.softirq", prefix);
	ktap_metric_speed(name, &r->softirq_per_gb, "cpu-s/GB", &r->speed);
}

void zc_report_calibration(const char *test)
{
	struct zc_stats s;
	char name[128];

	zc_calibration(&s);
	if (!s.n)
		return;
	snprintf(name, sizeof(name), "%s.machine.speed", test);
	ktap_metric(name, &s, "Mops");
}
