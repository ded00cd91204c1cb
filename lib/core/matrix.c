// SPDX-License-Identifier: GPL-2.0
/*
 * Case matrices (matrix.h): rows from axes, names from the rows' fields,
 * one way for every test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ktap.h"
#include "core/matrix.h"

#define NAME_MAX_LEN	128

static size_t naxes(const struct zc_matrix_axis *axes)
{
	size_t n = 0;

	while (n < ZC_MATRIX_AXES && axes[n].names)
		n++;
	return n;
}

/* Value v's name: an array's element, or a table entry's name field. */
static const char *value_name(const struct zc_matrix_axis *a, int v)
{
	size_t step = a->stride ? a->stride : sizeof(a->names[0]);

	if (v < 0 || (size_t)v >= a->nnames)
		return NULL;
	return *(const char *const *)((const char *)a->names + v * step);
}

int zc_matrix_name(const struct zc_matrix_axis *axes, const void *row,
		   char *buf, size_t len, struct zc_why *why)
{
	size_t used = 0, i, n = naxes(axes);

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const struct zc_matrix_axis *a = &axes[i];
		const char *part;
		int v, w;

		memcpy(&v, (const char *)row + a->off, sizeof(v));
		part = value_name(a, v);
		if (!part)
			return zc_why_set(why, "axis %zu: value %d has no name", i, v);
		if (!*part)
			continue;
		w = snprintf(buf + used, len - used, "%s%s",
			     !used ? "" : a->join == '_' ? "_" : ".", part);
		if (w < 0 || (size_t)w >= len - used)
			return zc_why_set(why, "name longer than %zu bytes", len - 1);
		used += w;
	}
	if (!used)
		return zc_why_set(why, "a row with an empty name");
	return 0;
}

static int grow(struct zc_matrix_cases *out, struct zc_why *why)
{
	struct zc_case *c;

	if (out->n % 64)
		return 0;
	c = realloc(out->cases, (out->n + 64) * sizeof(*c));
	if (!c)
		return zc_why_set(why, "out of memory");
	out->cases = c;
	return 0;
}

static int add_row(const struct zc_matrix *m, void *row,
		   struct zc_matrix_cases *out, struct zc_why *why)
{
	const struct zc_matrix_hooks *h = row;
	char name[NAME_MAX_LEN];
	void *r;
	size_t i;

	m->fill(m->typed, row);
	if (m->rule(m->typed, row))
		return 0;
	if (!naxes(m->axes)) {
		if (!m->name || !*m->name)
			return zc_why_set(why, "a matrix without axes names its one case");
		snprintf(name, sizeof(name), "%s", m->name);
	} else if (zc_matrix_name(m->axes, row, name, sizeof(name), why)) {
		return -1;
	}
	for (i = 0; i < out->n; i++)
		if (!strcmp(out->cases[i].name, name))
			return zc_why_set(why, "two rows named %s", name);
	if (grow(out, why))
		return -1;
	r = malloc(m->size);
	if (!r)
		return zc_why_set(why, "out of memory");
	memcpy(r, row, m->size);
	out->cases[out->n++] = (struct zc_case){
		.name = strdup(name),
		.fn = m->fn,
		.arg = r,
		.xfail = h->xfail,
		.pre = h->pre ? m->pre : NULL,
	};
	if (!out->cases[out->n - 1].name)
		return zc_why_set(why, "out of memory");
	return 0;
}

/* loop[k]: the axis of the k-th loop from the outside. */
static int loop_order(const struct zc_matrix_axis *axes, size_t n,
		      size_t *loop, struct zc_why *why)
{
	size_t i, k, placed = 0;

	for (i = 0; i < n; i++) {
		loop[i] = i;
		placed += axes[i].loop != 0;
	}
	if (!placed)
		return 0;
	if (placed != n)
		return zc_why_set(why, "some axes say which loop they are, not all");
	for (k = 0; k < n; k++) {
		for (i = 0; i < n && axes[i].loop != k + 1; i++)
			;
		if (i == n)
			return zc_why_set(why, "no axis is loop %zu", k + 1);
		loop[k] = i;
	}
	return 0;
}

int zc_matrix_expand(const struct zc_matrix *m, struct zc_matrix_cases *out,
		     struct zc_why *why)
{
	size_t n = naxes(m->axes), at[ZC_MATRIX_AXES] = { 0 };
	size_t loop[ZC_MATRIX_AXES], i;
	unsigned char *row;
	int ret = 0;

	if (m->name && n)
		return zc_why_set(why, "a matrix names its case only without axes");
	if (loop_order(m->axes, n, loop, why))
		return -1;
	row = malloc(m->size);
	if (!row)
		return zc_why_set(why, "out of memory");
	for (i = 0; i < n; i++)
		if (!m->axes[i].nvals)
			goto out;
	for (;;) {
		memcpy(row, m->base, m->size);
		for (i = 0; i < n; i++) {
			int v = m->axes[i].vals ? m->axes[i].vals[at[i]] : (int)at[i];

			memcpy(row + m->axes[i].off, &v, sizeof(v));
		}
		ret = add_row(m, row, out, why);
		if (ret)
			break;
		/* The innermost loop turns fastest. */
		for (i = n; i-- > 0;) {
			if (++at[loop[i]] < m->axes[loop[i]].nvals)
				break;
			at[loop[i]] = 0;
		}
		if (i == (size_t)-1)
			break;
	}
out:
	free(row);
	return ret;
}

/* Reachable until exit: the runner's table points into it. */
static struct zc_matrix_cases table;

int zc_matrix_main(struct zc_test *t, const struct zc_matrix *ms, size_t n,
		   int argc, char **argv, struct zc_opts *o, void *ctx)
{
	struct zc_why why = { 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		if (zc_matrix_expand(&ms[i], &table, &why)) {
			fprintf(stderr, "%s: case matrix %zu: %s\n",
				t->desc->name, i, why.msg);
			return KSFT_FAIL;
		}
	}
	t->cases = table.cases;
	t->ncases = table.n;
	return zc_main(t, argc, argv, o, ctx);
}
