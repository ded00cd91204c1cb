// SPDX-License-Identifier: GPL-2.0
/* One AF_XDP socket and its traffic; see xsk_run.h. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "core/ktap.h"
#include "net/netns.h"
#include "core/util.h"
#include "xsk/xsk_pair.h"
#include "xsk/xsk_run.h"

/*
 * The generator's count bound per second of its time bound: ten times
 * the fastest live-frame rate seen into a veth here (8.5 Mpps), so the
 * time bound, which outlasts the meter's windows, is the one it meets.
 */
#define GEN_MAX_PPS	100e6

const char *const zc_xsk_run_path_names[] = {
	[ZC_XSK_RXDROP] = "rxdrop", [ZC_XSK_TXONLY] = "txonly",
	[ZC_XSK_L2FWD] = "l2fwd", [ZC_XSK_XDPDROP] = "xdpdrop",
};

/* Receive side: verify, hand frames on to tx (l2fwd) or back to fill. */

static void rx_check(struct zc_xsk_run *r, const void *data, uint32_t len)
{
	struct zc_why w;
	uint64_t seq;
	bool ok;

	if (r->xdpsock_rx)
		return;
	if (zc_xsk_frame_check(data, len, r->verify, &seq, &w)) {
		ok = false;
	} else {
		/* One generator, one queue: frames arrive in order or not at all. */
		ok = ZC_CHECK(&w, !r->have_seq || seq > r->last_seq,
			      "frame %llu after %llu: out of order",
			      (unsigned long long)seq, (unsigned long long)r->last_seq);
		r->last_seq = seq;
		r->have_seq = true;
	}
	if (ok)
		return;
	r->bad++;
	if (!r->why.msg[0])
		r->why = w;
}

static uint64_t chunk(const struct zc_xsk *x, uint64_t addr)
{
	return addr & ~(uint64_t)(x->frame_size - 1);
}

static bool need_kick_tx(const struct zc_xsk_run *r)
{
	/* Copy mode transmits only inside sendto(), whatever the flag says. */
	return !r->wakeup || !r->zc || zc_ring_needs_wakeup(&r->x.tx);
}

/*
 * Nothing received. Without need_wakeup the driver polls the fill ring by
 * itself. After a spell of empty polls, sleep in poll(2) for a
 * millisecond: a spinning receiver that shares its CPU gets preempted for
 * whole time slices (and the rx ring overflows), a sleeping one is woken
 * as soon as frames arrive.
 */
static void rx_wake(struct zc_xsk_run *r)
{
	if (r->wakeup && zc_ring_needs_wakeup(&r->x.fq))
		zc_xsk_wakeup_rx(&r->x);
	/*
	 * poll(2) transmits too in copy mode, and would hide a drop from
	 * tx_kick()'s count: sleep only with nothing in flight. xdpsock's
	 * loop never sleeps.
	 */
	if (r->xdpsock_rx)
		return;
	if (++r->idle_polls >= ZC_XSK_IDLE_SPIN && r->tx_sub == r->tx_done) {
		r->idle_polls = 0;
		zc_poll_one(r->x.fd, POLLIN, 0.001);
	}
}

/* rx-drop: every received frame goes straight back to the fill ring. */
static uint32_t rx_drop_batch(struct zc_xsk_run *r, uint64_t *bytes)
{
	uint32_t n, i, idx_rx, idx_fq;

	n = zc_ring_cons_peek(&r->x.rx, ZC_XSK_BATCH, &idx_rx);
	if (!n) {
		rx_wake(r);
		return 0;
	}
	/* The fill ring holds every frame, so this never comes up short. */
	zc_ring_prod_reserve(&r->x.fq, n, &idx_fq);
	for (i = 0; i < n; i++) {
		const struct xdp_desc *dsc = zc_ring_desc(&r->x.rx, idx_rx + i);

		rx_check(r, zc_xsk_data(&r->x, dsc->addr), dsc->len);
		*bytes += dsc->len;
		*zc_ring_addr(&r->x.fq, idx_fq + i) = chunk(&r->x, dsc->addr);
	}
	zc_ring_prod_submit(&r->x.fq);
	zc_ring_cons_release(&r->x.rx);
	r->rx += n;
	return n;
}

static void tx_kick(struct zc_xsk_run *r)
{
	int err;

	if (!need_kick_tx(r))
		return;
	err = zc_xsk_kick_tx(&r->x);
	if (err == -EBUSY)
		r->tx_busy++;	/* one frame dropped by the device, still completed */
	else if (err && err != -EAGAIN && err != -ENOBUFS && !r->err)
		r->err = err;
}

