// SPDX-License-Identifier: GPL-2.0
/* Sink rate arms with a packet tap open while they run (taparm.h). */
#include <stddef.h>
#include <unistd.h>

#include "sink.h"
#include "taparm.h"
#include "taps.h"
#include "zcsend.h"

static int arm_begin(void *arg)
{
	struct zc_tap_arm *a = arg;

	if (!a->tap)
		return 0;
	a->tap_fd = zc_tap_open_on(a->nsfd, 0, false);
	return a->tap_fd < 0 ? a->tap_fd : 0;
}

static int arm_end(void *arg)
{
	struct zc_tap_arm *a = arg;
	int ret = zc_sender_flush(a->sa->tx.s, a->flush_timeout, 0);

	if (a->tap_fd >= 0)
		close(a->tap_fd);
	a->tap_fd = -1;
	return ret;
}

void zc_tap_arm_init(struct zc_tap_arm *a, struct zc_sink_arm *sa, int nsfd,
		     bool tap, double flush_timeout)
{
	*a = (struct zc_tap_arm){ .sa = sa, .nsfd = nsfd, .tap = tap,
				  .tap_fd = -1, .flush_timeout = flush_timeout };
	*sa = (struct zc_sink_arm){ .begin = arm_begin, .end = arm_end,
				    .arg = a, .tx.fd = -1 };
}
