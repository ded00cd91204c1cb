// SPDX-License-Identifier: GPL-2.0
/*
 * AF_XDP copy vs zero-copy bind.
 *
 * Binds AF_XDP sockets in every mode (XDP_COPY, XDP_ZEROCOPY, no flag;
 * with and without XDP_USE_NEED_WAKEUP; XDP program in SKB and native
 * mode) and checks each outcome against what the device advertises over
 * the netdev netlink family: a device without NETDEV_XDP_ACT_XSK_ZEROCOPY
 * must refuse XDP_ZEROCOPY with EOPNOTSUPP. Every socket that binds moves
 * a burst of frames both ways. Then the bind errors, and the data paths
 * xdpsock knows (rx-drop, tx-only, l2fwd) per bound mode with every frame
 * accounted for, next to native XDP_DROP as the reference rate.
 *
 * Traffic runs over the test's own veth pair (side a: the socket; side b:
 * the generator, in-kernel live frames in native mode or an AF_PACKET
 * socket in skb mode, and a counting XDP program), or with
 * ZC_PAIR=IFA,IFB over two real devices cabled to each other, moved into
 * the test's namespaces: there a driver really does zero-copy, and the
 * copy and zero-copy rates of each path are printed side by side. With
 * --iface the bind cases run on that device and the data cases skip: the
 * test never sends frames onto a real network.
 *
 * Zero-copy is expected exactly where the device advertises
 * NETDEV_XDP_ACT_XSK_ZEROCOPY and no known precondition of its driver is
 * missing (zc_refusal()); a no-flag bind tries zero-copy and falls back
 * to copy on any refusal (xp_assign_dev), so it must say zero-copy
 * exactly where XDP_ZEROCOPY would succeed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "runner.h"
#include "meter.h"
#include "netdev_nl.h"
#include "netns.h"
#include "opts.h"
#include "probe.h"
#include "util.h"
#include "xdpgen.h"
#include "xsk.h"
#include "xsk.skel.h"

#define TEST_NAME	"xsk_bind"
#define BURST		32	/* frames each way after a bind */
#define BATCH		64	/* ring entries handled per step */
#define FRAME_DEFAULT	64	/* xdpsock's default packet size */
#define FRAME_MAX	1514	/* 1500 MTU plus the Ethernet header */
#define MTU		1500
#define BIND_RETRY_S	1.0	/* a closed socket's queue stays busy ~16 ms */
#define SETTLE_S	1.0	/* bound on every drain after a run */
#define WARMUP_S	0.2
#define IDLE_SPIN	256	/* empty rx polls before sleeping in poll(2) */
#define GEN_MAX_FRAMES	(200ULL * 1000 * 1000)
/*
 * Frames in flight on a real pair: qemu's hub (and a real switch) drops
 * or reorders what the receiver has no buffer for, unseen by either
 * driver; below the rx ring's size every frame stays accounted for.
 */
#define PAIR_WINDOW	128
/* virtio feature bits (include/uapi/linux/virtio_config.h, virtio_net.h) */
#define VIRTIO_BIT_ACCESS_PLATFORM	33
#define VIRTIO_BIT_MRG_RXBUF		15
#define VIRTIO_BIT_GUEST_TSO4		7
#define VIRTIO_BIT_GUEST_UFO		10

enum { OPT_IFACE = 256, OPT_QUEUE, OPT_MODE };
enum attach { AT_SKB, AT_NATIVE, AT_N };
enum bmode { BM_COPY, BM_ZEROCOPY, BM_NONE };
enum kind { K_RXDROP, K_TXONLY, K_L2FWD, K_XDPDROP };

static const char *const at_name[] = { "skb", "native" };
static const __u32 at_flags[] = { XDP_FLAGS_SKB_MODE, XDP_FLAGS_DRV_MODE };
static const char *const bm_name[] = { "copy", "zerocopy", "none" };
static const __u16 bm_flags[] = { XDP_COPY, XDP_ZEROCOPY, 0 };
static const char *const kind_name[] = { "rxdrop", "txonly", "l2fwd", "xdpdrop" };

static struct {
	const char *iface;
	long queue;
	unsigned int modes;	/* bit per enum attach */
	const char *mode_arg;
} cli = { .modes = (1 << AT_SKB) | (1 << AT_NATIVE) };

/* The device under test and, without --iface, its veth peer. */
struct dut {
	const struct zc_opts *o;
	struct zc_topo topo;
	bool veth;
	int nsfd;
	int ifindex;
	char ifname[IF_NAMESIZE];
	uint32_t queue;
	uint32_t bad_queue;	/* first queue id out of range */
	char driver[32];
	struct zc_netdev_info info;
	int info_err;
	bool zc_capable;	/* advertises NETDEV_XDP_ACT_XSK_ZEROCOPY */
	int zc_refused;		/* -errno a known precondition gives, or 0 */
	char refusal[200];	/* why, for the skip line */
	uint32_t frame_len;
	char bpf_skip[256];	/* "" when XDP programs load */
};

/* One skeleton and the XDP link of one of its programs. */
struct side {
	struct xsk *skel;
	int link;
};

/*
 * Frames into side a from side b: BPF_PROG_RUN live frames (lib/xdpgen.h)
 * where a runs NAPI (native XDP), else an AF_PACKET socket.
 */
struct gen {
	struct zc_xdpgen *live;	/* in-kernel generator, or NULL */
	int fd;			/* AF_PACKET on side b */
	int cpu;
	bool payload;		/* rewrite the payload of every frame */
	uint32_t len;
	uint8_t frame[FRAME_MAX];
	uint8_t dst[6], src[6];
	uint64_t seq, sent, dropped, max;
	const uint64_t *acked;	/* real pair: frames the receiver took */
	uint64_t waits;		/* sends held back by PAIR_WINDOW */
	double deadline, t0, t1;	/* t0/t1: the sending thread's run */
	int err;
	int stop;
	pthread_t thr;
	bool running;
};

/* One socket and its traffic. */
struct run {
	struct dut *d;
	struct zc_xsk x;
	struct side a, b;
	struct gen g;
	bool zc, wakeup, verify, have_seq;
	unsigned int idle_polls;
	uint64_t tx_seq, rx, tx_sub, tx_done, tx_busy, bad, last_seq, tx_waits;
	int err;
	char why[320];
};

/* Options */

static const struct zc_opt_extra extra_opts[] = {
	{ "iface", 1, OPT_IFACE, "IFACE",
	  "run the bind cases on this device (data cases skip: no traffic leaves the test's veth)" },
	{ "queue", 1, OPT_QUEUE, "Q", "queue id to bind (default 0)" },
	{ "mode", 1, OPT_MODE, "skb|native|all",
	  "XDP attach modes to run (default all; the others skip)" },
	{ NULL }
};

static int parse_extra(int val, const char *arg, void *ctx, struct zc_why *why)
{
	char *err = why->msg;
	size_t len = sizeof(why->msg);

	switch (val) {
	case OPT_IFACE:
		if (!*arg || strlen(arg) >= IF_NAMESIZE) {
			snprintf(err, len, "--iface wants a device name, got '%s'", arg);
			return -1;
		}
		cli.iface = arg;
		return 0;
	case OPT_QUEUE:
		if (zc_parse_long(arg, 0, 65535, &cli.queue)) {
			snprintf(err, len, "--queue wants an integer in [0, 65535], got '%s'", arg);
			return -1;
		}
		return 0;
	case OPT_MODE:
		if (!strcmp(arg, "skb"))
			cli.modes = 1 << AT_SKB;
		else if (!strcmp(arg, "native"))
			cli.modes = 1 << AT_NATIVE;
		else if (!strcmp(arg, "all"))
			cli.modes = (1 << AT_SKB) | (1 << AT_NATIVE);
		else {
			snprintf(err, len, "--mode wants skb, native or all, got '%s'", arg);
			return -1;
		}
		cli.mode_arg = arg;
		return 0;
	}
	snprintf(err, len, "unhandled option");
	return -1;
}