/* l2fwd: swap MACs and send each frame back out on the same socket. */
static uint32_t l2fwd_batch(struct zc_xsk_run *r, uint64_t *bytes)
{
	uint32_t n, i, idx_rx, idx_tx;

	r->tx_done += zc_xsk_complete(&r->x, ZC_XSK_BATCH);
	zc_xsk_fill(&r->x, r->x.nfree);
	n = zc_ring_cons_peek(&r->x.rx, zc_ring_prod_free(&r->x.tx, ZC_XSK_BATCH),
			      &idx_rx);
	if (!n) {
		rx_wake(r);
		if (r->tx_sub != r->tx_done)
			tx_kick(r);
		return 0;
	}
	zc_ring_prod_reserve(&r->x.tx, n, &idx_tx);
	for (i = 0; i < n; i++) {
		const struct xdp_desc *in = zc_ring_desc(&r->x.rx, idx_rx + i);
		struct xdp_desc *out = zc_ring_desc(&r->x.tx, idx_tx + i);
		void *data = zc_xsk_data(&r->x, in->addr);

		rx_check(r, data, in->len);
		zc_xsk_swap_mac(data);
		out->addr = in->addr;
		out->len = in->len;
		out->options = 0;
		*bytes += in->len;
	}
	zc_ring_prod_submit(&r->x.tx);
	zc_ring_cons_release(&r->x.rx);
	r->rx += n;
	r->tx_sub += n;
	tx_kick(r);
	return n;
}

/* Real pair: no more than the window between a's tx and b's count. */
static uint32_t pair_room(struct zc_xsk_run *r, uint32_t n)
{
	uint64_t landed = zc_xsk_cnt_get(&r->b, ZC_XSK_C_COUNT) + r->tx_busy;
	uint64_t flight = r->tx_sub > landed ? r->tx_sub - landed : 0;
	uint32_t win = r->d->tx_window;

	if (flight >= win) {
		r->tx_waits++;
		return 0;
	}
	return n < win - flight ? n : win - flight;
}

/* Stamp a frame from the free list for the peer. */
static void tx_stamp(struct zc_xsk_run *r, void *data)
{
	const struct zc_topo *t = &r->d->topo;

	if (r->verify)
		zc_xsk_frame_build(data, r->d->frame_len, t->b.mac, t->a.mac,
				   r->tx_seq, true);
	else
		zc_xsk_frame_set_seq(data, r->tx_seq);
	r->tx_seq++;
}

/* tx-only: frames from the free list, stamped, completions counted. */
static uint32_t tx_batch(struct zc_xsk_run *r, uint32_t max)
{
	uint32_t n, i, idx, done;

	done = zc_xsk_complete(&r->x, ZC_XSK_BATCH);
	r->tx_done += done;
	n = max < r->x.nfree ? max : r->x.nfree;
	if (r->d->topo.real_pair)
		n = pair_room(r, n);
	n = zc_ring_prod_reserve(&r->x.tx, n, &idx);
	for (i = 0; i < n; i++) {
		struct xdp_desc *out = zc_ring_desc(&r->x.tx, idx + i);
		uint64_t addr = r->x.free_addr[--r->x.nfree];

		tx_stamp(r, zc_xsk_data(&r->x, addr));
		out->addr = addr;
		out->len = r->d->frame_len;
		out->options = 0;
	}
	if (n) {
		zc_ring_prod_submit(&r->x.tx);
		r->tx_sub += n;
	}
	if (n || r->tx_sub != r->tx_done)
		tx_kick(r);
	return done;
}

/* Complete frames in every free UMEM frame (tx-only restamps them). */
static void tx_prebuild(struct zc_xsk_run *r)
{
	const struct zc_topo *t = &r->d->topo;
	uint32_t i;

	for (i = 0; i < r->x.nfree; i++)
		zc_xsk_frame_build(zc_xsk_data(&r->x, r->x.free_addr[i]),
				   r->d->frame_len, t->b.mac, t->a.mac, 0, true);
}

/* Wait (bounded) until every transmitted frame has completed. */
static void tx_drain(struct zc_xsk_run *r)
{
	double end = zc_now() + ZC_XSK_SETTLE_S;

	while (r->tx_done < r->tx_sub && zc_now() < end) {
		r->tx_done += zc_xsk_complete(&r->x, ZC_XSK_BATCH);
		if (r->tx_done < r->tx_sub)
			tx_kick(r);
	}
}

