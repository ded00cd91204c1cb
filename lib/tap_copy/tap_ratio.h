/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A rate arm to the sink (lib/send/sink.h zc_sink_rate) that holds an unbound
 * packet tap open in a namespace only while its own repeats run, so the
 * other arm, interleaved with it, sends untapped: the two arms of a
 * tap vs no-tap ratio.
 */
#ifndef ZC_TAP_RATIO_H
#define ZC_TAP_RATIO_H

#include <stdbool.h>

#include "send/sink.h"

struct zc_sender_cfg;

struct zc_tap_ratio_arm {
	struct zc_sink_arm *sa;
	int nsfd;		/* where the tap opens */
	bool tap;		/* false: the untapped arm */
	int tap_fd;
	double flush_timeout;	/* every send completes before the tap changes */
};

/* A tap vs no-tap ratio: sa[0] untapped, sa[1] with the tap. */
struct zc_tap_ratio {
	struct zc_sink_arm sa[2];
	struct zc_tap_ratio_arm a[2];
};

/*
 * Opens both arms with cfg, the tap in nsfd, and measures them
 * interleaved: ratio = tapped / untapped. 0; 1 when the untapped arm's
 * zero-copy sends copied for a cause outside the kernel
 * (zc_env_copy_cause, said in why); -errno with why, prefixed by name.
 * zc_tap_ratio_close() in every case.
 */
int zc_tap_ratio_run(struct zc_tap_ratio *r, const struct zc_sink *sink,
		     const struct zc_meter_cfg *mc,
		     const struct zc_sender_cfg *cfg, double flush_timeout,
		     const char *name, struct zc_stats *ratio,
		     struct zc_why *why);
void zc_tap_ratio_close(struct zc_tap_ratio *r);

#endif
