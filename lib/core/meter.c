// SPDX-License-Identifier: GPL-2.0
/* Bounded timed loops over repeats, single and paired, and the machine speed. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/meter.h"
#include "core/util.h"

/*
 * Machine speed next to every measured repeat: on a shared VM the CPU
 * speed drifts by 2x between runs minutes apart, and the comparison tool
 * needs to see that to tell drift from a kernel change.
 */
static double calib[ZC_MAX_SAMPLES];
static int ncalib;

static double zc_calibrate(void)
{
	volatile uint64_t sink;
	uint64_t x = 0x9e3779b97f4a7c15ULL, i;
	const uint64_t n = 4000000;
	double t0 = zc_now(), dt;

	/* A dependent chain: the rate of one core, not of the memory. */
	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + i;
	sink = x;
	(void)sink;
	dt = zc_now() - t0;
	return dt > 0 ? n / dt / 1e6 : 0;
}

static double calib_add(void)
{
	double v = zc_calibrate();

	calib[ncalib % ZC_MAX_SAMPLES] = v;
	if (++ncalib >= 2 * ZC_MAX_SAMPLES)
		ncalib = ZC_MAX_SAMPLES;
	return v;
}

void zc_calibration(struct zc_stats *s)
{
	zc_stats_compute(s, calib, ncalib < ZC_MAX_SAMPLES ? ncalib : ZC_MAX_SAMPLES);
}

struct sample {
	double secs, cpu, softirq;
	uint64_t bytes, pkts;
	/* the speed sample and the window: their time, and what of it was not ours */
	double span, foreign;
};

/*
 * Under qemu's instruction counting at one CPU (tools/vmtest --icount
 * says so in ZC_CLOCK) guest time passes only while guest code runs, so
 * the time of a repeat that this process did not spend on the CPU is
 * other guest work that landed inside it: a kernel thread, another
 * process, the runner. It can only add time, and it did, in steps of
 * 2-7 % (doc/noise.md). There a repeat whose speed sample and window
 * hold more than FOREIGN_MAX of such time above the least share seen
 * among the rate's repeats is measured again, at most `repeat` times a
 * rate, and the metric line counts the repeats discarded. On real CPUs
 * time off this process's CPU is the path's own (waits, other CPUs):
 * no screening there.
 */
#define FOREIGN_MAX	0.001

static bool screening(void)
{
	static int on = -1;

	if (on < 0) {
		const char *clock = getenv("ZC_CLOCK");

		on = clock && !strncmp(clock, "icount", 6) &&
		     sysconf(_SC_NPROCESSORS_ONLN) == 1;
	}
	return on;
}

/*
 * ZC_METER_REMEASURE=1 (checks only): every repeat of zc_measure(), and
 * of each arm of zc_measure_pair(), is judged disturbed once and
 * measured again, the worst case screening reaches under icount with
 * live frames, on any machine.
 */
static bool remeasure_all(void)
{
	static int on = -1;

	if (on < 0) {
		const char *v = getenv("ZC_METER_REMEASURE");

		on = v && !strcmp(v, "1");
	}
	return on;
}

/* Whether the figures say how many repeats were discarded. */
static bool screened(void)
{
	return screening() || remeasure_all();
}

static double foreign_share(const struct sample *s)
{
	return s->span > 0 ? s->foreign / s->span : 0;
}

/* The speed sample before a repeat: its time and what of it was not ours. */
static double calib_screened(double *span, double *foreign)
{
	double t0 = zc_now(), c0 = zc_cpu_self(), v = calib_add();

	*span = zc_now() - t0;
	*foreign = *span - (zc_cpu_self() - c0);
	return v;
}

/* A measured window adds its time and what of it was not ours. */
static void add_window(struct sample *s, double span, double foreign)
{
	s->span = span + s->secs;
	s->foreign = foreign + s->secs - s->cpu;
}

/* The repeat furthest above the least share by more than FOREIGN_MAX, or -1. */
static int most_disturbed(const struct sample *s, int n, double least)
{
	double worst = FOREIGN_MAX;
	int i, at = -1;

	for (i = 0; i < n; i++) {
		double over = foreign_share(&s[i]) - least;

		if (over > worst) {
			worst = over;
			at = i;
		}
	}
	return at;
}

static double least_share(const struct sample *s, int n)
{
	double least = 1;
	int i;

	for (i = 0; i < n; i++)
		if (foreign_share(&s[i]) < least)
			least = foreign_share(&s[i]);
	return least;
}

/* Steps between clock reads: one read per 64 sends at depth 8. */
#define CLOCK_EVERY	8