/* Keep receiving until nothing arrived for 50 ms (at most ZC_XSK_SETTLE_S). */
static void rx_drain(struct zc_xsk_run *r, bool fwd)
{
	double end = zc_now() + ZC_XSK_SETTLE_S, idle = zc_now();
	uint64_t bytes = 0;

	while (zc_now() < end && zc_now() - idle < 0.05) {
		uint32_t n = fwd ? l2fwd_batch(r, &bytes) : rx_drop_batch(r, &bytes);

		if (n || (fwd && r->tx_done < r->tx_sub))
			idle = zc_now();
	}
	if (fwd)
		tx_drain(r);
}

/* Per-run setup and teardown */

static int open_peer(struct zc_xsk_run *r, bool verify)
{
	const struct zc_topo *t = &r->d->topo;
	int err;

	err = zc_xsk_prog_load(&r->b, verify);
	if (!err)
		err = zc_xsk_prog_attach(&r->b, t->b.nsfd, t->b.ifindex, true,
					 ZC_XSK_AT_NATIVE);
	/* A real device without native XDP (e1000e) still counts in skb mode. */
	if (err && t->real_pair)
		err = zc_xsk_prog_attach(&r->b, t->b.nsfd, t->b.ifindex, true,
					 ZC_XSK_AT_SKB);
	if (err)
		zc_why_set(&r->why, "peer XDP counter: %s", strerror(-err));
	return err;
}

int zc_xsk_run_open(struct zc_xsk_run *r, struct zc_xsk_dut *d,
		    const struct zc_xsk_run_cfg *cfg)
{
	enum zc_xsk_attach at = cfg->at;
	bool verify = cfg->verify, drop_only = cfg->drop_only;
	int err;

	memset(r, 0, sizeof(*r));
	r->d = d;
	r->x.fd = -1;
	r->a.link = r->b.link = -1;
	zc_xsk_gen_init(&r->g);
	r->verify = verify;
	r->xdpsock_rx = cfg->xdpsock_rx;
	err = zc_xsk_prog_load(&r->a, verify);
	if (err) {
		zc_why_set(&r->why, "load XDP programs: %s", strerror(-err));
		return err;
	}
	err = zc_xsk_prog_attach(&r->a, d->nsfd, d->ifindex, drop_only, at);
	if (err) {
		zc_why_set(&r->why, "attach XDP in %s mode to %s: %s",
			   zc_xsk_at_name(at), d->ifname, strerror(-err));
		return err;
	}
	if (cfg->need_peer) {
		err = open_peer(r, verify);
		if (err)
			return err;
	}
	return 0;
}

void zc_xsk_run_close(struct zc_xsk_run *r)
{
	zc_xsk_gen_close(&r->g);
	zc_xsk_prog_close(&r->a);
	zc_xsk_prog_close(&r->b);
}

int zc_xsk_run_bound(struct zc_xsk_run *r, bool zc)
{
	int err;

	r->zc = zc;
	r->wakeup = r->x.bind_flags & XDP_USE_NEED_WAKEUP;
	zc_xsk_wit_mark(&r->a, &r->mark);
	err = zc_xsk_prog_map_add(&r->a, &r->x);
	if (err)
		zc_why_set(&r->why, "XSKMAP insert of a bound socket: %s", strerror(-err));
	return err;
}

void zc_xsk_run_seen(const struct zc_xsk_run *r, struct zc_xsk_seen *s)
{
	zc_xsk_wit_seen(&r->a, &r->mark, s);
}

/*
 * ZC_XSK_BURST frames each way on a freshly bound socket: b -> a through
 * the XDP redirect into the rx ring (half the UMEM in the fill ring since
 * before the bind), then a -> b from the other half into the peer's
 * counter. Payloads always checked.
 */
static int burst_rx(struct zc_xsk_run *r)
{
	uint64_t bytes = 0;
	double end;
	int err;

	err = zc_xsk_gen_open(&r->g, &r->d->topo, r->d->frame_len, true, r->d->cpu_tx);
	if (err) {
		zc_why_set(&r->why, "generator: %s", strerror(-err));
		return err;
	}
	zc_xsk_gen_burst(&r->g, ZC_XSK_BURST, ZC_XSK_SETTLE_S);
	end = zc_now() + ZC_XSK_SETTLE_S;
	while (r->rx < r->g.sent && zc_now() < end && !r->bad)
		rx_drop_batch(r, &bytes);
	if (!r->g.err && r->g.sent && r->rx == r->g.sent && !r->bad)
		return 0;
	if (!r->why.msg[0])
		zc_why_set(&r->why, "rx: %llu frames sent (%llu dropped by veth, err %d), %llu received",
			   (unsigned long long)r->g.sent, (unsigned long long)r->g.dropped,
			   r->g.err, (unsigned long long)r->rx);
	return -EIO;
}

