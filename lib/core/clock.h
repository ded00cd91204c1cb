/* SPDX-License-Identifier: GPL-2.0 */
/* The clocks a measurement reads. */
#ifndef ZC_CLOCK_H
#define ZC_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

double zc_now(void);			/* CLOCK_MONOTONIC seconds */
double zc_cpu_self(void);		/* user+sys of this process, seconds */
double zc_softirq_cpu(void);		/* softirq seconds, all CPUs (/proc/stat) */
/* Idle (with iowait) and all CPU seconds so far, all CPUs (/proc/stat). */
void zc_idle_cpu(double *idle, double *all);

/*
 * Seconds this process was not running at all since the watch started
 * (SIGSTOP, a frozen or starved VM), counting a gap still open: a thread
 * that sleeps a tick and wakes far later says so. A stall of the kernel's
 * path leaves that thread running; a stall of the process stops it too.
 * zc_pause_watch() starts the thread once (further calls do nothing).
 */
void zc_pause_watch(void);
double zc_paused_s(void);

/*
 * A wait bounded by progress, for a loop that waits on the kernel: it
 * ends after `idle` seconds without progress (a stall: the caller's
 * verdict), or after ZC_PATIENCE times that in all while progress still
 * came. That second end is a machine too slow or loaded for the case
 * (a TCG guest on a busy host), not the kernel's: it is noted, and the
 * runner turns the case's failure into a skip that says so.
 * progress: any count that grows while the path works (completions,
 * bytes received).
 */
#define ZC_PATIENCE	6

struct zc_bound {
	double idle, start, end, cap, moved;
	uint64_t seen;
};

void zc_bound_start(struct zc_bound *b, double idle, uint64_t progress);
/* True when the wait must end (and noted when it ended starved). */
bool zc_bound_over(struct zc_bound *b, uint64_t progress);
/* Seconds to the current end, >= 0 (a poll's timeout). */
double zc_bound_left(const struct zc_bound *b);
/* Notes since the process started; the last one's text into last. */
unsigned int zc_starved_count(char *last, size_t len);
/*
 * Do the kernel's stall reports measure the host, not this kernel? Under
 * wall-clock TCG (tools/vmtest's ZC_CLOCK "wall ... accel=tcg") a vCPU is
 * a host thread, and one the host did not run for 20 s is a 20 s RCU
 * stall; under icount guest time moves only while the guest runs, under
 * KVM the kernel sees steal time.
 */
bool zc_starved_blind(void);

/* A measurement the process's own pauses spoilt (not an errno). */
#define ZC_EPAUSED	0x5a50

#endif
