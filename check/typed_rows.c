// SPDX-License-Identifier: GPL-2.0
/*
 * Rows of the wrong type do not compile (check/build/t_typed_rows.sh):
 * built with -DWRONG=N, each N plants one mistake; WRONG=0 is the same
 * matrix done right, and must compile.
 */
#include "core/matrix.h"

struct ctx { int x; };
struct row {
	ZC_ROW_HOOKS(struct row, struct ctx);
	enum { A0, A1 } a;
	const char *label;
};
struct other {
	ZC_ROW_HOOKS(struct other, struct ctx);
	enum { B0 } b;
};
ZC_MATRIX_TYPE(row, struct row, struct ctx)

static void body(const struct zc_case *c, const struct row *r, struct ctx *x)
{
}

static void other_body(const struct zc_case *c, const struct other *r,
		       struct ctx *x)
{
}

static const char *rule(const struct row *r)
{
	return NULL;
}

static const char *other_rule(const struct other *r)
{
	return NULL;
}

static const char *const names[] = { [A0] = "a0", [A1] = "a1" };

static const struct row_matrix m = {
#if WRONG == 1		/* a body of another row type */
	.base = &(const struct row){ .zc = { .fn = other_body } },
#elif WRONG == 2	/* a base row of another type */
	.base = &(const struct other){ .zc = { .fn = other_body } },
#else
	.base = &(const struct row){ .zc = { .fn = body } },
#endif
#if WRONG == 3		/* an axis over a field that is no enum */
	.axes = { ZC_AXIS(struct row, label, names, A0, A1) },
#else
	.axes = { ZC_AXIS(struct row, a, names, A0, A1) },
#endif
#if WRONG == 4		/* a rule of another row type */
	.rule = other_rule,
#else
	.rule = rule,
#endif
};

int main(void)
{
	struct zc_matrix mm = row_matrix(&m);

	(void)other_body;
	(void)other_rule;
	return mm.size != sizeof(struct row);
}
