// SPDX-License-Identifier: GPL-2.0
/*
 * Path 2: the skb_copy_ubufs fallback under a packet tap.
 *
 * A zero-copy send (MSG_ZEROCOPY, io_uring SEND_ZC) is silently turned
 * into a copy when an AF_PACKET socket sees the packet on its way out
 * (dev_queue_xmit_nit -> skb_orphan_frags_rx -> skb_copy_ubufs): tcpdump,
 * lldpd or a monitoring agent costs every zero-copy sender its zero-copy.
 *
 * Topology (lib/send/sink.h): two fd-held namespaces joined by veth, a sends
 * to b, b drops UDP to SINK_PORT at tc clsact ingress (nothing copies
 * there). Every verdict case sends one datagram at a time, takes the
 * kernel's per-send verdict (MSG_ZEROCOPY completion code, SEND_ZC
 * notification with REPORT_USAGE) and checks it against the copy witness
 * (lib/net/witness.h), a BPF observer of skb_copy_ubufs / veth's XDP copy in
 * this process: the sends, the report and the judgement are below. The
 * rate cases measure what the tap costs: two arms interleaved, the second
 * with a packet tap open while it runs, through lib/send's senders (the
 * ones sendzc_notif's rates use); the kernel's report on their sends is
 * each arm's zcmode line.
 *
 * With ZC_PAIR, two real devices cabled to each other replace veth. The
 * receiver then gets the receiving device's own skb, never the sender's:
 * only what happens before the sender's driver can copy. And the scope of
 * an unbound packet tap depends on the kernel: before per-namespace tap
 * lists (struct net.ptype_all, 6.15) every namespace's taps see every
 * device's packets, and skb_orphan_frags_rx copies before af_packet drops
 * them for the foreign namespace. Each row says what it expects on either
 * topology, and where a foreign tap sees its packets.
 *
 * `tap_copy --list-taps [--netns PATH]` is the diagnosis mode: which packet
 * sockets would make a zero-copy sender copy, and who owns them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/errqueue.h>
#include <linux/if_link.h>
#include <bpf/libbpf.h>
#include <liburing.h>

#include "core/clock.h"
#include "core/compat.h"
#include "core/meter.h"
#include "send/env.h"
#include "tap_copy/rxpair.h"
#include "tap_copy/side_dev.h"
#include "core/probe.h"
#include "core/matrix.h"
#include "send/sink.h"
#include "send/sock.h"
#include "net/taps.h"
#include "tap_copy/tapspec.h"
#include "send/uring.h"
#include "core/util.h"
#include "net/witness.h"
#include "send/zcsend.h"
#include "tap_copy.skel.h"

#define TEST_NAME		"tap_copy"
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
#define RATE_DEPTH	8
/* Tap open (1) or closed (0) around each send of the toggle case. */
#define TOGGLE_PATTERN	"0110100111010001"
/* Why a tap in another namespace copies on kernels before 6.15. */
#define GLOBAL_TAPS	"no per-namespace tap lists on this kernel (no struct net.ptype_all in BTF; 6.15, \"net: introduce per netns packet chains\")"
/* Where veth copies for XDP, when the witness cannot say. */
#define VETH_XDP_COPY	"skb_pp_cow_data on 6.8+, veth_xdp_rcv_skb before"

/* Where the sends go; a packet tap on the way is the row's tap column. */
enum setup {
	SETUP_SINK,		/* tc drop at b's ingress */
	SETUP_LOCAL,		/* receiver bound in b, no drop */
	SETUP_LOOPBACK,		/* receiver on 127.0.0.1 in a */
	SETUP_FRAG,		/* datagram above the MTU, to the sink */
	SETUP_XDP,		/* XDP_DROP on b instead of tc */
};

/*
 * What the witness must see on a copied send (not the witness's own kinds,
 * bpf/witness_abi.h's enum zc_wit_kind: those are what it counts).
 */
enum seen {
	SEE_COPY_UBUFS,		/* the fallback copy: skb_copy_ubufs */
	SEE_NO_COPY,		/* copied before zero-copy was tried */
	SEE_XDP_COPY,		/* veth XDP: skb_pp_cow_data on every send */
};

/* What a case expects on one topology. */
struct expect {
	int verdict;			/* ZC_VERDICT_* every send must get */
	enum seen wit;
	const char *what;		/* one line: why this verdict */
	/*
	 * A known kernel deviation from verdict on this topology: the cause
	 * pre_verdict gives the runner for an expected failure.
	 */
	const char *xfail;
	/*
	 * The row's tap is in a namespace this path does not belong to, and
	 * this is where it sees the packet: with one global tap list (before
	 * 6.15) every send is copied, a known deviation pre_verdict expects
	 * (XFAIL); with the tap lists' scope unknown: SKIP.
	 */
	const char *foreign;
};

/*
 * A way a send can go, declared once: how its case is set up, what that
 * gives over veth and a ZC_PAIR, and the case name's part.
 */
struct way {
	enum setup setup;
	struct zc_tap_spec tap;		/* the tap open during the sends */
	const char *toggle;		/* or opened ('1')/closed per send, cycling */
	struct expect veth, pair;
	const char *name;
};

struct ctx {
	struct zc_opts o;
	struct zc_sink sink;
	struct tap_copy *xdp;
	/* options */
	bool list_taps, no_witness;
	const char *netns;
	long sends;
	bool diag_done;
	struct zc_sink_feat feat;	/* io_uring SEND_ZC, BPF for the sink */
	/* 1: struct net.ptype_all (per-namespace taps), 0: global, <0: no BTF */
	int netns_taps;
	char drv_a[32], drv_b[32];	/* the devices' drivers ("veth", "e1000e") */
};

/* The ways' indices in ways[] below, for the rule and the tap listing. */
enum way_id {
	WAY_NOTAP, WAY_TAP_SENDER_NS, WAY_TAP_EGRESS_DEV, WAY_TAP_RECEIVER_NS,
	WAY_TAP_IGNORE_OUTGOING, WAY_TAP_OTHER_DEV, WAY_TAP_TOGGLE, WAY_LOCAL_BOUND,
	WAY_LOOPBACK, WAY_FRAGMENTED, WAY_XDP_HIDDEN_COPY, WAY_LOCAL,
};
/* The indices of protos[] below, for the rule. */
enum proto_id { P_UDP4, P_UDP6, P_TCP4 };

/*
 * A row: a verdict (protocol, API, way), the taps listing, or a rate (an
 * API). api indexes the axis' table, whose entry fills in mode.
 */
struct row {
	ZC_ROW_HOOKS(struct row, struct ctx);
	enum proto_id proto;
	enum way_id way;
	int api;
	enum zc_send_mode mode;
};
ZC_MATRIX_TYPE(row, struct row, struct ctx)

static void case_verdict(const struct zc_case *c, const struct row *row,
			 struct ctx *ctx);
static void case_list_taps(const struct zc_case *c, const struct row *row,
			   struct ctx *ctx);
static void case_rate(const struct zc_case *c, const struct row *row,
		      struct ctx *ctx);
static enum zc_pre pre_verdict(const struct zc_case *c, const struct row *row,
			       struct ctx *ctx, struct zc_why *why);
static enum zc_pre pre_rate(const struct zc_case *c, const struct row *row,
			    struct ctx *ctx, struct zc_why *why);

/* ---- the ways a send can go, and what each gives per topology ---- */

#define TAP_A		{ ZC_TAP_SENDER }
#define TAP_A_DEV	{ ZC_TAP_SENDER, ZC_TAP_EGRESS }
#define TAP_A_LO	{ ZC_TAP_SENDER, ZC_TAP_LO }
#define TAP_A_IGNORE	{ ZC_TAP_SENDER, .ignore_outgoing = true }
#define TAP_B		{ ZC_TAP_RECEIVER }