static int run_for(const struct zc_meter_cfg *cfg, double secs,
		   zc_step_fn step, void *arg, struct sample *s)
{
	uint64_t max = cfg->max_steps ? cfg->max_steps : 1ULL << 40;
	double c0 = zc_cpu_self(), q0 = zc_softirq_cpu();
	double t0 = zc_now(), deadline = t0 + secs;
	uint64_t i;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < max; i++) {
		ret = step(arg, &s->bytes, &s->pkts);
		if (ret)
			break;
		/*
		 * The window is what the clock says at its end, so reading
		 * it every few steps only lengthens the window by a few
		 * steps: under icount a read per step cost 0.15 % of a
		 * SEND_ZC rate's instructions.
		 */
		if (i % CLOCK_EVERY == CLOCK_EVERY - 1 && zc_now() >= deadline)
			break;
	}
	/* The CPU and softirq clocks are read outside the timed window. */
	s->secs = zc_now() - t0;
	s->cpu = zc_cpu_self() - c0;
	s->softirq = zc_softirq_cpu() - q0;
	return ret < 0 ? ret : 0;
}

/*
 * One repeat, measured again (once) when this process was not running
 * during it: a repeat that includes 20 s of SIGSTOP is no rate of the
 * kernel's. A second spoilt repeat gives up with -ZC_EPAUSED.
 */
static int run_repeat(const struct zc_meter_cfg *cfg, double secs,
		      zc_step_fn step, void *arg, struct sample *s)
{
	int tries, ret = 0;

	zc_pause_watch();
	for (tries = 0; tries < 2; tries++) {
		double p0 = zc_paused_s();

		ret = run_for(cfg, secs, step, arg, s);
		if (zc_paused_s() - p0 <= 0)
			return ret;
	}
	return -ZC_EPAUSED;
}

static void fill_rate(struct zc_rate *r, const struct sample *s, int n)
{
	double mbps[ZC_MAX_SAMPLES], mpps[ZC_MAX_SAMPLES];
	double cpb[ZC_MAX_SAMPLES], nspp[ZC_MAX_SAMPLES], sq[ZC_MAX_SAMPLES];
	int i;

	for (i = 0; i < n; i++) {
		double secs = s[i].secs > 0 ? s[i].secs : 1e-9;
		double gb = s[i].bytes / 1e9;

		mbps[i] = s[i].bytes / secs / 1e6;
		mpps[i] = s[i].pkts / secs / 1e6;
		cpb[i] = gb > 0 ? s[i].cpu / gb : 0;
		sq[i] = gb > 0 ? s[i].softirq / gb : 0;
		nspp[i] = s[i].pkts ? s[i].cpu * 1e9 / s[i].pkts : 0;
		r->bytes += s[i].bytes;
		r->pkts += s[i].pkts;
	}
	zc_stats_compute(&r->mbps, mbps, n);
	zc_stats_compute(&r->mpps, mpps, n);
	zc_stats_compute(&r->cpu_per_gb, cpb, n);
	zc_stats_compute(&r->ns_per_pkt, nspp, n);
	zc_stats_compute(&r->softirq_per_gb, sq, n);
}

/* Every figure of a screened rate says how many repeats were discarded. */
static void mark_screened(struct zc_rate *r, int discarded)
{
	struct zc_stats *all[] = { &r->mbps, &r->mpps, &r->cpu_per_gb,
				   &r->ns_per_pkt, &r->softirq_per_gb };
	unsigned int i;

	for (i = 0; i < ZC_ARRAY_SIZE(all); i++) {
		all[i]->screened = true;
		all[i]->discarded = discarded;
	}
}

/* The repeat to measure again next, or -1 (discarded: done so far). */
static int next_disturbed(const struct sample *s, int n, double least,
			  int discarded)
{
	if (remeasure_all())
		return discarded;
	return screening() ? most_disturbed(s, n, least) : -1;
}

static int repeats(const struct zc_meter_cfg *cfg)
{
	int n = cfg->repeat;

	return n < 1 ? 1 : n > ZC_MAX_SAMPLES ? ZC_MAX_SAMPLES : n;
}

double zc_meter_span_max(const struct zc_meter_cfg *cfg)
{
	int n = repeats(cfg);

	return (cfg->warmup > 0 ? cfg->warmup : 0) + 2 * 2 * n * cfg->duration;
}

static int run_arm(const struct zc_meter_cfg *cfg, const struct zc_arm *arm,
		   double secs, struct sample *s)
{
	int ret = arm->begin ? arm->begin(arm->arg) : 0;
	int end;

	if (ret)
		return ret;
	ret = run_repeat(cfg, secs, arm->step, arm->arg, s);
	end = arm->end ? arm->end(arm->arg) : 0;
	return ret ? ret : end;
}

