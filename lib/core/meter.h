/* SPDX-License-Identifier: GPL-2.0 */
/* Bounded timed loops over repeats: rates, paired rates, machine speed. */
#ifndef ZC_METER_H
#define ZC_METER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/clock.h"
#include "core/stats.h"

/*
 * One step of the measured body. Adds what it moved to *bytes and *pkts.
 * Returns 0 to go on, 1 to stop early (done), negative errno on failure.
 */
typedef int (*zc_step_fn)(void *arg, uint64_t *bytes, uint64_t *pkts);

struct zc_meter_cfg {
	double duration;	/* seconds per repeat */
	double warmup;		/* seconds before the first repeat */
	int repeat;
	uint64_t max_steps;	/* per repeat; 0 means 1 << 40 */
};

struct zc_rate {
	struct zc_stats mbps;		/* MB/s (1e6 bytes) */
	struct zc_stats mpps;		/* Mpps */
	struct zc_stats cpu_per_gb;	/* process CPU seconds per GB */
	struct zc_stats ns_per_pkt;	/* process CPU ns per packet */
	struct zc_stats softirq_per_gb;	/* system-wide softirq s per GB */
	struct zc_stats speed;		/* machine speed before each repeat */
	uint64_t bytes, pkts;		/* totals over measured repeats */
	int err;			/* first negative step return */
};

/*
 * Warm up, then run `repeat` repeats of at most `duration` seconds and
 * max_steps steps each. Returns 0, the step's negative errno, or -ENODATA
 * when the steps moved no byte and no packet at all.
 */
int zc_measure(const struct zc_meter_cfg *cfg, zc_step_fn step, void *arg,
	       struct zc_rate *out);

/*
 * The longest the measured windows of one zc_measure() can add up to:
 * the warm-up, every repeat measured again once by screening, and each
 * window run twice after a pause. Whatever feeds the rate from outside
 * (a frame generator) must last this long plus its own margin, or the
 * last windows measure nothing of the kernel's.
 */
double zc_meter_span_max(const struct zc_meter_cfg *cfg);

/*
 * One arm of a paired measurement. begin/end (optional) run untimed
 * around each of its repeats and its warm-up, e.g. to open and close a
 * packet tap that must not be there for the other arm, or to drain the
 * arm's completions; a negative return stops the measurement.
 */
struct zc_arm {
	zc_step_fn step;
	void *arg;
	int (*begin)(void *arg);
	int (*end)(void *arg);
};

/*
 * Two arms measured in alternation, so that a ratio between them has one
 * sample per repeat from measurements taken seconds apart, not two
 * medians taken minutes apart: each repeat runs arm 0 then arm 1 (arm 1
 * first on odd repeats). out[0], out[1] are each arm's rate;
 * ratio->samples[i] is arm 1 over arm 0 in MB/s (Mpps when pkts_based)
 * of repeat i. Returns 0, a step's negative errno, or -ENODATA.
 */
int zc_measure_pair(const struct zc_meter_cfg *cfg, const struct zc_arm arm[2],
		    struct zc_rate out[2], struct zc_stats *ratio, bool pkts_based);

/*
 * Machine speed in Mops of a dependent integer chain: zc_measure() takes
 * one sample before every repeat. The samples so far (n = 0: none).
 */
void zc_calibration(struct zc_stats *s);

/* Pin the calling thread to a CPU; -1 is a no-op. Returns 0 or -errno. */
int zc_pin_cpu(int cpu);

#endif