static const struct way ways[] = {
	[WAY_NOTAP] = { SETUP_SINK,
		.name = "notap",
		.veth = { ZC_VERDICT_ZEROCOPY, SEE_COPY_UBUFS, "tc drop at the receiving veth frees the skb untouched: zero-copy" },
		.pair = { ZC_VERDICT_ZEROCOPY, SEE_COPY_UBUFS, "the sender's skb leaves through the egress device and is freed at TX completion, tc drops the frame as the receiving device receives it: zero-copy" },
	},

	[WAY_TAP_SENDER_NS] = { SETUP_SINK, TAP_A,
		.name = "tap_sender_ns",
		.veth = { ZC_VERDICT_COPIED, SEE_COPY_UBUFS, "ETH_P_ALL tap in the sender namespace: dev_queue_xmit_nit -> skb_copy_ubufs" },
		.pair = { ZC_VERDICT_COPIED, SEE_COPY_UBUFS, "ETH_P_ALL tap in the sender namespace: dev_queue_xmit_nit -> skb_copy_ubufs" },
	},

	[WAY_TAP_EGRESS_DEV] = { SETUP_SINK, TAP_A_DEV,
		.name = "tap_egress_dev",
		.veth = { ZC_VERDICT_COPIED, SEE_COPY_UBUFS, "ETH_P_ALL tap bound to the egress veth: dev_queue_xmit_nit -> skb_copy_ubufs" },
		.pair = { ZC_VERDICT_COPIED, SEE_COPY_UBUFS, "ETH_P_ALL tap bound to the egress device: dev_queue_xmit_nit -> skb_copy_ubufs" },
	},

	[WAY_TAP_RECEIVER_NS] = { SETUP_SINK, TAP_B,
		.name = "tap_receiver_ns",
		.veth = { ZC_VERDICT_COPIED, SEE_COPY_UBUFS, "ETH_P_ALL tap in the receiving namespace: __netif_receive_skb_core -> skb_copy_ubufs before tc (before 6.15, with one global tap list for all namespaces, already dev_queue_xmit_nit in the sender namespace)" },
		.pair = { ZC_VERDICT_ZEROCOPY, SEE_COPY_UBUFS, "ETH_P_ALL tap in the receiving namespace sees only the receiving device's own skbs (per-namespace taps): zero-copy",
			  .foreign = "dev_queue_xmit_nit on the sender's device" },
	},

	[WAY_TAP_IGNORE_OUTGOING] = { SETUP_SINK, TAP_A_IGNORE,
		.name = "tap_ignore_outgoing",
		.veth = { ZC_VERDICT_ZEROCOPY, SEE_COPY_UBUFS, "tap with PACKET_IGNORE_OUTGOING in the sender namespace: skipped on transmit, and veth's receive in the other namespace does not see it (per-namespace taps): zero-copy",
			  .foreign = "veth's receive in the receiving namespace (__netif_receive_skb_core -> deliver_skb)" },
		.pair = { ZC_VERDICT_ZEROCOPY, SEE_COPY_UBUFS, "tap with PACKET_IGNORE_OUTGOING: skipped on transmit, and on receive it sees the receiving device's own skbs: zero-copy" },
	},

	[WAY_TAP_OTHER_DEV] = { SETUP_SINK, TAP_A_LO,
		.name = "tap_other_dev",
		.veth = { ZC_VERDICT_ZEROCOPY, SEE_COPY_UBUFS, "tap bound to lo: not on the egress path, zero-copy" },
		.pair = { ZC_VERDICT_ZEROCOPY, SEE_COPY_UBUFS, "tap bound to lo: not on the egress path, zero-copy" },
	},

	[WAY_TAP_TOGGLE] = { SETUP_SINK, TAP_A, TOGGLE_PATTERN,
		.name = "tap_toggle",
		.veth = { ZC_VERDICT_ZEROCOPY, SEE_COPY_UBUFS, "tap opened/closed between sends (" TOGGLE_PATTERN "): verdicts follow per send" },
		.pair = { ZC_VERDICT_ZEROCOPY, SEE_COPY_UBUFS, "tap opened/closed between sends (" TOGGLE_PATTERN "): verdicts follow per send" },
	},

	[WAY_LOCAL_BOUND] = { SETUP_LOCAL,
		.name = "local_bound",
		.veth = { ZC_VERDICT_COPIED, SEE_COPY_UBUFS, "delivery to a socket bound in the receiving namespace: skb_orphan_frags_rx copies" },
		.pair = { ZC_VERDICT_ZEROCOPY, SEE_COPY_UBUFS, "UDP to a socket bound in the receiving namespace: it gets the receiving device's own skb, the sender's is freed at TX completion: zero-copy" },
	},

	[WAY_LOCAL] = { SETUP_LOCAL,
		.name = "local",
		.veth = { ZC_VERDICT_COPIED, SEE_COPY_UBUFS, "TCP to a receiver in the peer namespace: local delivery copies" },
		.pair = { ZC_VERDICT_ZEROCOPY, SEE_COPY_UBUFS, "TCP to a socket bound in the receiving namespace: it gets the receiving device's own skb, the sender's is freed at TX completion: zero-copy" },
	},

	[WAY_LOOPBACK] = { SETUP_LOOPBACK,
		.name = "loopback",
		.veth = { ZC_VERDICT_COPIED, SEE_COPY_UBUFS, "delivery over loopback to a local socket: skb_orphan_frags_rx copies" },
		.pair = { ZC_VERDICT_COPIED, SEE_COPY_UBUFS, "delivery over loopback to a local socket: skb_orphan_frags_rx copies" },
	},

	[WAY_FRAGMENTED] = { SETUP_FRAG,
		.name = "fragmented",
		.veth = { ZC_VERDICT_COPIED, SEE_NO_COPY, "datagram above MTU-28 is fragmented: copied at send, no zero-copy attempted, no fallback copy" },
		.pair = { ZC_VERDICT_COPIED, SEE_NO_COPY, "datagram above MTU-28 is fragmented: copied at send, no zero-copy attempted, no fallback copy" },
	},

	[WAY_XDP_HIDDEN_COPY] = { SETUP_XDP,
		.name = "xdp_hidden_copy",
		.veth = { ZC_VERDICT_COPIED, SEE_XDP_COPY, "XDP_DROP on the receiving veth: veth copies every skb (" VETH_XDP_COPY "), the kernel's flag says zero-copy",
			  .xfail = "hidden copy: veth copies every skb for XDP, the kernel reports zero-copy" },
		.pair = { ZC_VERDICT_ZEROCOPY, SEE_COPY_UBUFS, "XDP_DROP on the receiving device drops its own buffers, the sender's skb is untouched: zero-copy" },
	},
};

/* ---- the cases: rows from their axes, names from the rows ---- */

static const struct proto {
	int family, type;
	const char *name;
} protos[] = {
	[P_UDP4] = { AF_INET, SOCK_DGRAM, "udp4" },
	[P_UDP6] = { AF_INET6, SOCK_DGRAM, "udp6" },
	[P_TCP4] = { AF_INET, SOCK_STREAM, "tcp4" },
};

/* An API a case sends by, and its name part. */
struct api {
	enum zc_send_mode mode;
	const char *name;
};

/* The verdicts' APIs: the two that report copied or zero-copy per send. */
static const struct api verdict_apis[] = {
	{ ZC_MODE_MSG_ZEROCOPY, "msg_zerocopy" },
	{ ZC_MODE_SEND_ZC, "send_zc" },
};

/* The rates' APIs; send(2) is the baseline the others beat or not. */
static const struct api rate_apis[] = {
	{ ZC_MODE_SEND, "rate.send" },
	{ ZC_MODE_MSG_ZEROCOPY, "rate.msg_zerocopy" },
	{ ZC_MODE_SEND_ZC, "rate.send_zc" },
	{ ZC_MODE_SEND_ZC_FIXED, "rate.send_zc_fixed" },
};

static void verdict_fill(struct row *row)
{
	row->mode = verdict_apis[row->api].mode;
}

