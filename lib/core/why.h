/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why something failed or was skipped, carried up to the TAP line that
 * reports it. One type for every layer, so a reason is written once,
 * where the cause is known, and never re-worded on the way up.
 */
#ifndef ZC_WHY_H
#define ZC_WHY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The reason, and the file:line that wrote it: a failure line names the
 * check that failed, as the kernel's own harness does.
 */
struct zc_why {
	char msg[512];
	const char *file;	/* NULL: not set by a check */
	int line;
};

/* The source file's name, for file:line (no build directory in it). */
#ifdef __FILE_NAME__
#define ZC_FILE __FILE_NAME__
#else
#define ZC_FILE __FILE__
#endif

/* Set the reason; returns -1 so that "return zc_why_set(...)" fails. */
#define zc_why_set(w, ...) zc_why_set_at((w), ZC_FILE, __LINE__, __VA_ARGS__)
/* The same with ": strerror(errno)" appended (errno as it was on entry). */
#define zc_why_errno(w, ...) zc_why_errno_at((w), ZC_FILE, __LINE__, __VA_ARGS__)
int zc_why_set_at(struct zc_why *w, const char *file, int line,
		  const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int zc_why_errno_at(struct zc_why *w, const char *file, int line,
		    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Prepend "prefix: " to the reason already set (context from a caller). */
int zc_why_prefix(struct zc_why *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void zc_why_clear(struct zc_why *w)
{
	w->msg[0] = '\0';
	w->file = NULL;
	w->line = 0;
}

/*
 * Check a condition; when false record what was expected and what was
 * seen (the format says both), and this line, and evaluate to false, e.g.
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
