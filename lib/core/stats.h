/* SPDX-License-Identifier: GPL-2.0 */
/* Median, spread and samples of a set of measured repeats. */
#ifndef ZC_STATS_H
#define ZC_STATS_H

#include <stdbool.h>

#define ZC_MAX_SAMPLES	100

struct zc_stats {
	int n;
	double median, min, max, mean, cv;	/* cv in percent */
	double samples[ZC_MAX_SAMPLES];
	/*
	 * Set by the meter when it screened the repeats for other work
	 * (lib/core/meter.c): how many it measured again. The metric
	 * line then says discarded=N.
	 */
	bool screened;
	int discarded;
};

/* Sort a copy and fill median/min/max/mean/cv; n is clamped to ZC_MAX_SAMPLES. */
void zc_stats_compute(struct zc_stats *s, const double *v, int n);

#endif
