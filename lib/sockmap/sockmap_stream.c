// SPDX-License-Identifier: GPL-2.0
/* A verified pattern stream over the sockmap topology, see sockmap_stream.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/ktap.h"
#include "core/meter.h"
#include "core/probe.h"
#include "sockmap/slip.h"
#include "sockmap/splice_witness.h"
#include "sockmap/sockmap_stream.h"
#include "core/util.h"

#define TRANSFER_S	60.0	/* whole functional transfer */
#define PROBE_S		0.5	/* splice attempts on queued bytes */
#define SETTLE_S	0.3	/* FIONREAD blind: time for the rest to queue */
#define FOLLOW_S	0.5	/* reading on after a wrong byte, to map it */
#define SEEN_BEFORE	16	/* right bytes kept before a wrong one */

/* Consumer */

void zc_sm_rx_init(struct zc_sm_rx *r, const struct zc_sm_pattern *pat,
		   struct zc_sm_topo *t, enum zc_sm_call call, bool verify)
{
	memset(r, 0, sizeof(*r));
	r->pat = pat;
	r->t = t;
	r->call = call;
	r->verify = verify;
	r->bad = -1;
}

/* Keep what came instead of the pattern, from a little before the wrong byte. */
static void keep_seen(struct zc_sm_rx *r, const unsigned char *buf, size_t n,
		      size_t i)
{
	size_t before = i < SEEN_BEFORE ? i : SEEN_BEFORE;

	free(r->seen);
	r->seen_len = 0;
	r->seen = malloc(SEEN_BEFORE + ZC_SM_SEEN_MAX);
	if (!r->seen)
		return;
	n -= i - before;
	if (n > before + ZC_SM_SEEN_MAX)
		n = before + ZC_SM_SEEN_MAX;
	memcpy(r->seen, buf + i - before, n);
	r->seen_len = n;
	r->seen_before = before;
}

static int check_bytes(struct zc_sm_rx *r, const unsigned char *buf, size_t n)
{
	const unsigned char *want = r->pat->ring + r->got % ZC_SM_PERIOD;
	size_t i;

	if (!memcmp(buf, want, n))
		return 0;
	for (i = 0; i < n && buf[i] == want[i]; i++)
		;
	r->bad = r->got + i;
	keep_seen(r, buf, n, i);
	return -EBADMSG;
}

/*
 * After a wrong byte, read on (bounded in time and bytes) so the map of
 * what came instead shows whether the missing bytes arrive later.
 */
static void rx_follow(struct zc_sm_rx *r, double secs)
{
	double deadline = zc_now() + secs;
	size_t cap = r->seen_before + ZC_SM_SEEN_MAX;
	int fd;

	while (r->seen && r->seen_len < cap && zc_now() < deadline) {
		/* Spliced bytes still in the pipe come before the socket's. */
		fd = r->call != ZC_SM_READ && zc_poll_one(r->t->pipe[0], POLLIN, 0) > 0 ?
			r->t->pipe[0] : r->t->rx;
		ssize_t m = read(fd, r->seen + r->seen_len, cap - r->seen_len);

		if (m > 0) {
			r->seen_len += m;
			continue;
		}
		if (!m || (errno != EAGAIN && errno != EINTR))
			break;
		zc_poll_one(r->t->rx, POLLIN, 0.05);
	}
}

/*
 * Empty the pipe: into rxbuf to verify or for ZC_SM_SPLICE_USER, else
 * into /dev/null without a copy.
 */
