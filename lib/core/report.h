/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a measurement prints besides its case results: the "# config:"
 * line in front of every rate, in one grammar the tools can read, and
 * the metric lines of its rates.
 */
#ifndef ZC_REPORT_H
#define ZC_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/opts.h"

struct zc_rate;

/*
 * One configuration line, documented in doc/results.md:
 * # config: WHAT key=value ... duration=D repeat=R warmup=W kernel=REL
 * fmt gives the test's own key=value pairs (may be NULL); duration,
 * repeat and warmup come from o, kernel from uname. Values hold no
 * spaces: a word without '=' is joined to the value before it with '_',
 * so the line always parses.
 */
void zc_report_config(const struct zc_opts *o, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Report a rate: "<prefix>.throughput" MB/s, "<prefix>.cpu" cpu-s/GB
 * and "<prefix>.softirq" (system-wide softirq cpu-s/GB), or "<prefix>.pps"
 * Mpps and "<prefix>.cpu_ns" ns/pkt when pkts_based.
 */
void zc_report_rate(const char *prefix, const struct zc_rate *r, bool pkts_based);
/*
 * The machine speed samples zc_measure() took, once per binary, as
 * "<test>.machine.speed" (Mops) for the comparison tool.
 */
void zc_report_calibration(const char *test);

#endif
