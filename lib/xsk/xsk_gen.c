// SPDX-License-Identifier: GPL-2.0
/* Test frames into an AF_XDP socket's device from its peer; see xsk_gen.h. */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_packet.h>

#include "core/ktap.h"
#include "core/meter.h"
#include "core/util.h"
#include "xsk/xdpgen.h"
#include "xsk/xsk.h"
#include "xsk/xsk_gen.h"

void zc_xsk_gen_init(struct zc_xsk_gen *g)
{
	memset(g, 0, sizeof(*g));
	g->fd = -1;
}

int zc_xsk_gen_open(struct zc_xsk_gen *g, const struct zc_topo *t, uint32_t len,
		    bool payload, int cpu)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = t->b.ifindex,
	};
	int one = 1;

	zc_xsk_gen_init(g);
	g->fd = zc_socket_in(t->b.nsfd, AF_PACKET, SOCK_RAW, 0);
	if (g->fd < 0)
		return g->fd;
	if (bind(g->fd, (struct sockaddr *)&sll, sizeof(sll)) ||
	    setsockopt(g->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one))) {
		int err = -errno;

		close(g->fd);
		g->fd = -1;
		return err;
	}
	g->len = len;
	g->payload = payload;
	g->cpu = cpu;
	memcpy(g->dst, t->a.mac, 6);
	memcpy(g->src, t->b.mac, 6);
	zc_xsk_frame_build(g->frame, len, g->dst, g->src, 0, true);
	return 0;
}

/*
 * One frame: 1 sent, 0 dropped by the device (ENOBUFS: the frame never
 * reached side a), -EAGAIN not sent, other -errno.
 */
static int gen_one(struct zc_xsk_gen *g)
{
	if (g->payload)
		zc_xsk_frame_build(g->frame, g->len, g->dst, g->src, g->seq, true);
	else
		zc_xsk_frame_set_seq(g->frame, g->seq);
	if (send(g->fd, g->frame, g->len, MSG_DONTWAIT) == (ssize_t)g->len) {
		g->seq++;
		g->sent++;
		return 1;
	}
	if (errno == ENOBUFS) {
		g->seq++;
		g->dropped++;
		return 0;
	}
	return -errno;
}

uint64_t zc_xsk_gen_burst(struct zc_xsk_gen *g, uint64_t n, double timeout)
{
	double end = zc_now() + timeout;
	uint64_t done = 0;
	int r;

	while (done < n && zc_now() < end) {
		r = gen_one(g);
		if (r >= 0)
			done++;
		else if (r == -EAGAIN)
			zc_poll_one(g->fd, POLLOUT, 0.001);
		else {
			g->err = r;
			break;
		}
	}
	return done;
}

/* Frames the receiving socket dropped at its rx ring so far. */
static uint64_t rx_drops(const struct zc_xsk_gen *g)
{
	struct xdp_statistics st;

	if (zc_xsk_fd_stats(g->acked_fd, &st))
		return 0;
	return st.rx_dropped + st.rx_ring_full;
}

/*
 * Frames sent and not yet taken from the receiver's rx ring nor dropped
 * there. The ring also carries frames the generator did not send (side
 * b's own neighbour discovery): never below zero. A frame the socket
 * dropped never reaches the ring: without the drops a full ring would
 * hold the window shut for good. They are read (a syscall) only when
 * the window looks shut.
 */
static int32_t in_flight(struct zc_xsk_gen *g)
{
	uint32_t took = __atomic_load_n(g->acked, __ATOMIC_ACQUIRE) - g->acked_base;
	int32_t d = (int32_t)((uint32_t)g->sent - took - (uint32_t)g->drops);

	if (d >= ZC_XSK_PAIR_WINDOW) {
		g->drops = rx_drops(g) - g->drops_base;
		d = (int32_t)((uint32_t)g->sent - took - (uint32_t)g->drops);
	}
	return d > 0 ? d : 0;
}