static void rate_fill(struct row *row)
{
	row->mode = rate_apis[row->api].mode;
}

static const struct row_matrix list_taps_case = {
	.name = "taps.list",
	.base = &(const struct row){ .zc = { .fn = case_list_taps } },
};

/*
 * The verdicts: every way over UDP/IPv4 by both APIs; IPv6 and TCP where
 * the protocol changes the path. Listed way by way, the API turning
 * fastest; named protocol.api.way.
 */
static const char *verdict_rule(const struct row *row)
{
	if (row->proto == P_TCP4 && row->way != WAY_LOCAL)
		return "TCP is checked on local delivery: a tap copies below the protocol, UDP covers the taps";
	if (row->proto != P_TCP4 && row->way == WAY_LOCAL)
		return "local is TCP's local delivery (UDP's is local_bound)";
	if (row->proto == P_UDP6 && row->way != WAY_NOTAP && row->way != WAY_TAP_SENDER_NS)
		return "IPv6 is checked without and with a sender tap: past the IP layer its way is IPv4's";
	return NULL;
}

static const struct row_matrix verdicts = {
	.base = &(const struct row){ .zc = { .fn = case_verdict, .pre = pre_verdict } },
	.axes = {
		ZC_AXIS_TABLE_LOOP(1, struct row, proto, protos, name),
		ZC_AXIS_TABLE_LOOP(3, struct row, api, verdict_apis, name),
		ZC_AXIS_TABLE_LOOP(2, struct row, way, ways, name),
	},
	.rule = verdict_rule,
	.fill = verdict_fill,
};

/* The tap vs no-tap ratio per API. */
static const struct row_matrix rates = {
	.base = &(const struct row){ .zc = { .fn = case_rate, .pre = pre_rate } },
	.axes = {
		ZC_AXIS_TABLE(struct row, api, rate_apis, name),
	},
	.fill = rate_fill,
};

static const struct way *way_of(const struct row *row)
{
	return &ways[row->way];
}

static int family_of(const struct row *row)
{
	return protos[row->proto].family;
}

static int type_of(const struct row *row)
{
	return protos[row->proto].type;
}

/* send(2) has no depth; the rest keep RATE_DEPTH in flight. */
static unsigned int rate_depth(const struct row *row)
{
	return row->mode == ZC_MODE_SEND ? 1 : RATE_DEPTH;
}

/*
 * A case's sends, each the kernel's verdict booked against what the row
 * wants and what the witness saw (tally_add), judged at the end (judge).
 */
struct tally {
	enum seen wit;		/* set before the first send */
	long n, zc, copied, kern_bad, wit_bad;
	long wit_copy_sends, wit_cow_sends;	/* sends the witness saw copy */
	struct zc_witness_counts wsum;
	char first_bad[256];	/* the first disagreement, described */
};

/*
 * One verdict case: the sender's socket and buffer, the path around it
 * (tap, MTU, XDP), what its sends gave and what the traffic shows.
 */
struct vrun {
	struct ctx *ctx;
	const struct row *row;
	const struct expect *e;		/* the row's column for this topology */
	int fd, rx_fd, tap_fd;
	struct io_uring ring;		/* SEND_ZC only */
	bool ring_on;
	void *buf;
	size_t size;
	long sends;
	uint64_t sink0;			/* the sink's count before the sends */
	long rx_msgs;
	long long rx_bytes;
	struct tally t;
	int mtu_restore;		/* 0, or the MTU the fragment case lowered */
	bool xdp_on;
};

static void diag_once(struct ctx *ctx);
static int vrun_open(struct vrun *run, struct zc_why *why);
static void vrun_close(struct vrun *run);
static uint64_t sink_pkts(const struct vrun *run);
static size_t udp_size(const struct ctx *ctx, int family);

/* ---- cases ---- */

/* The row's column for this topology. */
static const struct expect *expect_here(const struct ctx *ctx,
					const struct row *row)
{
	return ctx->sink.t.real_pair ? &way_of(row)->pair : &way_of(row)->veth;
}

/* The row's known deviation, with what the witness can show of it. */
static enum zc_pre xfail_hidden_copy(const char *xfail, struct zc_why *why)
{
	const char *unit = "", *nowhy = "", *fn = zc_witness_xdp_copy(&unit, &nowhy);

	if (fn)
		zc_why_set(why, "%s, witness %s counts %s %s", xfail,
			   zc_witness_kind(NULL), fn, unit);
	else
		zc_why_set(why, "%s; veth copies in %s, the witness cannot count it: %s",
			   xfail, VETH_XDP_COPY, nowhy);
	return ZC_XFAIL;
}

/*
 * Without BPF (a user namespace) there is no tc sink and no witness: the
 * cases with their own receiver still run, on the kernel's flag alone.
 * A tap in another namespace than the path's copies on a kernel with one
 * global tap list: the row's known deviation, XFAIL; without BTF to tell
 * the tap lists' scope, SKIP.
 */
static enum zc_pre pre_verdict(const struct zc_case *c, const struct row *row,
			       struct ctx *ctx, struct zc_why *why)
{
	enum setup s = way_of(row)->setup;
	const char *foreign = expect_here(ctx, row)->foreign;
	const struct zc_sink_need need = {
		.uring = zc_send_mode_uring(row->mode),
		.sink = s != SETUP_LOCAL && s != SETUP_LOOPBACK,
		.what = s == SETUP_XDP ? " and an XDP program" : "",
	};

	diag_once(ctx);
	if (zc_sink_feat_need(&ctx->feat, &need, why))
		return ZC_SKIP;
	if (foreign && ctx->netns_taps < 0)
		return zc_why_skip(why, ZC_CLASS_ENV, "cannot tell whether packet taps are per namespace: no vmlinux BTF to look for struct net.ptype_all (%s)",
				   strerror(-ctx->netns_taps)), ZC_SKIP;
	if (foreign && !ctx->netns_taps)
		return zc_why_set(why, "copied by a tap in another namespace: %s, so %s -> skb_orphan_frags_rx -> skb_copy_ubufs, before af_packet drops it as foreign",
				  GLOBAL_TAPS, foreign), ZC_XFAIL;
	if (expect_here(ctx, row)->xfail)
		return xfail_hidden_copy(expect_here(ctx, row)->xfail, why);
	return ZC_RUN;
}

/* ---- the sends and the kernel's report on each ---- */

static int send_flags(const struct vrun *run)
{
	/* A stream send completes whole, as a blocking send(2) does. */
	return MSG_NOSIGNAL | (type_of(run->row) == SOCK_STREAM ? MSG_WAITALL : 0);
}