static int burst_tx(struct zc_xsk_run *r)
{
	uint64_t got, want, bad;
	double end;

	tx_prebuild(r);
	end = zc_now() + ZC_XSK_SETTLE_S;
	while (r->tx_sub < ZC_XSK_BURST && zc_now() < end && !r->err)
		tx_batch(r, ZC_XSK_BURST - r->tx_sub);
	tx_drain(r);
	want = r->tx_done - r->tx_busy;
	got = zc_xsk_cnt_settle(&r->b, ZC_XSK_C_COUNT, want, ZC_XSK_SETTLE_S);
	bad = zc_xsk_cnt_get(&r->b, ZC_XSK_C_BAD);
	if (!r->err && r->tx_done == ZC_XSK_BURST && got == want && !bad)
		return 0;
	zc_why_set(&r->why, "tx: %llu submitted, %llu completed, %llu dropped by veth, peer counted %llu (%llu bad), err %d",
		   (unsigned long long)r->tx_sub, (unsigned long long)r->tx_done,
		   (unsigned long long)r->tx_busy, (unsigned long long)got,
		   (unsigned long long)bad, r->err);
	return -EIO;
}

int zc_xsk_run_burst(struct zc_xsk_run *r)
{
	int err = burst_rx(r);

	return err ? err : burst_tx(r);
}

/* Data paths */

int zc_xsk_run_start(struct zc_xsk_run *r, enum zc_xsk_path path, bool native,
		     double seconds)
{
	const struct zc_xsk_dut *d = r->d;
	int err;

	if (d->topo.real_pair)
		r->pair_marked = !zc_xsk_pair_counts(&d->topo, r->pair_mark);
	if (path == ZC_XSK_TXONLY) {
		tx_prebuild(r);
		return 0;
	}
	err = zc_xsk_gen_open_rate(&r->g, &d->topo, d->frame_len, r->verify,
				   d->cpu_tx, native, r->x.rx.consumer, r->x.fd);
	if (!err)
		err = zc_xsk_gen_start(&r->g, seconds,
				       (uint64_t)(seconds * GEN_MAX_PPS));
	if (err)
		zc_why_set(&r->why, "generator: %s", strerror(-err));
	return err;
}

/*
 * A receiving step while its generator no longer sends would measure an
 * idle path: the meter drops the window when it says so.
 */
static bool gen_gone(const struct zc_xsk_run *r)
{
	return zc_xsk_gen_ended(&r->g);
}

static int step_rxdrop(void *arg, uint64_t *bytes, uint64_t *pkts)
{
	struct zc_xsk_run *r = arg;

	if (gen_gone(r))
		return -ZC_XSK_EGENEND;
	*pkts += rx_drop_batch(r, bytes);
	return r->err;
}

static int step_l2fwd(void *arg, uint64_t *bytes, uint64_t *pkts)
{
	struct zc_xsk_run *r = arg;

	if (gen_gone(r))
		return -ZC_XSK_EGENEND;
	*pkts += l2fwd_batch(r, bytes);
	return r->err;
}

static int step_txonly(void *arg, uint64_t *bytes, uint64_t *pkts)
{
	struct zc_xsk_run *r = arg;
	uint32_t done = tx_batch(r, ZC_XSK_BATCH);

	*pkts += done;
	*bytes += (uint64_t)done * r->d->frame_len;
	return r->err;
}

/* XDP_DROP: the program counts; sample its counter every millisecond. */
static int step_xdpdrop(void *arg, uint64_t *bytes, uint64_t *pkts)
{
	struct zc_xsk_run *r = arg;
	uint64_t v;

	if (gen_gone(r))
		return -ZC_XSK_EGENEND;
	usleep(1000);
	v = zc_xsk_cnt_get(&r->a, ZC_XSK_C_COUNT);
	*pkts += v - r->rx;
	*bytes += (v - r->rx) * r->d->frame_len;
	r->rx = v;
	return 0;
}

zc_step_fn zc_xsk_run_step(enum zc_xsk_path path)
{
	static const zc_step_fn steps[] = {
		[ZC_XSK_RXDROP] = step_rxdrop, [ZC_XSK_TXONLY] = step_txonly,
		[ZC_XSK_L2FWD] = step_l2fwd, [ZC_XSK_XDPDROP] = step_xdpdrop,
	};

	return steps[path];
}

void zc_xsk_run_drain(struct zc_xsk_run *r, enum zc_xsk_path path)
{
	zc_xsk_gen_stop(&r->g);
	switch (path) {
	case ZC_XSK_RXDROP:
		rx_drain(r, false);
		break;
	case ZC_XSK_L2FWD:
		rx_drain(r, true);
		break;
	case ZC_XSK_TXONLY:
		tx_drain(r);
		break;
	case ZC_XSK_XDPDROP:
		break;
	}
}
