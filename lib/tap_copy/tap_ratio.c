// SPDX-License-Identifier: GPL-2.0
/* Sink rate arms with a packet tap open while they run (tap_ratio.h). */
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "send/env.h"
#include "send/sink.h"
#include "tap_copy/tap_ratio.h"
#include "tap_copy/tapspec.h"
#include "send/zcsend.h"

static int arm_begin(void *arg)
{
	struct zc_tap_ratio_arm *a = arg;

	if (!a->tap)
		return 0;
	a->tap_fd = zc_tap_open_on(a->nsfd, 0, false);
	return a->tap_fd < 0 ? a->tap_fd : 0;
}

static int arm_end(void *arg)
{
	struct zc_tap_ratio_arm *a = arg;
	int ret = zc_sender_flush(a->sa->tx.s, a->flush_timeout, 0);

	if (a->tap_fd >= 0)
		close(a->tap_fd);
	a->tap_fd = -1;
	return ret;
}

/* Hooks sa's begin/end to a (which must outlive the rate). */
static void arm_init(struct zc_tap_ratio_arm *a, struct zc_sink_arm *sa, int nsfd,
		     bool tap, double flush_timeout)
{
	*a = (struct zc_tap_ratio_arm){ .sa = sa, .nsfd = nsfd, .tap = tap,
				  .tap_fd = -1, .flush_timeout = flush_timeout };
	*sa = (struct zc_sink_arm){ .begin = arm_begin, .end = arm_end,
				    .arg = a, .tx.fd = -1 };
}

int zc_tap_ratio_run(struct zc_tap_ratio *r, const struct zc_sink *sink,
		     const struct zc_meter_cfg *mc,
		     const struct zc_sender_cfg *cfg, double flush_timeout,
		     const char *name, struct zc_stats *ratio,
		     struct zc_why *why)
{
	struct zc_sender_cfg c[2] = { *cfg, *cfg };
	uint64_t sunk = 0;
	int i, ret = 0;

	for (i = 0; i < 2; i++)
		arm_init(&r->a[i], &r->sa[i], sink->t.a.nsfd, i,
				flush_timeout);
	for (i = 0; i < 2 && !ret; i++)
		ret = zc_sink_tx_open(sink, &r->sa[i].tx, &c[i], 0);
	if (ret)
		return zc_why_set(why, "%s: %s", name, strerror(-ret)), ret;
	if (zc_sink_rate(sink, mc, r->sa, 2, ratio, &sunk, why))
		return zc_why_prefix(why, "%s", name);
	if (!sunk)
		return zc_why_set(why, "%s: the sink saw no packets", name);
	if (zc_send_mode_zerocopy(cfg->mode) &&
	    zc_sender_stats(r->sa[0].tx.s)->copied &&
	    zc_env_copy_cause(&sink->t, why))
		return 1;
	return 0;
}

void zc_tap_ratio_close(struct zc_tap_ratio *r)
{
	zc_sink_tx_close(&r->sa[0].tx);
	zc_sink_tx_close(&r->sa[1].tx);
}