static const struct zc_test_desc desc = {
	.name = TEST_NAME,
	.summary = "AF_XDP copy vs zero-copy bind: bind matrix, bind errors, rx-drop/tx-only/l2fwd.\n"
		   "--size is the whole frame, Ethernet header included (default 64, 30..1514).",
	.extra = extra_opts,
	.parse = parse_extra,
	.size_default = FRAME_DEFAULT,
	.size_max = FRAME_MAX,
};

/* XDP programs: skeleton per side, attached through a bpf_link */

struct link_args {
	int prog_fd, ifindex;
	__u32 flags;
};

static int link_in_ns(void *arg)
{
	struct link_args *a = arg;
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = a->flags);
	int fd;

	/* A link, not a netlink attach: it goes with the process, even on SIGKILL. */
	fd = bpf_link_create(a->prog_fd, a->ifindex, BPF_XDP, &opts);
	return fd < 0 ? -errno : fd;
}

static int side_load(struct side *s, bool verify)
{
	struct zc_xsk_cfg_val cfg = { .verify = verify };
	__u32 key = 0;

	s->link = -1;
	s->skel = xsk__open_and_load();
	if (!s->skel)
		return errno ? -errno : -EINVAL;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.zc_xsk_cfg), &key, &cfg, 0))
		return -errno;
	return 0;
}

static int side_attach(struct side *s, int nsfd, int ifindex,
		       struct bpf_program *prog, enum attach at)
{
	struct link_args a = { bpf_program__fd(prog), ifindex, at_flags[at] };
	int fd = zc_netns_run(nsfd, link_in_ns, &a);

	if (fd < 0)
		return fd;
	s->link = fd;
	return 0;
}

static void side_close(struct side *s)
{
	if (s->link >= 0)
		close(s->link);
	s->link = -1;
	xsk__destroy(s->skel);
	s->skel = NULL;
}

static int cnt_read(const struct side *s, uint64_t out[ZC_XSK_C_NSLOTS])
{
	int ncpu = libbpf_num_possible_cpus(), c;
	uint64_t *v;
	__u32 key;

	memset(out, 0, sizeof(uint64_t) * ZC_XSK_C_NSLOTS);
	if (ncpu <= 0)
		return -EINVAL;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (key = 0; key < ZC_XSK_C_NSLOTS; key++) {
		if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.zc_xsk_cnt), &key, v))
			continue;
		for (c = 0; c < ncpu; c++)
			out[key] += v[c];
	}
	free(v);
	return 0;
}

static uint64_t cnt_get(const struct side *s, int slot)
{
	uint64_t c[ZC_XSK_C_NSLOTS];

	cnt_read(s, c);
	return c[slot];
}

/* Wait (at most SETTLE_S) until a counter reaches want. */
static uint64_t cnt_settle(const struct side *s, int slot, uint64_t want)
{
	double end = zc_now() + SETTLE_S;
	uint64_t v;

	while ((v = cnt_get(s, slot)) < want && zc_now() < end)
		usleep(1000);
	return v;
}

/* The generator on side b: AF_PACKET, qdisc bypassed, one frame per send */

static int gen_open(struct gen *g, struct dut *d, uint32_t len, bool payload)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = d->topo.b.ifindex,
	};
	int one = 1;

	memset(g, 0, sizeof(*g));
	g->fd = zc_socket_in(d->topo.b.nsfd, AF_PACKET, SOCK_RAW, 0);
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
	g->cpu = d->o->cpu_tx;
	memcpy(g->dst, d->topo.a.mac, 6);
	memcpy(g->src, d->topo.b.mac, 6);
	zc_xsk_frame_build(g->frame, len, g->dst, g->src, 0, true);
	return 0;
}

/*
 * One frame: 1 sent, 0 dropped by the device (ENOBUFS: the frame never
 * reached side a), -EAGAIN not sent, other -errno.
 */
static int gen_one(struct gen *g)
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

/* Send up to n frames within the time bound; returns frames handed over. */
static uint64_t gen_burst(struct gen *g, uint64_t n, double timeout)
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

static void *gen_thread(void *arg)
{
	struct gen *g = arg;
	uint64_t i;
	int r;

	zc_pin_cpu(g->cpu);
	g->t0 = zc_now();
	for (i = 0; g->sent + g->dropped < g->max; i++) {
		if (!(i & 63) && (__atomic_load_n(&g->stop, __ATOMIC_RELAXED) ||
				  zc_now() >= g->deadline))
			break;
		if (g->acked && g->sent - __atomic_load_n(g->acked, __ATOMIC_RELAXED) >=
		    PAIR_WINDOW) {
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
	return NULL;
}

/*
 * The live-frame generator into side a, where a runs NAPI. Returns 0, or
 * -errno with the reason in why (the caller falls back to AF_PACKET).
 */
static int gen_open_live(struct gen *g, struct dut *d, uint32_t len,
			 bool payload, char *why, size_t whylen)
{
	const char *env = getenv("ZC_XDPGEN");
	uint8_t frame[FRAME_MAX];
	int err;

	/*
	 * Every BPF_PROG_RUN of an XDP program re-points the XDP dispatcher;
	 * under qemu TCG that panicked a 7.3.4 guest (tools/vmtest turns the
	 * live generator off there: README, xsk_bind).
	 */
	if (env && !strcmp(env, "0")) {
		snprintf(why, whylen, "ZC_XDPGEN=0");
		return -EPERM;
	}
	memset(g, 0, sizeof(*g));
	g->fd = -1;
	g->live = calloc(1, sizeof(*g->live));
	if (!g->live)
		return -ENOMEM;
	zc_xsk_frame_build(frame, len, d->topo.a.mac, d->topo.b.mac, 0, true);
	err = zc_xdpgen_open(g->live, d->topo.b.nsfd, d->topo.b.ifindex,
			     d->o->cpu_tx, frame, len, payload, why, whylen);
	if (err) {
		zc_xdpgen_close(g->live);
		free(g->live);
		g->live = NULL;
	}
	return err;
}

static int gen_start(struct gen *g, double seconds)
{
	int err;

	if (g->live) {
		err = zc_xdpgen_start(g->live, seconds, GEN_MAX_FRAMES);
		g->running = !err;
		return err;
	}
	g->deadline = zc_now() + seconds;
	g->max = GEN_MAX_FRAMES;
	if (pthread_create(&g->thr, NULL, gen_thread, g))
		return -EAGAIN;
	g->running = true;
	return 0;
}

/* Frames the device passed on (sent) and refused (dropped), once stopped. */
static void gen_live_account(struct gen *g)
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

static void gen_stop(struct gen *g)
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

/* The generator's own rate over its run, Mpps (0: it did not run). */
static double gen_mpps(const struct gen *g)
{
	return g->t1 > g->t0 ? (g->sent + g->dropped) / (g->t1 - g->t0) / 1e6 : 0;
}

static const char *gen_desc(const struct gen *g)
{
	return g->live ? "BPF_PROG_RUN(live frames, redirect, ~0.1 s of frames/syscall)" :
			 "AF_PACKET(qdisc bypass, 1 frame/send)";
}

static void gen_close(struct gen *g)
{
	gen_stop(g);
	if (g->live) {
		zc_xdpgen_close(g->live);
		free(g->live);
		g->live = NULL;
	}
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
}

/* Socket setup shared by every case */

static int xsk_open_in(struct dut *d, struct zc_xsk *x, uint32_t nframes)
{
	struct zc_xsk_cfg cfg = { .nframes = nframes };
	int fd = zc_socket_in(d->nsfd, AF_XDP, SOCK_RAW, 0);

	if (fd < 0) {
		x->fd = -1;
		return fd;
	}
	return zc_xsk_create(x, &cfg, fd);
}

static int xsk_map_add(struct side *s, struct zc_xsk *x)
{
	__u32 key = x->queue;
	__u32 fd = x->fd;

	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.zc_xsk_map), &key, &fd, 0))
		return -errno;
	return 0;
}

