// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/core/matrix: rows from axes in order (first axis
 * outermost, or as each axis says its loop), names derived from the rows' fields (joins,
 * glued parts, empty parts), exclusions by the rule, fill, bad tables.
 * No root, no kernel feature: milliseconds.
 */
#include <stdlib.h>

#include "core/matrix.h"
#include "unit_tap.h"

struct ctx { int x; };
enum proto { P_UDP4, P_TCP4, P_UNIX };
enum api { A_SEND, A_SEND_ZC };
enum depth { D_NONE, D_1, D_8 };

struct row {
	ZC_ROW_HOOKS(struct row, struct ctx);
	enum proto proto;
	enum api api;
	enum depth depth;
	int filled;
};
ZC_MATRIX_TYPE(row, struct row, struct ctx)

static void body(const struct zc_case *c, const struct row *r, struct ctx *x) {}

static const char *const protos[] = { [P_UDP4] = "udp4", [P_TCP4] = "tcp4", [P_UNIX] = "unix" };
static const char *const apis[] = { [A_SEND] = "send", [A_SEND_ZC] = "send_zc" };
static const char *const depths[] = { [D_NONE] = "", [D_1] = "depth1", [D_8] = "depth8" };
static const char *const holes[] = { [P_UDP4] = "udp4", [P_UNIX] = "unix" };

/* A table that declares each value once: its name beside its data. */
static const struct { int want; const char *name; } api_table[] = {
	[A_SEND] = { 1, "send" }, [A_SEND_ZC] = { 2, "send_zc" },
};

static const char *rule(const struct row *r)
{
	if (r->proto == P_UNIX)
		return "no unix here";
	if (r->api == A_SEND && r->depth != D_NONE)
		return "send has no depth";
	if (r->api == A_SEND_ZC && r->depth == D_NONE)
		return "send_zc names its depth";
	return NULL;
}

static void fill(struct row *r)
{
	r->filled = 100 + r->depth;
}

/* The names of m's rows, space separated, or "error: WHY". */
static const char *expand(const struct row_matrix *tm)
{
	static char out[1024];
	struct zc_matrix m = row_matrix(tm);
	struct zc_matrix_cases cs = { 0 };
	struct zc_why why = { "" };
	size_t i;

	out[0] = '\0';
	if (zc_matrix_expand(&m, &cs, &why)) {
		snprintf(out, sizeof(out), "error: %s", why.msg);
	} else {
		for (i = 0; i < cs.n; i++)
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s",
				 i ? " " : "", cs.cases[i].name);
	}
	for (i = 0; i < cs.n; i++) {
		free((void *)cs.cases[i].name);
		free((void *)cs.cases[i].arg);
	}
	free(cs.cases);
	return out;
}

static void expect_names(const char *name, const struct row_matrix *m,
			 const char *want)
{
	const char *got = expand(m);
	char detail[1200];

	snprintf(detail, sizeof(detail), "want '%s', got '%s'", want, got);
	unit_check(!strcmp(got, want), name, detail);
}

