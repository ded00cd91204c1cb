/* SPDX-License-Identifier: GPL-2.0 */
/* The clocks a measurement reads. */
#ifndef ZC_CLOCK_H
#define ZC_CLOCK_H

double zc_now(void);			/* CLOCK_MONOTONIC seconds */
double zc_cpu_self(void);		/* user+sys of this process, seconds */
double zc_softirq_cpu(void);		/* softirq seconds, all CPUs (/proc/stat) */

#endif
