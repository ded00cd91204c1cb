// SPDX-License-Identifier: GPL-2.0
/* One verdict case's run: sends judged one by one (verdictrun.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "send/env.h"
#include "core/ktap.h"
#include "core/meter.h"
#include "tap_copy/rxpair.h"
#include "send/sock.h"
#include "tap_copy/tapspec.h"
#include "tap_copy/verdictrun.h"

static bool has_tap(const struct zc_vrun *r)
{
	return r->tap && r->tap->ns != ZC_TAP_NONE;
}

int zc_vrun_open(struct zc_vrun *r, int tx_nsfd, int rx_nsfd,
		 const void *addr, int port, struct zc_why *why)
{
	const char *step = "connect";

	r->fd = -1;
	r->rx_fd = -1;
	r->tap_fd = -1;
	if (rx_nsfd < 0)
		r->fd = zc_socket_to(tx_nsfd, r->family, r->type, addr, port);
	else
		r->fd = zc_rxpair_open(tx_nsfd, rx_nsfd, r->family, r->type,
				       addr, port, r->verdict_s, &r->rx_fd,
				       &step);
	if (r->fd < 0)
		return zc_why_set(why, "%s: %s", step, strerror(-r->fd)), r->fd;
	if (has_tap(r) && !r->toggle) {
		r->tap_fd = zc_tap_spec_open(r->topo, r->tap);
		if (r->tap_fd < 0)
			return zc_why_set(why, "open tap: %s",
					  strerror(-r->tap_fd)), r->tap_fd;
	}
	return r->ops->path ? r->ops->path(r, why) : 0;
}

void zc_vrun_close(struct zc_vrun *r)
{
	if (r->ops->unpath)
		r->ops->unpath(r);
	if (r->tap_fd >= 0)
		close(r->tap_fd);
	if (r->rx_fd >= 0)
		close(r->rx_fd);
	if (r->fd >= 0)
		close(r->fd);
	r->tap_fd = -1;
	r->rx_fd = -1;
	r->fd = -1;
}

/* The toggle's tap open or closed for send i: copied while it is open. */
static bool toggle_open(const struct zc_vrun *r, long i)
{
	return r->toggle[i % strlen(r->toggle)] == '1';
}

static int want_for(const struct zc_vrun *r, long i)
{
	if (!r->toggle)
		return r->want;
	return toggle_open(r, i) ? ZC_VERDICT_COPIED : ZC_VERDICT_ZEROCOPY;
}

static int toggle_step(struct zc_vrun *r, long i)
{
	bool open = toggle_open(r, i);

	if (open == (r->tap_fd >= 0))
		return 0;
	if (!open) {
		close(r->tap_fd);
		r->tap_fd = -1;
		return 0;
	}
	r->tap_fd = zc_tap_spec_open(r->topo, r->tap);
	return r->tap_fd < 0 ? r->tap_fd : 0;
}

static int one_send(struct zc_vrun *r, struct zc_sender *s, long i)
{
	struct zc_witness_counts w0, w1, d;
	int want = want_for(r, i), ret;

	ret = r->toggle && has_tap(r) ? toggle_step(r, i) : 0;
	if (ret)
		return ret;
	zc_witness_read(&w0);
	ret = zc_sender_verdict(s, r->verdict_s);
	zc_witness_read(&w1);
	zc_rxpair_drain(r->rx_fd, &r->rx_msgs, &r->rx_bytes);
	if (ret < 0)
		return ret;
	zc_witness_delta(&w1, &w0, &d);
	zc_copy_tally_add(&r->t, i, ret, want, &d);
	return 0;
}

/* r->sends sends, each booked in r->t. */
static int vrun_sends(struct zc_vrun *r, struct zc_why *why)
{
	struct zc_sender_cfg cfg = {
		.mode = r->mode, .fd = r->fd, .size = r->size, .depth = 1,
		.report_usage = true, .exact = true,
	};
	struct zc_sender *s;
	int err = 0, ret = 0;
	long i;

	if (r->toggle && r->sends < (long)strlen(r->toggle))
		r->sends = strlen(r->toggle);
	s = zc_sender_open(&cfg, &err);
	if (!s)
		return zc_why_set(why, "open %s sender: %s",
				  zc_send_mode_name(r->mode), strerror(-err)), err;
	if (r->rx_fd < 0)
		r->sink0 = r->ops->sink_pkts(r);
	for (i = 0; i < r->sends && !ret; i++) {
		ret = one_send(r, s, i);
		if (ret)
			zc_why_set(why, "send %ld: %s", i, strerror(-ret));
	}
	if (!ret && zc_sender_stats(s)->violations) {
		zc_why_set(why, "io_uring contract: %s",
			   zc_sender_stats(s)->violation);
		ret = -EPROTO;
	}
	zc_sender_close(s);
	return ret;
}