int main(void)
{
	const struct row base = { .zc = { .fn = body } };
	const struct row_matrix plain = {
		.base = &base,
		.axes = {
			ZC_AXIS(struct row, proto, protos, P_UDP4, P_TCP4),
			ZC_AXIS(struct row, api, apis, A_SEND, A_SEND_ZC),
		},
	};
	const struct row_matrix tabled = {
		.base = &base,
		.axes = {
			ZC_AXIS(struct row, proto, protos, P_UDP4, P_TCP4),
			ZC_AXIS_TABLE(struct row, api, api_table, name),
		},
	};
	const struct row_matrix single = { .name = "taps.list", .base = &base };
	const struct row_matrix anonymous = { .base = &base };
	const struct row_matrix named_axes = {
		.name = "x",
		.base = &base,
		.axes = { ZC_AXIS(struct row, proto, protos, P_UDP4) },
	};
	const struct row_matrix looped = {
		.base = &base,
		.axes = {
			ZC_AXIS_LOOP(2, struct row, proto, protos, P_UDP4, P_TCP4),
			ZC_AXIS_LOOP(1, struct row, api, apis, A_SEND, A_SEND_ZC),
		},
	};
	const struct row_matrix ruled = {
		.base = &base,
		.axes = {
			ZC_AXIS(struct row, proto, protos, P_UDP4, P_UNIX),
			ZC_AXIS(struct row, api, apis, A_SEND, A_SEND_ZC),
			ZC_AXIS_GLUED(struct row, depth, depths, D_NONE, D_1, D_8),
		},
		.rule = rule,
	};
	const struct row_matrix unnamed = {
		.base = &base,
		.axes = { ZC_AXIS(struct row, proto, holes, P_UDP4, P_TCP4) },
	};
	const struct row_matrix twice = {
		.base = &base,
		.axes = {
			ZC_AXIS(struct row, proto, protos, P_UDP4),
			ZC_AXIS(struct row, depth, depths, D_NONE, D_NONE),
		},
	};
	const struct row_matrix half_looped = {
		.base = &base,
		.axes = {
			ZC_AXIS_LOOP(1, struct row, proto, protos, P_UDP4),
			ZC_AXIS(struct row, api, apis, A_SEND),
		},
	};
	const struct row_matrix filled = {
		.base = &base,
		.axes = {
			ZC_AXIS(struct row, proto, protos, P_UDP4),
			ZC_AXIS(struct row, depth, depths, D_1, D_8),
		},
		.fill = fill,
	};
	struct zc_matrix m = row_matrix(&filled);
	struct zc_matrix_cases cs = { 0 };
	struct zc_why why = { "" };
	char name[64];
	struct row r = { .proto = P_TCP4, .api = A_SEND_ZC, .depth = D_8 };
	int ok;

	expect_names("matrix.table_axis_takes_every_entry_named_by_it", &tabled,
		     "udp4.send udp4.send_zc tcp4.send tcp4.send_zc");
	expect_names("matrix.no_axes_is_one_case_of_its_name", &single, "taps.list");
	expect_names("matrix.no_axes_and_no_name_is_a_bad_table", &anonymous,
		     "error: a matrix without axes names its one case");
	expect_names("matrix.name_and_axes_is_a_bad_table", &named_axes,
		     "error: a matrix names its case only without axes");
	expect_names("matrix.first_axis_outermost", &plain,
		     "udp4.send udp4.send_zc tcp4.send tcp4.send_zc");
	expect_names("matrix.axis_loop_sets_the_loop_order", &looped,
		     "udp4.send tcp4.send udp4.send_zc tcp4.send_zc");
	expect_names("matrix.rule_excludes_glued_and_empty_parts", &ruled,
		     "udp4.send udp4.send_zc_depth1 udp4.send_zc_depth8");
	expect_names("matrix.value_without_name_is_a_bad_table", &unnamed,
		     "error: axis 0: value 1 has no name");
	expect_names("matrix.two_rows_one_name_is_a_bad_table", &twice,
		     "error: two rows named udp4");
	expect_names("matrix.some_loops_not_all_is_a_bad_table", &half_looped,
		     "error: some axes say which loop they are, not all");

	ok = !zc_matrix_name(ruled.axes, &r, name, sizeof(name), &why) &&
	     !strcmp(name, "tcp4.send_zc_depth8");
	unit_check(ok, "matrix.name_from_the_fields", name);
	ok = zc_matrix_name(ruled.axes, &r, name, 8, &why) &&
	     unit_has(why.msg, "longer than 7");
	unit_check(ok, "matrix.name_too_long_is_an_error", why.msg);

	ok = !zc_matrix_expand(&m, &cs, &why) && cs.n == 2 &&
	     ((const struct row *)cs.cases[0].arg)->filled == 100 + D_1 &&
	     ((const struct row *)cs.cases[1].arg)->filled == 100 + D_8 &&
	     cs.cases[0].fn && !cs.cases[0].pre;
	unit_check(ok, "matrix.fill_completes_each_row_hooks_copied", why.msg);
	return unit_done();
}