static void *gen_thread(void *arg)
{
	struct zc_xsk_gen *g = arg;
	uint64_t i;
	int r;

	zc_pin_cpu(g->cpu);
	g->t0 = zc_now();
	if (g->acked) {
		g->acked_base = __atomic_load_n(g->acked, __ATOMIC_ACQUIRE);
		g->drops_base = rx_drops(g);
		g->drops = 0;
	}
	for (i = 0; g->sent + g->dropped < g->max; i++) {
		if (!(i & 63) && (__atomic_load_n(&g->stop, __ATOMIC_RELAXED) ||
				  zc_now() >= g->deadline))
			break;
		if (g->acked && in_flight(g) >= ZC_XSK_PAIR_WINDOW) {
			g->waits++;
			sched_yield();
			continue;
		}
		r = gen_one(g);
		if (r == -EAGAIN) {
			zc_poll_one(g->fd, POLLOUT, 0.001);
		} else if (r < 0) {
			g->err = r;
			break;
		}
	}
	g->t1 = zc_now();
	__atomic_store_n(&g->ended, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The live-frame generator into side a, where a runs NAPI. */
static int gen_open_live(struct zc_xsk_gen *g, const struct zc_topo *t, uint32_t len,
			 bool payload, int cpu, struct zc_why *why)
{
	const char *env = getenv("ZC_XDPGEN");
	uint8_t frame[ZC_XSK_FRAME_MAX];
	int err;

	/*
	 * Every BPF_PROG_RUN of an XDP program re-points the XDP dispatcher;
	 * under multi-threaded qemu TCG that panicked a 7.3.4 guest, never
	 * under single-threaded TCG (tools/vmtest turns the live generator
	 * off under multi-threaded TCG only: doc/tests.md, xsk_bind).
	 */
	if (env && !strcmp(env, "0")) {
		zc_why_set(why, "ZC_XDPGEN=0");
		return -EPERM;
	}
	zc_xsk_gen_init(g);
	g->live = calloc(1, sizeof(*g->live));
	if (!g->live) {
		zc_why_set(why, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	zc_xsk_frame_build(frame, len, t->a.mac, t->b.mac, 0, true);
	err = zc_xdpgen_open(g->live, t->b.nsfd, t->b.ifindex, cpu, frame, len,
			     payload, why);
	if (err) {
		zc_xdpgen_close(g->live);
		free(g->live);
		g->live = NULL;
	}
	return err;
}

int zc_xsk_gen_open_rate(struct zc_xsk_gen *g, const struct zc_topo *t,
			 uint32_t len, bool payload, int cpu, bool native,
			 const uint32_t *acked, int acked_fd)
{
	struct zc_why why = { "" };
	int err;

	/*
	 * A real pair keeps AF_PACKET: its window keeps the frames in flight
	 * below what the receiver has buffers for. Elsewhere live frames
	 * where a runs NAPI: one frame per syscall would be the limit there.
	 */
	if (t->real_pair) {
		err = zc_xsk_gen_open(g, t, len, payload, cpu);
		if (!err) {
			g->acked = acked;
			g->acked_fd = acked_fd;
		}
		return err;
	}
	if (native && !gen_open_live(g, t, len, payload, cpu, &why))
		return 0;
	if (native)
		ktap_print_msg("live-frame generator unavailable (%s): AF_PACKET instead\n",
			       why.msg);
	return zc_xsk_gen_open(g, t, len, payload, cpu);
}

int zc_xsk_gen_start(struct zc_xsk_gen *g, double seconds, uint64_t max)
{
	int err;

	if (g->live) {
		err = zc_xdpgen_start(g->live, seconds, max);
		g->running = !err;
		return err;
	}
	g->deadline = zc_now() + seconds;
	g->max = max;
	g->ended = 0;
	if (pthread_create(&g->thr, NULL, gen_thread, g))
		return -EAGAIN;
	g->running = true;
	return 0;
}

bool zc_xsk_gen_ended(const struct zc_xsk_gen *g)
{
	const int *ended = g->live ? &g->live->ended : &g->ended;

	return g->running && __atomic_load_n(ended, __ATOMIC_ACQUIRE);
}

/* Frames the device passed on (sent) and refused (dropped), once stopped. */
static void gen_live_account(struct zc_xsk_gen *g)
{
	uint64_t made = zc_xdpgen_generated(g->live), refused = 0;
	int err = zc_xdpgen_refused(g->live, &refused);

	if (err && !g->err)
		g->err = err;
	if (refused > made)
		refused = made;
	g->sent = made - refused;
	g->dropped = refused;
	if (!g->err)
		g->err = g->live->err;
	g->t0 = g->live->t0;
	g->t1 = g->live->t1;
}

void zc_xsk_gen_stop(struct zc_xsk_gen *g)
{
	if (g->live) {
		zc_xdpgen_stop(g->live);
		if (g->running)
			gen_live_account(g);
		g->running = false;
		return;
	}
	__atomic_store_n(&g->stop, 1, __ATOMIC_RELAXED);
	if (g->running)
		pthread_join(g->thr, NULL);
	g->running = false;
}

double zc_xsk_gen_mpps(const struct zc_xsk_gen *g)
{
	return g->t1 > g->t0 ? (g->sent + g->dropped) / (g->t1 - g->t0) / 1e6 : 0;
}

const char *zc_xsk_gen_desc(const struct zc_xsk_gen *g)
{
	return g->live ? "BPF_PROG_RUN(live_frames,redirect,~0.1s_of_frames/syscall)" :
			 "AF_PACKET(qdisc_bypass,1_frame/send)";
}

/*
 * The generator's own rate over its whole run (warm-up and drain
 * included): on a real pair, a generator that waited for the window was
 * not the bottleneck; one that never waited may have been.
 */
void zc_xsk_gen_print(const struct zc_xsk_gen *g, double secs)
{
	if (secs <= 0)
		return;
	ktap_print_msg("generator: %llu frames in %.2f s, %.4f Mpps, held back by the %d-frame window %llu times (%s)\n",
		       (unsigned long long)g->sent, secs, g->sent / secs / 1e6,
		       ZC_XSK_PAIR_WINDOW, (unsigned long long)g->waits,
		       !g->acked ? "no window: veth" :
		       g->waits ? "the receiver set the rate" :
		       "never held back: the generator may be the limit");
}

void zc_xsk_gen_close(struct zc_xsk_gen *g)
{
	zc_xsk_gen_stop(g);
	if (g->live) {
		zc_xdpgen_close(g->live);
		free(g->live);
		g->live = NULL;
	}
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
}
