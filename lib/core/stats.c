// SPDX-License-Identifier: GPL-2.0
/* Median, spread and samples of a set of measured repeats. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void zc_stats_compute(struct zc_stats *s, const double *v, int n)
{
	double sorted[ZC_MAX_SAMPLES], sum = 0, var = 0;
	int i;

	memset(s, 0, sizeof(*s));
	if (n > ZC_MAX_SAMPLES)
		n = ZC_MAX_SAMPLES;
	if (n <= 0)
		return;
	s->n = n;
	memcpy(s->samples, v, n * sizeof(*v));
	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = n % 2 ? sorted[n / 2] :
		(sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	for (i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / n;
	for (i = 0; i < n; i++)
		var += (v[i] - s->mean) * (v[i] - s->mean);
	/* Sample standard deviation; a single sample has no spread. */
	if (n > 1 && s->mean != 0)
		s->cv = 100.0 * sqrt(var / (n - 1)) / fabs(s->mean);
}