/* One speed sample and one repeat of an arm, screened (not its begin/end). */
static int measure_arm(const struct zc_meter_cfg *cfg, const struct zc_arm *arm,
		       struct sample *s, double *speed)
{
	double span, foreign;
	int ret;

	*speed = calib_screened(&span, &foreign);
	ret = run_arm(cfg, arm, cfg->duration, s);
	add_window(s, span, foreign);
	return ret;
}

/*
 * The disturbed repeats of one arm measured again, each alone: what
 * screening judges disturbed, or every repeat once under
 * ZC_METER_REMEASURE=1. Counts them in *discarded.
 */
static int remeasure(const struct zc_meter_cfg *cfg, const struct zc_arm *arm,
		     struct sample *s, double *speed, int n, int *discarded)
{
	double least = least_share(s, n);
	int i, ret = 0;

	while (!ret && *discarded < n &&
	       (i = next_disturbed(s, n, least, *discarded)) >= 0) {
		ret = measure_arm(cfg, arm, &s[i], &speed[i]);
		(*discarded)++;
		if (foreign_share(&s[i]) < least)
			least = foreign_share(&s[i]);
	}
	return ret;
}

/* An arm's rate from its kept repeats; -ENODATA when nothing moved. */
static int arm_rate(struct zc_rate *out, const struct sample *s,
		    const double *speed, int n, int discarded)
{
	fill_rate(out, s, n);
	zc_stats_compute(&out->speed, speed, n);
	if (screened())
		mark_screened(out, discarded);
	/* A rate over nothing moved is no measurement: fail it, never report 0. */
	return !out->bytes && !out->pkts ? -ENODATA : 0;
}

int zc_measure(const struct zc_meter_cfg *cfg, zc_step_fn step, void *arg,
	       struct zc_rate *out)
{
	const struct zc_arm arm = { .step = step, .arg = arg };
	struct sample s[ZC_MAX_SAMPLES], warm;
	double speed[ZC_MAX_SAMPLES];
	int n = repeats(cfg), i, ret = 0, discarded = 0;

	memset(out, 0, sizeof(*out));
	if (cfg->warmup > 0)
		ret = run_for(cfg, cfg->warmup, step, arg, &warm);
	for (i = 0; i < n && !ret; i++)
		ret = measure_arm(cfg, &arm, &s[i], &speed[i]);
	if (!ret)
		ret = remeasure(cfg, &arm, s, speed, n, &discarded);
	if (!ret)
		ret = arm_rate(out, s, speed, n, discarded);
	out->err = ret;
	return ret;
}

int zc_measure_pair(const struct zc_meter_cfg *cfg, const struct zc_arm arm[2],
		    struct zc_rate out[2], struct zc_stats *ratio, bool pkts_based)
{
	struct sample s[2][ZC_MAX_SAMPLES], warm;
	double speed[2][ZC_MAX_SAMPLES], r[ZC_MAX_SAMPLES];
	int n = repeats(cfg), i, j, k, ret = 0, discarded[2] = { 0, 0 };

	memset(out, 0, 2 * sizeof(*out));
	memset(ratio, 0, sizeof(*ratio));
	for (j = 0; j < 2 && cfg->warmup > 0 && !ret; j++)
		ret = run_arm(cfg, &arm[j], cfg->warmup, &warm);
	for (i = 0; i < n && !ret; i++) {
		/* Odd repeats run B first: neither arm always follows the other. */
		for (k = 0; k < 2 && !ret; k++) {
			j = k ^ (i & 1);
			ret = measure_arm(cfg, &arm[j], &s[j][i], &speed[j][i]);
		}
	}
	for (j = 0; j < 2 && !ret; j++)
		ret = remeasure(cfg, &arm[j], s[j], speed[j], n, &discarded[j]);
	for (j = 0; j < 2 && !ret; j++)
		ret = arm_rate(&out[j], s[j], speed[j], n, discarded[j]);
	if (!ret) {
		const struct zc_stats *a = pkts_based ? &out[0].mpps : &out[0].mbps;
		const struct zc_stats *b = pkts_based ? &out[1].mpps : &out[1].mbps;

		for (i = 0; i < n; i++)
			r[i] = a->samples[i] > 0 ? b->samples[i] / a->samples[i] : 0;
		zc_stats_compute(ratio, r, n);
		if (screened()) {
			ratio->screened = true;
			ratio->discarded = discarded[0] + discarded[1];
		}
	}
	out[0].err = out[1].err = ret;
	return ret;
}

int zc_pin_cpu(int cpu)
{
	cpu_set_t set;
	int ret;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ret = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	return -ret;
}
