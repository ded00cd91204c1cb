// SPDX-License-Identifier: GPL-2.0
/*
 * Path 2: the skb_copy_ubufs fallback under a packet tap.
 *
 * A zero-copy send (MSG_ZEROCOPY, io_uring SEND_ZC) is silently turned
 * into a copy when an AF_PACKET socket sees the packet on its way out
 * (dev_queue_xmit_nit -> skb_orphan_frags_rx -> skb_copy_ubufs): tcpdump,
 * lldpd or a monitoring agent costs every zero-copy sender its zero-copy.
 *
 * Topology: two fd-held namespaces joined by veth, a sends to b, b drops
 * UDP to SINK_PORT at tc clsact ingress (nothing copies there). Every
 * verdict case sends one datagram at a time, takes the kernel's per-send
 * verdict (MSG_ZEROCOPY completion code, SEND_ZC notification with
 * REPORT_USAGE) and checks it against the copy witness (lib/witness.h), a
 * BPF observer of skb_copy_ubufs / veth's XDP copy in this process.
 *
 * With ZC_PAIR, two real devices cabled to each other replace veth. The
 * receiver then gets the receiving device's own skb, never the sender's:
 * only what happens before the sender's driver can copy. And the scope of
 * an unbound packet tap depends on the kernel: before per-namespace tap
 * lists (struct net.ptype_all, 6.15) every namespace's taps see every
 * device's packets, and skb_orphan_frags_rx copies before af_packet drops
 * them for the foreign namespace. Each case's expectation follows the
 * topology and the kernel, and says why.
 *
 * `tap_copy --list-taps [--netns PATH]` is the diagnosis mode: which packet
 * sockets would make a zero-copy sender copy, and who owns them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "compat.h"
#include "env.h"
#include "runner.h"
#include "meter.h"
#include "netdev_nl.h"
#include "netns.h"
#include "opts.h"
#include "probe.h"
#include "taps.h"
#include "util.h"
#include "witness.h"
#include "zcsend.h"
#include "tc_drop.skel.h"
#include "tap_copy.skel.h"

#define NAME		"tap_copy"
#define SINK_PORT	9000	/* dropped by tc at b's ingress */
#define RECV_PORT	9001	/* local receivers (passes tc) */
#define TOPO_MTU	65535	/* ZC_PAIR devices may settle for less */
#define UDP4_HDR	28
#define UDP6_HDR	48
#define UDP4_MAX	(TOPO_MTU - UDP4_HDR)
#define TCP_SIZE	16384
#define FRAG_MTU	1500	/* veth is lowered to this for the fragments */
#define FRAG_OVER	2500	/* fragmented datagrams: MTU + this (4000 B at 1500) */
#define SENDS_DEFAULT	8
#define SENDS_MAX	1000
#define VERDICT_S	2.0	/* one send and its completion */
#define SETTLE_S	2.0	/* for the last packets to reach the sink */
#define WARMUP_S	0.2
#define RATE_DEPTH	8
/* Tap open (1) or closed (0) around each send of the toggle case. */
#define TOGGLE_PATTERN	"0110100111010001"
/* Why a tap in another namespace copies on kernels before 6.15. */
#define GLOBAL_TAPS	"no per-namespace tap lists on this kernel (no struct net.ptype_all in BTF; 6.15, \"net: introduce per netns packet chains\")"
/* Where veth copies for XDP, when the witness cannot say. */
#define VETH_XDP_COPY	"skb_pp_cow_data on 6.8+, veth_xdp_rcv_skb before"

enum setup {
	SETUP_NONE,		/* clean: tc drop, no tap */
	SETUP_TAP_A,		/* ETH_P_ALL, unbound, sender namespace */
	SETUP_TAP_A_DEV,	/* bound to the egress veth */
	SETUP_TAP_B,		/* unbound, receiving namespace */
	SETUP_TAP_IGNORE,	/* sender namespace, PACKET_IGNORE_OUTGOING */
	SETUP_TAP_OTHER_DEV,	/* sender namespace, bound to lo */
	SETUP_TOGGLE,		/* tap opened/closed per TOGGLE_PATTERN */
	SETUP_LOCAL,		/* receiver bound in b, no drop */
	SETUP_LOOPBACK,		/* receiver on 127.0.0.1 in a */
	SETUP_FRAG,		/* datagram above the MTU */
	SETUP_XDP,		/* XDP_DROP on b instead of tc */
};

/* What the witness must see on a copied send. */
enum wit_expect {
	WIT_COPY_UBUFS,		/* the fallback copy: skb_copy_ubufs */
	WIT_NOTHING,		/* copied before zero-copy was tried */
	WIT_PP_COW,		/* veth XDP: skb_pp_cow_data on every send */
};

struct vcase {
	int family;
	int type;			/* SOCK_DGRAM / SOCK_STREAM */
	enum zc_send_mode mode;
	enum setup setup;
	int expect;			/* ZC_VERDICT_* for every send, over veth */
	enum wit_expect wit;
	const char *what;		/* one line: why this verdict */
};

/* What one case expects on this topology and kernel (plan_case). */
struct plan {
	int expect;			/* ZC_VERDICT_* for every send */
	enum wit_expect wit;
	/*
	 * expect is this kernel's known deviation from the ideal: all sends
	 * as expected is an XFAIL, all the other way (with the witness
	 * agreeing) an XPASS.
	 */
	bool xfail;
	char what[512];			/* why this verdict, here */
	char skip[200];			/* "" or why the case cannot be judged */
};

struct rcase {
	enum zc_send_mode mode;
	const char *label;		/* metric name part */
	unsigned int depth;
};

struct ctx {
	struct zc_opts o;
	struct zc_topo t;
	struct tc_drop *sink;
	struct tap_copy *xdp;
	long sends;
	bool diag_done;
	char uring_skip[200];		/* "" when io_uring works */
	char bpf_skip[256];		/* "" when BPF programs load */
	/* 1: struct net.ptype_all (per-namespace taps), 0: global, <0: no BTF */
	int netns_taps;
	char drv_a[32], drv_b[32];	/* the devices' drivers ("veth", "e1000e") */
};

/* One verdict case's running state. */
struct vrun {
	const struct vcase *v;
	struct plan p;
	int fd, rx_fd, tap_fd;
	size_t size;
	int mtu_restore;		/* 0, or the MTU the fragment case lowered */
	bool xdp_on;
	uint64_t sink0, xdp0;
	/* tallies */
	long n, zc, copied, errors, kern_bad, wit_bad;
	long wit_copy_sends, wit_cow_sends;
	long rx_msgs;
	long long rx_bytes;
	struct zc_witness_counts wsum;
	char first_bad[256];
};

static bool opt_list_taps;
static const char *opt_netns;
static long opt_sends = SENDS_DEFAULT;
static bool opt_no_witness;

enum { OPT_LIST_TAPS = 256, OPT_NETNS, OPT_SENDS, OPT_NO_WITNESS };

static const struct zc_opt_extra extra_opts[] = {
	{ "list-taps", 0, OPT_LIST_TAPS, NULL,
	  "list the packet sockets that make zero-copy sends copy, and exit" },
	{ "netns", 1, OPT_NETNS, "PATH",
	  "with --list-taps: namespace to look in (/proc/PID/ns/net, /run/netns/X)" },
	{ "sends", 1, OPT_SENDS, "N", "sends per verdict case (default 8)" },
	{ "no-witness", 0, OPT_NO_WITNESS, NULL,
	  "do not load the copy witness: assert the kernel flag only" },
	{ NULL }
};

static int parse_extra(int val, const char *arg, void *ctx, struct zc_why *why)
{
	char *err = why->msg;
	size_t len = sizeof(why->msg);

	switch (val) {
	case OPT_LIST_TAPS:
		opt_list_taps = true;
		return 0;
	case OPT_NETNS:
		opt_netns = arg;
		return 0;
	case OPT_NO_WITNESS:
		opt_no_witness = true;
		return 0;
	case OPT_SENDS:
		if (zc_parse_long(arg, 1, SENDS_MAX, &opt_sends)) {
			snprintf(err, len, "--sends wants an integer in [1, %d], got '%s'",
				 SENDS_MAX, arg);
			return -1;
		}
		return 0;
	}
	snprintf(err, len, "unknown option");
	return -1;
}