static bool errq_level_ok(const struct cmsghdr *cm)
{
	return (cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
	       (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR);
}

/*
 * One MSG_ZEROCOPY send, then its completion from the error queue: a
 * range of one send, SO_EE_CODE_ZEROCOPY_COPIED set when the kernel fell
 * back to copying. ZC_VERDICT_*, or -errno with why.
 */
static int msg_zerocopy_verdict(struct vrun *run, struct zc_why *why)
{
	char control[CMSG_SPACE(sizeof(struct sock_extended_err)) + 64];
	struct msghdr msg = { .msg_control = control };
	struct sock_extended_err *ee = NULL;
	struct cmsghdr *cm;
	struct zc_bound b;
	ssize_t n;
	int ret;

	n = send(run->fd, run->buf, run->size, send_flags(run) | MSG_ZEROCOPY);
	if (n < 0) {
		ret = -errno;
		return zc_why_errno(why, "send(MSG_ZEROCOPY)"), ret;
	}
	if (!ZC_CHECK_EQ(why, "send(MSG_ZEROCOPY) bytes", n, run->size))
		return -EIO;
	/* The error queue raises POLLERR whatever poll asks for. */
	zc_bound_start(&b, VERDICT_S, 0);
	for (;;) {
		msg.msg_controllen = sizeof(control);
		if (recvmsg(run->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) >= 0)
			break;
		if (errno != EAGAIN && errno != EINTR) {
			ret = -errno;
			return zc_why_errno(why, "recvmsg(MSG_ERRQUEUE)"), ret;
		}
		if (zc_bound_over(&b, 0))
			return zc_why_set(why, "no MSG_ZEROCOPY completion within %.1f s", VERDICT_S), -ETIMEDOUT;
		ret = zc_poll_one(run->fd, 0, zc_bound_left(&b));
		if (ret < 0)
			return zc_why_set(why, "poll: %s", strerror(-ret)), ret;
	}
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
		if (errq_level_ok(cm))
			ee = (struct sock_extended_err *)CMSG_DATA(cm);
	if (!ee)
		return zc_why_set(why, "error queue entry: expected an IP_RECVERR/IPV6_RECVERR cmsg, seen none"), -EPROTO;
	if (!ZC_CHECK_EQ(why, "completion ee_origin", ee->ee_origin, SO_EE_ORIGIN_ZEROCOPY) ||
	    !ZC_CHECK_EQ(why, "completion ee_errno", ee->ee_errno, 0) ||
	    /* one send waited for: a range of one id */
	    !ZC_CHECK_EQ(why, "completion range's last id", ee->ee_data, ee->ee_info))
		return -EPROTO;
	if (ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
		return ZC_VERDICT_COPIED;
	return ZC_VERDICT_ZEROCOPY;
}

/* The next CQE within the bound: 0, or -ETIMEDOUT / -errno with why. */
static int next_cqe(struct vrun *run, struct zc_bound *b, unsigned int seen,
		    struct io_uring_cqe **cqe, struct zc_why *why)
{
	struct __kernel_timespec ts;
	double left;
	int ret;

	for (;;) {
		left = zc_bound_left(b);
		ts.tv_sec = (long)left;
		ts.tv_nsec = (long)((left - (long)left) * 1e9);
		ret = io_uring_wait_cqe_timeout(&run->ring, cqe, &ts);
		if (!ret)
			return 0;
		if (ret != -ETIME && ret != -EINTR)
			return zc_why_set(why, "wait for CQE: %s", strerror(-ret)), ret;
		if (zc_bound_over(b, seen))
			return zc_why_set(why, "SEND_ZC CQEs within %.1f s: expected 2, seen %u",
					  VERDICT_S, seen), -ETIMEDOUT;
	}
}

/*
 * One IORING_OP_SEND_ZC with IORING_SEND_ZC_REPORT_USAGE, then exactly
 * two CQEs with its user_data: the request's, with IORING_CQE_F_MORE
 * (also when the send failed), then the notification, IORING_CQE_F_NOTIF,
 * whose res has IORING_NOTIF_USAGE_ZC_COPIED set when the kernel copied.
 */
static int send_zc_verdict(struct vrun *run, long i, struct zc_why *why)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&run->ring);
	struct io_uring_cqe *cqe;
	unsigned int seen = 0;
	int res = 0, usage = 0, ret;
	struct zc_bound b;
	bool ok;

	if (!sqe)
		return zc_why_set(why, "io_uring_get_sqe: expected an SQE, seen none free"), -EBUSY;
	io_uring_prep_send_zc(sqe, run->fd, run->buf, run->size, send_flags(run), 0);
	sqe->ioprio |= IORING_SEND_ZC_REPORT_USAGE;
	sqe->user_data = i;
	ret = io_uring_submit(&run->ring);
	if (!ZC_CHECK_EQ(why, "io_uring_submit", ret, 1))
		return ret < 0 ? ret : -EIO;
	zc_bound_start(&b, VERDICT_S, 0);
	while (seen < 2) {
		ret = next_cqe(run, &b, seen, &cqe, why);
		if (ret)
			return ret;
		ok = ZC_CHECK_EQ(why, "CQE user_data", cqe->user_data, i);
		if (ok && !seen)
			ok = ZC_CHECK(why, cqe->flags & IORING_CQE_F_MORE,
				      "request CQE: expected IORING_CQE_F_MORE, seen flags 0x%x res %d",
				      cqe->flags, cqe->res);
		else if (ok)
			ok = ZC_CHECK(why, (cqe->flags & (IORING_CQE_F_NOTIF | IORING_CQE_F_MORE)) ==
					   IORING_CQE_F_NOTIF,
				      "second CQE: expected IORING_CQE_F_NOTIF without IORING_CQE_F_MORE, seen flags 0x%x res %d",
				      cqe->flags, cqe->res);
		if (seen++)
			usage = cqe->res;
		else
			res = cqe->res;
		io_uring_cqe_seen(&run->ring, cqe);
		if (!ok)
			return -EPROTO;
	}
	if (res < 0)
		return zc_why_set(why, "SEND_ZC: %s", strerror(-res)), res;
	if (!ZC_CHECK_EQ(why, "SEND_ZC bytes", res, run->size))
		return -EIO;
	if (usage & IORING_NOTIF_USAGE_ZC_COPIED)
		return ZC_VERDICT_COPIED;
	return ZC_VERDICT_ZEROCOPY;
}

/* ---- the kernel's verdicts against the row and the witness ---- */

static const char *verdict_name(int v)
{
	return v == ZC_VERDICT_COPIED ? "copied" : "zerocopy";
}