static long pipe_drain(struct zc_sm_rx *r, size_t n)
{
	int in = r->t->pipe[0];
	size_t done = 0;
	ssize_t m;

	while (done < n) {
		if (r->verify || r->call == ZC_SM_SPLICE_USER) {
			m = read(in, r->pat->rxbuf, n - done);
			if (m > 0 && r->verify && check_bytes(r, r->pat->rxbuf, m))
				return -EBADMSG;
		} else {
			m = splice(in, NULL, r->pat->devnull, NULL, n - done,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		}
		/* The bytes were spliced in just now: no wait is needed. */
		if (m <= 0)
			return m < 0 ? -errno : -EIO;
		done += m;
		r->got += m;
	}
	return n;
}

static long rx_take(struct zc_sm_rx *r, size_t n)
{
	if (r->call != ZC_SM_READ)
		return pipe_drain(r, n);
	if (r->verify && check_bytes(r, r->pat->rxbuf, n))
		return -EBADMSG;
	r->got += n;
	return n;
}

static ssize_t rx_call(struct zc_sm_rx *r)
{
	size_t len = r->pat->chunk;

	if (r->call == ZC_SM_READ)
		return read(r->t->rx, r->pat->rxbuf, len);
	if (len > (size_t)r->t->pipe_bytes)
		len = r->t->pipe_bytes;
	return zc_spl_splice(r->t->rx, r->t->pipe[1], len,
			     SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
}

const char *zc_sm_call_name(enum zc_sm_call call)
{
	static const char *const names[] = {
		[ZC_SM_READ] = "read", [ZC_SM_SPLICE] = "splice",
		[ZC_SM_SPLICE_USER] = "splice_user",
	};

	return names[call];
}

long zc_sm_rx_once(struct zc_sm_rx *r, double wait)
{
	double deadline = zc_now() + wait, paused;
	bool ready = false;

	zc_pause_watch();
	paused = zc_paused_s();
	for (;;) {
		ssize_t n = rx_call(r);
		long ret;

		if (n >= 0) {
			ret = n ? rx_take(r, n) : 0;
			if (ret == -EBADMSG)
				rx_follow(r, FOLLOW_S);
			return ret;
		}
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		if (zc_now() >= deadline) {
			/* Time this process was stopped is no stall of the path. */
			double lost = zc_paused_s() - paused;

			if (lost <= 0)
				return -ETIMEDOUT;
			deadline += lost;
			paused += lost;
		}
		/* POLLIN with nothing to take (splice without splice_read): don't spin. */
		if (ready)
			usleep(1000);
		ready = zc_poll_one(r->t->rx, POLLIN, 0.1) > 0;
	}
}

int zc_sm_rx_step(void *rx, uint64_t *bytes, uint64_t *pkts)
{
	long n = zc_sm_rx_once(rx, ZC_SM_STALL_S);

	if (n <= 0)
		return n ? (int)n : -EPIPE;
	*bytes += n;
	*pkts += 1;
	return 0;
}

void zc_sm_rx_error(struct zc_sm_rx *r, long ret, uint64_t total,
		    struct zc_why *why)
{
	const char *call = r->call == ZC_SM_READ ? "read" : "splice";
	int inq = zc_sm_fionread(r->t->rx);
	char state[96], at[64];

	zc_sm_state(r->t, state, sizeof(state));
	if (total)
		snprintf(at, sizeof(at), "after %llu of %llu bytes",
			 (unsigned long long)r->got, (unsigned long long)total);
	else
		snprintf(at, sizeof(at), "after %llu bytes",
			 (unsigned long long)r->got);
	if (ret == -EBADMSG && r->seen) {
		char slip[400];
		struct zc_sm_slip s;

		zc_sm_describe_slip(r->pat->ring, ZC_SM_PERIOD,
				    r->pat->chunk, r->bad, r->seen, r->seen_len,
				    r->seen_before, &s, slip, sizeof(slip));
		if (r->slip)
			*r->slip = s;
		zc_why_set(why, "wrong byte at stream offset %ld %s: %s",
			   r->bad, at, slip);
	} else if (ret == -EBADMSG)
		zc_why_set(why, "wrong byte at stream offset %ld", r->bad);
	else if (ret == 0 && inq > 0)
		zc_why_set(why, "%s returned 0 (false end of file) with FIONREAD=%d %s",
			   call, inq, at);
	else if (ret == 0)
		zc_why_set(why, "end of file %s (%s)", at, state);
	else if (ret == -ZC_EPAUSED)
		zc_why_set(why, "%s %s: this process was not scheduled during two tries of a repeat (a harness stall)",
			   call, at);
	else if (ret == -ETIMEDOUT)
		zc_why_set(why, "stalled %.0f s %s (%s)", ZC_SM_STALL_S, at, state);
	else
		zc_why_set(why, "%s %s: %s", call, at, strerror(-ret));
	free(r->seen);
	r->seen = NULL;
	r->seen_len = 0;
}

int zc_sm_nothing_more(struct zc_sm_topo *t, struct zc_why *why)
{
	int revents = zc_poll_one(t->rx, POLLIN, ZC_SM_QUIET_S);
	int inq = zc_sm_fionread(t->rx);
	char c;

	if (!zc_sm_polled(revents, POLLIN) && inq == 0 &&
	    read(t->rx, &c, 1) < 0 && errno == EAGAIN)
		return 0;
	return zc_why_set(why, "bytes beyond the pattern: POLLIN=%d FIONREAD=%d",
			  zc_sm_polled(revents, POLLIN), inq);
}

int zc_sm_transfer(const struct zc_sm_pattern *pat, struct zc_sm_topo *t,
		   enum zc_sm_call call, uint64_t total,
		   struct zc_sm_slip *slip, struct zc_why *why)
{
	double deadline = zc_now() + TRANSFER_S;
	struct zc_sm_producer p;
	struct zc_sm_rx r;
	long ret;

	zc_sm_rx_init(&r, pat, t, call, true);
	r.slip = slip;
	if (slip)
		slip->nseg = 0;
	ret = zc_sm_producer_start(&p, pat, t->c1, total, TRANSFER_S);
	if (ret)
		return zc_why_set(why, "producer thread: %s", strerror(-ret));
	ret = 1;
	while (r.got < total && ret > 0 && zc_now() < deadline)
		ret = zc_sm_rx_once(&r, ZC_SM_STALL_S);
	zc_sm_producer_stop(&p);
	if (ret <= 0) {
		zc_sm_rx_error(&r, ret, total, why);
		return -1;
	}
	if (r.got < total)
		return zc_why_set(why, "only %llu of %llu bytes in %.0f s",
				  (unsigned long long)r.got,
				  (unsigned long long)total, TRANSFER_S);
	if (p.err || zc_sm_producer_sent(&p) != total)
		return zc_why_set(why, "producer sent %llu of %llu bytes: %s",
				  (unsigned long long)zc_sm_producer_sent(&p),
				  (unsigned long long)total, strerror(-p.err));
	return zc_sm_nothing_more(t, why);
}

int zc_sm_read_exact(const struct zc_sm_pattern *pat, struct zc_sm_topo *t,
		     uint64_t *off, int size, struct zc_why *why)
{
	struct zc_sm_rx r;
	long n = 1;

	zc_sm_rx_init(&r, pat, t, ZC_SM_READ, true);
	r.got = *off;
	while (r.got < *off + size && n > 0)
		n = zc_sm_rx_once(&r, ZC_SM_DELIVER_S);
	if (n <= 0) {
		zc_sm_rx_error(&r, n, *off + size, why);
		return -1;
	}
	*off = r.got;
	return 0;
}

/*
 * Kernels without tcp_bpf_ioctl ("bpf, sockmap: Fix FIONREAD for sockmap")
 * count only sk_receive_queue, never the psock queue: POLLIN with FIONREAD
 * 0 gives that away.
 */
int zc_sm_wait_inq(int fd, int want, double secs, bool *blind)
{
	double deadline = zc_now() + secs;
	int inq, revents;

	*blind = false;
	for (;;) {
		revents = zc_poll_one(fd, POLLIN, 0.01);
		inq = zc_sm_fionread(fd);
		if (inq < 0 || inq >= want || zc_now() >= deadline)
			return inq;
		if (zc_sm_polled(revents, POLLIN) && !inq) {
			*blind = true;
			usleep(SETTLE_S * 1e6);
			return 0;
		}
		if (zc_sm_polled(revents, POLLIN))
			usleep(1000);	/* some bytes are there, more to come */
	}
}

/* Streams for rates */

int zc_sm_stream_open(struct zc_sm_stream *st, const struct zc_sm_pattern *pat,
		      enum zc_sm_mode mode, enum zc_sm_call call, long rcvbuf,
		      bool verify, double secs, struct zc_why *why)
{
	int ret;

	if (zc_sm_topo_setup(&st->t, mode, rcvbuf, why))
		return -1;
	zc_sm_rx_init(&st->r, pat, &st->t, call, verify);
	ret = zc_sm_producer_start(&st->p, pat, st->t.c1, 1ULL << 40, secs);
	if (ret) {
		zc_why_set(why, "producer thread: %s", strerror(-ret));
		zc_sm_topo_close(&st->t);
		return -1;
	}
	return 0;
}

void zc_sm_stream_close(struct zc_sm_stream *st)
{
	zc_sm_producer_stop(&st->p);
	zc_sm_topo_close(&st->t);
}

/* Splice probe */

/* splice refused the bytes: read(2) must still get every one of them. */
static void probe_readback(const struct zc_sm_pattern *pat,
			   struct zc_sm_topo *t, struct zc_sm_probe *po)
{
	struct zc_sm_rx r;
	long n = 1;

	zc_sm_rx_init(&r, pat, t, ZC_SM_READ, true);
	r.got = po->spliced;
	while (r.got < ZC_SM_PROBE_BYTES && n > 0)
		n = zc_sm_rx_once(&r, ZC_SM_DELIVER_S);
	if (r.got == ZC_SM_PROBE_BYTES)
		return;
	po->state = ZC_SM_PROBE_FAILED;
	zc_sm_rx_error(&r, n, ZC_SM_PROBE_BYTES, &po->why);
}

/* Splice attempts until the bytes are in, or the first hard answer, or PROBE_S. */
static long probe_attempts(struct zc_sm_rx *r, struct zc_sm_probe *po)
{
	double deadline = zc_now() + PROBE_S;
	long n;

	for (;;) {
		n = rx_call(r);
		if (n > 0 && rx_take(r, n) < 0) {
			zc_sm_rx_error(r, -EBADMSG, ZC_SM_PROBE_BYTES, &po->why);
			po->state = ZC_SM_PROBE_FAILED;
			return n;
		}
		po->spliced = r->got;
		if (r->got == ZC_SM_PROBE_BYTES) {
			po->state = ZC_SM_PROBE_SUPPORTED;
			return n;
		}
		po->err = n < 0 ? errno : 0;
		po->inq = zc_sm_fionread(r->t->rx);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) ||
		    zc_now() >= deadline)
			return n;
		usleep(5000);
	}
}