static const struct zc_test_desc desc = {
	.name = NAME,
	.summary = "zero-copy sends copied by skb_copy_ubufs under packet taps, with a BPF copy witness",
	.extra = extra_opts,
	.parse = parse_extra,
	.size_default = UDP4_MAX,
	.size_max = UDP4_MAX,
};

/* ---- diagnosis mode ---- */

static int noop(void *arg)
{
	return 0;
}

static int list_taps(void)
{
	int nsfd = -1, ret = 0;

	/* No TAP header follows: print the listing as it comes. */
	ktap_no_header();
	if (opt_netns) {
		nsfd = open(opt_netns, O_RDONLY | O_CLOEXEC);
		ret = nsfd < 0 ? -errno : zc_netns_run(nsfd, noop, NULL);
		if (ret) {
			fprintf(stderr, "%s: --netns %s: %s\n", NAME, opt_netns,
				ret == -EINVAL ? "not a network namespace" :
				strerror(-ret));
			if (nsfd >= 0)
				close(nsfd);
			return KSFT_FAIL;
		}
	}
	ret = zc_taps_report(nsfd, opt_netns ? opt_netns : "this network namespace");
	if (nsfd >= 0)
		close(nsfd);
	return ret < 0 ? KSFT_FAIL : KSFT_PASS;
}

/* ---- helpers ---- */

/* The witness kind, or NULL with *why saying why none is loaded. */
static const char *witness_kind(const char **why)
{
	const char *kind = zc_witness_kind(why);

	if (!kind && opt_no_witness)
		*why = "--no-witness given";
	return kind;
}

static const char *verdict_name(int v)
{
	return v == ZC_VERDICT_COPIED ? "copied" : "zerocopy";
}

/* Largest datagram that leaves unfragmented at the topology's MTU. */
static size_t udp_max(const struct ctx *cx, int family)
{
	return cx->t.mtu - (family == AF_INET6 ? UDP6_HDR : UDP4_HDR);
}

/* --size, within one frame. */
static size_t udp_size(const struct ctx *cx, int family)
{
	size_t max = udp_max(cx, family);

	return (size_t)cx->o.size < max ? (size_t)cx->o.size : max;
}

/* Above the MTU the fragment case sends at (veth lowered to FRAG_MTU). */
static size_t frag_size(const struct ctx *cx)
{
	int mtu = cx->t.real_pair || cx->t.mtu <= FRAG_MTU ? cx->t.mtu : FRAG_MTU;
	size_t size = (size_t)mtu + FRAG_OVER;

	return size < UDP4_MAX ? size : UDP4_MAX;
}

static const char *netns_taps_desc(const struct ctx *cx)
{
	if (cx->netns_taps > 0)
		return "per namespace (struct net.ptype_all in BTF)";
	if (!cx->netns_taps)
		return "one global list (no struct net.ptype_all in BTF): a tap in any namespace sees every device";
	return "scope unknown (no vmlinux BTF)";
}

static void topo_config(const struct ctx *cx)
{
	int fmtu = cx->t.real_pair || cx->t.mtu <= FRAG_MTU ? cx->t.mtu : FRAG_MTU;

	ktap_print_msg("config: topology %s: %s (%s) -> %s (%s), MTU %d; verdict sizes udp4 %zu B, udp6 %zu B, tcp4 %d B, fragmented udp4 %zu B at MTU %d; packet taps %s; kernel %s",
		       cx->t.real_pair ? "ZC_PAIR devices" : "veth",
		       cx->t.a.ifname, cx->drv_a, cx->t.b.ifname, cx->drv_b,
		       cx->t.mtu, udp_size(cx, AF_INET), udp_size(cx, AF_INET6),
		       TCP_SIZE, frag_size(cx), fmtu, netns_taps_desc(cx),
		       zc_kernel_release());
}

static void diag_once(struct ctx *cx)
{
	const char *why, *kind, *xfn, *xunit = "", *xwhy = "";

	if (cx->diag_done)
		return;
	cx->diag_done = true;
	topo_config(cx);
	kind = witness_kind(&why);
	xfn = zc_witness_xdp_copy(&xunit, &xwhy);
	if (kind)
		ktap_print_msg("copy witness: %s (counts skb_copy_ubufs %s; veth's XDP copy: %s%s%s)%s%s",
			       kind, zc_witness_unit(),
			       xfn ? xfn : "not counted: ", xfn ? " " : "",
			       xfn ? xunit : xwhy,
			       strcmp(kind, "fentry") ? "; fentry refused: " : "",
			       strcmp(kind, "fentry") ? why : "");
	else
		ktap_print_msg("copy witness: none loaded (%s); cases assert the kernel flag only",
			       why);
	/* Taps on this host: the first thing to look at when zero-copy copies. */
	zc_taps_report(cx->t.origin_nsfd, "the starting network namespace");
}

static uint64_t sink_pkts(struct ctx *cx)
{
	return cx->sink ? cx->sink->bss->pkts : 0;
}

/* The tc sink's drop port (0: every fragment), when there is a sink. */
static void sink_port(struct ctx *cx, int port)
{
	if (cx->sink)
		cx->sink->bss->drop_port = port;
}

static socklen_t sockaddr_make(struct sockaddr_storage *ss, int family,
				const void *addr, int port)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(&s6->sin6_addr, addr, sizeof(s6->sin6_addr));
		return sizeof(*s6);
	}
	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	memcpy(&s4->sin_addr, addr, sizeof(s4->sin_addr));
	return sizeof(*s4);
}

static int connect_to(int fd, int family, const void *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = sockaddr_make(&ss, family, addr, port);

	return connect(fd, (struct sockaddr *)&ss, len) ? -errno : 0;
}

static int bind_to(int fd, int family, const void *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = sockaddr_make(&ss, family, addr, port);

	return bind(fd, (struct sockaddr *)&ss, len) ? -errno : 0;
}

static const void *b_addr(struct ctx *cx, int family)
{
	return family == AF_INET6 ? (const void *)&cx->t.b.addr6 :
				    (const void *)&cx->t.b.addr4;
}