static void note_bad(struct tally *t, const char *fmt, long i, const char *a,
		     const char *b, const struct zc_witness_counts *d)
{
	size_t len;
	char w[200];

	if (t->first_bad[0])
		return;
	zc_witness_format(d, w, sizeof(w));
	snprintf(t->first_bad, sizeof(t->first_bad), fmt, i, a, b);
	len = strlen(t->first_bad);
	snprintf(t->first_bad + len, sizeof(t->first_bad) - len, " (%s)", w);
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
 * send must show the function the row names; a zero-copy send nothing,
 * except under XDP where veth copies (skb_pp_cow_data, or inline before
 * 6.8) every time: where the witness cannot count that copy, it must at
 * least see no skb_copy_ubufs.
 */
static bool witness_agrees(enum seen wit, int verdict,
			   const struct zc_witness_counts *d)
{
	if (!zc_witness_kind(NULL))
		return true;
	switch (wit) {
	case SEE_XDP_COPY:
		if (!zc_witness_xdp_copy(NULL, NULL))
			return !d->copy_ubufs;
		return seen_pp_cow(d) && !d->copy_ubufs;
	case SEE_NO_COPY:
		return !zc_witness_copied(d);
	case SEE_COPY_UBUFS:
	default:
		if (verdict == ZC_VERDICT_COPIED)
			return seen_copy_ubufs(d) && !d->pp_cow;
		return !zc_witness_copied(d);
	}
}

/* What the witness should have seen on a send with this verdict. */
static const char *wit_want(enum seen wit, int verdict)
{
	const char *fn;

	if (wit == SEE_XDP_COPY) {
		fn = zc_witness_xdp_copy(NULL, NULL);
		return fn ? fn : "no skb_copy_ubufs";
	}
	if (wit == SEE_COPY_UBUFS && verdict == ZC_VERDICT_COPIED)
		return "skb_copy_ubufs";
	return "no copy";
}

/* Books send i: the kernel said verdict, want was expected, d witnessed. */
static void tally_add(struct tally *t, long i, int verdict, int want,
		      const struct zc_witness_counts *d)
{
	zc_witness_add(&t->wsum, d);
	t->n++;
	t->wit_copy_sends += seen_copy_ubufs(d) > 0;
	t->wit_cow_sends += seen_pp_cow(d) > 0;
	if (verdict == ZC_VERDICT_COPIED)
		t->copied++;
	else
		t->zc++;
	if (verdict != want) {
		t->kern_bad++;
		note_bad(t, "send %ld: kernel says %s, expected %s", i,
			 verdict_name(verdict), verdict_name(want), d);
	}
	if (!witness_agrees(t->wit, verdict, d)) {
		t->wit_bad++;
		note_bad(t, "send %ld: witness disagrees with the kernel's %s, wants %s", i,
			 verdict_name(verdict), wit_want(t->wit, verdict), d);
	}
}

/*
 * Every send as expected, the witness agreeing: PASS. Every send the
 * other way, the witness agreeing: FAIL, the one deviation the row's
 * expected failure may cover (case_status() decides). A mix, or the
 * witness disagreeing with the kernel: FAIL whatever was expected.
 */
static void judge(const char *name, const struct tally *t)
{
	if (!t->kern_bad && !t->wit_bad)
		ktap_pass(name);
	else if (t->wit_bad || t->kern_bad != t->n)
		ktap_fail_unexpected(name,
				     "%ld kernel mismatches, %ld witness disagreements; first: %s",
				     t->kern_bad, t->wit_bad, t->first_bad);
	else
		ktap_fail(name, "%ld kernel mismatches, %ld witness disagreements; first: %s",
			  t->kern_bad, t->wit_bad, t->first_bad);
}

/* The toggle's tap open ('1') or closed around send i, cycling. */
static bool toggle_open(const struct vrun *run, long i)
{
	const char *toggle = way_of(run->row)->toggle;

	return toggle[i % strlen(toggle)] == '1';
}

/* The verdict send i must get: with a toggle, copied while the tap is open. */
static int want_for(const struct vrun *run, long i)
{
	if (!way_of(run->row)->toggle)
		return run->e->verdict;
	return toggle_open(run, i) ? ZC_VERDICT_COPIED : ZC_VERDICT_ZEROCOPY;
}

static int toggle_step(struct vrun *run, long i)
{
	bool open = toggle_open(run, i);

	if (open == (run->tap_fd >= 0))
		return 0;
	if (!open) {
		close(run->tap_fd);
		run->tap_fd = -1;
		return 0;
	}
	run->tap_fd = zc_tap_spec_open(&run->ctx->sink.t, &way_of(run->row)->tap);
	return run->tap_fd < 0 ? run->tap_fd : 0;
}

/* Send i, the kernel's report on it and what the witness saw meanwhile. */
static int one_send(struct vrun *run, long i, struct zc_why *why)
{
	struct zc_witness_counts w0, w1, d;
	int ret = 0;

	if (way_of(run->row)->toggle)
		ret = toggle_step(run, i);
	if (ret)
		return zc_why_set(why, "open tap: %s", strerror(-ret)), ret;
	zc_witness_read(&w0);
	if (run->row->mode == ZC_MODE_MSG_ZEROCOPY)
		ret = msg_zerocopy_verdict(run, why);
	else
		ret = send_zc_verdict(run, i, why);
	zc_witness_read(&w1);
	zc_rxpair_drain(run->rx_fd, &run->rx_msgs, &run->rx_bytes);
	if (ret < 0)
		return ret;
	zc_witness_delta(&w1, &w0, &d);
	tally_add(&run->t, i, ret, want_for(run, i), &d);
	return 0;
}

/* What the sink or receiver has seen, and what it must see. */
static void traffic_count(const struct vrun *run, uint64_t *have, uint64_t *want)
{
	if (run->rx_fd >= 0) {
		*have = run->rx_bytes;
		*want = type_of(run->row) == SOCK_STREAM ? run->t.n * run->size : run->size;
	} else {
		*have = sink_pkts(run) - run->sink0;
		*want = run->t.n;
	}
}

/*
 * A send can complete while its packets still sit in a NIC ring (or, when
 * it was copied, before they left at all): give them up to SETTLE_S.
 */
static bool traffic_seen(struct vrun *run, char *what, size_t len)
{
	double end = zc_now() + SETTLE_S;
	uint64_t have, want;

	for (;;) {
		zc_rxpair_drain(run->rx_fd, &run->rx_msgs, &run->rx_bytes);
		traffic_count(run, &have, &want);
		if (have >= want || zc_now() >= end)
			break;
		usleep(1000);
	}
	if (run->rx_fd >= 0)
		snprintf(what, len, "receiver got %ld messages, %lld bytes",
			 run->rx_msgs, run->rx_bytes);
	else
		snprintf(what, len, "%s sink dropped %llu packets",
			 way_of(run->row)->setup == SETUP_XDP ? "XDP" : "tc",
			 (unsigned long long)have);
	return have >= want;
}

static void summary(const char *name, const struct vrun *run,
		    const char *traffic, const char *nowit)
{
	const struct tally *t = &run->t;
	char w[200];

	if (!nowit) {
		zc_witness_format(&t->wsum, w, sizeof(w));
		ktap_print_msg("%s: %ld sends of %zu B: kernel copied %ld, zero-copy %ld; %s, copy seen on %ld/%ld sends; %s",
			       name, t->n, run->size, t->copied, t->zc, w,
			       t->wit == SEE_XDP_COPY ? t->wit_cow_sends : t->wit_copy_sends,
			       t->n, traffic);
	} else {
		ktap_print_msg("%s: %ld sends of %zu B: kernel copied %ld, zero-copy %ld; no witness loaded (%s): kernel flag only; %s",
			       name, t->n, run->size, t->copied, t->zc, nowit,
			       traffic);
	}
	ktap_zcmode(name, t->zc, t->copied);
}

/*
 * A copy the row did not plan, with a cause outside the kernel
 * (zc_env_copy_cause: a foreign tap that applies on this kernel, an
 * offload the device lacks): the case cannot judge the kernel, a fact
 * case_status() makes a SKIP of class environment.
 * Without such a cause it is judged as any other.
 */
static bool env_explains(const char *name, const struct vrun *run)
{
	const struct tally *t = &run->t;
	struct zc_why why;

	/* Under XDP the kernel's known zero-copy flag is no deviation. */
	if (!t->wit_bad &&
	    !(t->wit == SEE_XDP_COPY ? t->copied : t->kern_bad))
		return false;
	if (!zc_env_copy_cause(&run->ctx->sink.t, &why))
		return false;
	ktap_seen(name, KTAP_FACT_ENV, &why);
	return true;
}

/*
 * The case's path could not be set up: a reason that carries its class
 * (xdp_failed) is a case that cannot run here, a fact case_status()
 * makes the SKIP of that class; any other reason is a failure.
 */
static void open_failed(const char *name, const struct zc_why *why)
{
	if (why->cls != ZC_CLASS_NONE)
		ktap_seen(name, KTAP_FACT_CANNOT_RUN, why);
	else
		ktap_fail_why(name, why);
}

/*
 * The row's sends, one at a time, each with the kernel's verdict booked
 * against the witness; the traffic behind them; one result: every send
 * as the row wants and the witness agreeing, PASS; every send the other
 * way, FAIL (the deviation a known failure covers); a mix or a witness
 * disagreeing, FAIL whatever was expected (judge).
 */
static void case_verdict(const struct zc_case *c, const struct row *row,
			 struct ctx *ctx)
{
	struct vrun run = { .ctx = ctx, .row = row, .e = expect_here(ctx, row) };
	struct zc_why why = { "" };
	const char *nowit = NULL;
	char traffic[128];
	int ret;
	long i;
	bool seen;

	/* No witness: the kernel's flag alone, and the summary says why. */
	if (zc_witness_kind(&nowit))
		nowit = NULL;
	else if (ctx->no_witness)
		nowit = "--no-witness given";
	ret = vrun_open(&run, &why);
	if (ret) {
		vrun_close(&run);
		open_failed(c->name, &why);
		return;
	}
	if (run.rx_fd < 0)
		run.sink0 = sink_pkts(&run);
	for (i = 0; i < run.sends && !ret; i++)
		if (one_send(&run, i, &why) < 0)
			ret = zc_why_prefix(&why, "send %ld", i);
	seen = traffic_seen(&run, traffic, sizeof(traffic));
	vrun_close(&run);
	if (ret) {
		/* file:line of the check that failed, in the send above */
		ktap_fail_why(c->name, &why);
		return;
	}
	summary(c->name, &run, traffic, nowit);
	ktap_print_msg("%s: %s", c->name, run.e->what);
	if (!seen)
		ktap_fail(c->name, "no real traffic behind the verdicts: %s", traffic);
	else if (!env_explains(c->name, &run))
		judge(c->name, &run.t);
}

/* ---- tap listing against taps we open ---- */

static const struct way *const tap_wants[] = {
	&ways[WAY_TAP_SENDER_NS], &ways[WAY_TAP_EGRESS_DEV], &ways[WAY_TAP_IGNORE_OUTGOING],
	&ways[WAY_TAP_OTHER_DEV],
};

static void case_list_taps(const struct zc_case *c, const struct row *row,
			   struct ctx *ctx)
{
	int fds[ZC_ARRAY_SIZE(tap_wants)], n, i, want = ZC_ARRAY_SIZE(tap_wants);
	const struct zc_topo *t = &ctx->sink.t;
	struct zc_tap taps[32];
	struct zc_why why = { "" };
	bool ok = true;

	diag_once(ctx);
	for (i = 0; i < want; i++)
		fds[i] = zc_tap_spec_open(t, &tap_wants[i]->tap);
	n = zc_taps_list(t->a.nsfd, taps, ZC_ARRAY_SIZE(taps));
	if (n < 0)
		zc_why_set(&why, "list: %s", strerror(-n));
	for (i = 0; n >= 0 && ok && i < want; i++) {
		if (fds[i] < 0)
			ok = !zc_why_set(&why, "open tap: %s", strerror(-fds[i]));
		else
			ok = zc_tap_spec_listed(t, &tap_wants[i]->tap,
						zc_tap_find(taps, n, fds[i]), &why);
	}
	/* The topology's own namespaces start with no tap at all. */
	if (ok && n != want + (t->inject_tap_fd >= 0))
		ok = !zc_why_set(&why, "%d packet sockets listed, opened %d", n, want);
	for (i = 0; i < want; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	ktap_result_why(c->name, n >= 0 && ok, &why);
}

/* ---- rates: without and with the tap, interleaved ---- */

static enum zc_pre pre_rate(const struct zc_case *c, const struct row *row,
			    struct ctx *ctx, struct zc_why *why)
{

	diag_once(ctx);
	return zc_sink_feat_need(&ctx->feat, &(struct zc_sink_need){
					.uring = zc_send_mode_uring(row->mode),
					.sink = true,
				 }, why) ? ZC_SKIP : ZC_RUN;
}

static void arm_report(struct ctx *ctx, const struct row *row,
		       const struct zc_sink_arm *sa, const char *prefix)
{
	const struct zc_send_stats *st = zc_sender_stats(sa->tx.s);
	bool uring = zc_send_mode_uring(row->mode);

	zc_report_rate(prefix, &sa->rate, false);
	if (zc_send_mode_zerocopy(row->mode))
		ktap_zcmode(prefix, st->zerocopy, st->copied);
	else
		ktap_zcmode(prefix, 0, st->completed);
	zc_report_config(&ctx->o, prefix,
		  "mode=%s size=%zu depth=%u report_usage=%s ring=%s cpu_tx=%d cpu_rx=softirq_on_sending_cpu topology=%s a=%s drv_a=%s b=%s drv_b=%s mtu=%d sink=tc_clsact_ingress_drop tap=eth_p_all_unbound_sender_ns_for_tap witness=paused",
		  zc_send_mode_name(row->mode), udp_size(ctx, AF_INET),
		  rate_depth(row), uring && zc_send_mode_zerocopy(row->mode) ? "yes" : "no",
		  uring ? zc_sender_ring_desc(sa->tx.s) : "none", ctx->o.cpu_tx,
		  ctx->sink.t.real_pair ? "ZC_PAIR" : "veth", ctx->sink.t.a.ifname,
		  ctx->drv_a, ctx->sink.t.b.ifname, ctx->drv_b, ctx->sink.t.mtu);
}

/*
 * One arm of a tap vs no-tap ratio: its sender to the sink, and the
 * unbound packet tap it holds open in the sender's namespace while its
 * own repeats run (none for the untapped arm), so the other arm,
 * interleaved with it, sends untapped.
 */
struct tap_arm {
	struct zc_sink_arm *sa;
	int nsfd;
	bool tap;
	int tap_fd;
};

static int tap_arm_begin(void *arg)
{
	struct tap_arm *a = arg;

	if (!a->tap)
		return 0;
	a->tap_fd = zc_tap_open_on(a->nsfd, 0, false);
	return a->tap_fd < 0 ? a->tap_fd : 0;
}

/* Every send completes before the tap changes. */
static int tap_arm_end(void *arg)
{
	struct tap_arm *a = arg;
	int ret = zc_sender_flush(a->sa->tx.s, VERDICT_S, 0);

	if (a->tap_fd >= 0)
		close(a->tap_fd);
	a->tap_fd = -1;
	return ret;
}

/*
 * Both arms measured interleaved: ratio = tapped / untapped. 0; 1 when
 * the untapped arm's zero-copy sends copied for a cause outside the
 * kernel (zc_env_copy_cause, said in why); -errno or -1 with why.
 */
static int tap_ratio(struct ctx *ctx, const struct zc_meter_cfg *mc,
		     const struct zc_sender_cfg *cfg, struct zc_sink_arm sa[2],
		     const char *name, struct zc_stats *ratio, struct zc_why *why)
{
	struct zc_sender_cfg c[2] = { *cfg, *cfg };
	struct tap_arm a[2];
	uint64_t sunk = 0;
	int i, ret = 0;

	for (i = 0; i < 2; i++) {
		a[i] = (struct tap_arm){ .sa = &sa[i], .nsfd = ctx->sink.t.a.nsfd,
					 .tap = i, .tap_fd = -1 };
		sa[i] = (struct zc_sink_arm){ .begin = tap_arm_begin,
					      .end = tap_arm_end, .arg = &a[i],
					      .tx.fd = -1 };
	}
	for (i = 0; i < 2 && !ret; i++)
		ret = zc_sink_tx_open(&ctx->sink, &sa[i].tx, &c[i], 0);
	if (ret)
		return zc_why_set(why, "%s: %s", name, strerror(-ret)), ret;
	if (zc_sink_rate(&ctx->sink, mc, sa, 2, ratio, &sunk, why))
		return zc_why_prefix(why, "%s", name);
	if (!sunk)
		return zc_why_set(why, "%s: the sink saw no packets", name);
	if (zc_send_mode_zerocopy(cfg->mode) &&
	    zc_sender_stats(sa[0].tx.s)->copied &&
	    zc_env_copy_cause(&ctx->sink.t, why))
		return 1;
	return 0;
}

/*
 * Without and with the tap, in alternation repeat by repeat: each repeat
 * gives one tap_ratio sample from two measurements seconds apart.
 */
static int measure(struct ctx *ctx, const struct row *row,
		   struct zc_stats *ratio, struct zc_why *why)
{
	struct zc_meter_cfg mc = { .duration = ctx->o.duration,
				   .warmup = ctx->o.warmup, .repeat = ctx->o.repeat };
	struct zc_sender_cfg cfg = { .mode = row->mode, .depth = rate_depth(row),
				     .size = udp_size(ctx, AF_INET),
				     .report_usage = true };
	struct zc_sink_arm sa[2];
	char prefix[2][128];
	int i, ret;

	for (i = 0; i < 2; i++)
		snprintf(prefix[i], sizeof(prefix[i]), TEST_NAME ".udp4.%s.%s",
			 zc_send_mode_name(row->mode), i ? "tap" : "notap");
	ret = tap_ratio(ctx, &mc, &cfg, sa, prefix[1], ratio, why);
	for (i = 0; i < 2 && !ret; i++)
		arm_report(ctx, row, &sa[i], prefix[i]);
	for (i = 0; i < 2; i++)
		zc_sink_tx_close(&sa[i].tx);
	return ret;
}

static void case_rate(const struct zc_case *c, const struct row *row,
		      struct ctx *ctx)
{
	struct zc_why why = { "" };
	struct zc_stats ratio;
	char name[128];
	int ret;

	/* A stack walk per page allocation would be measured too. */
	zc_witness_enable(false);
	ret = measure(ctx, row, &ratio, &why);
	zc_witness_enable(true);
	if (ret > 0) {
		/* a copy zc_env_copy_cause explains */
		ktap_seen(c->name, KTAP_FACT_ENV, &why);
		return;
	}
	if (ret) {
		ktap_fail_why(c->name, &why);
		return;
	}
	snprintf(name, sizeof(name), TEST_NAME ".udp4.%s.tap_ratio", zc_send_mode_name(row->mode));
	ktap_metric(name, &ratio, "ratio");
	ktap_pass(c->name);
}

/* ---- diagnosis ---- */

/* --size, within one frame at the topology's MTU. */
static size_t udp_size(const struct ctx *ctx, int family)
{
	size_t max = ctx->sink.t.mtu - (family == AF_INET6 ? UDP6_HDR : UDP4_HDR);

	return (size_t)ctx->o.size < max ? (size_t)ctx->o.size : max;
}

/* The MTU the fragment case sends at (veth lowered to FRAG_MTU). */
static int frag_mtu(const struct ctx *ctx)
{
	return ctx->sink.t.real_pair || ctx->sink.t.mtu <= FRAG_MTU ? ctx->sink.t.mtu : FRAG_MTU;
}

/* Above the MTU the fragment case sends at. */
static size_t frag_size(const struct ctx *ctx)
{
	size_t size = (size_t)frag_mtu(ctx) + FRAG_OVER;

	return size < UDP4_MAX ? size : UDP4_MAX;
}

static const char *netns_taps_desc(const struct ctx *ctx)
{
	if (ctx->netns_taps > 0)
		return "per_namespace";
	return ctx->netns_taps ? "unknown_no_vmlinux_btf" : "global";
}

static void diag_once(struct ctx *ctx)
{
	if (ctx->diag_done)
		return;
	ctx->diag_done = true;
	zc_report_config(&ctx->o, "topology",
		  "kind=%s a=%s drv_a=%s b=%s drv_b=%s mtu=%d udp4_size=%zu udp6_size=%zu tcp4_size=%d frag_size=%zu frag_mtu=%d packet_taps=%s",
		  ctx->sink.t.real_pair ? "ZC_PAIR" : "veth", ctx->sink.t.a.ifname,
		  ctx->drv_a, ctx->sink.t.b.ifname, ctx->drv_b, ctx->sink.t.mtu,
		  udp_size(ctx, AF_INET), udp_size(ctx, AF_INET6), TCP_SIZE,
		  frag_size(ctx), frag_mtu(ctx), netns_taps_desc(ctx));
	zc_witness_report(ctx->no_witness ? "--no-witness given" : NULL);
	/* Taps on this host: the first thing to look at when zero-copy copies. */
	zc_taps_report(ctx->sink.t.origin_nsfd, "the starting network namespace");
}

/* ---- one verdict case: tap, MTU, XDP around the sends ---- */

/* XDP_DROP on b instead of tc: the hidden copy case. */
static int xdp_set(struct ctx *ctx, bool on)
{
	int prog_fd = -1;

	if (on) {
		if (!ctx->xdp) {
			ctx->xdp = tap_copy__open_and_load();
			if (!ctx->xdp)
				return -errno;
		}
		prog_fd = bpf_program__fd(ctx->xdp->progs.zc_tap_xdp_drop);
	}
	return zc_side_dev_xdp(&ctx->sink.t.b, prog_fd, XDP_FLAGS_DRV_MODE);
}

/*
 * Why XDP_DROP could not go on the receiving device (ret: -errno): XDP
 * refused on the test's own device (EOPNOTSUPP, EINVAL) is the kernel's,
 * and the case cannot run; the reason's class says so to case_verdict.
 */
static int xdp_failed(const struct ctx *ctx, int ret, struct zc_why *why)
{
	/* before 5.18 no kernel loads an xdp.frags program: EINVAL */
	if (zc_btf_has_member("bpf_prog_aux", "xdp_has_frags") == 0)
		zc_why_set(why, "kernel lacks XDP multi-buffer programs (BPF_F_XDP_HAS_FRAGS, 5.18): no XDP drop program on %s (%s)",
			   ctx->sink.t.b.ifname, ctx->drv_b);
	else
		zc_why_set(why, "attach native XDP (frags) to the receiving device %s (%s): %s",
			   ctx->sink.t.b.ifname, ctx->drv_b, strerror(-ret));
	if (ret == -EOPNOTSUPP || ret == -EINVAL)
		zc_why_as(why, ZC_CLASS_KERNEL);
	return ret;
}

/* MTU and XDP as the case wants, after its socket and tap. */
static int path_set(struct vrun *run, struct zc_why *why)
{
	struct ctx *ctx = run->ctx;
	enum setup s = way_of(run->row)->setup;
	int ret;

	/*
	 * No datagram exceeds veth's 65535: lower it. A real pair keeps its
	 * MTU, a change would take its carrier away for a while.
	 */
	if (s == SETUP_FRAG && frag_mtu(ctx) != ctx->sink.t.mtu) {
		run->mtu_restore = ctx->sink.t.mtu;
		ret = zc_topo_set_mtu(&ctx->sink.t, FRAG_MTU);
		if (ret) {
			run->mtu_restore = 0;
			return zc_why_set(why, "set MTU: %s", strerror(-ret)), ret;
		}
	}
	/*
	 * Later fragments carry no UDP header and would wait in b's
	 * reassembly queue (ipfrag_time), holding the MSG_ZEROCOPY
	 * completion: drop them all.
	 */
	if (s == SETUP_FRAG)
		zc_sink_set_port(&ctx->sink, 0);
	if (s != SETUP_XDP)
		return 0;
	ret = xdp_set(ctx, true);
	if (ret)
		return xdp_failed(ctx, ret, why);
	run->xdp_on = true;
	return 0;
}

static void path_undo(struct vrun *run)
{
	struct ctx *ctx = run->ctx;

	if (run->xdp_on && xdp_set(ctx, false))
		ktap_print_msg("detaching XDP failed; later cases may be affected");
	if (run->mtu_restore && zc_topo_set_mtu(&ctx->sink.t, run->mtu_restore))
		ktap_print_msg("restoring MTU %d failed", run->mtu_restore);
	zc_sink_set_port(&ctx->sink, SINK_PORT);
}

/* Packets the sink has dropped so far. */
static uint64_t sink_pkts(const struct vrun *run)
{
	if (way_of(run->row)->setup == SETUP_XDP)
		return run->ctx->xdp->bss->pkts;
	return zc_sink_pkts(&run->ctx->sink);
}

/*
 * The sender's socket, connected to the sink, or to its own receiver
 * (in b, or on a's loopback); for TCP the accepted socket is the receiver.
 */
static int vrun_socket(struct vrun *run, const char **step)
{
	struct in_addr lo4 = { .s_addr = htonl(INADDR_LOOPBACK) };
	const struct zc_topo *t = &run->ctx->sink.t;
	const void *addr = zc_side_addr(&t->b, family_of(run->row));
	int rx_nsfd = -1, port = SINK_PORT;

	switch (way_of(run->row)->setup) {
	case SETUP_LOCAL:
		rx_nsfd = t->b.nsfd;
		port = RECV_PORT;
		break;
	case SETUP_LOOPBACK:
		rx_nsfd = t->a.nsfd;
		addr = &lo4;
		port = RECV_PORT;
		break;
	default:
		return zc_socket_to(t->a.nsfd, family_of(run->row), type_of(run->row),
				    addr, port);
	}
	return zc_rxpair_open(t->a.nsfd, rx_nsfd, family_of(run->row),
			      type_of(run->row), addr, port, VERDICT_S, &run->rx_fd,
			      step);
}

/* The send's buffer and API: SO_ZEROCOPY, or a ring for SEND_ZC. */
static int vrun_sender(struct vrun *run, struct zc_why *why)
{
	size_t page = sysconf(_SC_PAGESIZE);
	int one = 1, ret;

	/* Whole pages: the kernel pins them while it owns the send. */
	run->buf = aligned_alloc(page, (run->size + page - 1) / page * page);
	if (!run->buf)
		return zc_why_set(why, "buffer of %zu B: out of memory", run->size), -ENOMEM;
	memset(run->buf, 0xa5, run->size);
	if (run->row->mode == ZC_MODE_MSG_ZEROCOPY) {
		/* Without it MSG_ZEROCOPY is silently a plain send. */
		if (!setsockopt(run->fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))
			return 0;
		ret = -errno;
		return zc_why_errno(why, "setsockopt(SO_ZEROCOPY)"), ret;
	}
	ret = io_uring_queue_init(4, &run->ring, 0);
	if (ret)
		return zc_why_set(why, "io_uring_queue_init: %s", strerror(-ret)), ret;
	run->ring_on = true;
	return 0;
}

static size_t case_size(const struct ctx *ctx, const struct row *row)
{
	if (way_of(row)->setup == SETUP_FRAG)
		return frag_size(ctx);
	if (type_of(row) == SOCK_STREAM)
		return TCP_SIZE;
	return udp_size(ctx, family_of(row));
}

/* Socket, sender, the row's tap (unless toggled per send), MTU and XDP. */
static int vrun_open(struct vrun *run, struct zc_why *why)
{
	const struct way *w = way_of(run->row);
	const char *step = "connect";
	int ret;

	run->fd = run->rx_fd = run->tap_fd = -1;
	run->size = case_size(run->ctx, run->row);
	run->sends = run->ctx->sends;
	/* The whole toggle pattern runs at least once. */
	if (w->toggle && run->sends < (long)strlen(w->toggle))
		run->sends = strlen(w->toggle);
	run->t.wit = run->e->wit;
	run->fd = vrun_socket(run, &step);
	if (run->fd < 0)
		return zc_why_set(why, "%s: %s", step, strerror(-run->fd)), run->fd;
	ret = vrun_sender(run, why);
	if (ret)
		return ret;
	if (w->tap.ns != ZC_TAP_NONE && !w->toggle) {
		run->tap_fd = zc_tap_spec_open(&run->ctx->sink.t, &w->tap);
		if (run->tap_fd < 0)
			return zc_why_set(why, "open tap: %s", strerror(-run->tap_fd)), run->tap_fd;
	}
	return path_set(run, why);
}

static void vrun_close(struct vrun *run)
{
	path_undo(run);
	if (run->ring_on)
		io_uring_queue_exit(&run->ring);
	run->ring_on = false;
	free(run->buf);
	run->buf = NULL;
	if (run->tap_fd >= 0)
		close(run->tap_fd);
	if (run->rx_fd >= 0)
		close(run->rx_fd);
	if (run->fd >= 0)
		close(run->fd);
	run->fd = run->rx_fd = run->tap_fd = -1;
}

/* ---- setup, options, diagnosis mode ---- */

static int probe(void *arg, struct zc_why *why)
{
	static const cap_value_t caps[] = { CAP_SYS_ADMIN, CAP_NET_ADMIN,
					    CAP_NET_RAW };
	static const char *const config[] = {
		"CONFIG_PACKET", "CONFIG_VETH", "CONFIG_NET_SCH_INGRESS",
		"CONFIG_NET_CLS_BPF", "CONFIG_BPF_SYSCALL",
	};
	struct ctx *ctx = arg;

	if (zc_sink_probe(caps, ZC_ARRAY_SIZE(caps), &ctx->feat, why) ||
	    zc_require_config(why, config, ZC_ARRAY_SIZE(config)))
		return -1;
	return 0;
}

/*
 * What the expectations depend on: the devices, and whether unbound
 * packet taps are per namespace. That came with struct net's own
 * ptype_all list (6.15); BTF shows it whatever the release number says.
 */
static int setup(void *arg, struct zc_why *why)
{
	struct ctx *ctx = arg;
	bool bpf = !ctx->feat.bpf.msg[0];
	int ret;

	if (zc_sink_setup(&ctx->sink, TOPO_MTU, SINK_PORT, bpf, why))
		return -1;
	zc_side_dev_driver(&ctx->sink.t.a, ctx->drv_a, sizeof(ctx->drv_a));
	zc_side_dev_driver(&ctx->sink.t.b, ctx->drv_b, sizeof(ctx->drv_b));
	ctx->netns_taps = zc_btf_has_member("net", "ptype_all");
	/* No witness is not a skip: every case still asserts the kernel flag. */
	if (!ctx->no_witness && bpf)
		zc_witness_open(why);
	if (!bpf)
		ktap_print_msg("no BPF: no tc sink, no copy witness; only cases with their own receiver run (%s)",
			       ctx->feat.bpf.msg);
	ret = zc_pin_cpu(ctx->o.cpu_tx);
	if (ret)
		return zc_why_set(why, "pin to CPU %d: %s", ctx->o.cpu_tx,
				  strerror(-ret));
	return 0;
}

static void teardown(void *arg)
{
	struct ctx *ctx = arg;

	zc_witness_close();
	if (ctx->xdp)
		tap_copy__destroy(ctx->xdp);
	ctx->xdp = NULL;
	zc_sink_teardown(&ctx->sink);
}

/* --list-taps: the diagnosis mode, instead of the cases. */
static int list_taps(void *arg)
{
	struct zc_why why = { "" };
	struct ctx *ctx = arg;
	int ret;

	if (!ctx->list_taps)
		return -1;
	/* No TAP header follows: print the listing as it comes. */
	ktap_no_header();
	ret = zc_taps_report_path(ctx->netns, &why);
	if (why.msg[0])
		fprintf(stderr, "%s: --netns %s: %s\n", TEST_NAME, ctx->netns, why.msg);
	return ret < 0 ? KSFT_FAIL : KSFT_PASS;
}

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

static int parse_extra(int val, const char *arg, void *opts_ctx, struct zc_why *why)
{
	struct ctx *ctx = opts_ctx;

	switch (val) {
	case OPT_LIST_TAPS:
		ctx->list_taps = true;
		return 0;
	case OPT_NETNS:
		ctx->netns = arg;
		return 0;
	case OPT_NO_WITNESS:
		ctx->no_witness = true;
		return 0;
	case OPT_SENDS:
		if (zc_parse_long(arg, 1, SENDS_MAX, &ctx->sends))
			return zc_why_set(why, "--sends wants an integer in [1, %d], got '%s'",
					  SENDS_MAX, arg);
		return 0;
	}
	return zc_why_set(why, "unknown option");
}

static int check_opts(void *arg, struct zc_why *why)
{
	struct ctx *ctx = arg;

	if (ctx->netns && !ctx->list_taps)
		return zc_why_set(why, "--netns goes with --list-taps");
	return 0;
}

static const struct zc_test_desc desc = {
	.name = TEST_NAME,
	.summary = "zero-copy sends copied by skb_copy_ubufs under packet taps, with a BPF copy witness",
	.extra = extra_opts,
	.parse = parse_extra,
	.size_default = UDP4_MAX,
	.size_max = UDP4_MAX,
};

static struct zc_test test = {
	.desc = &desc,
	.check_opts = check_opts,
	.mode = list_taps,
	.probe = probe,
	.setup = setup,
	.teardown = teardown,
};

int main(int argc, char **argv)
{
	static struct ctx ctx = { .sends = SENDS_DEFAULT };

	const struct zc_matrix ms[] = {
		row_matrix(&list_taps_case), row_matrix(&verdicts), row_matrix(&rates),
	};

	return zc_matrix_main(&test, ms, ZC_ARRAY_SIZE(ms), argc, argv,
			      &ctx.o, &ctx);
}