/* What the sink or receiver has seen, and what it must see. */
static void traffic_count(const struct zc_vrun *r, uint64_t *have,
			  uint64_t *want)
{
	if (r->rx_fd >= 0) {
		*have = r->rx_bytes;
		*want = r->type == SOCK_STREAM ? r->t.n * r->size : r->size;
	} else {
		*have = r->ops->sink_pkts(r) - r->sink0;
		*want = r->t.n;
	}
}

/*
 * A send can complete while its packets still sit in a NIC ring (or, when
 * it was copied, before they left at all): give them up to settle_s.
 */
static bool vrun_traffic(struct zc_vrun *r, char *what, size_t len)
{
	double end = zc_now() + r->settle_s;
	uint64_t have, want;

	for (;;) {
		zc_rxpair_drain(r->rx_fd, &r->rx_msgs, &r->rx_bytes);
		traffic_count(r, &have, &want);
		if (have >= want || zc_now() >= end)
			break;
		usleep(1000);
	}
	if (r->rx_fd >= 0)
		snprintf(what, len, "receiver got %ld messages, %lld bytes",
			 r->rx_msgs, r->rx_bytes);
	else
		snprintf(what, len, "%s sink dropped %llu packets", r->sink,
			 (unsigned long long)have);
	return have >= want;
}

static void summary(const char *name, const struct zc_vrun *r,
		    const char *traffic, const char *nowit)
{
	const struct zc_copy_tally *t = &r->t;
	char w[200];

	if (!nowit) {
		zc_witness_format(&t->wsum, w, sizeof(w));
		ktap_print_msg("%s: %ld sends of %zu B: kernel copied %ld, zero-copy %ld; %s, copy seen on %ld/%ld sends; %s",
			       name, t->n, r->size, t->copied, t->zc, w,
			       t->wit == ZC_SEE_XDP_COPY ? t->wit_cow_sends : t->wit_copy_sends,
			       t->n, traffic);
	} else {
		ktap_print_msg("%s: %ld sends of %zu B: kernel copied %ld, zero-copy %ld; no witness loaded (%s): kernel flag only; %s",
			       name, t->n, r->size, t->copied, t->zc, nowit,
			       traffic);
	}
	ktap_zcmode(name, t->zc, t->copied);
}

/*
 * A case that did not go as planned, with a cause outside the kernel
 * (zc_env_copy_cause: a foreign tap that applies on this kernel, an
 * offload the device lacks): the environment explains the copy, so the
 * case cannot judge the kernel. Without such a cause it still fails.
 */
static bool env_explains(const char *name, const struct zc_vrun *r)
{
	const struct zc_copy_tally *t = &r->t;
	struct zc_why why;

	/* Under XDP the kernel's known zero-copy flag is no deviation. */
	if (!t->wit_bad &&
	    !(t->wit == ZC_SEE_XDP_COPY ? t->copied : t->kern_bad))
		return false;
	if (!zc_env_copy_cause(r->topo, &why))
		return false;
	ktap_skip_why(name, &why);
	return true;
}

void zc_vrun_case(const char *name, struct zc_vrun *r, const char *what,
		  const char *nowit)
{
	struct zc_why why = { "" };
	char traffic[128];
	bool seen;
	int ret;

	ret = vrun_sends(r, &why);
	seen = vrun_traffic(r, traffic, sizeof(traffic));
	zc_vrun_close(r);
	if (ret) {
		ktap_fail_why(name, &why);
		return;
	}
	summary(name, r, traffic, nowit);
	ktap_print_msg("%s: %s", name, what);
	if (!seen)
		ktap_fail(name, "no real traffic behind the verdicts: %s", traffic);
	else if (env_explains(name, r))
		return;
	else
		zc_copy_judge(name, &r->t);
}