static void fail_why(struct run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail_why(struct run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

/* Receive side: verify, hand frames on to tx (l2fwd) or back to fill. */

static void rx_check(struct run *r, const void *data, uint32_t len)
{
	char why[128];
	uint64_t seq;

	if (zc_xsk_frame_check(data, len, r->verify, &seq, why, sizeof(why))) {
		r->bad++;
		fail_why(r, "%s", why);
		return;
	}
	/* One generator, one queue: frames arrive in order or not at all. */
	if (r->have_seq && seq <= r->last_seq) {
		r->bad++;
		fail_why(r, "frame %llu after %llu: out of order",
			 (unsigned long long)seq, (unsigned long long)r->last_seq);
	}
	r->last_seq = seq;
	r->have_seq = true;
}

static uint64_t chunk(const struct zc_xsk *x, uint64_t addr)
{
	return addr & ~(uint64_t)(x->frame_size - 1);
}

static bool need_kick_tx(const struct run *r)
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
static void rx_wake(struct run *r)
{
	if (r->wakeup && zc_ring_needs_wakeup(&r->x.fq))
		zc_xsk_wakeup_rx(&r->x);
	/*
	 * poll(2) transmits too in copy mode, and would hide a drop from
	 * tx_kick()'s count: sleep only with nothing in flight.
	 */
	if (++r->idle_polls >= IDLE_SPIN && r->tx_sub == r->tx_done) {
		r->idle_polls = 0;
		zc_poll_one(r->x.fd, POLLIN, 0.001);
	}
}

/* rx-drop: every received frame goes straight back to the fill ring. */
static uint32_t rx_drop_batch(struct run *r, uint64_t *bytes)
{
	uint32_t n, i, idx_rx, idx_fq;

	n = zc_ring_cons_peek(&r->x.rx, BATCH, &idx_rx);
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

static void tx_kick(struct run *r)
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
static uint32_t l2fwd_batch(struct run *r, uint64_t *bytes)
{
	uint32_t n, i, idx_rx, idx_tx, done;

	done = zc_xsk_complete(&r->x, BATCH);
	r->tx_done += done;
	zc_xsk_fill(&r->x, r->x.nfree);
	n = zc_ring_cons_peek(&r->x.rx, zc_ring_prod_free(&r->x.tx, BATCH), &idx_rx);
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

/* Real pair: no more than PAIR_WINDOW frames between a's tx and b's count. */
static uint32_t pair_room(struct run *r, uint32_t n)
{
	uint64_t landed = cnt_get(&r->b, ZC_XSK_C_COUNT) + r->tx_busy;
	uint64_t flight = r->tx_sub > landed ? r->tx_sub - landed : 0;

	if (flight >= PAIR_WINDOW) {
		r->tx_waits++;
		return 0;
	}
	return n < PAIR_WINDOW - flight ? n : PAIR_WINDOW - flight;
}

/* tx-only: frames from the free list, stamped, completions counted. */
static uint32_t tx_batch(struct run *r, uint32_t max)
{
	uint32_t n, i, idx, done;

	done = zc_xsk_complete(&r->x, BATCH);
	r->tx_done += done;
	n = max < r->x.nfree ? max : r->x.nfree;
	if (r->d->topo.real_pair)
		n = pair_room(r, n);
	n = zc_ring_prod_reserve(&r->x.tx, n, &idx);
	for (i = 0; i < n; i++) {
		struct xdp_desc *out = zc_ring_desc(&r->x.tx, idx + i);
		uint64_t addr = r->x.free_addr[--r->x.nfree];
		void *data = zc_xsk_data(&r->x, addr);

		if (r->verify)
			zc_xsk_frame_build(data, r->d->frame_len, r->d->topo.b.mac,
					   r->d->topo.a.mac, r->tx_seq, true);
		else
			zc_xsk_frame_set_seq(data, r->tx_seq);
		r->tx_seq++;
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
static void tx_prebuild(struct run *r)
{
	uint32_t i;

	for (i = 0; i < r->x.nfree; i++)
		zc_xsk_frame_build(zc_xsk_data(&r->x, r->x.free_addr[i]),
				   r->d->frame_len, r->d->topo.b.mac,
				   r->d->topo.a.mac, 0, true);
}

/* Wait (bounded) until every transmitted frame has completed. */
static void tx_drain(struct run *r)
{
	double end = zc_now() + SETTLE_S;

	while (r->tx_done < r->tx_sub && zc_now() < end) {
		r->tx_done += zc_xsk_complete(&r->x, BATCH);
		if (r->tx_done < r->tx_sub)
			tx_kick(r);
	}
}

/* Keep receiving until nothing arrived for 50 ms (at most SETTLE_S). */
static void rx_drain(struct run *r, bool fwd)
{
	double end = zc_now() + SETTLE_S, idle = zc_now();
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

static int run_open(struct run *r, struct dut *d, enum attach at, bool need_peer,
		    bool verify, uint32_t nframes, bool drop_only)
{
	int err;

	memset(r, 0, sizeof(*r));
	r->d = d;
	r->x.fd = -1;
	r->a.link = r->b.link = -1;
	r->g.fd = -1;
	r->verify = verify;
	err = side_load(&r->a, verify);
	if (err) {
		snprintf(r->why, sizeof(r->why), "load XDP programs: %s", strerror(-err));
		return err;
	}
	err = side_attach(&r->a, d->nsfd, d->ifindex, drop_only ?
			  r->a.skel->progs.zc_xdp_count : r->a.skel->progs.zc_xsk_redirect, at);
	if (err) {
		snprintf(r->why, sizeof(r->why), "attach XDP in %s mode to %s: %s",
			 at_name[at], d->ifname, strerror(-err));
		return err;
	}
	if (need_peer) {
		err = side_load(&r->b, verify);
		if (!err)
			err = side_attach(&r->b, d->topo.b.nsfd, d->topo.b.ifindex,
					  r->b.skel->progs.zc_xdp_count, AT_NATIVE);
		/* A real device without native XDP (e1000e) still counts in skb mode. */
		if (err && d->topo.real_pair)
			err = side_attach(&r->b, d->topo.b.nsfd, d->topo.b.ifindex,
					  r->b.skel->progs.zc_xdp_count, AT_SKB);
		if (err) {
			snprintf(r->why, sizeof(r->why), "peer XDP counter: %s", strerror(-err));
			return err;
		}
	}
	if (drop_only)
		return 0;
	err = xsk_open_in(d, &r->x, nframes);
	if (err)
		snprintf(r->why, sizeof(r->why), "AF_XDP socket and UMEM: %s", strerror(-err));
	return err;
}

static void run_close(struct run *r)
{
	gen_close(&r->g);
	zc_xsk_close(&r->x);
	side_close(&r->a);
	side_close(&r->b);
}

/* After a successful bind: wakeup/zc state and map insertion. */
static int run_bound(struct run *r, uint16_t flags)
{
	int zc = zc_xsk_is_zerocopy(&r->x), err;

	if (zc < 0) {
		snprintf(r->why, sizeof(r->why), "XDP_OPTIONS: %s", strerror(-zc));
		return zc;
	}
	r->zc = zc;
	r->wakeup = flags & XDP_USE_NEED_WAKEUP;
	err = xsk_map_add(&r->a, &r->x);
	if (err)
		snprintf(r->why, sizeof(r->why), "XSKMAP insert of a bound socket: %s",
			 strerror(-err));
	return err;
}


/*
 * BURST frames each way on a freshly bound socket: b -> a through the XDP
 * redirect into the rx ring (half the UMEM in the fill ring since before
 * the bind), then a -> b
 * from the other half into the peer's counter. Payloads always checked.
 */
static int burst_both_ways(struct run *r)
{
	uint64_t bytes = 0, got, want;
	double end;
	int err;

	err = gen_open(&r->g, r->d, r->d->frame_len, true);
	if (err) {
		snprintf(r->why, sizeof(r->why), "generator: %s", strerror(-err));
		return err;
	}
	gen_burst(&r->g, BURST, SETTLE_S);
	end = zc_now() + SETTLE_S;
	while (r->rx < r->g.sent && zc_now() < end && !r->bad)
		rx_drop_batch(r, &bytes);
	if (r->g.err || !r->g.sent || r->rx != r->g.sent || r->bad) {
		fail_why(r, "rx: %llu frames sent (%llu dropped by veth, err %d), %llu received",
			 (unsigned long long)r->g.sent, (unsigned long long)r->g.dropped,
			 r->g.err, (unsigned long long)r->rx);
		return -EIO;
	}

	tx_prebuild(r);
	end = zc_now() + SETTLE_S;
	while (r->tx_sub < BURST && zc_now() < end && !r->err)
		tx_batch(r, BURST - r->tx_sub);
	tx_drain(r);
	want = r->tx_done - r->tx_busy;
	got = cnt_settle(&r->b, ZC_XSK_C_COUNT, want);
	if (r->err || r->tx_done != BURST || got != want ||
	    cnt_get(&r->b, ZC_XSK_C_BAD)) {
		fail_why(r, "tx: %llu submitted, %llu completed, %llu dropped by veth, peer counted %llu (%llu bad), err %d",
			 (unsigned long long)r->tx_sub, (unsigned long long)r->tx_done,
			 (unsigned long long)r->tx_busy, (unsigned long long)got,
			 (unsigned long long)cnt_get(&r->b, ZC_XSK_C_BAD), r->err);
		return -EIO;
	}
	return 0;
}

static bool mode_selected(const struct zc_case *c, enum attach at)
{
	if (cli.modes & (1 << at))
		return true;
	ktap_skip(c->name, "--mode %s", cli.mode_arg);
	return false;
}

/* Case: what the device advertises */

static void case_features(const struct zc_case *c, void *ctx)
{
	struct dut *d = ctx;
	char feat[160];

	if (d->info_err == -ENOENT) {
		ktap_skip(c->name, "kernel lacks the netdev generic netlink family");
		return;
	}
	if (d->info_err) {
		ktap_fail(c->name, "NETDEV_CMD_DEV_GET on %s: %s", d->ifname,
			  strerror(-d->info_err));
		return;
	}
	ktap_print_msg("%s (%s): xdp_features 0x%llx %s, xdp_zc_max_segs %s%u\n",
		       d->ifname, d->driver, (unsigned long long)d->info.xdp_features,
		       zc_xdp_features_str(d->info.xdp_features, feat, sizeof(feat)),
		       d->info.has_zc_max_segs ? "" : "(absent) ",
		       d->info.xdp_zc_max_segs);
	/* Binding at all needs redirect support in the driver's native path. */
	ktap_result(c->name, d->info.xdp_features & NETDEV_XDP_ACT_REDIRECT,
		    "%s does not advertise NETDEV_XDP_ACT_REDIRECT", d->ifname);
}

/* Cases: the bind matrix */

struct bind_cell {
	enum bmode bm;
	bool wakeup;
	enum attach at;
};

static void zc_lacks_reason(const struct dut *d, char *buf, size_t len)
{
	if (d->zc_refused)
		snprintf(buf, len, "%s", d->refusal);
	else if (d->info_err)
		snprintf(buf, len, "%s: XDP_ZEROCOPY refused (xdp_features unknown: %s)",
			 d->driver, strerror(-d->info_err));
	else
		snprintf(buf, len, "%s lacks NETDEV_XDP_ACT_XSK_ZEROCOPY", d->driver);
}

/*
 * 0: bound as the device's features say (traffic follows); 2: XDP_ZEROCOPY
 * refused as the probe expects, reason in r->why (a skip: zero-copy was
 * not exercised); -1: anything else, with r->why.
 */
static int check_bind(struct run *r, const struct bind_cell *cell, int ret, int tries)
{
	struct dut *d = r->d;
	bool zc_ok = d->zc_capable && !d->zc_refused;
	bool want_zc = cell->bm == BM_ZEROCOPY || (cell->bm == BM_NONE && zc_ok);
	char reason[224];

	if (cell->bm == BM_ZEROCOPY && d->zc_capable && d->zc_refused) {
		/* Advertised, refused for a reason the probe knows: not tested. */
		if (ret == d->zc_refused) {
			snprintf(r->why, sizeof(r->why), "%s", d->refusal);
			return 2;
		}
		if (ret) {
			snprintf(r->why, sizeof(r->why), "%s; bind gave %s", d->refusal,
				 strerror(-ret));
			return -1;
		}
		/* It bound after all: the kernel learned better; check it as zero-copy. */
		ktap_print_msg("bound zero-copy although: %s\n", d->refusal);
	}
	if (cell->bm == BM_NONE && d->zc_refused)
		ktap_print_msg("no flag: zero-copy refused (%s), copy expected by the fallback rule\n",
			       strerror(-d->zc_refused));

	if (cell->bm == BM_ZEROCOPY && !d->zc_capable) {
		zc_lacks_reason(d, reason, sizeof(reason));
		/* The refusal is asserted; zero-copy itself was not exercised. */
		if (ret == -EOPNOTSUPP) {
			snprintf(r->why, sizeof(r->why), "%s (XDP_ZEROCOPY: EOPNOTSUPP, as it must)",
				 reason);
			return 2;
		}
		if (!ret && d->info_err)
			return 0;	/* features unknown: a zero-copy bind is news, not a bug */
		snprintf(r->why, sizeof(r->why), "%s, bind gave %s, expected EOPNOTSUPP",
			 reason, ret ? strerror(-ret) : "success");
		return -1;
	}
	if (ret) {
		snprintf(r->why, sizeof(r->why), "bind(flags 0x%x): %s after %d tries",
			 r->x.bind_flags, strerror(-ret), tries);
		return -1;
	}
	if (run_bound(r, r->x.bind_flags))
		return -1;
	if (r->zc != want_zc) {
		snprintf(r->why, sizeof(r->why), "XDP_OPTIONS says %s, expected %s",
			 r->zc ? "zero-copy" : "copy", want_zc ? "zero-copy" : "copy");
		return -1;
	}
	return 0;
}

/* The socket's word (XDP_OPTIONS) for the frames of its burst. */
static void bind_zcmode(const struct zc_case *c, const struct run *r)
{
	char prefix[128];
	unsigned long n = r->rx + r->tx_done;

	snprintf(prefix, sizeof(prefix), "%s.%s", TEST_NAME, c->name);
	ktap_zcmode(prefix, r->zc ? n : 0, r->zc ? 0 : n);
}

static void case_bind(const struct zc_case *c, void *ctx)
{
	const struct bind_cell *cell = c->arg;
	struct dut *d = ctx;
	uint16_t flags = bm_flags[cell->bm] | (cell->wakeup ? XDP_USE_NEED_WAKEUP : 0);
	struct run r;
	int ret, tries = 0;

	if (!mode_selected(c, cell->at))
		return;
	if (d->bpf_skip[0]) {
		ktap_skip(c->name, "needs an XDP program: %s", d->bpf_skip);
		return;
	}
	/*
	 * On a real device a zero-copy driver keeps a ring's worth of fill
	 * buffers posted (virtio_net: 256), and in skb mode the generic path
	 * needs more to copy into: give it a UMEM beyond the ring.
	 */
	if (run_open(&r, d, cell->at, d->veth, true, d->topo.real_pair ? 1024 : 256, false)) {
		if (cell->at == AT_NATIVE && !d->veth && strstr(r.why, "attach"))
			ktap_skip(c->name, "%s", r.why);
		else
			ktap_fail(c->name, "%s", r.why);
		run_close(&r);
		return;
	}
	/*
	 * Fill before the bind: a zero-copy driver posts its rx buffers from
	 * the fill ring when the pool arrives, and virtio_net without
	 * need_wakeup has no later moment to take them.
	 */
	zc_xsk_fill(&r.x, r.x.nframes / 2);
	ret = zc_xsk_bind_retry(&r.x, d->ifindex, d->queue, flags, BIND_RETRY_S, &tries);
	r.x.bind_flags = flags;
	ret = check_bind(&r, cell, ret, tries);
	if (ret == 2) {
		ktap_skip(c->name, "%s", r.why);
	} else if (ret < 0) {
		ktap_fail(c->name, "%s", r.why);
	} else if (!d->veth) {
		ktap_print_msg("bound %s, no traffic on --iface\n", r.zc ? "zero-copy" : "copy");
		ktap_pass(c->name);
	} else if (burst_both_ways(&r)) {
		ktap_fail(c->name, "%s", r.why);
	} else {
		if (!d->o->quiet)
			ktap_print_msg("bound %s in %d tries; %d frames each way, tx kicks dropped %llu, ring flags fq 0x%x tx 0x%x\n",
				       r.zc ? "zero-copy" : "copy", tries, BURST,
				       (unsigned long long)r.tx_busy, *r.x.fq.flags,
				       *r.x.tx.flags);
		bind_zcmode(c, &r);
		ktap_pass(c->name);
	}
	run_close(&r);
}

#define CELL(bm, w, at) { bm, w, at }
static const struct bind_cell cells[] = {
	CELL(BM_COPY, true, AT_SKB), CELL(BM_COPY, false, AT_SKB),
	CELL(BM_ZEROCOPY, true, AT_SKB), CELL(BM_ZEROCOPY, false, AT_SKB),
	CELL(BM_NONE, true, AT_SKB), CELL(BM_NONE, false, AT_SKB),
	CELL(BM_COPY, true, AT_NATIVE), CELL(BM_COPY, false, AT_NATIVE),
	CELL(BM_ZEROCOPY, true, AT_NATIVE), CELL(BM_ZEROCOPY, false, AT_NATIVE),
	CELL(BM_NONE, true, AT_NATIVE), CELL(BM_NONE, false, AT_NATIVE),
};

/* Cases: bind errors (no XDP program needed for any of them) */

struct bind_err {
	uint16_t flags;
	int ifindex;		/* 0: the device under test */
	bool bad_queue;
	int want;
};

static void case_bind_err(const struct zc_case *c, void *ctx)
{
	const struct bind_err *e = c->arg;
	struct dut *d = ctx;
	int ifindex = e->ifindex ? e->ifindex : d->ifindex;
	uint32_t queue = e->bad_queue ? d->bad_queue : d->queue;
	struct zc_xsk x;
	int ret;

	if (e->ifindex == -1)
		ifindex = 0;
	ret = xsk_open_in(d, &x, 256);
	if (ret) {
		ktap_fail(c->name, "AF_XDP socket and UMEM: %s", strerror(-ret));
		return;
	}
	/* Retry EBUSY: the queue may still be held by the previous case's socket. */
	ret = zc_xsk_bind_retry(&x, ifindex, queue, e->flags, BIND_RETRY_S, NULL);
	ktap_result(c->name, ret == e->want,
		    "bind(ifindex %d, queue %u, flags 0x%x) gave %s, expected %s",
		    ifindex, queue, e->flags, ret ? strerror(-ret) : "success",
		    strerror(-e->want));
	zc_xsk_close(&x);
}

static const struct bind_err err_both = { XDP_COPY | XDP_ZEROCOPY, 0, false, -EINVAL };
static const struct bind_err err_unknown = { ZC_XDP_UNKNOWN_FLAG, 0, false, -EINVAL };
static const struct bind_err err_queue = { XDP_COPY, 0, true, -EINVAL };
static const struct bind_err err_noif = { XDP_COPY, -1, false, -ENODEV };
static const struct bind_err err_goneif = { XDP_COPY, INT_MAX, false, -ENODEV };

static void case_busy(const struct zc_case *c, void *ctx)
{
	struct dut *d = ctx;
	struct zc_xsk x1, x2;
	int ret;

	ret = xsk_open_in(d, &x1, 256);
	if (!ret) {
		ret = xsk_open_in(d, &x2, 256);
		if (ret)
			zc_xsk_close(&x1);
	}
	if (ret) {
		ktap_fail(c->name, "AF_XDP socket and UMEM: %s", strerror(-ret));
		return;
	}
	ret = zc_xsk_bind_retry(&x1, d->ifindex, d->queue, XDP_COPY, BIND_RETRY_S, NULL);
	if (ret) {
		ktap_fail(c->name, "first bind: %s", strerror(-ret));
	} else {
		ret = zc_xsk_bind(&x2, d->ifindex, d->queue, XDP_COPY);
		ktap_result(c->name, ret == -EBUSY,
			    "second socket on queue %u gave %s, expected EBUSY",
			    d->queue, ret ? strerror(-ret) : "success");
	}
	zc_xsk_close(&x2);
	zc_xsk_close(&x1);
}

static void case_rebind(const struct zc_case *c, void *ctx)
{
	struct dut *d = ctx;
	struct zc_xsk x;
	double t0;
	int ret, tries = 0;

	ret = xsk_open_in(d, &x, 256);
	if (!ret)
		ret = zc_xsk_bind_retry(&x, d->ifindex, d->queue, XDP_COPY,
					BIND_RETRY_S, NULL);
	zc_xsk_close(&x);
	if (ret) {
		ktap_fail(c->name, "first bind: %s", strerror(-ret));
		return;
	}
	t0 = zc_now();
	ret = xsk_open_in(d, &x, 256);
	if (ret) {
		ktap_fail(c->name, "AF_XDP socket and UMEM: %s", strerror(-ret));
		return;
	}
	ret = zc_xsk_bind_retry(&x, d->ifindex, d->queue, XDP_COPY, BIND_RETRY_S, &tries);
	if (!ret)
		ktap_print_msg("queue %u free again %.1f ms after close (%d bind attempts)\n",
			       d->queue, (zc_now() - t0) * 1e3, tries);
	ktap_result(c->name, !ret, "rebind after close: %s after %d tries in %.0f ms",
		    strerror(-ret), tries, (zc_now() - t0) * 1e3);
	zc_xsk_close(&x);
}

/* Cases: data paths with rates */

struct data_case {
	enum kind k;
	enum bmode bm;
	enum attach at;
};

static int step_rxdrop(void *arg, uint64_t *bytes, uint64_t *pkts)
{
	struct run *r = arg;

	*pkts += rx_drop_batch(r, bytes);
	return r->err;
}

static int step_l2fwd(void *arg, uint64_t *bytes, uint64_t *pkts)
{
	struct run *r = arg;

	*pkts += l2fwd_batch(r, bytes);
	return r->err;
}

static int step_txonly(void *arg, uint64_t *bytes, uint64_t *pkts)
{
	struct run *r = arg;
	uint32_t done = tx_batch(r, BATCH);

	*pkts += done;
	*bytes += (uint64_t)done * r->d->frame_len;
	return r->err;
}

/* XDP_DROP: the program counts; sample its counter every millisecond. */
static int step_xdpdrop(void *arg, uint64_t *bytes, uint64_t *pkts)
{
	struct run *r = arg;
	uint64_t v;

	usleep(1000);
	v = cnt_get(&r->a, ZC_XSK_C_COUNT);
	*pkts += v - r->rx;
	*bytes += (v - r->rx) * r->d->frame_len;
	r->rx = v;
	return 0;
}

static const zc_step_fn steps[] = {
	[K_RXDROP] = step_rxdrop, [K_TXONLY] = step_txonly,
	[K_L2FWD] = step_l2fwd, [K_XDPDROP] = step_xdpdrop,
};

static void print_config(const struct run *r, const struct zc_case *c,
			 const struct data_case *dc)
{
	const struct dut *d = r->d;
	const struct zc_opts *o = d->o;
	char sock[160] = "socket=none";

	if (dc->k != K_XDPDROP)
		snprintf(sock, sizeof(sock),
			 "bind=%s+need_wakeup umem=%ux%uB rx/tx ring=%u fill/comp ring=%u batch=%d rx-idle=%d spins then poll 1ms",
			 bm_name[dc->bm], r->x.nframes, r->x.frame_size, r->x.rx.size,
			 r->x.fq.size, BATCH, IDLE_SPIN);
	ktap_print_msg("config: %s frame=%uB %s xdp=%s queue=%u generator=%s cpus tx=%d rx=%d mtu=%d kernel=%s duration=%gs repeat=%d warmup=%gs verify=%s cpu=whole process incl. generator\n",
		       c->name, d->frame_len, sock, at_name[dc->at], d->queue,
		       gen_desc(&r->g), o->cpu_tx, o->cpu_rx, d->topo.mtu, zc_kernel_release(),
		       o->duration, o->repeat, WARMUP_S, o->verify ? "yes" : "no");
}

/* Every frame the generator handed over, followed to its end. */
static bool account_rx(struct run *r, const uint64_t *ca, const struct xdp_statistics *st)
{
	uint64_t sock_drops = st->rx_dropped + st->rx_ring_full;

	ktap_print_msg("generated %llu (%llu more dropped by veth at send), program saw %llu, redirected %llu, missed %llu; socket received %llu, dropped %llu (rx_dropped %llu, ring full %llu, fill empty %llu)\n",
		       (unsigned long long)r->g.sent, (unsigned long long)r->g.dropped,
		       (unsigned long long)ca[ZC_XSK_C_SEEN],
		       (unsigned long long)ca[ZC_XSK_C_REDIRECT],
		       (unsigned long long)ca[ZC_XSK_C_MISS], (unsigned long long)r->rx,
		       (unsigned long long)sock_drops, (unsigned long long)st->rx_dropped,
		       (unsigned long long)st->rx_ring_full,
		       (unsigned long long)st->rx_fill_ring_empty_descs);
	if (r->g.err)
		fail_why(r, "generator: %s", strerror(-r->g.err));
	if (!r->rx)
		fail_why(r, "no frame received");
	if (ca[ZC_XSK_C_SEEN] != r->g.sent)
		fail_why(r, "generated %llu frames, XDP program saw %llu",
			 (unsigned long long)r->g.sent,
			 (unsigned long long)ca[ZC_XSK_C_SEEN]);
	if (ca[ZC_XSK_C_MISS])
		fail_why(r, "%llu frames on a queue without the socket",
			 (unsigned long long)ca[ZC_XSK_C_MISS]);
	if (ca[ZC_XSK_C_REDIRECT] != r->rx + sock_drops)
		fail_why(r, "redirected %llu frames, socket received %llu and dropped %llu",
			 (unsigned long long)ca[ZC_XSK_C_REDIRECT],
			 (unsigned long long)r->rx, (unsigned long long)sock_drops);
	if (st->rx_invalid_descs)
		fail_why(r, "%llu invalid fill descriptors", (unsigned long long)st->rx_invalid_descs);
	return !r->why[0];
}

static bool account_tx(struct run *r, const uint64_t *cb, const struct xdp_statistics *st)
{
	ktap_print_msg("transmitted %llu, completed %llu, dropped by veth %llu, peer counted %llu (%llu bad)\n",
		       (unsigned long long)r->tx_sub, (unsigned long long)r->tx_done,
		       (unsigned long long)r->tx_busy, (unsigned long long)cb[ZC_XSK_C_COUNT],
		       (unsigned long long)cb[ZC_XSK_C_BAD]);
	if (!r->tx_done)
		fail_why(r, "no frame transmitted");
	if (r->tx_done != r->tx_sub)
		fail_why(r, "%llu frames never completed",
			 (unsigned long long)(r->tx_sub - r->tx_done));
	if (cb[ZC_XSK_C_COUNT] + r->tx_busy != r->tx_done)
		fail_why(r, "completed %llu frames, peer counted %llu and veth dropped %llu",
			 (unsigned long long)r->tx_done,
			 (unsigned long long)cb[ZC_XSK_C_COUNT],
			 (unsigned long long)r->tx_busy);
	if (cb[ZC_XSK_C_BAD])
		fail_why(r, "peer found %llu frames with a bad payload",
			 (unsigned long long)cb[ZC_XSK_C_BAD]);
	if (st->tx_invalid_descs)
		fail_why(r, "%llu invalid tx descriptors", (unsigned long long)st->tx_invalid_descs);
	return !r->why[0];
}

static bool account(struct run *r, const struct data_case *dc)
{
	uint64_t ca[ZC_XSK_C_NSLOTS], cb[ZC_XSK_C_NSLOTS];
	struct xdp_statistics st = { 0 };
	bool ok = true;

	if (r->err)
		fail_why(r, "data path: %s", strerror(-r->err));
	if (dc->k == K_XDPDROP) {
		cnt_settle(&r->a, ZC_XSK_C_COUNT, r->g.sent);
		cnt_read(&r->a, ca);
		ktap_print_msg("generated %llu (%llu more dropped by veth at send), XDP_DROP counted %llu (%llu bad)\n",
			       (unsigned long long)r->g.sent, (unsigned long long)r->g.dropped,
			       (unsigned long long)ca[ZC_XSK_C_COUNT],
			       (unsigned long long)ca[ZC_XSK_C_BAD]);
		if (ca[ZC_XSK_C_COUNT] != r->g.sent || !r->g.sent)
			fail_why(r, "generated %llu frames, XDP_DROP counted %llu",
				 (unsigned long long)r->g.sent,
				 (unsigned long long)ca[ZC_XSK_C_COUNT]);
		if (ca[ZC_XSK_C_BAD])
			fail_why(r, "%llu frames with a bad payload",
				 (unsigned long long)ca[ZC_XSK_C_BAD]);
		return !r->why[0];
	}
	zc_xsk_stats(&r->x, &st);
	if (dc->k != K_RXDROP)
		cnt_settle(&r->b, ZC_XSK_C_COUNT, r->tx_done - r->tx_busy);
	cnt_read(&r->a, ca);
	cnt_read(&r->b, cb);
	if (dc->k != K_TXONLY)
		ok = account_rx(r, ca, &st);
	if (dc->k != K_RXDROP)
		ok = account_tx(r, cb, &st) && ok;
	if (dc->k == K_L2FWD && r->rx != r->tx_sub)
		fail_why(r, "received %llu frames, forwarded %llu",
			 (unsigned long long)r->rx, (unsigned long long)r->tx_sub);
	if (r->bad)
		fail_why(r, "%llu bad frames received", (unsigned long long)r->bad);
	return ok && !r->why[0];
}

/*
 * The data cases' generator: live frames where side a runs native XDP (an
 * AF_PACKET sender, one frame per syscall, would be the limit there), else
 * AF_PACKET; the reason is printed when live frames cannot run.
 */
static int gen_open_data(struct run *r, const struct data_case *dc)
{
	char why[160];
	int err;

	/*
	 * A real pair keeps AF_PACKET: its window (PAIR_WINDOW) keeps the
	 * frames in flight below what the receiver has buffers for.
	 */
	if (r->d->topo.real_pair) {
		err = gen_open(&r->g, r->d, r->d->frame_len, r->verify);
		if (!err)
			r->g.acked = &r->rx;
		return err;
	}
	if (dc->at == AT_NATIVE &&
	    !gen_open_live(&r->g, r->d, r->d->frame_len, r->verify, why, sizeof(why)))
		return 0;
	if (dc->at == AT_NATIVE)
		ktap_print_msg("live-frame generator unavailable (%s): AF_PACKET instead\n", why);
	return gen_open(&r->g, r->d, r->d->frame_len, r->verify);
}

/* Socket bound, rings primed, generator running. */
static int data_start(struct run *r, const struct data_case *dc)
{
	const struct zc_opts *o = r->d->o;
	uint16_t flags = bm_flags[dc->bm] | XDP_USE_NEED_WAKEUP;
	int err;

	if (dc->k != K_XDPDROP && dc->k != K_TXONLY)
		zc_xsk_fill(&r->x, r->x.nframes);	/* before the bind: see case_bind() */
	if (dc->k != K_XDPDROP) {
		err = zc_xsk_bind_retry(&r->x, r->d->ifindex, r->d->queue, flags,
					BIND_RETRY_S, NULL);
		if (err) {
			snprintf(r->why, sizeof(r->why), "bind(flags 0x%x): %s", flags,
				 strerror(-err));
			return err;
		}
		err = run_bound(r, flags);
		if (err)
			return err;
	}
	if (dc->k == K_TXONLY) {
		tx_prebuild(r);
		return 0;
	}
	err = gen_open_data(r, dc);
	if (!err)
		err = gen_start(&r->g, WARMUP_S + o->repeat * o->duration + 2 * SETTLE_S);
	if (err)
		snprintf(r->why, sizeof(r->why), "generator: %s", strerror(-err));
	return err;
}

static void data_drain(struct run *r, const struct data_case *dc)
{
	gen_stop(&r->g);
	switch (dc->k) {
	case K_RXDROP:
		rx_drain(r, false);
		break;
	case K_L2FWD:
		rx_drain(r, true);
		break;
	case K_TXONLY:
		tx_drain(r);
		break;
	case K_XDPDROP:
		break;
	}
}

/*
 * The generator's own rate over its whole run (warm-up and drain
 * included): on a real pair, a generator that waited for the window was
 * not the bottleneck; one that never waited may have been.
 */
static void print_generator(const struct run *r, double secs)
{
	if (secs <= 0)
		return;
	ktap_print_msg("generator: %llu frames in %.2f s, %.4f Mpps, held back by the %d-frame window %llu times (%s)\n",
		       (unsigned long long)r->g.sent, secs, r->g.sent / secs / 1e6,
		       PAIR_WINDOW, (unsigned long long)r->g.waits,
		       !r->g.acked ? "no window: veth" :
		       r->g.waits ? "the receiver set the rate" :
		       "never held back: the generator may be the limit");
}

/* Median Mpps of each passed copy-mode case, for its zero-copy twin. */
static double copy_mpps[K_XDPDROP][AT_N];

static void report_side_by_side(const struct data_case *dc, const struct zc_rate *rate)
{
	char name[128];
	double cp;

	if (dc->k == K_XDPDROP)
		return;
	if (dc->bm == BM_COPY) {
		copy_mpps[dc->k][dc->at] = rate->mpps.median;
		return;
	}
	cp = copy_mpps[dc->k][dc->at];
	if (dc->bm != BM_ZEROCOPY || cp <= 0)
		return;
	ktap_print_msg("%s.%s: copy %.4f Mpps, zero-copy %.4f Mpps, zero-copy/copy %.2f\n",
		       kind_name[dc->k], at_name[dc->at], cp, rate->mpps.median,
		       rate->mpps.median / cp);
	snprintf(name, sizeof(name), "%s.%s.%s.zc_over_copy", TEST_NAME, kind_name[dc->k],
		 at_name[dc->at]);
	ktap_metric_value(name, rate->mpps.median / cp, "ratio");
}

static void case_data(const struct zc_case *c, void *ctx)
{
	const struct data_case *dc = c->arg;
	struct dut *d = ctx;
	const struct zc_opts *o = d->o;
	struct zc_meter_cfg mc = {
		.duration = o->duration, .warmup = WARMUP_S, .repeat = o->repeat,
	};
	char prefix[128], reason[224];
	struct zc_rate rate;
	struct run r;
	double t0;
	int err;

	if (!mode_selected(c, dc->at))
		return;
	if (!d->veth) {
		ktap_skip(c->name, "--iface: data cases run only on the test's own veth pair");
		return;
	}
	if (dc->bm == BM_ZEROCOPY && (!d->zc_capable || d->zc_refused)) {
		zc_lacks_reason(d, reason, sizeof(reason));
		ktap_skip(c->name, "%s", reason);
		return;
	}
	if (d->bpf_skip[0]) {
		ktap_skip(c->name, "needs XDP programs: %s", d->bpf_skip);
		return;
	}
	if (run_open(&r, d, dc->at, true, o->verify, 1024, dc->k == K_XDPDROP) ||
	    data_start(&r, dc)) {
		ktap_fail(c->name, "%s", r.why);
		run_close(&r);
		return;
	}
	t0 = zc_now();
	err = zc_measure(&mc, steps[dc->k], &r, &rate);
	data_drain(&r, dc);
	if (err && !r.err)
		r.err = err;
	print_config(&r, c, dc);
	if (dc->k != K_TXONLY)
		print_generator(&r, zc_now() - t0);
	if (account(&r, dc)) {
		snprintf(prefix, sizeof(prefix), "%s.%s", TEST_NAME, c->name);
		/* The socket's own word (XDP_OPTIONS) for every frame it moved. */
		if (dc->k != K_XDPDROP)
			ktap_zcmode(prefix, r.zc ? rate.pkts : 0, r.zc ? 0 : rate.pkts);
		zc_report_rate(prefix, &rate, true);
		/* The generator's own rate: is it above what it feeds? */
		if (dc->k != K_TXONLY) {
			snprintf(prefix, sizeof(prefix), "%s.gen.%s.pps", TEST_NAME,
				 c->name);
			ktap_metric_value(prefix, gen_mpps(&r.g), "Mpps");
		}
		if (d->topo.real_pair)
			report_side_by_side(dc, &rate);
		ktap_pass(c->name);
	} else {
		ktap_fail(c->name, "%s", r.why);
	}
	run_close(&r);
}

#define DATA(k, bm, at) { k, bm, at }
static const struct data_case data_cases[] = {
	DATA(K_RXDROP, BM_COPY, AT_SKB), DATA(K_RXDROP, BM_COPY, AT_NATIVE),
	DATA(K_RXDROP, BM_ZEROCOPY, AT_SKB), DATA(K_RXDROP, BM_ZEROCOPY, AT_NATIVE),
	DATA(K_TXONLY, BM_COPY, AT_SKB), DATA(K_TXONLY, BM_COPY, AT_NATIVE),
	DATA(K_TXONLY, BM_ZEROCOPY, AT_SKB), DATA(K_TXONLY, BM_ZEROCOPY, AT_NATIVE),
	DATA(K_L2FWD, BM_COPY, AT_SKB), DATA(K_L2FWD, BM_COPY, AT_NATIVE),
	DATA(K_L2FWD, BM_ZEROCOPY, AT_SKB), DATA(K_L2FWD, BM_ZEROCOPY, AT_NATIVE),
	DATA(K_XDPDROP, BM_NONE, AT_NATIVE),
};

/* Case table: names are built once from the tables above. */

#define NCASES	(1 + ZC_ARRAY_SIZE(cells) + 7 + ZC_ARRAY_SIZE(data_cases))

static char names[NCASES][48];
static struct zc_case cases[NCASES];

static size_t build_cases(void)
{
	static const struct {
		const char *name;
		zc_case_fn fn;
		const void *arg;
	} fixed[] = {
		{ "bind.copy_and_zerocopy", case_bind_err, &err_both },
		{ "bind.unknown_flag", case_bind_err, &err_unknown },
		{ "bind.queue_out_of_range", case_bind_err, &err_queue },
		{ "bind.no_ifindex", case_bind_err, &err_noif },
		{ "bind.gone_ifindex", case_bind_err, &err_goneif },
		{ "bind.second_socket_busy", case_busy, NULL },
		{ "bind.rebind_after_close", case_rebind, NULL },
	};
	size_t n = 0, i;

	cases[n++] = (struct zc_case){ "netdev.xdp_features", case_features, NULL };
	for (i = 0; i < ZC_ARRAY_SIZE(cells); i++, n++) {
		snprintf(names[n], sizeof(names[n]), "bind.%s.%s.%s",
			 bm_name[cells[i].bm], cells[i].wakeup ? "wakeup" : "nowakeup",
			 at_name[cells[i].at]);
		cases[n] = (struct zc_case){ names[n], case_bind, &cells[i] };
	}
	for (i = 0; i < ZC_ARRAY_SIZE(fixed); i++, n++)
		cases[n] = (struct zc_case){ fixed[i].name, fixed[i].fn, fixed[i].arg };
	for (i = 0; i < ZC_ARRAY_SIZE(data_cases); i++, n++) {
		const struct data_case *dc = &data_cases[i];

		if (dc->k == K_XDPDROP)
			snprintf(names[n], sizeof(names[n]), "%s.%s", kind_name[dc->k],
				 at_name[dc->at]);
		else
			snprintf(names[n], sizeof(names[n]), "%s.%s.%s", kind_name[dc->k],
				 bm_name[dc->bm], at_name[dc->at]);
		cases[n] = (struct zc_case){ names[n], case_data, dc };
	}
	return n;
}

/* Setup */

/*
 * The virtio device under a virtio_net netdev, from its ethtool bus-info:
 * the transport's name ("0000:00:03.0" for virtio_pci, the virtioN
 * device below it) or "virtioN" itself. Sysfs by bus works even after
 * the netdev moved to a namespace /sys/class/net does not show.
 */
static int virtio_dev(const char *bus, char *out, size_t len)
{
	char dir[96];
	struct dirent *e;
	DIR *dp;

	if (!strncmp(bus, "virtio", 6)) {
		snprintf(out, len, "%s", bus);
		return 0;
	}
	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", bus);
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while ((e = readdir(dp)))
		if (!strncmp(e->d_name, "virtio", 6))
			break;
	if (e)
		snprintf(out, len, "%.60s", e->d_name);
	closedir(dp);
	return e ? 0 : -ENOENT;
}

/* Feature bit `bit` of a virtio device ("virtio0"): 1, 0, or -errno. */
static int virtio_feature(const char *dev, int bit)
{
	char path[96], bits[256];
	FILE *f;
	int ret = -ENOENT;

	snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/features", dev);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	/* One '0'/'1' per feature bit, bit 0 first. */
	if (fgets(bits, sizeof(bits), f) && (size_t)bit < strlen(bits))
		ret = bits[bit] == '1';
	fclose(f);
	return ret;
}

/*
 * Known preconditions of a driver's zero-copy bind beyond the feature
 * bit: 0 when none is missing, else the errno the bind gives, with the
 * reason in d->refusal.
 */
static int zc_refusal(struct dut *d)
{
	char bus[32], dev[64];
	int ap, mrg, big = 0, b;

	if (strcmp(d->driver, "virtio_net") ||
	    zc_netdev_bus_info(d->ifindex, bus, sizeof(bus)) ||
	    virtio_dev(bus, dev, sizeof(dev)))
		return 0;
	/* virtnet_xsk_pool_enable(): the pool needs the virtqueue's DMA device. */
	ap = virtio_feature(dev, VIRTIO_BIT_ACCESS_PLATFORM);
	if (ap == 0) {
		snprintf(d->refusal, sizeof(d->refusal),
			 "virtio_net advertises XSK_ZEROCOPY, but %s lacks VIRTIO_F_ACCESS_PLATFORM (bit %d; qemu: iommu_platform=on): EINVAL",
			 dev, VIRTIO_BIT_ACCESS_PLATFORM);
		return -EINVAL;
	}
	/* Big-packets mode (GUEST_TSO/ECN/UFO without MRG_RXBUF): ENOENT. */
	mrg = virtio_feature(dev, VIRTIO_BIT_MRG_RXBUF);
	for (b = VIRTIO_BIT_GUEST_TSO4; b <= VIRTIO_BIT_GUEST_UFO; b++)
		big |= virtio_feature(dev, b) == 1;
	if (mrg == 0 && big) {
		snprintf(d->refusal, sizeof(d->refusal),
			 "virtio_net advertises XSK_ZEROCOPY, but %s is in big-packets mode (GUEST_TSO/UFO without MRG_RXBUF): ENOENT",
			 dev);
		return -ENOENT;
	}
	return 0;
}

static int query_dut(void *arg)
{
	struct dut *d = arg;
	unsigned int rxq, txq;

	if (zc_netdev_driver(d->ifindex, d->driver, sizeof(d->driver)))
		snprintf(d->driver, sizeof(d->driver), "%s", d->ifname);
	d->info_err = zc_netdev_get(d->ifindex, &d->info);
	d->zc_capable = !d->info_err &&
			(d->info.xdp_features & NETDEV_XDP_ACT_XSK_ZEROCOPY);
	if (d->zc_capable)
		d->zc_refused = zc_refusal(d);
	/* Past every queue in use; a driver without channel info gets the largest id. */
	d->bad_queue = 65535;
	if (!zc_netdev_queues(d->ifindex, &rxq, &txq))
		d->bad_queue = rxq > txq ? rxq : txq;
	return 0;
}

static int current_ns(void)
{
	int fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* 0, or a skip/fail reason in why (return 4 for skip, 1 for fail). */
static int dut_setup(struct dut *d, const struct zc_opts *o, char *why, size_t len)
{
	struct zc_why w;
	int fd, ret;

	memset(d, 0, sizeof(*d));
	d->o = o;
	d->nsfd = -1;
	d->topo.a.nsfd = d->topo.b.nsfd = -1;
	d->queue = cli.queue;
	d->frame_len = o->size;
	if (cli.iface) {
		d->nsfd = current_ns();
		d->ifindex = if_nametoindex(cli.iface);
		snprintf(d->ifname, sizeof(d->ifname), "%s", cli.iface);
		if (d->nsfd < 0 || !d->ifindex) {
			snprintf(why, len, "--iface %s: no such device", cli.iface);
			return KSFT_FAIL;
		}
	} else {
		ret = zc_topo_setup(&d->topo, MTU, &w);
		if (ret) {
			snprintf(why, len, "%s", w.msg);
			return ret == -EOPNOTSUPP ? KSFT_SKIP : KSFT_FAIL;
		}
		d->veth = true;
		d->nsfd = d->topo.a.nsfd;
		d->ifindex = d->topo.a.ifindex;
		snprintf(d->ifname, sizeof(d->ifname), "%s", d->topo.a.ifname);
	}
	fd = zc_socket_in(d->nsfd, AF_XDP, SOCK_RAW, 0);
	if (fd < 0) {
		snprintf(why, len, fd == -EAFNOSUPPORT ? "CONFIG_XDP_SOCKETS not set" :
			 "AF_XDP socket: %s", strerror(-fd));
		return fd == -EAFNOSUPPORT ? KSFT_SKIP : KSFT_FAIL;
	}
	close(fd);
	zc_netns_run(d->nsfd, query_dut, d);
	if (d->queue >= d->bad_queue) {
		snprintf(why, len, "--queue %u: %s has queues 0..%u", d->queue,
			 d->ifname, d->bad_queue - 1);
		return KSFT_FAIL;
	}
	return 0;
}

static void dut_teardown(struct dut *d)
{
	if (d->veth)
		zc_topo_teardown(&d->topo);
	else if (d->nsfd >= 0)
		close(d->nsfd);
}

static int probe(struct zc_why *why)
{
	static const cap_value_t caps[] = { CAP_NET_ADMIN, CAP_NET_RAW };
	static const char *const cfg[] = {
		"CONFIG_XDP_SOCKETS", "CONFIG_BPF_SYSCALL", "CONFIG_VETH", "CONFIG_NET_NS",
	};

	if (zc_require_caps(why, caps, ZC_ARRAY_SIZE(caps)) ||
	    zc_require_bpf_caps(why))
		return -1;
	return zc_require_config(why, cfg, cli.iface ? 2 : ZC_ARRAY_SIZE(cfg));
}

int main(int argc, char **argv)
{
	size_t n = build_cases();
	struct zc_opts o;
	struct zc_why w = { "" };
	struct dut d;
	char why[512];
	int ret;

	zc_opts_parse_or_exit(&o, argc, argv, &desc, NULL);
	if (o.list) {
		zc_list_cases(cases, n, &o);
		return KSFT_PASS;
	}
	if (o.size < ZC_XSK_MIN_FRAME) {
		fprintf(stderr, "%s: --size wants a frame of at least %d bytes (headers), got %ld\n",
			TEST_NAME, ZC_XSK_MIN_FRAME, o.size);
		return KSFT_FAIL;
	}
	if (probe(&w))
		return zc_skip_cases(cases, n, &o, "%s", w.msg);
	zc_raise_limits();
	ret = dut_setup(&d, &o, why, sizeof(why));
	if (ret == KSFT_SKIP)
		return zc_skip_cases(cases, n, &o, "%s", why);
	if (ret) {
		fprintf(stderr, "%s: %s\n", TEST_NAME, why);
		return KSFT_FAIL;
	}
	if (zc_probe_bpf(&w) && snprintf(d.bpf_skip, sizeof(d.bpf_skip), "%s", w.msg))
		ktap_print_msg("no BPF: binds without a program and device checks only (%s)",
			       d.bpf_skip);
	zc_pin_cpu(o.cpu_rx);
	ret = zc_run_cases(cases, n, &o, &d);
	dut_teardown(&d);
	return ret;
}
