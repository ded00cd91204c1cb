/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A rate arm to the sink (lib/sink.h zc_sink_rate) that holds an unbound
 * packet tap open in a namespace only while its own repeats run, so the
 * other arm, interleaved with it, sends untapped: the two arms of a
 * tap vs no-tap ratio.
 */
#ifndef ZC_TAPARM_H
#define ZC_TAPARM_H

#include <stdbool.h>

struct zc_sink_arm;

struct zc_tap_arm {
	struct zc_sink_arm *sa;
	int nsfd;		/* where the tap opens */
	bool tap;		/* false: the untapped arm */
	int tap_fd;
	double flush_timeout;	/* every send completes before the tap changes */
};

/* Hooks sa's begin/end to a (which must outlive the rate). */
void zc_tap_arm_init(struct zc_tap_arm *a, struct zc_sink_arm *sa, int nsfd,
		     bool tap, double flush_timeout);

#endif