/* Receiver in nsfd at addr:RECV_PORT; for TCP the accepted socket. */
static int receiver_open(int nsfd, int family, int type, const void *addr,
			 int *listen_fd)
{
	int fd, one = 1, ret;

	*listen_fd = -1;
	fd = zc_socket_in(nsfd, family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	ret = bind_to(fd, family, addr, RECV_PORT);
	if (!ret && type == SOCK_STREAM && listen(fd, 1))
		ret = -errno;
	if (ret) {
		close(fd);
		return ret;
	}
	if (type == SOCK_STREAM) {
		*listen_fd = fd;
		return -EINPROGRESS;
	}
	return fd;
}

static void receiver_drain(struct vrun *r)
{
	static char buf[1 << 16];
	ssize_t n;

	if (r->rx_fd < 0)
		return;
	while ((n = recv(r->rx_fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		r->rx_msgs++;
		r->rx_bytes += n;
	}
}

/* ---- XDP sink (the hidden copy case) ---- */

struct xdp_args {
	int ifindex, prog_fd;
};

static int xdp_in_ns(void *arg)
{
	struct xdp_args *a = arg;

	return bpf_xdp_attach(a->ifindex, a->prog_fd, XDP_FLAGS_DRV_MODE, NULL);
}

static int xdp_set(struct ctx *cx, bool on)
{
	struct xdp_args a = { cx->t.b.ifindex, -1 };

	if (on) {
		if (!cx->xdp) {
			cx->xdp = tap_copy__open_and_load();
			if (!cx->xdp)
				return -errno;
		}
		a.prog_fd = bpf_program__fd(cx->xdp->progs.zc_tap_xdp_drop);
	}
	return zc_netns_run(cx->t.b.nsfd, xdp_in_ns, &a);
}

/* ---- verdict cases ---- */

static int tap_for(struct ctx *cx, enum setup s)
{
	switch (s) {
	case SETUP_TAP_A:
	case SETUP_TOGGLE:
		return zc_tap_open_on(cx->t.a.nsfd, 0, false);
	case SETUP_TAP_A_DEV:
		return zc_tap_open_on(cx->t.a.nsfd, cx->t.a.ifindex, false);
	case SETUP_TAP_B:
		return zc_tap_open_on(cx->t.b.nsfd, 0, false);
	case SETUP_TAP_IGNORE:
		return zc_tap_open_on(cx->t.a.nsfd, 0, true);
	case SETUP_TAP_OTHER_DEV:
		return zc_tap_open_on(cx->t.a.nsfd, 1 /* lo */, false);
	default:
		return -ENOENT;
	}
}

static int tcp_connect(struct ctx *cx, struct vrun *r, int lfd)
{
	int ret = connect_to(r->fd, r->v->family, b_addr(cx, r->v->family),
			     RECV_PORT);

	if (ret)
		return ret;
	if (zc_poll_one(lfd, POLLIN, VERDICT_S) <= 0)
		return -ETIMEDOUT;
	r->rx_fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	return r->rx_fd < 0 ? -errno : 0;
}

/* Socket, receiver, tap, MTU, XDP as the case wants. */
static int vrun_setup(struct ctx *cx, struct vrun *r, char *why, size_t len)
{
	const struct vcase *v = r->v;
	int nsfd = cx->t.a.nsfd, lfd = -1, ret;
	const char *step = "socket";
	struct in_addr lo4 = { htonl(INADDR_LOOPBACK) };
	char xdp_step[128];

	r->fd = zc_socket_in(nsfd, v->family, v->type | SOCK_CLOEXEC, 0);
	if (r->fd < 0) {
		ret = r->fd;
		goto fail;
	}
	if (v->setup == SETUP_LOCAL || v->setup == SETUP_LOOPBACK) {
		step = "receiver";
		if (v->setup == SETUP_LOOPBACK)
			ret = receiver_open(nsfd, v->family, v->type, &lo4, &lfd);
		else
			ret = receiver_open(cx->t.b.nsfd, v->family, v->type,
					    b_addr(cx, v->family), &lfd);
		if (ret >= 0)
			r->rx_fd = ret;
		else if (ret != -EINPROGRESS)
			goto fail;
		step = "connect";
		if (v->type == SOCK_STREAM)
			ret = tcp_connect(cx, r, lfd);
		else if (v->setup == SETUP_LOOPBACK)
			ret = connect_to(r->fd, v->family, &lo4, RECV_PORT);
		else
			ret = connect_to(r->fd, v->family, b_addr(cx, v->family),
					 RECV_PORT);
		if (lfd >= 0)
			close(lfd);
	} else {
		step = "connect";
		ret = connect_to(r->fd, v->family, b_addr(cx, v->family),
				 SINK_PORT);
	}
	if (ret)
		goto fail;
	if (v->setup >= SETUP_TAP_A && v->setup <= SETUP_TAP_OTHER_DEV) {
		step = "open tap";
		r->tap_fd = tap_for(cx, v->setup);
		if (r->tap_fd < 0) {
			ret = r->tap_fd;
			goto fail;
		}
	}
	/*
	 * No datagram exceeds veth's 65535: lower it. A real pair keeps its
	 * MTU, a change would take its carrier away for a while.
	 */
	if (v->setup == SETUP_FRAG && !cx->t.real_pair && cx->t.mtu > FRAG_MTU) {
		step = "set MTU";
		r->mtu_restore = cx->t.mtu;
		ret = zc_topo_set_mtu(&cx->t, FRAG_MTU);
		if (ret) {
			r->mtu_restore = 0;
			goto fail;
		}
	}
	if (v->setup == SETUP_FRAG) {
		/*
		 * Later fragments carry no UDP header and would wait in b's
		 * reassembly queue (ipfrag_time), holding the MSG_ZEROCOPY
		 * completion: drop them all.
		 */
		sink_port(cx, 0);
	}
	if (v->setup == SETUP_XDP) {
		snprintf(xdp_step, sizeof(xdp_step),
			 "attach native XDP (frags) to the receiving device %s (%s)",
			 cx->t.b.ifname, cx->drv_b);
		step = xdp_step;
		ret = xdp_set(cx, true);
		if (ret)
			goto fail;
		r->xdp_on = true;
		r->xdp0 = cx->xdp->bss->pkts;
	}
	return 0;
fail:
	snprintf(why, len, "%s: %s", step, strerror(-ret));
	return ret;
}

static void vrun_teardown(struct ctx *cx, struct vrun *r)
{
	if (r->xdp_on && xdp_set(cx, false))
		ktap_print_msg("detaching XDP failed; later cases may be affected");
	if (r->mtu_restore && zc_topo_set_mtu(&cx->t, r->mtu_restore))
		ktap_print_msg("restoring MTU %d failed", r->mtu_restore);
	sink_port(cx, SINK_PORT);
	if (r->tap_fd >= 0)
		close(r->tap_fd);
	if (r->rx_fd >= 0)
		close(r->rx_fd);
	if (r->fd >= 0)
		close(r->fd);
}

static size_t case_size(struct ctx *cx, const struct vcase *v)
{
	if (v->setup == SETUP_FRAG)
		return frag_size(cx);
	if (v->type == SOCK_STREAM)
		return TCP_SIZE;
	return udp_size(cx, v->family);
}

static int want_for(const struct vrun *r, long i)
{
	if (r->v->setup == SETUP_TOGGLE)
		return TOGGLE_PATTERN[i % (sizeof(TOGGLE_PATTERN) - 1)] == '1' ?
		       ZC_VERDICT_COPIED : ZC_VERDICT_ZEROCOPY;
	return r->p.expect;
}

static void note_bad(struct vrun *r, const char *fmt, long i, const char *a,
		     const char *b, const struct zc_witness_counts *d)
{
	char w[200];

	if (r->first_bad[0])
		return;
	zc_witness_format(d, w, sizeof(w));
	snprintf(r->first_bad, sizeof(r->first_bad), fmt, i, a, b);
	snprintf(r->first_bad + strlen(r->first_bad),
		 sizeof(r->first_bad) - strlen(r->first_bad), " (%s)", w);
}

/* Copies seen for this process, or in ksoftirqd (deferred receive work). */
static uint64_t seen_copy_ubufs(const struct zc_witness_counts *d)
{
	return d->copy_ubufs + d->softirqd_copy_ubufs;
}

static uint64_t seen_pp_cow(const struct zc_witness_counts *d)
{
	return d->pp_cow + d->softirqd_pp_cow;
}

/*
 * Does the witness agree with the kernel's verdict on one send? A copied
 * send must show the function the case names; a zero-copy send nothing,
 * except under XDP where veth copies (skb_pp_cow_data, or inline before
 * 6.8) every time: where the witness cannot count that copy, it must at
 * least see no skb_copy_ubufs.
 */
static bool witness_agrees(const struct vrun *r, int verdict,
			   const struct zc_witness_counts *d)
{
	if (!zc_witness_kind(NULL))
		return true;
	switch (r->p.wit) {
	case WIT_PP_COW:
		if (!zc_witness_xdp_copy(NULL, NULL))
			return !d->copy_ubufs;
		return seen_pp_cow(d) && !d->copy_ubufs;
	case WIT_NOTHING:
		return !zc_witness_copied(d);
	case WIT_COPY_UBUFS:
	default:
		if (verdict == ZC_VERDICT_COPIED)
			return seen_copy_ubufs(d) && !d->pp_cow;
		return !zc_witness_copied(d);
	}
}

static int toggle_tap(struct ctx *cx, struct vrun *r, long i)
{
	bool want_open = want_for(r, i) == ZC_VERDICT_COPIED;

	if (r->v->setup != SETUP_TOGGLE || want_open == (r->tap_fd >= 0))
		return 0;
	if (!want_open) {
		close(r->tap_fd);
		r->tap_fd = -1;
		return 0;
	}
	r->tap_fd = tap_for(cx, SETUP_TOGGLE);
	return r->tap_fd < 0 ? r->tap_fd : 0;
}

/* What the witness should have seen on a send with this verdict. */
static const char *wit_want(const struct vrun *r, int verdict)
{
	const char *fn;

	if (r->p.wit == WIT_PP_COW) {
		fn = zc_witness_xdp_copy(NULL, NULL);
		return fn ? fn : "no skb_copy_ubufs";
	}
	if (r->p.wit == WIT_COPY_UBUFS && verdict == ZC_VERDICT_COPIED)
		return "skb_copy_ubufs";
	return "no copy";
}

static int one_send(struct ctx *cx, struct vrun *r, struct zc_sender *s, long i)
{
	struct zc_witness_counts w0, w1, d;
	int want = want_for(r, i), ret;

	ret = toggle_tap(cx, r, i);
	if (ret)
		return ret;
	zc_witness_read(&w0);
	ret = zc_sender_verdict(s, VERDICT_S);
	zc_witness_read(&w1);
	receiver_drain(r);
	if (ret < 0)
		return ret;
	zc_witness_delta(&w1, &w0, &d);
	zc_witness_add(&r->wsum, &d);
	r->n++;
	r->wit_copy_sends += seen_copy_ubufs(&d) > 0;
	r->wit_cow_sends += seen_pp_cow(&d) > 0;
	if (ret == ZC_VERDICT_COPIED)
		r->copied++;
	else
		r->zc++;
	if (ret != want) {
		r->kern_bad++;
		note_bad(r, "send %ld: kernel says %s, expected %s", i,
			 verdict_name(ret), verdict_name(want), &d);
	}
	if (!witness_agrees(r, ret, &d)) {
		r->wit_bad++;
		note_bad(r, "send %ld: witness disagrees with the kernel's %s, wants %s", i,
			 verdict_name(ret), wit_want(r, ret), &d);
	}
	return 0;
}

static int run_sends(struct ctx *cx, struct vrun *r, char *why, size_t len)
{
	struct zc_sender_cfg cfg = {
		.mode = r->v->mode, .fd = r->fd, .size = r->size, .depth = 1,
		.report_usage = true, .exact = true,
	};
	struct zc_sender *s;
	int err = 0, ret = 0;
	long i, n;

	s = zc_sender_open(&cfg, &err);
	if (!s) {
		snprintf(why, len, "open %s sender: %s",
			 zc_send_mode_name(r->v->mode), strerror(-err));
		return err;
	}
	r->sink0 = sink_pkts(cx);
	/* The toggle case runs its whole pattern at least once. */
	n = cx->sends;
	if (r->v->setup == SETUP_TOGGLE && n < (long)strlen(TOGGLE_PATTERN))
		n = strlen(TOGGLE_PATTERN);
	for (i = 0; i < n; i++) {
		ret = one_send(cx, r, s, i);
		if (ret) {
			snprintf(why, len, "send %ld: %s", i, strerror(-ret));
			break;
		}
	}
	if (!ret && zc_sender_stats(s)->violations) {
		snprintf(why, len, "io_uring contract: %s",
			 zc_sender_stats(s)->violation);
		ret = -EPROTO;
	}
	zc_sender_close(s);
	return ret;
}

/* What the case's sink or receiver has seen, and what it must see. */
static void traffic_count(struct ctx *cx, const struct vrun *r,
			  uint64_t *have, uint64_t *want)
{
	switch (r->v->setup) {
	case SETUP_LOCAL:
	case SETUP_LOOPBACK:
		*have = r->rx_bytes;
		*want = r->v->type == SOCK_STREAM ? r->n * r->size : r->size;
		break;
	case SETUP_XDP:
		*have = cx->xdp->bss->pkts - r->xdp0;
		*want = r->n;
		break;
	default:
		*have = sink_pkts(cx) - r->sink0;
		*want = r->n;
		break;
	}
}

/*
 * Real traffic behind the verdicts: the sink, XDP or the receiver saw it.
 * A send can complete while its packets still sit in a NIC ring (or, when
 * it was copied, before they left at all): give them a moment.
 */
static bool traffic_seen(struct ctx *cx, struct vrun *r, char *what,
			 size_t len)
{
	double end = zc_now() + SETTLE_S;
	uint64_t have, want;

	for (;;) {
		receiver_drain(r);
		traffic_count(cx, r, &have, &want);
		if (have >= want || zc_now() >= end)
			break;
		usleep(1000);
	}
	if (r->v->setup == SETUP_LOCAL || r->v->setup == SETUP_LOOPBACK)
		snprintf(what, len, "receiver got %ld messages, %lld bytes",
			 r->rx_msgs, r->rx_bytes);
	else
		snprintf(what, len, "%s sink dropped %llu packets",
			 r->v->setup == SETUP_XDP ? "XDP" : "tc",
			 (unsigned long long)have);
	return have >= want;
}

static void summary(const struct zc_case *c, struct vrun *r, const char *traffic)
{
	const char *why;
	char w[200];

	if (witness_kind(&why)) {
		zc_witness_format(&r->wsum, w, sizeof(w));
		ktap_print_msg("%s: %ld sends of %zu B: kernel copied %ld, zero-copy %ld; %s, copy seen on %ld/%ld sends; %s",
			       c->name, r->n, r->size, r->copied, r->zc, w,
			       r->p.wit == WIT_PP_COW ? r->wit_cow_sends : r->wit_copy_sends,
			       r->n, traffic);
	} else {
		ktap_print_msg("%s: %ld sends of %zu B: kernel copied %ld, zero-copy %ld; no witness loaded (%s): kernel flag only; %s",
			       c->name, r->n, r->size, r->copied, r->zc, why,
			       traffic);
	}
	ktap_zcmode(c->name, r->zc, r->copied);
}

/* veth under XDP: a copy the kernel's flag does not report. */
static void judge_xdp(const struct zc_case *c, struct vrun *r)
{
	const char *why = "", *fn, *unit = "";

	fn = zc_witness_xdp_copy(&unit, &why);
	if (r->wit_bad) {
		ktap_fail(c->name, "%s: %s", c->name, r->first_bad);
	} else if (r->copied == r->n) {
		ktap_xpass(c->name, "kernel now reports veth's XDP copy: copied %ld/%ld, %s=%llu",
			   r->copied, r->n, fn ? fn : "not witnessed",
			   (unsigned long long)r->wsum.pp_cow);
	} else if (r->zc != r->n) {
		ktap_fail(c->name, "%s: mixed verdicts under XDP: copied %ld, zero-copy %ld",
			  c->name, r->copied, r->zc);
	} else if (fn) {
		ktap_xfail(c->name, "hidden copy: kernel reports zero-copy for %ld/%ld sends, witness %s saw %s=%llu %s on %ld/%ld",
			   r->zc, r->n, zc_witness_kind(NULL), fn,
			   (unsigned long long)r->wsum.pp_cow, unit,
			   r->wit_cow_sends, r->n);
	} else {
		ktap_xfail(c->name, "kernel reports zero-copy for %ld/%ld sends; veth copies every skb for XDP (%s) but the witness cannot count it: %s",
			   r->zc, r->n, VETH_XDP_COPY, why);
	}
}

/* A known deviation of this kernel: XFAIL as planned, XPASS if it is gone. */
static void judge_xfail(const struct zc_case *c, struct vrun *r)
{
	char w[200];

	zc_witness_format(&r->wsum, w, sizeof(w));
	if (r->wit_bad)
		ktap_fail(c->name, "%s: %s", c->name, r->first_bad);
	else if (!r->kern_bad)
		ktap_xfail(c->name, "%s; %s %ld/%ld sends, %s",
			   r->p.what, verdict_name(r->p.expect), r->n, r->n, w);
	else if (r->kern_bad == r->n)
		ktap_xpass(c->name, "%s %ld/%ld sends (%s) where this was expected: %s",
			   verdict_name(r->p.expect == ZC_VERDICT_COPIED ?
					 ZC_VERDICT_ZEROCOPY : ZC_VERDICT_COPIED),
			   r->n, r->n, w, r->p.what);
	else
		ktap_fail(c->name, "%s: %ld kernel mismatches of %ld sends; first: %s",
			  c->name, r->kern_bad, r->n, r->first_bad);
}

/*
 * Without BPF (a user namespace) there is no tc sink and no witness: the
 * cases with their own receiver still run, on the kernel's flag alone.
 */
static bool case_runnable(const struct zc_case *c, struct ctx *cx,
			  const struct vcase *v)
{
	bool own_rx = v->setup == SETUP_LOCAL || v->setup == SETUP_LOOPBACK;

	if (zc_send_mode_uring(v->mode) && cx->uring_skip[0]) {
		ktap_skip(c->name, "%s", cx->uring_skip);
		return false;
	}
	if (!own_rx && cx->bpf_skip[0]) {
		ktap_skip(c->name, "needs the tc drop sink%s: %s",
			  v->setup == SETUP_XDP ? " and an XDP program" : "",
			  cx->bpf_skip);
		return false;
	}
	return true;
}

/* ---- what each case expects, by topology and kernel ---- */

static void plan_set(struct plan *p, int expect, bool xfail, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void plan_set(struct plan *p, int expect, bool xfail, const char *fmt, ...)
{
	va_list ap;

	p->expect = expect;
	p->xfail = xfail;
	va_start(ap, fmt);
	vsnprintf(p->what, sizeof(p->what), fmt, ap);
	va_end(ap);
}

/*
 * A tap in a namespace the copying path does not belong to: no copy with
 * per-namespace tap lists, a copy (this kernel's known deviation) without.
 */
static bool plan_foreign_tap(const struct ctx *cx, struct plan *p,
			     const char *path)
{
	if (cx->netns_taps < 0) {
		snprintf(p->skip, sizeof(p->skip),
			 "cannot tell whether packet taps are per namespace: no vmlinux BTF to look for struct net.ptype_all (%s)",
			 strerror(-cx->netns_taps));
		return false;
	}
	if (cx->netns_taps)
		return false;
	plan_set(p, ZC_VERDICT_COPIED, true,
		 "copied by a tap in another namespace: %s, so %s -> skb_orphan_frags_rx -> skb_copy_ubufs, before af_packet drops it as foreign",
		 GLOBAL_TAPS, path);
	return true;
}

static void plan_veth(const struct ctx *cx, const struct vcase *v,
		      struct plan *p)
{
	const char *fn = zc_witness_xdp_copy(NULL, NULL);

	switch (v->setup) {
	case SETUP_TAP_IGNORE:
		if (!plan_foreign_tap(cx, p, "veth's receive in the receiving namespace (__netif_receive_skb_core -> deliver_skb)"))
			plan_set(p, ZC_VERDICT_ZEROCOPY, false,
				 "tap with PACKET_IGNORE_OUTGOING in the sender namespace: skipped on transmit, and veth's receive in the other namespace does not see it (per-namespace taps): zero-copy");
		break;
	case SETUP_TAP_B:
		if (cx->netns_taps == 0)
			plan_set(p, ZC_VERDICT_COPIED, false,
				 "ETH_P_ALL tap in the receiving namespace: %s, so already dev_queue_xmit_nit in the sender namespace copies (skb_copy_ubufs)",
				 GLOBAL_TAPS);
		break;
	case SETUP_XDP:
		plan_set(p, ZC_VERDICT_ZEROCOPY, false,
			 "XDP_DROP on the receiving veth: veth copies every skb (%s), the kernel's flag says zero-copy",
			 fn ? fn : VETH_XDP_COPY);
		break;
	default:
		break;
	}
}

/*
 * A real device pair: the sender's skb ends in its driver at TX
 * completion, the receiver gets the receiving device's own skb.
 */
static void plan_pair(const struct ctx *cx, const struct vcase *v,
		      struct plan *p)
{
	const char *a = cx->t.a.ifname, *b = cx->t.b.ifname;

	switch (v->setup) {
	case SETUP_NONE:
		plan_set(p, ZC_VERDICT_ZEROCOPY, false,
			 "the sender's skb leaves through %s (%s) and is freed at TX completion, tc drops the frame as %s receives it: zero-copy",
			 a, cx->drv_a, b);
		break;
	case SETUP_TAP_A_DEV:
		plan_set(p, ZC_VERDICT_COPIED, false,
			 "ETH_P_ALL tap bound to the egress device %s (%s): dev_queue_xmit_nit -> skb_copy_ubufs",
			 a, cx->drv_a);
		break;
	case SETUP_TAP_B:
		if (!plan_foreign_tap(cx, p, "dev_queue_xmit_nit on the sender's device"))
			plan_set(p, ZC_VERDICT_ZEROCOPY, false,
				 "ETH_P_ALL tap in the receiving namespace sees only %s's own skbs (per-namespace taps): zero-copy",
				 b);
		break;
	case SETUP_TAP_IGNORE:
		plan_set(p, ZC_VERDICT_ZEROCOPY, false,
			 "tap with PACKET_IGNORE_OUTGOING: skipped on transmit, and on receive it sees %s's own skbs: zero-copy",
			 b);
		break;
	case SETUP_LOCAL:
		plan_set(p, ZC_VERDICT_ZEROCOPY, false,
			 "%s to a socket bound in the receiving namespace: it gets %s's (%s) own skb, the sender's is freed at TX completion: zero-copy",
			 v->type == SOCK_STREAM ? "TCP" : "UDP", b, cx->drv_b);
		break;
	case SETUP_XDP:
		p->wit = WIT_COPY_UBUFS;
		plan_set(p, ZC_VERDICT_ZEROCOPY, false,
			 "XDP_DROP on the receiving device %s (%s) drops its own buffers, the sender's skb is untouched: zero-copy",
			 b, cx->drv_b);
		break;
	default:
		break;
	}
}

static void plan_case(const struct ctx *cx, const struct vcase *v,
		      struct plan *p)
{
	memset(p, 0, sizeof(*p));
	p->expect = v->expect;
	p->wit = v->wit;
	snprintf(p->what, sizeof(p->what), "%s", v->what);
	if (cx->t.real_pair)
		plan_pair(cx, v, p);
	else
		plan_veth(cx, v, p);
}

/*
 * A case that did not go as planned, with a cause outside the kernel
 * (zc_env_copy_cause: a foreign tap that applies on this kernel, an
 * offload the device lacks): the environment explains the copy, so the
 * case cannot judge the kernel. Without such a cause it still fails.
 */
static int env_cause(struct ctx *cx, char *why, size_t len)
{
	struct zc_why w;
	int ret = zc_env_copy_cause(&cx->t, &w);

	if (ret)
		snprintf(why, len, "%s", w.msg);
	return ret;
}

static bool env_explains(const struct zc_case *c, struct ctx *cx)
{
	struct zc_why why;

	if (!zc_env_copy_cause(&cx->t, &why))
		return false;
	ktap_skip(c->name, "%s", why.msg);
	return true;
}

static void case_verdict(const struct zc_case *c, void *arg)
{
	const struct vcase *v = c->arg;
	struct ctx *cx = arg;
	struct vrun r = { .v = v, .fd = -1, .rx_fd = -1, .tap_fd = -1 };
	char why[256] = "", traffic[128];
	bool seen;
	int ret;

	diag_once(cx);
	if (!case_runnable(c, cx, v))
		return;
	plan_case(cx, v, &r.p);
	if (r.p.skip[0]) {
		ktap_skip(c->name, "%s", r.p.skip);
		return;
	}
	r.size = case_size(cx, v);
	ret = vrun_setup(cx, &r, why, sizeof(why));
	if (ret) {
		vrun_teardown(cx, &r);
		if (v->setup == SETUP_XDP && (ret == -EOPNOTSUPP || ret == -EINVAL))
			ktap_skip(c->name, "%s", why);
		else
			ktap_fail(c->name, "%s: %s", c->name, why);
		return;
	}
	ret = run_sends(cx, &r, why, sizeof(why));
	seen = traffic_seen(cx, &r, traffic, sizeof(traffic));
	vrun_teardown(cx, &r);
	if (ret) {
		ktap_fail(c->name, "%s: %s", c->name, why);
		return;
	}
	summary(c, &r, traffic);
	ktap_print_msg("%s: %s", c->name, r.p.what);
	if (!seen) {
		ktap_fail(c->name, "%s: no real traffic behind the verdicts: %s",
			  c->name, traffic);
		return;
	}
	if ((r.kern_bad || r.wit_bad || (r.p.wit == WIT_PP_COW && r.copied)) &&
	    env_explains(c, cx))
		return;
	if (r.p.wit == WIT_PP_COW) {
		judge_xdp(c, &r);
		return;
	}
	if (r.p.xfail) {
		judge_xfail(c, &r);
		return;
	}
	ktap_result(c->name, !r.kern_bad && !r.wit_bad, "%s: %ld kernel mismatches, %ld witness disagreements; first: %s",
		    c->name, r.kern_bad, r.wit_bad, r.first_bad);
}

/* ---- tap listing against taps we open ---- */

static const struct zc_tap *find_tap(const struct zc_tap *taps, int n, int fd)
{
	char path[64], link[64];
	unsigned long ino;
	ssize_t l;
	int i;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	l = readlink(path, link, sizeof(link) - 1);
	if (l <= 0)
		return NULL;
	link[l] = '\0';
	if (sscanf(link, "socket:[%lu]", &ino) != 1)
		return NULL;
	for (i = 0; i < n; i++)
		if (taps[i].inode == ino)
			return &taps[i];
	return NULL;
}

struct tap_want {
	enum setup setup;
	bool copies_tx;
	int ignore_outgoing;
};

static bool check_tap(const struct zc_tap *t, const struct tap_want *w,
		      int ifindex, char *why, size_t len)
{
	char line[320];

	if (!t) {
		snprintf(why, len, "tap of setup %d not listed", w->setup);
		return false;
	}
	zc_tap_format(t, line, sizeof(line));
	ktap_print_msg("%s", line);
	if (t->pid != getpid() || t->ignore_outgoing != w->ignore_outgoing ||
	    t->copies_tx != w->copies_tx || t->ifindex != ifindex ||
	    t->proto != 0x0003 || !t->running) {
		snprintf(why, len, "wrong listing: %s", line);
		return false;
	}
	return true;
}

static void case_list_taps(const struct zc_case *c, void *arg)
{
	static const struct tap_want wants[] = {
		{ SETUP_TAP_A, true, 0 },
		{ SETUP_TAP_A_DEV, true, 0 },
		{ SETUP_TAP_IGNORE, false, 1 },
		{ SETUP_TAP_OTHER_DEV, true, 0 },
	};
	struct ctx *cx = arg;
	int fds[ZC_ARRAY_SIZE(wants)], n, i, ifindex;
	struct zc_tap taps[32];
	char why[400] = "";
	bool ok = true;

	diag_once(cx);
	for (i = 0; i < (int)ZC_ARRAY_SIZE(wants); i++)
		fds[i] = tap_for(cx, wants[i].setup);
	n = zc_taps_list(cx->t.a.nsfd, taps, ZC_ARRAY_SIZE(taps));
	if (n < 0)
		snprintf(why, sizeof(why), "list: %s", strerror(-n));
	for (i = 0; n >= 0 && i < (int)ZC_ARRAY_SIZE(wants); i++) {
		if (fds[i] < 0) {
			snprintf(why, sizeof(why), "open tap: %s", strerror(-fds[i]));
			ok = false;
			break;
		}
		ifindex = wants[i].setup == SETUP_TAP_A_DEV ? cx->t.a.ifindex :
			  wants[i].setup == SETUP_TAP_OTHER_DEV ? 1 : 0;
		if (!check_tap(find_tap(taps, n, fds[i]), &wants[i], ifindex,
			       why, sizeof(why)))
			ok = false;
	}
	/* The topology's own namespaces start with no tap at all. */
	if (ok && n != (int)ZC_ARRAY_SIZE(wants) + (cx->t.inject_tap_fd >= 0)) {
		snprintf(why, sizeof(why), "%d packet sockets listed, opened %zu",
			 n, ZC_ARRAY_SIZE(wants));
		ok = false;
	}
	for (i = 0; i < (int)ZC_ARRAY_SIZE(wants); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	ktap_result(c->name, n >= 0 && ok, "%s: %s", c->name, why);
}

/* ---- rates ---- */

static void rate_config(struct ctx *cx, const struct rcase *rc,
			struct zc_sender *s, const char *prefix)
{
	ktap_print_msg("config: %s: %s, udp4 %zu B per send, depth %u%s, ring %s, cpu tx %d (rx: softirq on the sending CPU), %s %s (%s) -> %s (%s), mtu %d, %.2f s x %d after %.1f s warmup, sink tc clsact ingress drop, tap ETH_P_ALL unbound in the sender namespace for .tap, witness paused, kernel %s",
		       prefix, zc_send_mode_name(rc->mode), udp_size(cx, AF_INET),
		       rc->depth,
		       zc_send_mode_uring(rc->mode) && zc_send_mode_zerocopy(rc->mode) ?
		       ", report_usage" : "",
		       zc_send_mode_uring(rc->mode) ? zc_sender_ring_desc(s) : "none",
		       cx->o.cpu_tx, cx->t.real_pair ? "ZC_PAIR" : "veth",
		       cx->t.a.ifname, cx->drv_a, cx->t.b.ifname, cx->drv_b,
		       cx->t.mtu, cx->o.duration, cx->o.repeat,
		       WARMUP_S, zc_kernel_release());
}

/* One arm of the paired rate: with or without the tap. */
struct arm {
	struct ctx *cx;
	struct zc_sender *s;
	int fd, tap_fd;
	bool tap;
	char prefix[128];
};

static int arm_step(void *arg, uint64_t *bytes, uint64_t *pkts)
{
	struct arm *a = arg;

	return zc_sender_step(a->s, bytes, pkts);
}

/* The tap exists only while its arm runs: the other arm sends untapped. */
static int arm_begin(void *arg)
{
	struct arm *a = arg;

	if (!a->tap)
		return 0;
	a->tap_fd = tap_for(a->cx, SETUP_TAP_A);
	return a->tap_fd < 0 ? a->tap_fd : 0;
}

/* Every send of this arm completes before the tap opens or closes. */
static int arm_end(void *arg)
{
	struct arm *a = arg;
	int ret = zc_sender_flush(a->s, VERDICT_S, 0);

	if (a->tap_fd >= 0)
		close(a->tap_fd);
	a->tap_fd = -1;
	return ret;
}

static int arm_open(struct ctx *cx, const struct rcase *rc, bool tap,
		    struct arm *a)
{
	struct zc_sender_cfg cfg = { .mode = rc->mode, .size = udp_size(cx, AF_INET),
				     .depth = rc->depth, .report_usage = true };
	int ret, err = 0;

	memset(a, 0, sizeof(*a));
	a->cx = cx;
	a->tap = tap;
	a->tap_fd = -1;
	snprintf(a->prefix, sizeof(a->prefix), NAME ".udp4.%s.%s", rc->label,
		 tap ? "tap" : "notap");
	cfg.fd = a->fd = zc_socket_in(cx->t.a.nsfd, AF_INET,
				      SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ret = cfg.fd < 0 ? cfg.fd :
	      connect_to(cfg.fd, AF_INET, &cx->t.b.addr4, SINK_PORT);
	if (!ret) {
		a->s = zc_sender_open(&cfg, &err);
		ret = a->s ? 0 : err;
	}
	return ret;
}

static void arm_close(struct arm *a)
{
	if (a->s)
		zc_sender_close(a->s);
	if (a->tap_fd >= 0)
		close(a->tap_fd);
	if (a->fd >= 0)
		close(a->fd);
}

static void arm_report(struct ctx *cx, const struct rcase *rc, struct arm *a,
		       const struct zc_rate *rate)
{
	const struct zc_send_stats *st = zc_sender_stats(a->s);

	zc_report_rate(a->prefix, rate, false);
	if (zc_send_mode_zerocopy(rc->mode))
		ktap_zcmode(a->prefix, st->zerocopy, st->copied);
	else
		ktap_zcmode(a->prefix, 0, st->completed);
	rate_config(cx, rc, a->s, a->prefix);
}

/*
 * Without and with the tap, in alternation repeat by repeat: each repeat
 * gives one tap_ratio sample from two measurements seconds apart.
 */
static int measure(struct ctx *cx, const struct rcase *rc,
		   struct zc_stats *ratio, char *why, size_t len)
{
	struct zc_meter_cfg mc = { .duration = cx->o.duration,
				   .warmup = WARMUP_S, .repeat = cx->o.repeat };
	struct arm a[2];
	struct zc_arm arm[2] = {
		{ arm_step, &a[0], arm_begin, arm_end },
		{ arm_step, &a[1], arm_begin, arm_end },
	};
	struct zc_rate rate[2];
	uint64_t sink0 = sink_pkts(cx);
	int ret = arm_open(cx, rc, false, &a[0]);

	if (!ret)
		ret = arm_open(cx, rc, true, &a[1]);
	if (!ret)
		ret = zc_measure_pair(&mc, arm, rate, ratio, false);
	if (ret) {
		snprintf(why, len, "%s: %s", a[1].prefix, strerror(-ret));
	} else if (sink_pkts(cx) == sink0) {
		snprintf(why, len, "%s: the sink saw no packets", a[1].prefix);
		ret = -EIO;
	} else if (zc_send_mode_zerocopy(rc->mode) &&
		   zc_sender_stats(a[0].s)->copied &&
		   env_cause(cx, why, len)) {
		/* No zcmode line: the copy is not the kernel's to judge. */
		ret = 1;
	} else {
		arm_report(cx, rc, &a[0], &rate[0]);
		arm_report(cx, rc, &a[1], &rate[1]);
	}
	arm_close(&a[0]);
	arm_close(&a[1]);
	return ret;
}

static void case_rate(const struct zc_case *c, void *arg)
{
	const struct rcase *rc = c->arg;
	struct zc_stats ratio;
	struct ctx *cx = arg;
	char why[512], name[128];
	int ret;

	diag_once(cx);
	if (zc_send_mode_uring(rc->mode) && cx->uring_skip[0]) {
		ktap_skip(c->name, "%s", cx->uring_skip);
		return;
	}
	if (cx->bpf_skip[0]) {
		ktap_skip(c->name, "needs the tc drop sink: %s", cx->bpf_skip);
		return;
	}
	/* A stack walk per page allocation would be measured too. */
	zc_witness_enable(false);
	ret = measure(cx, rc, &ratio, why, sizeof(why));
	zc_witness_enable(true);
	if (ret > 0) {
		ktap_skip(c->name, "%s", why);
		return;
	}
	if (ret) {
		ktap_fail(c->name, "%s", why);
		return;
	}
	snprintf(name, sizeof(name), NAME ".udp4.%s.tap_ratio", rc->label);
	ktap_metric(name, &ratio, "ratio");
	ktap_pass(c->name);
}

/* ---- case table ---- */

#define MZ	ZC_MODE_MSG_ZEROCOPY
#define SZ	ZC_MODE_SEND_ZC
#define ZC	ZC_VERDICT_ZEROCOPY
#define CP	ZC_VERDICT_COPIED

#define VC(id, fam, type, mode, setup, expect, wit, what)		\
	static const struct vcase vc_##id = {				\
		fam, type, mode, setup, expect, wit, what }

#define NOTAP_WHY	"tc drop at the receiving veth frees the skb untouched: zero-copy"
#define TAPA_WHY	"ETH_P_ALL tap in the sender namespace: dev_queue_xmit_nit -> skb_copy_ubufs"
#define TAPDEV_WHY	"ETH_P_ALL tap bound to the egress veth: dev_queue_xmit_nit -> skb_copy_ubufs"
#define TAPB_WHY	"ETH_P_ALL tap in the receiving namespace: __netif_receive_skb_core -> skb_copy_ubufs before tc"
#define IGN_WHY		"tap with PACKET_IGNORE_OUTGOING: skipped on transmit, zero-copy"
#define OTHER_WHY	"tap bound to lo: not on the egress path, zero-copy"
#define TOGGLE_WHY	"tap opened/closed between sends (" TOGGLE_PATTERN "): verdicts follow per send"
#define LOCAL_WHY	"delivery to a socket bound in the receiving namespace: skb_orphan_frags_rx copies"
#define LOOP_WHY	"delivery over loopback to a local socket: skb_orphan_frags_rx copies"
#define FRAG_WHY	"datagram above MTU-28 is fragmented: copied at send, no zero-copy attempted, no fallback copy"
#define XDP_WHY		"XDP_DROP on the receiving veth: veth copies (skb_pp_cow_data), the kernel's flag says zero-copy"

VC(u4_mz_notap, AF_INET, SOCK_DGRAM, MZ, SETUP_NONE, ZC, WIT_COPY_UBUFS, NOTAP_WHY);
VC(u4_sz_notap, AF_INET, SOCK_DGRAM, SZ, SETUP_NONE, ZC, WIT_COPY_UBUFS, NOTAP_WHY);
VC(u4_mz_tap_a, AF_INET, SOCK_DGRAM, MZ, SETUP_TAP_A, CP, WIT_COPY_UBUFS, TAPA_WHY);
VC(u4_sz_tap_a, AF_INET, SOCK_DGRAM, SZ, SETUP_TAP_A, CP, WIT_COPY_UBUFS, TAPA_WHY);
VC(u4_mz_tap_dev, AF_INET, SOCK_DGRAM, MZ, SETUP_TAP_A_DEV, CP, WIT_COPY_UBUFS, TAPDEV_WHY);
VC(u4_sz_tap_dev, AF_INET, SOCK_DGRAM, SZ, SETUP_TAP_A_DEV, CP, WIT_COPY_UBUFS, TAPDEV_WHY);
VC(u4_mz_tap_b, AF_INET, SOCK_DGRAM, MZ, SETUP_TAP_B, CP, WIT_COPY_UBUFS, TAPB_WHY);
VC(u4_sz_tap_b, AF_INET, SOCK_DGRAM, SZ, SETUP_TAP_B, CP, WIT_COPY_UBUFS, TAPB_WHY);
VC(u4_mz_tap_ign, AF_INET, SOCK_DGRAM, MZ, SETUP_TAP_IGNORE, ZC, WIT_COPY_UBUFS, IGN_WHY);
VC(u4_sz_tap_ign, AF_INET, SOCK_DGRAM, SZ, SETUP_TAP_IGNORE, ZC, WIT_COPY_UBUFS, IGN_WHY);
VC(u4_mz_tap_other, AF_INET, SOCK_DGRAM, MZ, SETUP_TAP_OTHER_DEV, ZC, WIT_COPY_UBUFS, OTHER_WHY);
VC(u4_sz_tap_other, AF_INET, SOCK_DGRAM, SZ, SETUP_TAP_OTHER_DEV, ZC, WIT_COPY_UBUFS, OTHER_WHY);
VC(u4_mz_toggle, AF_INET, SOCK_DGRAM, MZ, SETUP_TOGGLE, ZC, WIT_COPY_UBUFS, TOGGLE_WHY);
VC(u4_sz_toggle, AF_INET, SOCK_DGRAM, SZ, SETUP_TOGGLE, ZC, WIT_COPY_UBUFS, TOGGLE_WHY);
VC(u4_mz_local, AF_INET, SOCK_DGRAM, MZ, SETUP_LOCAL, CP, WIT_COPY_UBUFS, LOCAL_WHY);
VC(u4_sz_local, AF_INET, SOCK_DGRAM, SZ, SETUP_LOCAL, CP, WIT_COPY_UBUFS, LOCAL_WHY);
VC(u4_mz_loop, AF_INET, SOCK_DGRAM, MZ, SETUP_LOOPBACK, CP, WIT_COPY_UBUFS, LOOP_WHY);
VC(u4_sz_loop, AF_INET, SOCK_DGRAM, SZ, SETUP_LOOPBACK, CP, WIT_COPY_UBUFS, LOOP_WHY);
VC(u4_mz_frag, AF_INET, SOCK_DGRAM, MZ, SETUP_FRAG, CP, WIT_NOTHING, FRAG_WHY);
VC(u4_sz_frag, AF_INET, SOCK_DGRAM, SZ, SETUP_FRAG, CP, WIT_NOTHING, FRAG_WHY);
VC(u4_mz_xdp, AF_INET, SOCK_DGRAM, MZ, SETUP_XDP, ZC, WIT_PP_COW, XDP_WHY);
VC(u4_sz_xdp, AF_INET, SOCK_DGRAM, SZ, SETUP_XDP, ZC, WIT_PP_COW, XDP_WHY);
VC(u6_mz_notap, AF_INET6, SOCK_DGRAM, MZ, SETUP_NONE, ZC, WIT_COPY_UBUFS, NOTAP_WHY);
VC(u6_sz_notap, AF_INET6, SOCK_DGRAM, SZ, SETUP_NONE, ZC, WIT_COPY_UBUFS, NOTAP_WHY);
VC(u6_mz_tap_a, AF_INET6, SOCK_DGRAM, MZ, SETUP_TAP_A, CP, WIT_COPY_UBUFS, TAPA_WHY);
VC(u6_sz_tap_a, AF_INET6, SOCK_DGRAM, SZ, SETUP_TAP_A, CP, WIT_COPY_UBUFS, TAPA_WHY);
VC(t4_mz_local, AF_INET, SOCK_STREAM, MZ, SETUP_LOCAL, CP, WIT_COPY_UBUFS,
   "TCP to a receiver in the peer namespace: local delivery copies");
VC(t4_sz_local, AF_INET, SOCK_STREAM, SZ, SETUP_LOCAL, CP, WIT_COPY_UBUFS,
   "TCP to a receiver in the peer namespace: local delivery copies");

static const struct rcase rate_send = { ZC_MODE_SEND, "send", 1 };
static const struct rcase rate_msgzc = { ZC_MODE_MSG_ZEROCOPY, "msgzc", RATE_DEPTH };
static const struct rcase rate_sendzc = { ZC_MODE_SEND_ZC, "sendzc", RATE_DEPTH };
static const struct rcase rate_fixed = { ZC_MODE_SEND_ZC_FIXED, "sendzc_fixed", RATE_DEPTH };

#define V(name, id)	{ name, case_verdict, &vc_##id }
static const struct zc_case cases[] = {
	{ "taps.list", case_list_taps, NULL },
	V("udp4.msgzc.notap", u4_mz_notap),
	V("udp4.sendzc.notap", u4_sz_notap),
	V("udp4.msgzc.tap_sender_ns", u4_mz_tap_a),
	V("udp4.sendzc.tap_sender_ns", u4_sz_tap_a),
	V("udp4.msgzc.tap_egress_dev", u4_mz_tap_dev),
	V("udp4.sendzc.tap_egress_dev", u4_sz_tap_dev),
	V("udp4.msgzc.tap_receiver_ns", u4_mz_tap_b),
	V("udp4.sendzc.tap_receiver_ns", u4_sz_tap_b),
	V("udp4.msgzc.tap_ignore_outgoing", u4_mz_tap_ign),
	V("udp4.sendzc.tap_ignore_outgoing", u4_sz_tap_ign),
	V("udp4.msgzc.tap_other_dev", u4_mz_tap_other),
	V("udp4.sendzc.tap_other_dev", u4_sz_tap_other),
	V("udp4.msgzc.tap_toggle", u4_mz_toggle),
	V("udp4.sendzc.tap_toggle", u4_sz_toggle),
	V("udp4.msgzc.local_bound", u4_mz_local),
	V("udp4.sendzc.local_bound", u4_sz_local),
	V("udp4.msgzc.loopback", u4_mz_loop),
	V("udp4.sendzc.loopback", u4_sz_loop),
	V("udp4.msgzc.fragmented", u4_mz_frag),
	V("udp4.sendzc.fragmented", u4_sz_frag),
	V("udp4.msgzc.xdp_hidden_copy", u4_mz_xdp),
	V("udp4.sendzc.xdp_hidden_copy", u4_sz_xdp),
	V("udp6.msgzc.notap", u6_mz_notap),
	V("udp6.sendzc.notap", u6_sz_notap),
	V("udp6.msgzc.tap_sender_ns", u6_mz_tap_a),
	V("udp6.sendzc.tap_sender_ns", u6_sz_tap_a),
	V("tcp4.msgzc.local", t4_mz_local),
	V("tcp4.sendzc.local", t4_sz_local),
	{ "rate.send", case_rate, &rate_send },
	{ "rate.msgzc", case_rate, &rate_msgzc },
	{ "rate.sendzc", case_rate, &rate_sendzc },
	{ "rate.sendzc_fixed", case_rate, &rate_fixed },
};

/* ---- setup ---- */

static int prereqs(struct zc_why *why)
{
	static const cap_value_t caps[] = { CAP_SYS_ADMIN, CAP_NET_ADMIN,
					    CAP_NET_RAW };
	static const char *const config[] = {
		"CONFIG_PACKET", "CONFIG_VETH", "CONFIG_NET_SCH_INGRESS",
		"CONFIG_NET_CLS_BPF", "CONFIG_BPF_SYSCALL",
	};

	if (zc_require_caps(why, caps, ZC_ARRAY_SIZE(caps)) ||
	    zc_require_bpf_caps(why) ||
	    zc_require_config(why, config, ZC_ARRAY_SIZE(config)))
		return -1;
	return 0;
}


struct drv_args {
	int ifindex;
	char *buf;
	size_t len;
};

static int driver_in_ns(void *arg)
{
	struct drv_args *d = arg;

	return zc_netdev_driver(d->ifindex, d->buf, d->len);
}

static void side_driver(const struct zc_side *s, char *buf, size_t len)
{
	struct drv_args d = { s->ifindex, buf, len };

	if (zc_netns_run(s->nsfd, driver_in_ns, &d))
		snprintf(buf, len, "driver unknown");
}

/*
 * What the expectations depend on: the devices, and whether unbound
 * packet taps are per namespace. That came with struct net's own
 * ptype_all list (6.15); BTF shows it whatever the release number says.
 */
static void probe_topology(struct ctx *cx)
{
	side_driver(&cx->t.a, cx->drv_a, sizeof(cx->drv_a));
	side_driver(&cx->t.b, cx->drv_b, sizeof(cx->drv_b));
	cx->netns_taps = zc_btf_has_member("net", "ptype_all");
}

static int sink_attach(struct ctx *cx, char *why, size_t len)
{
	int ret;

	cx->sink = tc_drop__open_and_load();
	if (!cx->sink) {
		snprintf(why, len, "load tc drop program: %s", strerror(errno));
		return -errno;
	}
	cx->sink->bss->drop_port = SINK_PORT;
	ret = zc_tc_attach(cx->t.b.nsfd, cx->t.b.ifindex,
			   bpf_program__fd(cx->sink->progs.zc_tc_drop), true);
	if (ret)
		snprintf(why, len, "attach tc drop at clsact ingress: %s",
			 strerror(-ret));
	return ret;
}

int main(int argc, char **argv)
{
	static struct ctx cx;
	struct zc_why why = { "" };
	char reason[256];
	int ret;

	zc_opts_parse_or_exit(&cx.o, argc, argv, &desc, NULL);
	if (opt_netns && !opt_list_taps) {
		fprintf(stderr, "%s: --netns goes with --list-taps\n", NAME);
		return KSFT_FAIL;
	}
	if (opt_list_taps)
		return list_taps();
	if (cx.o.list) {
		zc_list_cases(cases, ZC_ARRAY_SIZE(cases), &cx.o);
		return KSFT_PASS;
	}
	cx.sends = opt_sends;
	if (prereqs(&why))
		return zc_skip_cases(cases, ZC_ARRAY_SIZE(cases), &cx.o, "%s", why.msg);
	zc_raise_limits();
	if (zc_probe_uring(&why))
		snprintf(cx.uring_skip, sizeof(cx.uring_skip), "%s", why.msg);
	if (zc_probe_bpf(&why))
		snprintf(cx.bpf_skip, sizeof(cx.bpf_skip), "%s", why.msg);
	if (zc_topo_setup(&cx.t, TOPO_MTU, &why))
		ktap_exit_fail_msg("%s: topology: %s", NAME, why.msg);
	if (!cx.bpf_skip[0] && sink_attach(&cx, reason, sizeof(reason)))
		ktap_exit_fail_msg("%s: %s", NAME, reason);
	probe_topology(&cx);
	/* No witness is not a skip: every case still asserts the kernel flag. */
	if (!opt_no_witness && !cx.bpf_skip[0])
		zc_witness_open(&why);
	if (cx.bpf_skip[0])
		ktap_print_msg("no BPF: no tc sink, no copy witness; only cases with their own receiver run (%s)",
			       cx.bpf_skip);
	ret = zc_pin_cpu(cx.o.cpu_tx);
	if (ret)
		ktap_exit_fail_msg("%s: pin to CPU %d: %s", NAME, cx.o.cpu_tx,
				   strerror(-ret));
	ret = zc_run_cases(cases, ZC_ARRAY_SIZE(cases), &cx.o, &cx);
	zc_witness_close();
	if (cx.xdp)
		tap_copy__destroy(cx.xdp);
	if (cx.sink)
		tc_drop__destroy(cx.sink);
	zc_topo_teardown(&cx.t);
	return ret;
}
