/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a measurement prints besides its case results: the "# config:"
 * line in front of every rate, in one grammar the tools can read.
 */
#ifndef ZC_REPORT_H
#define ZC_REPORT_H

#include <stddef.h>

#include "opts.h"

/*
 * One configuration line, documented in README:
 * # config: WHAT key=value ... duration=D repeat=R warmup=W kernel=REL
 * fmt gives the test's own key=value pairs (may be NULL); duration,
 * repeat and warmup come from o, kernel from uname. Values hold no
 * spaces: a word without '=' is joined to the value before it with '_',
 * so the line always parses.
 */
void zc_config(const struct zc_opts *o, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The line zc_config() prints, without "# ", into buf (for the unit check). */
void zc_config_format(char *buf, size_t len, const struct zc_opts *o,
		      const char *what, const char *pairs);

#endif
