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
 * missing (lib/xsk/xsk_dut.c); a no-flag bind tries zero-copy and falls back
 * to copy on any refusal (xp_assign_dev), so it must say zero-copy
 * exactly where XDP_ZEROCOPY would succeed.
 *
 * Here: every bind(2) with its sockaddr_xdp and the errno it must give,
 * XDP_OPTIONS read after it, and each outcome checked. The machinery the
 * reader need not see is in lib/xsk/: xsk (socket, UMEM and the four rings
 * mmap'ed), xsk_dut (the device and what it says about zero-copy),
 * xsk_prog (the XDP programs and their counters), xsk_gen (the
 * generators), xsk_run (one socket's traffic and data paths), xsk_account.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/if_xdp.h>

#include "core/runner.h"
#include "core/meter.h"
#include "core/probe.h"
#include "core/util.h"
#include "core/matrix.h"
#include "net/netns.h"
#include "xsk/xsk_account.h"
#include "xsk/xsk_peer.h"
#include "send/sink.h"
#include "xsk/xsk_run.h"

#define TEST_NAME	"xsk_bind"
#define FRAME_DEFAULT	64	/* xdpsock's default packet size */
#define BIND_RETRY_S	1.0	/* a closed socket's queue stays busy ~16 ms */

#define AT_SKB		ZC_XSK_AT_SKB
#define AT_NATIVE	ZC_XSK_AT_NATIVE

struct xsk_ctx {
	struct zc_opts o;
	const char *iface;	/* --iface: bind cases on this device only */
	long queue;
	unsigned int modes;	/* --mode: bit per enum zc_xsk_attach */
	const char *mode_arg;
	struct zc_xsk_dut d;
	struct zc_why bpf_skip;	/* "" when XDP programs load */
	const char *peer_exec;	/* --peer-exec CMD */
	long peer_path;		/* --peer-path: enum zc_xsk_path */
	bool xdpsock_rx;	/* --rx-loop xdpsock */
	/* Real pair: the median Mpps of each passed copy case, for its zero-copy twin. */
	double copy_mpps[ZC_XSK_PATH_N][ZC_XSK_AT_N];
};

/* What a bind asks for, and so what XDP_OPTIONS must say after it. */
enum want_zc {
	WANT_COPY,		/* copy, on every device */
	WANT_ZC,		/* zero-copy, or refused where not expected */
	WANT_ZC_IF_OFFERED,	/* zero-copy exactly where XDP_ZEROCOPY binds */
};

/*
 * A row: a bind (mode x need_wakeup x attach), a bind error, or a data
 * path (a mode x attach, or XDP_DROP without a socket).
 */
struct row {
	ZC_ROW_HOOKS(struct row, struct xsk_ctx);
	int mode;		/* bind_modes[] */
	int wakeup;		/* wakeups[] */
	enum zc_xsk_attach at;
	int error;		/* bind_errors[] */
	enum zc_xsk_path path;
};

ZC_MATRIX_TYPE(row, struct row, struct xsk_ctx)

typedef void case_body(const struct zc_case *c, const struct row *row,
		       struct xsk_ctx *ctx);
typedef enum zc_pre case_pre(const struct zc_case *c, const struct row *row,
			     struct xsk_ctx *ctx, struct zc_why *why);
static case_body case_features, case_bind, case_bind_err, case_busy,
	case_rebind, case_data;
static case_pre pre_features, pre_bind, pre_data;

/* ---- the cases: rows from their axes, names from the rows ---- */

/*
 * The modes a socket binds in: the bind matrix's name part (name), the
 * data paths' (mode), sxdp_flags and the expectation.
 */
static const struct bind_mode {
	const char *name;
	const char *mode;
	__u16 flags;
	enum want_zc want;
} bind_modes[] = {
	{ "bind.copy", "copy", XDP_COPY, WANT_COPY },
	{ "bind.zerocopy", "zerocopy", XDP_ZEROCOPY, WANT_ZC },
	/* no flag: xp_assign_dev tries zero-copy, falls back to copy on any refusal */
	{ "bind.none", "none", 0, WANT_ZC_IF_OFFERED },
};

/* need_wakeup or not, a bind's name part and the sxdp_flags bit. */
static const struct wakeup {
	const char *name;
	__u16 flag;
} wakeups[] = {
	{ "wakeup", XDP_USE_NEED_WAKEUP },
	{ "nowakeup", 0 },
};

/*
 * What the witnesses must see, per (bound zero-copy as XDP_OPTIONS says,
 * skb-mode program), for a bind's burst and a data path alike. A generic
 * program hands the socket an skb's data: xsk_generic_rcv copies it into
 * the UMEM whatever the bind (documented behaviour, net/xdp/xsk.c), while
 * the socket's transmit is the driver's zero-copy one.
 */
static const struct zc_xsk_expect expect[2][2] = {
	[0][0] = { ZC_XSK_WANT_COPY, ZC_XSK_WANT_COPY, "copy bind: every frame copied" },
	[0][1] = { ZC_XSK_WANT_COPY, ZC_XSK_WANT_COPY, "copy bind: every frame copied" },
	[1][0] = { ZC_XSK_WANT_ZC, ZC_XSK_WANT_ZC,
		   "native zero-copy bind: every frame in the socket's pool, tx by the driver" },
	[1][1] = { ZC_XSK_WANT_COPY, ZC_XSK_WANT_ZC,
		   "zero-copy bind with an skb-mode program: rx copied by xsk_generic_rcv whatever the bind, tx zero-copy by the driver" },
};

static const struct row_matrix features = {
	.name = "netdev.xdp_features",
	.base = &(const struct row){ .zc = { case_features, pre_features } },
};

/* The bind matrix: every flag, with and without need_wakeup, per attach mode. */
static const struct row_matrix binds = {
	.base = &(const struct row){ .zc = { case_bind, pre_bind } },
	.axes = {
		ZC_AXIS_TABLE_LOOP(2, struct row, mode, bind_modes, name),
		ZC_AXIS_TABLE_LOOP(3, struct row, wakeup, wakeups, name),
		ZC_AXIS_LOOP(1, struct row, at, zc_xsk_at_names, AT_SKB, AT_NATIVE),
	},
};

/* The device a bind error's sockaddr_xdp names. */
enum bind_dev {
	DEV_UNDER_TEST,
	DEV_NONE,		/* sxdp_ifindex 0 */
	DEV_GONE,		/* an ifindex no device has */
};

/*
 * Bind errors, one entry each: the bind tried and the errno it must give
 * (case_bind_err), or a case of its own. No XDP program needed.
 */
static const struct bind_error {
	const char *name;
	case_body *fn;
	uint16_t flags;
	enum bind_dev dev;
	bool bad_queue;
	int want;		/* bind(2)'s errno */
} bind_errors[] = {
	{ "bind.copy_and_zerocopy", case_bind_err, XDP_COPY | XDP_ZEROCOPY, .want = EINVAL },
	{ "bind.unknown_flag", case_bind_err, ZC_XDP_UNKNOWN_FLAG, .want = EINVAL },
	{ "bind.queue_out_of_range", case_bind_err, XDP_COPY, .bad_queue = true,
	  .want = EINVAL },
	{ "bind.no_ifindex", case_bind_err, XDP_COPY, .dev = DEV_NONE, .want = ENODEV },
	{ "bind.gone_ifindex", case_bind_err, XDP_COPY, .dev = DEV_GONE, .want = ENODEV },
	{ "bind.second_socket_busy", case_busy },
	{ "bind.rebind_after_close", case_rebind },
};

static void case_bind_error(const struct zc_case *c, const struct row *row,
			    struct xsk_ctx *ctx)
{
	bind_errors[row->error].fn(c, row, ctx);
}

static const struct row_matrix bind_error_cases = {
	.base = &(const struct row){ .zc = { case_bind_error } },
	.axes = {
		ZC_AXIS_TABLE(struct row, error, bind_errors, name),
	},
};

static const char *data_rule(const struct row *row)
{
	if (bind_modes[row->mode].want == WANT_ZC_IF_OFFERED)
		return "a data path binds copy or zerocopy; no flag is the bind matrix's";
	return NULL;
}

/* Data paths with rates, per bound mode, */
static const struct row_matrix data = {
	.base = &(const struct row){ .zc = { case_data, pre_data } },
	.axes = {
		ZC_AXIS(struct row, path, zc_xsk_run_path_names, ZC_XSK_RXDROP, ZC_XSK_TXONLY,
			ZC_XSK_L2FWD),
		ZC_AXIS_TABLE(struct row, mode, bind_modes, mode),
		ZC_AXIS(struct row, at, zc_xsk_at_names, AT_SKB, AT_NATIVE),
	},
	.rule = data_rule,
};

/* and native XDP_DROP for reference: no socket, the driver's path only. */
static const struct row_matrix xdpdrop = {
	.name = "xdpdrop.native",
	.base = &(const struct row){ .zc = { case_data, pre_data },
				     .path = ZC_XSK_XDPDROP, .at = AT_NATIVE },
};

/* ---- the socket: UMEM, four rings, bind(2), what XDP_OPTIONS says ---- */

#define XSK_FRAME_SIZE	2048	/* a frame per page half: the UMEM chunk */
#define XSK_RING_SIZE	512	/* rx and tx; fill and completion hold every frame */

static int set_ring_size(int fd, int opt, uint32_t size)
{
	return setsockopt(fd, SOL_XDP, opt, &size, sizeof(size)) ? -errno : 0;
}

/*
 * Map one ring at the offsets the kernel gave. Producer rings (fill, tx)
 * start with every slot free, consumer rings (rx, completion) empty.
 */
static int map_ring(int fd, struct zc_xsk_ring *ring, const struct xdp_ring_offset *off,
		    uint32_t size, size_t desc_size, off_t pgoff, bool producer)
{
	size_t len = off->desc + (size_t)size * desc_size;
	char *m;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, pgoff);
	if (m == MAP_FAILED)
		return -errno;
	ring->map = m;
	ring->map_len = len;
	ring->producer = (uint32_t *)(m + off->producer);
	ring->consumer = (uint32_t *)(m + off->consumer);
	ring->flags = (uint32_t *)(m + off->flags);
	ring->descs = m + off->desc;
	ring->size = size;
	ring->mask = size - 1;
	ring->cached_prod = *ring->producer;
	ring->cached_cons = *ring->consumer + (producer ? size : 0);
	return 0;
}

static void unmap_ring(struct zc_xsk_ring *ring)
{
	if (ring->map)
		munmap(ring->map, ring->map_len);
	memset(ring, 0, sizeof(*ring));
}

/* The UMEM registered, the four rings sized and mapped. */
static int xsk_setup(struct zc_xsk *xsk)
{
	struct xdp_umem_reg reg = {
		.addr = (uintptr_t)xsk->umem,
		.len = xsk->umem_len,
		.chunk_size = xsk->frame_size,
	};
	struct xdp_mmap_offsets off;
	socklen_t optlen = sizeof(off);
	int fd = xsk->fd, err;

	if (setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)))
		return -errno;
	err = set_ring_size(fd, XDP_UMEM_FILL_RING, xsk->nframes);
	if (!err)
		err = set_ring_size(fd, XDP_UMEM_COMPLETION_RING, xsk->nframes);
	if (!err)
		err = set_ring_size(fd, XDP_RX_RING, XSK_RING_SIZE);
	if (!err)
		err = set_ring_size(fd, XDP_TX_RING, XSK_RING_SIZE);
	if (err)
		return err;
	if (getsockopt(fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &optlen))
		return -errno;
	err = map_ring(fd, &xsk->fq, &off.fr, xsk->nframes, sizeof(__u64),
		       XDP_UMEM_PGOFF_FILL_RING, true);
	if (!err)
		err = map_ring(fd, &xsk->cq, &off.cr, xsk->nframes, sizeof(__u64),
			       XDP_UMEM_PGOFF_COMPLETION_RING, false);
	if (!err)
		err = map_ring(fd, &xsk->rx, &off.rx, XSK_RING_SIZE, sizeof(struct xdp_desc),
			       XDP_PGOFF_RX_RING, false);
	if (!err)
		err = map_ring(fd, &xsk->tx, &off.tx, XSK_RING_SIZE, sizeof(struct xdp_desc),
			       XDP_PGOFF_TX_RING, true);
	return err;
}