/* Splice on queued bytes for PROBE_S: moved, EAGAIN throughout, or broken. */
static void probe_splice(const struct zc_sm_pattern *pat, struct zc_sm_topo *t,
			 struct zc_sm_probe *po)
{
	struct zc_sm_rx r;
	long n;

	zc_sm_rx_init(&r, pat, t, ZC_SM_SPLICE, true);
	n = probe_attempts(&r, po);
	if (po->state != ZC_SM_PROBE_NOT_RUN)
		return;
	if (n == 0 && po->inq > 0) {
		zc_why_set(&po->why, "splice returned 0 (false end of file) with FIONREAD=%d",
			   po->inq);
		po->state = ZC_SM_PROBE_FAILED;
	} else if (po->spliced) {
		zc_why_set(&po->why, "splice moved %zu of %d bytes, then %s with FIONREAD=%d",
			   po->spliced, ZC_SM_PROBE_BYTES,
			   zc_sm_errname(po->err), po->inq);
		po->state = ZC_SM_PROBE_FAILED;
	} else {
		po->state = ZC_SM_PROBE_UNSUPPORTED;
		probe_readback(pat, t, po);
	}
}

void zc_sm_splice_probe(const struct zc_sm_pattern *pat, struct zc_sm_topo *t,
			struct zc_sm_probe *po)
{
	int revents, inq;

