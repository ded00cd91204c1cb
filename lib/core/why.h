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
 * Whose a skip is, stated where the skip is raised (TAP: a
 * "# skip-class NAME CLASS" line before the SKIP, doc/results.md): a
 * comparison calls pass -> skip a regression only when the kernel lacks
 * or changed a feature; the environment (capabilities, sysctls, config
 * options, devices, limits, seccomp/LSM, a foreign tap) and the harness
 * (starved, stalled, interrupted, its own limits) are no verdict on the
 * kernel. NONE (nobody said) is reported as kernel: a skip for a new
 * reason stays a regression until its raiser names the class.
 */
enum zc_class {
	ZC_CLASS_NONE = 0,
	ZC_CLASS_KERNEL,
	ZC_CLASS_ENV,
	ZC_CLASS_HARNESS,
};

/*
 * The reason, and the file:line that wrote it: a failure line names the
 * check that failed, as the kernel's own harness does. cls: whose it is
 * when it becomes a skip (zc_why_set leaves NONE; zc_why_as sets it).
 */
struct zc_why {
	char msg[512];
	const char *file;	/* NULL: not set by a check */
	int line;
	enum zc_class cls;
};

/* The source file's name, for file:line (no build directory in it). */
#ifdef __FILE_NAME__
#define ZC_FILE __FILE_NAME__
#else
#define ZC_FILE __FILE__
#endif

/*
 * Set the reason (its class back to NONE); returns -1 so that
 * "return zc_why_set(...)" fails.
 */
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
	w->cls = ZC_CLASS_NONE;
}

/* Name the class of the reason already set; -1, as zc_why_set. */
static inline int zc_why_as(struct zc_why *w, enum zc_class cls)
{
	w->cls = cls;
	return -1;
}
/* Set a reason with its class in one go (a skip's raiser). */
#define zc_why_skip(w, cls, ...) \
	(zc_why_set((w), __VA_ARGS__), zc_why_as((w), (cls)))
/* "kernel", "environment" or "harness" (NONE: "kernel"). */
const char *zc_why_class_name(enum zc_class cls);

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
/*
 * Compare two integers as kselftest_harness's EXPECT_* do; when false
 * record both expressions and both values at this line, e.g.
 *	ok &= ZC_EXPECT_OP(why, cqe->res, ==, len);
 * sets "cqe->res (4095) == len (4096)". Each side is evaluated once.
 */
#define ZC_EXPECT_OP(w, seen, op, expected)				\
({									\
	long long __seen = (long long)(seen);				\
	long long __want = (long long)(expected);			\
									\
	ZC_CHECK(w, __seen op __want, "%s (%lld) %s %s (%lld)",		\
		 #seen, __seen, #op, #expected, __want);		\
})
#define ZC_EXPECT_EQ(w, seen, expected) ZC_EXPECT_OP(w, seen, ==, expected)
#define ZC_EXPECT_NE(w, seen, expected) ZC_EXPECT_OP(w, seen, !=, expected)
#define ZC_EXPECT_GE(w, seen, expected) ZC_EXPECT_OP(w, seen, >=, expected)
#define ZC_EXPECT_LE(w, seen, expected) ZC_EXPECT_OP(w, seen, <=, expected)
/* Integer equality, the message built from the expression. */
#define ZC_CHECK_EQ(w, what, seen, expected)				\
	ZC_CHECK(w, (long long)(seen) == (long long)(expected),		\
		 "%s: expected %lld, seen %lld", what,			\
		 (long long)(expected), (long long)(seen))

#endif