static void xsk_close(struct zc_xsk *xsk)
{
	unmap_ring(&xsk->fq);
	unmap_ring(&xsk->cq);
	unmap_ring(&xsk->rx);
	unmap_ring(&xsk->tx);
	if (xsk->fd >= 0)
		close(xsk->fd);
	xsk->fd = -1;
	if (xsk->umem)
		munmap(xsk->umem, xsk->umem_len);
	xsk->umem = NULL;
	free(xsk->free_addr);
	xsk->free_addr = NULL;
	xsk->nfree = 0;
}

/*
 * An AF_XDP socket in the device's namespace with a UMEM of nframes
 * (a power of two) and its rings, every frame free: 0 or -errno, nothing
 * left open on failure.
 */
static int xsk_open(const struct zc_xsk_dut *d, struct zc_xsk *xsk, uint32_t nframes)
{
	uint32_t i;
	int err;

	memset(xsk, 0, sizeof(*xsk));
	xsk->frame_size = XSK_FRAME_SIZE;
	xsk->nframes = nframes;
	xsk->fd = zc_socket_in(d->nsfd, AF_XDP, SOCK_RAW, 0);
	if (xsk->fd < 0)
		return xsk->fd;
	xsk->umem_len = (size_t)xsk->frame_size * nframes;
	xsk->umem = mmap(NULL, xsk->umem_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	xsk->free_addr = calloc(nframes, sizeof(*xsk->free_addr));
	if (xsk->umem == MAP_FAILED) {
		err = -errno;
		xsk->umem = NULL;
	} else {
		err = xsk->free_addr ? xsk_setup(xsk) : -ENOMEM;
	}
	if (err) {
		xsk_close(xsk);
		return err;
	}
	for (i = 0; i < nframes; i++)
		xsk->free_addr[i] = (__u64)(nframes - 1 - i) * xsk->frame_size;
	xsk->nfree = nframes;
	return 0;
}

/*
 * Frames a closed socket left uncompleted: each holds the socket, and
 * the socket its queue, until the device gives them back.
 */
static unsigned long long left_in_flight;

/* The run's programs and generator, and the socket the test made. */
static void run_close(struct zc_xsk_run *r)
{
	if (r->x.fd >= 0 && r->tx_sub != r->tx_done)
		left_in_flight = r->tx_sub - r->tx_done;
	xsk_close(&r->x);
	zc_xsk_run_close(r);
}

/*
 * A bind refused EBUSY while an earlier case's socket still holds the
 * queue is no verdict on this one: true with the why rewritten.
 */
static bool queue_held(struct zc_xsk_run *r, int err)
{
	if (err != -EBUSY || !left_in_flight)
		return false;
	zc_why_set(&r->why, "bind: queue %u of %s still held by an earlier case's socket (closed with %llu frames never completed)",
		   r->d->queue, r->d->topo.a.ifname, left_in_flight);
	return true;
}

/* The run's socket: 0, or -errno with r->why. */
static int run_socket(struct zc_xsk_run *r, uint32_t nframes)
{
	int err = xsk_open(r->d, &r->x, nframes);

	if (err)
		zc_why_set(&r->why, "AF_XDP socket and UMEM: %s", strerror(-err));
	return err;
}

/* bind(2) with exactly these sxdp_flags: 0 or -errno. */
static int xsk_bind(struct zc_xsk *xsk, int ifindex, uint32_t queue, uint16_t flags)
{
	struct sockaddr_xdp sxdp = {
		.sxdp_family = AF_XDP,
		.sxdp_flags = flags,
		.sxdp_ifindex = ifindex,
		.sxdp_queue_id = queue,
	};

	if (bind(xsk->fd, (struct sockaddr *)&sxdp, sizeof(sxdp)))
		return -errno;
	xsk->ifindex = ifindex;
	xsk->queue = queue;
	xsk->bind_flags = flags;
	return 0;
}

/*
 * bind, retrying EBUSY: a queue stays busy ~16 ms after the last socket
 * on it closed (the previous case's). *tries counts the attempts.
 */
static int xsk_bind_retry(struct zc_xsk *xsk, int ifindex, uint32_t queue,
			  uint16_t flags, int *tries)
{
	double deadline = zc_now() + BIND_RETRY_S;
	int err, n = 0;

	do {
		n++;
		err = xsk_bind(xsk, ifindex, queue, flags);
	} while (err == -EBUSY && zc_now() < deadline && !usleep(1000));
	if (tries)
		*tries = n;
	return err;
}

/* XDP_OPTIONS: 1 bound zero-copy, 0 copy, or -errno. */
static int xsk_zerocopy(const struct zc_xsk *xsk)
{
	struct xdp_options opts = { 0 };
	socklen_t optlen = sizeof(opts);

	if (getsockopt(xsk->fd, SOL_XDP, XDP_OPTIONS, &opts, &optlen))
		return -errno;
	return !!(opts.flags & XDP_OPTIONS_ZEROCOPY);
}

/* Bound: what XDP_OPTIONS says, and the run follows the socket. */
static int run_bound(struct zc_xsk_run *r)
{
	int zc = xsk_zerocopy(&r->x);

	if (zc < 0)
		return zc_why_set(&r->why, "getsockopt(XDP_OPTIONS): %s", strerror(-zc));
	return zc_xsk_run_bound(r, zc);
}

/* Preconditions: what only the device and the options know */

static bool mode_skipped(const struct xsk_ctx *ctx, enum zc_xsk_attach at, struct zc_why *why)
{
	if (ctx->modes & (1 << at))
		return false;
	zc_why_skip(why, ZC_CLASS_HARNESS, "--mode %s", ctx->mode_arg);
	return true;
}

static enum zc_pre pre_features(const struct zc_case *c, const struct row *row,
				struct xsk_ctx *ctx, struct zc_why *why)
{
	if (ctx->d.info_err != -ENOENT)
		return ZC_RUN;
	zc_why_skip(why, ZC_CLASS_KERNEL, "kernel lacks the netdev generic netlink family (6.3)");
	return ZC_SKIP;
}

static enum zc_pre pre_bind(const struct zc_case *c, const struct row *row,
				struct xsk_ctx *ctx, struct zc_why *why)
{
	if (mode_skipped(ctx, row->at, why))
		return ZC_SKIP;
	if (!ctx->bpf_skip.msg[0])
		return ZC_RUN;
	zc_why_skip(why, ctx->bpf_skip.cls, "needs an XDP program: %s", ctx->bpf_skip.msg);
	return ZC_SKIP;
}

static enum zc_pre pre_data(const struct zc_case *c, const struct row *row,
				struct xsk_ctx *ctx, struct zc_why *why)
{
	if (mode_skipped(ctx, row->at, why))
		return ZC_SKIP;
	if (!ctx->d.veth) {
		zc_why_skip(why, ZC_CLASS_HARNESS,
			    "--iface: data cases run only on the test's own veth pair");
		return ZC_SKIP;
	}
	if (row->path != ZC_XSK_XDPDROP && bind_modes[row->mode].want == WANT_ZC &&
	    !zc_xsk_dut_zc_ok(&ctx->d)) {
		zc_xsk_dut_zc_lacks(&ctx->d, why);
		return ZC_SKIP;
	}
	if (!ctx->bpf_skip.msg[0])
		return ZC_RUN;
	zc_why_skip(why, ctx->bpf_skip.cls, "needs XDP programs: %s", ctx->bpf_skip.msg);
	return ZC_SKIP;
}

/* Case: what the device advertises */

static void case_features(const struct zc_case *c, const struct row *row,
			struct xsk_ctx *ctx)
{
	const struct zc_xsk_dut *d = &ctx->d;
	char feat[160];

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

/* What a bind's outcome means for the case. */
enum bind_outcome {
	BIND_WRONG = -1,	/* not what the device's features say: FAIL, r->why */
	BIND_AS_EXPECTED = 0,	/* bound as expected: traffic follows */
	BIND_ZC_ANYWAY,		/* bound zero-copy although refusal was expected */
	BIND_REFUSED,		/* XDP_ZEROCOPY refused as the probe expects: SKIP, r->why */
};

/*
 * XDP_ZEROCOPY where zero-copy is not expected: the refusal is what is
 * checked. Bound with features unknown is news, not a bug
 * (BIND_AS_EXPECTED); bound although a known precondition is missing goes
 * on to be checked as zero-copy (BIND_ZC_ANYWAY).
 */
static enum bind_outcome check_refusal(struct zc_xsk_run *r, int ret)
{
	const struct zc_xsk_dut *d = r->d;
	struct zc_why lacks;

	if (d->zc_capable) {
		/* Advertised, refused for a reason the probe knows: not tested. */
		if (ret == d->zc_refused) {
			r->why = d->refusal;
			return BIND_REFUSED;
		}
		if (ret) {
			zc_why_set(&r->why, "%s; bind gave %s", d->refusal.msg,
				   strerror(-ret));
			return BIND_WRONG;
		}
		/* It bound after all: the kernel learned better. */
		ktap_print_msg("bound zero-copy although: %s\n", d->refusal.msg);
		return BIND_ZC_ANYWAY;
	}
	zc_xsk_dut_zc_lacks(d, &lacks);
	if (ret == -EOPNOTSUPP) {
		zc_why_set(&r->why, "%s (XDP_ZEROCOPY: EOPNOTSUPP, as it must)", lacks.msg);
		return BIND_REFUSED;
	}
	if (!ret && d->info_err)
		return BIND_AS_EXPECTED;
	zc_why_set(&r->why, "%s, bind gave %s, expected EOPNOTSUPP", lacks.msg,
		   ret ? strerror(-ret) : "success");
	return BIND_WRONG;
}

/* The bind's outcome (never BIND_ZC_ANYWAY: that is checked as zero-copy here). */
static enum bind_outcome check_bind(struct zc_xsk_run *r, const struct row *row,
				    uint16_t flags, int ret, int tries)
{
	const struct zc_xsk_dut *d = r->d;
	enum want_zc want = bind_modes[row->mode].want;
	bool want_zc = want == WANT_ZC ||
		       (want == WANT_ZC_IF_OFFERED && zc_xsk_dut_zc_ok(d));
	enum bind_outcome refused;

	if (want == WANT_ZC && !zc_xsk_dut_zc_ok(d)) {
		refused = check_refusal(r, ret);
		if (refused != BIND_ZC_ANYWAY)
			return refused;
	}
	if (want == WANT_ZC_IF_OFFERED && d->zc_refused)
		ktap_print_msg("no flag: zero-copy refused (%s), copy expected by the fallback rule\n",
			       strerror(-d->zc_refused));
	if (ret) {
		zc_why_set(&r->why, "bind(flags 0x%x): %s after %d tries",
			   flags, strerror(-ret), tries);
		return BIND_WRONG;
	}
	if (run_bound(r))
		return BIND_WRONG;
	if (!ZC_CHECK(&r->why, r->zc == want_zc, "XDP_OPTIONS says %s, expected %s",
		      r->zc ? "zero-copy" : "copy", want_zc ? "zero-copy" : "copy"))
		return BIND_WRONG;
	return BIND_AS_EXPECTED;
}

/*
 * The witnesses' counts for the frames of its burst, the socket's word
 * (XDP_OPTIONS) beside them: true when they agree with the row's
 * expectation, else false with r->why naming both.
 */
static bool bind_zcmode(const struct zc_case *c, const struct row *row,
			struct zc_xsk_run *r)
{
	struct zc_xsk_seen seen;
	char prefix[128];

	snprintf(prefix, sizeof(prefix), "%s.%s", TEST_NAME, c->name);
	zc_xsk_run_seen(r, &seen);
	return zc_xsk_wit_judge(prefix, &seen, true, true, r->zc,
				&expect[r->zc][row->at == AT_SKB], &r->why);
}

/* Bound: on --iface that is all, else a burst each way proves the socket moves frames. */
static void bind_traffic(const struct zc_case *c, const struct row *row,
			 struct xsk_ctx *ctx, struct zc_xsk_run *r, int tries)
{
	if (!ctx->d.veth) {
		ktap_print_msg("bound %s, no traffic on --iface\n", r->zc ? "zero-copy" : "copy");
		ktap_pass(c->name);
		return;
	}
	if (zc_xsk_run_burst(r)) {
		ktap_fail_why(c->name, &r->why);
		return;
	}
	if (!ctx->o.quiet)
		ktap_print_msg("bound %s in %d tries; %d frames each way, tx kicks dropped %llu, ring flags fq 0x%x tx 0x%x\n",
			       r->zc ? "zero-copy" : "copy", tries, ZC_XSK_BURST,
			       (unsigned long long)r->tx_busy, *r->x.fq.flags,
			       *r->x.tx.flags);
	if (bind_zcmode(c, row, r))
		ktap_pass(c->name);
	else
		ktap_fail_unexpected_why(c->name, &r->why);
}

static void case_bind(const struct zc_case *c, const struct row *row,
			struct xsk_ctx *ctx)
{
	struct zc_xsk_dut *d = &ctx->d;
	uint16_t flags = bind_modes[row->mode].flags | wakeups[row->wakeup].flag;
	/*
	 * On a real device a zero-copy driver keeps a ring's worth of fill
	 * buffers posted (virtio_net: 256), and in skb mode the generic path
	 * needs more to copy into: give it a UMEM beyond the ring.
	 */
	uint32_t nframes = d->topo.real_pair ? 1024 : 256;
	const struct zc_xsk_run_cfg cfg = {
		.at = row->at, .need_peer = d->veth, .verify = true,
	};
	struct zc_xsk_run r;
	int ret, tries = 0;

	if (zc_xsk_run_open(&r, d, &cfg) || run_socket(&r, nframes)) {
		/* A device named by --iface may have no native XDP at all. */
		if (row->at == AT_NATIVE && !d->veth && strstr(r.why.msg, "attach"))
			ktap_seen(c->name, KTAP_FACT_ENV, &r.why);
		else
			ktap_fail_why(c->name, &r.why);
		run_close(&r);
		return;
	}
	/*
	 * Fill before the bind: a zero-copy driver posts its rx buffers from
	 * the fill ring when the pool arrives, and virtio_net without
	 * need_wakeup has no later moment to take them.
	 */
	zc_xsk_fill(&r.x, r.x.nframes / 2);
	ret = xsk_bind_retry(&r.x, d->ifindex, d->queue, flags, &tries);
	if (queue_held(&r, ret)) {
		ktap_seen(c->name, KTAP_FACT_HARNESS, &r.why);
		run_close(&r);
		return;
	}
	if (!ret)
		left_in_flight = 0;
	switch (check_bind(&r, row, flags, ret, tries)) {
	case BIND_REFUSED:
		/* the device's features, as the probe read them */
		ktap_seen(c->name, KTAP_FACT_ENV, &r.why);
		break;
	case BIND_WRONG:
		ktap_fail_why(c->name, &r.why);
		break;
	default:
		bind_traffic(c, row, ctx, &r, tries);
	}
	run_close(&r);
}

/* Cases: bind errors */

static void case_bind_err(const struct zc_case *c, const struct row *row,
			  struct xsk_ctx *ctx)
{
	const struct bind_error *e = &bind_errors[row->error];
	const struct zc_xsk_dut *d = &ctx->d;
	int ifindex = e->dev == DEV_NONE ? 0 : e->dev == DEV_GONE ? INT_MAX : d->ifindex;
	uint32_t queue = e->bad_queue ? d->bad_queue : d->queue;
	struct zc_xsk xsk;
	int ret;

	ret = xsk_open(d, &xsk, 256);
	if (ret) {
		ktap_fail(c->name, "AF_XDP socket and UMEM: %s", strerror(-ret));
		return;
	}
	/* Retry EBUSY: the queue may still be held by the previous case's socket. */
	ret = xsk_bind_retry(&xsk, ifindex, queue, e->flags, NULL);
	ktap_result(c->name, ret == -e->want,
		    "bind(ifindex %d, queue %u, flags 0x%x) gave %s, expected %s",
		    ifindex, queue, e->flags, ret ? strerror(-ret) : "success",
		    strerror(e->want));
	xsk_close(&xsk);
}

static void case_busy(const struct zc_case *c, const struct row *row,
		      struct xsk_ctx *ctx)
{
	const struct zc_xsk_dut *d = &ctx->d;
	struct zc_xsk xsk1, xsk2;
	int ret;

	ret = xsk_open(d, &xsk1, 256);
	if (!ret) {
		ret = xsk_open(d, &xsk2, 256);
		if (ret)
			xsk_close(&xsk1);
	}
	if (ret) {
		ktap_fail(c->name, "AF_XDP socket and UMEM: %s", strerror(-ret));
		return;
	}
	ret = xsk_bind_retry(&xsk1, d->ifindex, d->queue, XDP_COPY, NULL);
	if (ret) {
		ktap_fail(c->name, "first bind: %s", strerror(-ret));
	} else {
		/* One socket per queue: the second is refused at once, not retried. */
		ret = xsk_bind(&xsk2, d->ifindex, d->queue, XDP_COPY);
		ktap_result(c->name, ret == -EBUSY,
			    "second socket on queue %u gave %s, expected EBUSY",
			    d->queue, ret ? strerror(-ret) : "success");
	}
	xsk_close(&xsk2);
	xsk_close(&xsk1);
}

static void case_rebind(const struct zc_case *c, const struct row *row,
			struct xsk_ctx *ctx)
{
	const struct zc_xsk_dut *d = &ctx->d;
	struct zc_xsk xsk;
	double t0;
	int ret, tries = 0;

	ret = xsk_open(d, &xsk, 256);
	if (!ret)
		ret = xsk_bind_retry(&xsk, d->ifindex, d->queue, XDP_COPY, NULL);
	xsk_close(&xsk);
	if (ret) {
		ktap_fail(c->name, "first bind: %s", strerror(-ret));
		return;
	}
	t0 = zc_now();
	ret = xsk_open(d, &xsk, 256);
	if (ret) {
		ktap_fail(c->name, "AF_XDP socket and UMEM: %s", strerror(-ret));
		return;
	}
	ret = xsk_bind_retry(&xsk, d->ifindex, d->queue, XDP_COPY, &tries);
	if (!ret)
		ktap_print_msg("queue %u free again %.1f ms after close (%d bind attempts)\n",
			       d->queue, (zc_now() - t0) * 1e3, tries);
	ktap_result(c->name, !ret, "rebind after close: %s after %d tries in %.0f ms",
		    strerror(-ret), tries, (zc_now() - t0) * 1e3);
	xsk_close(&xsk);
}

/* Cases: data paths with rates */

/* Which directions of a path move the socket's frames. */
static bool path_rx(enum zc_xsk_path p)
{
	return p == ZC_XSK_RXDROP || p == ZC_XSK_L2FWD;
}

static bool path_tx(enum zc_xsk_path p)
{
	return p == ZC_XSK_TXONLY || p == ZC_XSK_L2FWD;
}

static void print_config(const struct xsk_ctx *ctx, const struct zc_xsk_run *r,
			 const struct zc_case *c, const struct row *row,
			 const struct zc_xsk_seen *seen)
{
	const struct zc_opts *o = &ctx->o;
	char sock[320] = "socket=none", words[64], idle[32];

	/* What the rate measured: the witness's verdict next to the socket's word. */
	if (row->path != ZC_XSK_XDPDROP) {
		zc_xsk_wit_words(seen, path_rx(row->path), path_tx(row->path), words,
				 sizeof(words));
		if (r->xdpsock_rx)
			snprintf(idle, sizeof(idle), "spin");
		else
			snprintf(idle, sizeof(idle), "%d_spins_then_poll_1ms",
				 ZC_XSK_IDLE_SPIN);
		snprintf(sock, sizeof(sock),
			 "bind=%s+need_wakeup umem=%ux%uB rx_tx_ring=%u fill_comp_ring=%u batch=%d rx_loop=%s rx_idle=%s xdp_options=%s witness=%s",
			 bind_modes[row->mode].mode, r->x.nframes, r->x.frame_size, r->x.rx.size,
			 r->x.fq.size, ZC_XSK_BATCH, r->xdpsock_rx ? "xdpsock" : "suite",
			 idle, r->zc ? "zerocopy" : "copy", words);
		/* key=value words: no spaces inside the value */
		for (char *p = strstr(sock, "witness="); p && *p; p++)
			if (*p == ' ')
				*p = ',';
		if (ctx->d.topo.real_pair && row->path == ZC_XSK_TXONLY)
			snprintf(sock + strlen(sock), sizeof(sock) - strlen(sock),
				 " tx_window=%u", ctx->d.tx_window);
	}
	zc_report_config(o, c->name, "frame=%uB %s xdp=%s queue=%u generator=%s cpu_tx=%d cpu_rx=%d mtu=%d verify=%s cpu=whole_process_incl_generator",
		  ctx->d.frame_len, sock, zc_xsk_at_name(row->at), ctx->d.queue,
		  zc_xsk_gen_desc(&r->g), o->cpu_tx, o->cpu_rx, ctx->d.topo.mtu,
		  o->verify ? "yes" : "no");
}

/* Real pair: a zero-copy rate next to the copy rate of the same path. */
static void report_side_by_side(struct xsk_ctx *ctx, const struct row *row,
				const struct zc_rate *rate)
{
	char name[128];
	double cp;

	if (row->path == ZC_XSK_XDPDROP)
		return;
	if (bind_modes[row->mode].want == WANT_COPY) {
		ctx->copy_mpps[row->path][row->at] = rate->mpps.median;
		return;
	}
	cp = ctx->copy_mpps[row->path][row->at];
	if (bind_modes[row->mode].want != WANT_ZC || cp <= 0)
		return;
	ktap_print_msg("%s.%s: copy %.4f Mpps, zero-copy %.4f Mpps, zero-copy/copy %.2f\n",
		       zc_xsk_run_path_names[row->path], zc_xsk_at_name(row->at), cp, rate->mpps.median,
		       rate->mpps.median / cp);
	snprintf(name, sizeof(name), "%s.%s.%s.zc_over_copy", TEST_NAME,
		 zc_xsk_run_path_names[row->path], zc_xsk_at_name(row->at));
	ktap_metric_value(name, rate->mpps.median / cp, "ratio");
}

/* Rates and the zcmode line; false with r->why when the witness disagrees. */
static bool report_data(struct xsk_ctx *ctx, const struct zc_case *c,
			const struct row *row, struct zc_xsk_run *r,
			const struct zc_rate *rate, const struct zc_xsk_seen *seen)
{
	char prefix[128];
	bool ok = true;

	snprintf(prefix, sizeof(prefix), "%s.%s", TEST_NAME, c->name);
	/* The witnesses' counts for every frame the socket moved, its word beside them. */
	if (row->path != ZC_XSK_XDPDROP)
		ok = zc_xsk_wit_judge(prefix, seen, path_rx(row->path), path_tx(row->path),
				      r->zc, &expect[r->zc][row->at == AT_SKB],
				      &r->why);
	zc_report_rate(prefix, rate, true);
	/* The generator's own rate: is it above what it feeds? */
	if (row->path != ZC_XSK_TXONLY) {
		snprintf(prefix, sizeof(prefix), "%s.gen.%s.pps", TEST_NAME, c->name);
		ktap_metric_value(prefix, zc_xsk_gen_mpps(&r->g), "Mpps");
	}
	if (ctx->d.topo.real_pair)
		report_side_by_side(ctx, row, rate);
	return ok;
}

/*
 * A transmit witness that walks a stack per frame would slow the rate it
 * judges: it sees the first WIT_SAMPLE frames, then pauses for the
 * measurement (the zcmode line says tracepoint_sample).
 */
#define WIT_SAMPLE	256

static void witness_sample(struct zc_xsk_run *r, enum zc_xsk_path path)
{
	double end = zc_now() + ZC_XSK_SETTLE_S;
	uint64_t bytes = 0, pkts = 0;

	if (!path_tx(path) || !zc_xsk_wit_costly())
		return;
	while (r->tx_done < WIT_SAMPLE && zc_now() < end && !r->err)
		zc_xsk_run_step(path)(r, &bytes, &pkts);
	zc_xsk_wit_pause(true);
}

/*
 * A data path's socket bound in its mode, need_wakeup always (as xdpsock
 * polls); XDP_DROP has none. 0, or -errno with r->why.
 */
static int data_bind(struct zc_xsk_run *r, const struct row *row)
{
	const struct zc_xsk_dut *d = r->d;
	uint16_t flags = bind_modes[row->mode].flags | XDP_USE_NEED_WAKEUP;
	int err;

	if (row->path == ZC_XSK_XDPDROP)
		return 0;
	err = run_socket(r, 1024);
	if (err)
		return err;
	/* Fill before the bind: a zero-copy driver posts its rx buffers then. */
	if (path_rx(row->path))
		zc_xsk_fill(&r->x, r->x.nframes);
	err = xsk_bind_retry(&r->x, d->ifindex, d->queue, flags, NULL);
	if (err) {
		zc_why_set(&r->why, "bind(flags 0x%x): %s", flags, strerror(-err));
		return err;	/* -EBUSY read by queue_held() */
	}
	left_in_flight = 0;
	return run_bound(r);
}

/*
 * The generator outlasts every window the meter may take.
 * ZC_INJECT_XSK_GEN_SHORT=1 gives it only the warm-up and the repeats,
 * so a re-measure outlives it (the check of gen_ended()).
 */
static double gen_budget(const struct zc_meter_cfg *mc)
{
	const char *s = getenv("ZC_INJECT_XSK_GEN_SHORT");

	if (s && !strcmp(s, "1"))
		return mc->warmup + mc->repeat * mc->duration;
	return zc_meter_span_max(mc) + 2 * ZC_XSK_SETTLE_S;
}

/*
 * The generator stopped at its own bound while the meter still measured
 * (a budget or a frame count shorter than the meter's windows): the
 * window without frames was dropped, and the case is the harness's.
 */
static void gen_ended(const struct zc_case *c, struct zc_xsk_run *r,
		      double secs)
{
	struct zc_why why = { "" };

	zc_why_set(&why, "generator ended at its bound (%llu frames in %.1f s) before the meter's last window: no sample without frames, not the kernel's",
		   (unsigned long long)(r->g.sent + r->g.dropped), secs);
	ktap_seen(c->name, KTAP_FACT_HARNESS, &why);
	zc_xsk_wit_pause(false);
	run_close(r);
}

static void case_data(const struct zc_case *c, const struct row *row,
			struct xsk_ctx *ctx)
{
	const struct zc_opts *o = &ctx->o;
	struct zc_meter_cfg mc = {
		.duration = o->duration, .warmup = o->warmup, .repeat = o->repeat,
	};
	double secs = gen_budget(&mc), t0;
	const struct zc_xsk_run_cfg cfg = {
		.at = row->at, .need_peer = true, .verify = o->verify,
		.drop_only = row->path == ZC_XSK_XDPDROP,
		.xdpsock_rx = ctx->xdpsock_rx,
	};
	struct zc_why lost = { "" };
	struct zc_xsk_seen seen;
	struct zc_rate rate;
	struct zc_xsk_run r;
	bool ok;
	int err;

	err = zc_xsk_run_open(&r, &ctx->d, &cfg);
	if (!err) {
		err = data_bind(&r, row);
		if (queue_held(&r, err)) {
			ktap_seen(c->name, KTAP_FACT_HARNESS, &r.why);
			run_close(&r);
			return;
		}
	}
	if (!err)
		err = zc_xsk_run_start(&r, row->path, row->at == AT_NATIVE, secs);
	if (err) {
		ktap_fail_why(c->name, &r.why);
		run_close(&r);
		return;
	}
	t0 = zc_now();
	witness_sample(&r, row->path);
	err = zc_measure(&mc, zc_xsk_run_step(row->path), &r, &rate);
	zc_xsk_run_drain(&r, row->path);
	if (err == -ZC_XSK_EGENEND && !r.g.err) {
		gen_ended(c, &r, zc_now() - t0);
		return;
	}
	if (err == -ZC_XSK_EGENEND)
		err = r.g.err;
	if (err && !r.err)
		r.err = err;
	zc_xsk_run_seen(&r, &seen);
	print_config(ctx, &r, c, row, &seen);
	if (row->path != ZC_XSK_TXONLY)
		zc_xsk_gen_print(&r.g, zc_now() - t0);
	ok = zc_xsk_run_account(&r, row->path);
	/* The pair's counters read once the account has settled. */
	if ((zc_xsk_account_pair(&r, row->path, &lost) ||
	     zc_xsk_account_pair_tx(&r, &lost)) && !ok)
		/* frames a real pair's devices held or lost: not the kernel's path */
		ktap_seen(c->name, KTAP_FACT_ENV, &lost);
	else if (!ok)
		ktap_fail_why(c->name, &r.why);
	else if (report_data(ctx, c, row, &r, &rate, &seen))
		ktap_pass(c->name);
	else
		ktap_fail_unexpected_why(c->name, &r.why);
	zc_xsk_wit_pause(false);
	run_close(&r);
}

/* Options, probe and setup */

enum { OPT_IFACE = 256, OPT_QUEUE, OPT_MODE, OPT_PEER_EXEC, OPT_PEER_PATH,
	OPT_RX_LOOP };

static const struct zc_opt_extra extra_opts[] = {
	{ "iface", 1, OPT_IFACE, "IFACE",
	  "run the bind cases on this device (data cases skip: no traffic leaves the test's veth)" },
	{ "queue", 1, OPT_QUEUE, "Q", "queue id to bind (default 0)" },
	{ "mode", 1, OPT_MODE, "skb|native|all",
	  "XDP attach modes to run (default all; the others skip)" },
	{ "peer-exec", 1, OPT_PEER_EXEC, "CMD",
	  "set up a rate case's pair (veth, or run_tests.sh --pair's devices) and the peer side's counter, run CMD (sh -c) in the socket's namespace with ZC_PEER_IFACE, ZC_PEER_QUEUE, ZC_PEER_FRAME, ZC_PEER_XDP set, feed it the case's generator once it attached XDP (needs --mode skb or native; on a device pair held to a window over the rx ring of CMD's AF_XDP socket, as the case over its own), print what was sent and counted, exit with CMD's status; CMD still running 20 s past the case's time (--duration, --repeat, --warmup, re-measures) is ended, a harness failure" },
	{ "peer-path", 1, OPT_PEER_PATH, "rxdrop|txonly|l2fwd",
	  "--peer-exec: the data path CMD runs (default rxdrop; txonly: no generator)" },
	{ "rx-loop", 1, OPT_RX_LOOP, "suite|xdpsock",
	  "how the rate cases receive (default suite: read each frame's sequence number for the order check, sleep in poll(2) after 256 empty polls; xdpsock: as samples/bpf's xdpsock without -p, no frame read and no sleep, the frame counts still exact)" },
	{ NULL }
};

static int parse_mode(struct xsk_ctx *ctx, const char *arg, struct zc_why *why)
{
	if (!strcmp(arg, "skb"))
		ctx->modes = 1 << AT_SKB;
	else if (!strcmp(arg, "native"))
		ctx->modes = 1 << AT_NATIVE;
	else if (!strcmp(arg, "all"))
		ctx->modes = (1 << AT_SKB) | (1 << AT_NATIVE);
	else
		return zc_why_set(why, "--mode wants skb, native or all, got '%s'", arg);
	ctx->mode_arg = arg;
	return 0;
}

static int parse_peer_path(struct xsk_ctx *ctx, const char *arg, struct zc_why *why)
{
	int p;

	for (p = ZC_XSK_RXDROP; p <= ZC_XSK_L2FWD; p++)
		if (!strcmp(arg, zc_xsk_run_path_names[p])) {
			ctx->peer_path = p;
			return 0;
		}
	return zc_why_set(why, "--peer-path wants rxdrop, txonly or l2fwd, got '%s'", arg);
}

static int parse_opt(int val, const char *arg, void *opaque, struct zc_why *why)
{
	struct xsk_ctx *ctx = opaque;

	switch (val) {
	case OPT_IFACE:
		if (!*arg || strlen(arg) >= IF_NAMESIZE)
			return zc_why_set(why, "--iface wants a device name, got '%s'", arg);
		ctx->iface = arg;
		return 0;
	case OPT_QUEUE:
		if (zc_parse_long(arg, 0, 65535, &ctx->queue))
			return zc_why_set(why, "--queue wants an integer in [0, 65535], got '%s'",
					  arg);
		return 0;
	case OPT_MODE:
		return parse_mode(ctx, arg, why);
	case OPT_PEER_EXEC:
		if (!zc_sink_cmd_ok(arg))
			return zc_why_set(why, "--peer-exec wants a command whose first word is an executable, got '%.40s'",
					  arg);
		ctx->peer_exec = arg;
		return 0;
	case OPT_PEER_PATH:
		return parse_peer_path(ctx, arg, why);
	case OPT_RX_LOOP:
		if (strcmp(arg, "suite") && strcmp(arg, "xdpsock"))
			return zc_why_set(why, "--rx-loop wants suite or xdpsock, got '%s'", arg);
		ctx->xdpsock_rx = !strcmp(arg, "xdpsock");
		return 0;
	}
	return zc_why_set(why, "unhandled option");
}

static const struct zc_test_desc desc = {
	.name = TEST_NAME,
	.summary = "AF_XDP copy vs zero-copy bind: bind matrix, bind errors, rx-drop/tx-only/l2fwd.\n"
		   "--size is the whole frame, Ethernet header included (default 64, 30..1514).",
	.extra = extra_opts,
	.parse = parse_opt,
	.size_default = FRAME_DEFAULT,
	.size_max = ZC_XSK_FRAME_MAX,
};

static int check_opts(void *opaque, struct zc_why *why)
{
	struct xsk_ctx *ctx = opaque;

	if (ctx->o.size < ZC_XSK_MIN_FRAME)
		return zc_why_set(why, "--size wants a frame of at least %d bytes (headers), got %ld",
				  ZC_XSK_MIN_FRAME, ctx->o.size);
	if (ctx->iface && !if_nametoindex(ctx->iface))
		return zc_why_set(why, "--iface %s: no such device", ctx->iface);
	if (ctx->peer_exec && (ctx->iface || ctx->modes == ((1 << AT_SKB) | (1 << AT_NATIVE))))
		return zc_why_set(why, "--peer-exec wants --mode skb or native and the test's own pair (veth or run_tests.sh --pair; no --iface)");
	if (!ctx->peer_exec && ctx->peer_path)
		return zc_why_set(why, "--peer-path goes with --peer-exec");
	if (ctx->xdpsock_rx && ctx->o.verify)
		return zc_why_set(why, "--verify reads every frame, --rx-loop xdpsock reads none");
	return 0;
}

static int probe(void *opaque, struct zc_why *why)
{
	static const cap_value_t caps[] = { CAP_NET_ADMIN, CAP_NET_RAW };
	static const char *const cfg[] = {
		"CONFIG_XDP_SOCKETS", "CONFIG_BPF_SYSCALL", "CONFIG_VETH", "CONFIG_NET_NS",
	};
	const struct xsk_ctx *ctx = opaque;

	if (zc_require_caps(why, caps, ZC_ARRAY_SIZE(caps)) ||
	    zc_require_bpf_caps(why))
		return -1;
	return zc_require_config(why, cfg, ctx->iface ? 2 : ZC_ARRAY_SIZE(cfg));
}

static int setup(void *opaque, struct zc_why *why)
{
	struct xsk_ctx *ctx = opaque;
	int ret;

	ret = zc_xsk_dut_open(&ctx->d, ctx->iface, ctx->queue, why);
	if (ret)
		return ret == -EOPNOTSUPP ? KSFT_SKIP : -1;
	ctx->d.frame_len = ctx->o.size;
	ctx->d.cpu_tx = ctx->o.cpu_tx;
	if (zc_probe_bpf(&ctx->bpf_skip)) {
		ktap_print_msg("no BPF: binds without a program and device checks only (%s)",
			       ctx->bpf_skip.msg);
	} else {
		struct zc_xsk_prog p;

		zc_why_clear(&ctx->bpf_skip);
		/* Does the redirect program witness each frame on this kernel? */
		ret = zc_xsk_prog_load(&p, false);
		zc_xsk_wit_open(&ctx->d, !ret && p.wit, ret ? strerror(-ret) : p.nowit);
		zc_xsk_prog_close(&p);
		/*
		 * libbpf (1.1) wants vmlinux BTF for any object with a kfunc
		 * or CO-RE read, loaded program or not: xsk.bpf.o's witness
		 * has both. Debian's s390x 6.1 is built without it.
		 */
		if (ret && access("/sys/kernel/btf/vmlinux", F_OK))
			zc_why_set(&ctx->bpf_skip,
				   "kernel has no BTF (CONFIG_DEBUG_INFO_BTF off, no /sys/kernel/btf/vmlinux): libbpf refuses xsk.bpf.o, whose witness uses a kfunc and CO-RE (%s)",
				   strerror(-ret));
	}
	zc_pin_cpu(ctx->o.cpu_rx);
	return 0;
}

static void teardown(void *ctx)
{
	zc_xsk_wit_close();
	zc_xsk_dut_close(&((struct xsk_ctx *)ctx)->d);
}

static struct zc_test test;

static int peer_run(void *opaque, struct zc_why *why)
{
	struct xsk_ctx *ctx = opaque;
	const struct zc_meter_cfg mc = {
		.duration = ctx->o.duration, .warmup = ctx->o.warmup,
		.repeat = ctx->o.repeat,
	};
	/* The command gets the time the case would: its generator's budget. */
	const struct zc_xsk_peer_cfg cfg = {
		.cmd = ctx->peer_exec, .path = ctx->peer_path,
		.at = ctx->modes & (1 << AT_NATIVE) ? AT_NATIVE : AT_SKB,
		.bound = gen_budget(&mc),
	};

	/* The generator and side b's counter are XDP programs. */
	if (ctx->bpf_skip.msg[0]) {
		*why = ctx->bpf_skip;
		return KSFT_SKIP;
	}
	return zc_xsk_peer_exec(&ctx->d, &cfg, why);
}

/*
 * --peer-exec: another AF_XDP program (samples/bpf's xdpsock) on a rate
 * case's topology and traffic, so tools/zc-peer-bench can hold the
 * suite's rates against it. setup() pins us to the receiver's CPU: the
 * command inherits it.
 */
static int peer_mode(void *opaque)
{
	struct xsk_ctx *ctx = opaque;

	if (!ctx->peer_exec)
		return -1;
	return zc_mode_with_setup(&test, ctx, "--peer-exec", peer_run);
}

static struct zc_test test = {
	.desc = &desc,
	.mode = peer_mode,
	.check_opts = check_opts,
	.probe = probe,
	.setup = setup,
	.teardown = teardown,
};

int main(int argc, char **argv)
{
	struct xsk_ctx ctx = { .modes = (1 << AT_SKB) | (1 << AT_NATIVE) };

	const struct zc_matrix ms[] = {
		row_matrix(&features), row_matrix(&binds), row_matrix(&bind_error_cases),
		row_matrix(&data), row_matrix(&xdpdrop),
	};

	return zc_matrix_main(&test, ms, ZC_ARRAY_SIZE(ms), argc, argv,
			      &ctx.o, &ctx);
}