	memset(po, 0, sizeof(*po));
	if (zc_write_all(t->c1, pat->ring, ZC_SM_PROBE_BYTES,
			 ZC_SM_DELIVER_S) != ZC_SM_PROBE_BYTES) {
		zc_why_set(&po->why, "write of %d probe bytes failed",
			   ZC_SM_PROBE_BYTES);
		po->state = ZC_SM_PROBE_FAILED;
		return;
	}
	revents = zc_poll_one(t->rx, POLLIN, ZC_SM_DELIVER_S);
	inq = zc_sm_wait_inq(t->rx, ZC_SM_PROBE_BYTES, ZC_SM_DELIVER_S,
			     &po->blind);
	if (!zc_sm_polled(revents, POLLIN) ||
	    (!po->blind && inq != ZC_SM_PROBE_BYTES)) {
		zc_why_set(&po->why, "probe bytes not delivered in %.0f s: POLLIN=%d FIONREAD=%d verdicts=%llu",
			   ZC_SM_DELIVER_S, zc_sm_polled(revents, POLLIN), inq,
			   zc_sm_verdicts(t));
		po->state = ZC_SM_PROBE_FAILED;
		return;
	}
	probe_splice(pat, t, po);
}

void zc_sm_splice_hint(void)
{
	int has = zc_btf_has_member("proto", "splice_read");

	if (has < 0)
		ktap_print_msg("hint: vmlinux BTF unavailable (%s), no splice_read check",
			       strerror(-has));
	else
		ktap_print_msg("hint: BTF struct proto %s splice_read%s",
			       has ? "has" : "lacks",
			       has ? "" : " (bpf/sockmap: add splice support for tcp_bpf)");
}
