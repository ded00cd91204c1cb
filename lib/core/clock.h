/* SPDX-License-Identifier: GPL-2.0 */
/* The clocks a measurement reads. */
#ifndef ZC_CLOCK_H
#define ZC_CLOCK_H

double zc_now(void);			/* CLOCK_MONOTONIC seconds */
double zc_cpu_self(void);		/* user+sys of this process, seconds */
double zc_softirq_cpu(void);		/* softirq seconds, all CPUs (/proc/stat) */

/*
 * Seconds this process was not running at all since the watch started
 * (SIGSTOP, a frozen or starved VM), counting a gap still open: a thread
 * that sleeps a tick and wakes far later says so. A stall of the kernel's
 * path leaves that thread running; a stall of the process stops it too.
 * zc_pause_watch() starts the thread once (further calls do nothing).
 */
void zc_pause_watch(void);
double zc_paused_s(void);

/* A measurement the process's own pauses spoilt (not an errno). */
#define ZC_EPAUSED	0x5a50

#endif
