/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Case matrices: a test's rows generated from their axes.
 *
 * A test declares its row type (what a case does and expects, plus the
 * runner's part, ZC_ROW_HOOKS) and, per group of cases, one matrix: a
 * base row (the fields no axis sets: hooks, expectations), the axes (an
 * enum field of the row each, the values it takes in order, the name of
 * each value) and a rule function saying which combinations do not
 * exist and why. zc_matrix_main() expands every matrix, first axis
 * outermost, into the case table and runs it with zc_main().
 *
 * The name of a case is derived from its row's fields, one way for every
 * test: the names of its axis values joined by '.', an axis with
 * join '_' glued to the part before it by '_', a value named "" leaving
 * no part ("udp4" "send_zc" "pairing" "depth1" -> udp4.send_zc.pairing.depth1;
 * "rate" "send_zc" _"depth8" -> rate.send_zc_depth8).
 *
 * Hooks are typed by the row: ZC_MATRIX_TYPE(tag, row_t, ctx_t) makes
 * struct tag_matrix, whose base is a row_t and whose rule takes one, and
 * the row's hooks take (case, row_t, ctx_t): a hook or row of another
 * type does not compile (-Werror=incompatible-pointer-types).
 */
#ifndef ZC_MATRIX_H
#define ZC_MATRIX_H

#include <stddef.h>

#include "core/runner.h"

#define ZC_MATRIX_AXES	6

/* One axis: an enum field of the row, the values it takes, their names. */
struct zc_matrix_axis {
	size_t off;			/* offsetof(row, field) */
	const char *const *names;	/* by value; "" no name part */
	size_t nnames;
	/*
	 * 0: names is an array of names; else the size of a table's entry
	 * whose name field names points into (ZC_AXIS_TABLE).
	 */
	size_t stride;
	const int *vals;		/* the values, in order; NULL: 0..nvals-1 */
	size_t nvals;
	char join;			/* before its part: '.' (0) or '_' */
	/*
	 * Which loop it is, 1 the outermost; 0 in every axis: the axes'
	 * order. Lets a listing run in another order than the name's parts.
	 */
	unsigned char loop;
};

/*
 * ZC_AXIS(row_t, field, names, v...): the axis over row_t's field (an
 * enum or int: anything else does not compile), taking v... in order.
 * ZC_AXIS_GLUED: the same, its name part glued on with '_'.
 * ZC_AXIS_LOOP(n, ...): the same, as the n-th loop from the outside.
 * ZC_AXIS_TABLE(row_t, field, table, name): the axis over every entry
 * of table in its order, each named by its own name field: a case
 * declared once, as one entry carrying its name, expectation and reason.
 */
#define ZC_AXIS_J(row_t, field, j, l, names_, ...) {				\
	.off = offsetof(row_t, field) +						\
	       0 * sizeof(char[sizeof(((row_t *)0)->field) == sizeof(int) ? 1 : -1]), \
	.names = (names_),							\
	.nnames = sizeof(names_) / sizeof((names_)[0]),				\
	.vals = (const int[]){ __VA_ARGS__ },					\
	.nvals = sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int),		\
	.join = (j),								\
	.loop = (l),								\
}
#define ZC_AXIS(row_t, field, names_, ...) \
	ZC_AXIS_J(row_t, field, '.', 0, names_, __VA_ARGS__)
#define ZC_AXIS_GLUED(row_t, field, names_, ...) \
	ZC_AXIS_J(row_t, field, '_', 0, names_, __VA_ARGS__)
/* ZC_AXIS, the n-th loop from the outside (then every axis says which loop it is). */
#define ZC_AXIS_LOOP(n, row_t, field, names_, ...) \
	ZC_AXIS_J(row_t, field, '.', n, names_, __VA_ARGS__)
#define ZC_AXIS_TABLE_L(l, row_t, field, table, name) {				\
	.off = offsetof(row_t, field) +						\
	       0 * sizeof(char[sizeof(((row_t *)0)->field) == sizeof(int) ? 1 : -1]), \
	.names = &(table)[0].name,						\
	.nnames = sizeof(table) / sizeof((table)[0]),				\
	.stride = sizeof((table)[0]),						\
	.nvals = sizeof(table) / sizeof((table)[0]),				\
	.join = '.',								\
	.loop = (l),								\
}
#define ZC_AXIS_TABLE(row_t, field, table, name) \
	ZC_AXIS_TABLE_L(0, row_t, field, table, name)
