/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unit tests' own TAP (check/unit/unit_*.c): printed by hand, so a
 * broken lib/core/ktap.c cannot hide its own failures.
 */
#ifndef ZC_UNIT_TAP_H
#define ZC_UNIT_TAP_H

#include <stdio.h>
#include <string.h>

static int unit_num, unit_failed;

/* One result; detail (may be NULL) is printed as a diagnostic on failure. */
static inline void unit_check(int ok, const char *name, const char *detail)
{
	unit_num++;
	printf("%sok %d %s\n", ok ? "" : "not ", unit_num, name);
	if (!ok) {
		unit_failed++;
		if (detail)
			printf("# %s\n", detail);
	}
	fflush(stdout);
}

/* Does haystack hold needle? (the detail says what it held). */
static inline int unit_has(const char *haystack, const char *needle)
{
	return strstr(haystack, needle) != NULL;
}

static inline int unit_done(void)
{
	printf("1..%d\n", unit_num);
	return unit_failed ? 1 : 0;
}

#endif
