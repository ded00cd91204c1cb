/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why something failed or was skipped, carried up to the TAP line that
 * reports it. One type for every layer, so a reason is written once,
 * where the cause is known, and never re-worded on the way up.
 */
#ifndef ZC_WHY_H
#define ZC_WHY_H

#include <stdbool.h>

struct zc_why {
	char msg[512];
};

/* Set the reason; returns -1 so that "return zc_why_set(...)" fails. */
int zc_why_set(struct zc_why *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same with ": strerror(errno)" appended (errno as it was on entry). */
int zc_why_errno(struct zc_why *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prepend "prefix: " to the reason already set (context from a caller). */
int zc_why_prefix(struct zc_why *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void zc_why_clear(struct zc_why *w)
{
	w->msg[0] = '\0';
}

/*
 * Check a condition; when false record what was expected and what was
 * seen (the format says both) and evaluate to false, e.g.
 *	ok &= ZC_CHECK(why, n == want, "notifications: expected %u, seen %u", want, n);
 */
#define ZC_CHECK(w, cond, fmt, ...)					\
({									\
	bool __ok = (cond);						\
									\
	if (!__ok)							\
		zc_why_set((w), fmt, ##__VA_ARGS__);			\
	__ok;								\
})
/* Integer equality, the message built from the expression. */
#define ZC_CHECK_EQ(w, what, seen, expected)				\
	ZC_CHECK(w, (long long)(seen) == (long long)(expected),		\
		 "%s: expected %lld, seen %lld", what,			\
		 (long long)(expected), (long long)(seen))

#endif