#define ZC_AXIS_TABLE_LOOP(n, row_t, field, table, name) \
	ZC_AXIS_TABLE_L(n, row_t, field, table, name)

/*
 * The runner's part of a row, typed by it: the body, the precondition
 * (optional) and a known failure's reason. Put it first
 * in the row: ZC_ROW_HOOKS(struct req, struct ctx);
 */
#define ZC_ROW_HOOKS(row_t, ctx_t)						\
	struct {								\
		void (*fn)(const struct zc_case *c, const row_t *r, ctx_t *x);	\
		enum zc_pre (*pre)(const struct zc_case *c, const row_t *r,	\
				   ctx_t *x, struct zc_why *why);		\
		const char *xfail;						\
	} zc

/* Any row's ZC_ROW_HOOKS, as the generic code reads them. */
struct zc_matrix_hooks {
	void (*fn)(void);
	void (*pre)(void);
	const char *xfail;
};

/* The untyped view zc_matrix_expand() works on (ZC_MATRIX_TYPE fills it). */
struct zc_matrix {
	const char *name;			/* no axes: the one case's name */
	const void *base;
	size_t size;
	const struct zc_matrix_axis *axes;	/* up to the first without names */
	const char *(*rule)(const void *m, const void *row);
	void (*fill)(const void *m, void *row);
	const void *typed;			/* the test's struct tag_matrix */
	zc_case_fn fn;
	zc_pre_fn pre;
};

/*
 * struct tag_matrix { name; base; axes[]; rule; fill }, and tag_matrix(m):
 * its struct zc_matrix. A matrix without axes is one case, its base row,
 * named name (a single case is no one-row matrix). fill (optional) completes a row from its axis
 * fields (a table the axis value indexes); rule then returns why the
 * row does not exist, or NULL.
 */
#define ZC_MATRIX_TYPE(tag, row_t, ctx_t)					\
_Static_assert(offsetof(row_t, zc) == 0, "ZC_ROW_HOOKS first in " #row_t);	\
struct tag##_matrix {								\
	const char *name;							\
	const row_t *base;							\
	struct zc_matrix_axis axes[ZC_MATRIX_AXES];				\
	const char *(*rule)(const row_t *r);					\
	void (*fill)(row_t *r);							\
};										\
static void tag##_fn(const struct zc_case *c, void *ctx)			\
{										\
	const row_t *r = c->arg;						\
	r->zc.fn(c, r, ctx);							\
}										\
static enum zc_pre tag##_pre(const struct zc_case *c, void *ctx,		\
			     struct zc_why *why)				\
{										\
	const row_t *r = c->arg;						\
	return r->zc.pre ? r->zc.pre(c, r, ctx, why) : ZC_RUN;			\
}										\
static const char *tag##_rule(const void *m, const void *row)			\
{										\
	const struct tag##_matrix *tm = m;					\
	return tm->rule ? tm->rule(row) : NULL;					\
}										\
static void tag##_fill(const void *m, void *row)				\
{										\
	const struct tag##_matrix *tm = m;					\
	if (tm->fill)								\
		tm->fill(row);							\
}										\
static inline struct zc_matrix tag##_matrix(const struct tag##_matrix *m)	\
{										\
	return (struct zc_matrix){						\
		.name = m->name, .base = m->base, .size = sizeof(row_t), .axes = m->axes,	\
		.rule = tag##_rule, .fill = tag##_fill, .typed = m,		\
		.fn = tag##_fn, .pre = tag##_pre,				\
	};									\
}

/* The generated table: its cases, each arg a row of its matrix. */
struct zc_matrix_cases {
	struct zc_case *cases;
	size_t n;
};

/*
 * Appends m's rows (the rule's exclusions left out) to out, names
 * derived. -1 with why on a bad table: a value without a name, two
 * rows of one name, no memory.
 */
int zc_matrix_expand(const struct zc_matrix *m, struct zc_matrix_cases *out,
		     struct zc_why *why);
/* The name of row, as zc_matrix_expand() derives it: 0, or -1 with why. */
int zc_matrix_name(const struct zc_matrix_axis *axes, const void *row,
		   char *buf, size_t len, struct zc_why *why);
/*
 * Expands ms[n] into t's case table (t->cases and t->ncases are
 * replaced) and runs zc_main(). A bad table: one line, exit KSFT_FAIL.
 */
int zc_matrix_main(struct zc_test *t, const struct zc_matrix *ms, size_t n,
		   int argc, char **argv, struct zc_opts *o, void *ctx);

#endif
