// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring SEND_ZC notifications.
 *
 * Checks the zero-copy send contract of IORING_OP_SEND_ZC, SENDMSG_ZC and
 * SEND_ZC on registered buffers: each request gets exactly one CQE, and a
 * CQE with IORING_CQE_F_MORE gets exactly one later IORING_CQE_F_NOTIF with
 * the same user_data (matched by user_data: TCP reorders them), also when
 * the send fails. IORING_SEND_ZC_REPORT_USAGE must say zero-copy for a peer
 * that drops at tc ingress and copied for local delivery. A buffer rewritten
 * as soon as its notification arrives must still reach the receiver intact.
 * Then the rates zero-copy buys over send(2) on the tc-drop topology.
 *
 * Topology (lib/send/sink.h): namespaces a (sender) and b (receiver) joined by
 * veth at MTU 65535 (or the ZC_PAIR devices at the MTU they take). In b,
 * bpf/tc_drop.bpf.c drops UDP to the sink port at clsact ingress (the
 * clean zero-copy peer); real UDP/TCP receivers on other ports in b take
 * the cases that must be copied and the data checks.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "core/compat.h"
#include "send/env.h"
#include "core/meter.h"
#include "core/probe.h"
#include "core/matrix.h"
#include "send/sink.h"
#include "send/sock.h"
#include "sendzc_notif/sockerr.h"
#include "send/uring.h"
#include "core/util.h"
#include "sendzc_notif/zcledger.h"
#include "sendzc_notif/zcsession.h"
#include "send/zcsend.h"

#define TEST_NAME	"sendzc_notif"
#define MTU		65535	/* ZC_PAIR devices may settle for less */
#define MTU_SMALL	1500	/* errors.msgsize lowers a larger MTU to this */
#define SIZE_DEFAULT	65507	/* largest UDP/IPv4 datagram */
#define SINK_PORT	9	/* dropped by tc_drop in b */
#define RX_PORT		5001	/* real receivers in b */
#define CLOSED_PORT	5003	/* nothing listens: refused */
#define SEED		0x5a43736e64ULL
#define LIFETIME_SENDS	512
#define USAGE_SENDS	64
#define ERR_TRIES	32
#define OP_TIMEOUT	10.0	/* bound on every send/receive phase */
#define FLUSH_TIMEOUT	5.0
#define PATH_TIMEOUT	15.0	/* carrier of a ZC_PAIR after the move */
#define GRACE		0.05	/* late CQEs nobody expects are looked for this long */
/* The rates' send buffer: what liburing's send-zerocopy example asks for. */
#define RATE_SNDBUF	(1 << 21)

enum proto { P_UDP4, P_UDP6, P_TCP4, P_UNIX };
enum kind {
	K_PAIRING, K_USAGE_ZC, K_USAGE_COPIED, K_USAGE_OFF, K_LIFETIME,
	K_ERR_REFUSED, K_ERR_MSGSIZE, K_ERR_NOTSUPP, K_ERR_BADINDEX, K_RATE,
};
/* D_KIND: the depth the kind runs at (kind_depth), not an axis of it. */
enum depth { D_KIND, D_1, D_8, D_64 };

struct ctx;

/* A row: what the case does, over which socket and API, at what depth. */
struct req {
	ZC_ROW_HOOKS(struct req, struct ctx);
	enum proto proto;
	enum zc_send_mode mode;
	enum kind kind;
	enum depth depth;
};

struct ctx {
	struct zc_opts o;
	struct zc_sink sink;
	const char *peer_exec;		/* --peer-exec CMD */
	struct zc_sink_feat feat;	/* io_uring SEND_ZC, BPF for the sink */
	bool have_usage;
	struct zc_why usage_why;	/* why REPORT_USAGE cannot be used */
};

ZC_MATRIX_TYPE(req, struct req, struct ctx)

static void case_contract(const struct zc_case *zc, const struct req *a,
			  struct ctx *c);
static void case_rate(const struct zc_case *zc, const struct req *a,
		      struct ctx *c);
static enum zc_pre pre_case(const struct zc_case *zc, const struct req *a,
			    struct ctx *c, struct zc_why *why);

/* The axes' names: a case's name is its row's (lib/core/matrix.h). */
static const char *const proto_names[] = {
	[P_UDP4] = "udp4", [P_UDP6] = "udp6", [P_TCP4] = "tcp4", [P_UNIX] = "unix",
};
static const char *const mode_names[] = {
	[ZC_MODE_SEND] = "send", [ZC_MODE_URING_SEND] = "uring_send",
	[ZC_MODE_MSG_ZEROCOPY] = "msg_zerocopy", [ZC_MODE_SEND_ZC] = "send_zc",
	[ZC_MODE_SENDMSG_ZC] = "sendmsg_zc", [ZC_MODE_SEND_ZC_FIXED] = "send_zc_fixed",
};
static const char *const kind_names[] = {
	[K_PAIRING] = "pairing", [K_USAGE_ZC] = "report_usage.zerocopy",
	[K_USAGE_COPIED] = "report_usage.copied", [K_USAGE_OFF] = "report_usage.off",
	[K_LIFETIME] = "lifetime", [K_ERR_REFUSED] = "errors.refused",
	[K_ERR_MSGSIZE] = "errors.msgsize", [K_ERR_NOTSUPP] = "errors.notsupp",
	[K_ERR_BADINDEX] = "errors.bad_index", [K_RATE] = "rate",
};
static const char *const depth_names[] = {
	[D_KIND] = "", [D_1] = "depth1", [D_8] = "depth8", [D_64] = "depth64",
};

static unsigned int depth_of(const struct req *a)
{
	static const unsigned int depth[] = { [D_1] = 1, [D_8] = 8, [D_64] = 64 };
	/* An error is one send; the rest keep 8 in flight. */
	static const unsigned int kind_depth[] = {
		[K_USAGE_ZC] = 8, [K_USAGE_COPIED] = 8, [K_USAGE_OFF] = 8,
		[K_LIFETIME] = 8, [K_ERR_REFUSED] = 1, [K_ERR_MSGSIZE] = 1,
		[K_ERR_NOTSUPP] = 1, [K_ERR_BADINDEX] = 1, [K_RATE] = 8,
	};

	return a->depth != D_KIND ? depth[a->depth] : kind_depth[a->kind];
}

/*
 * The contract per protocol and API: pairing at depth 1, 8 and 64,
 * REPORT_USAGE where nothing copies (the tc sink takes UDP only), where
 * local delivery copies and switched off, buffer lifetime, errors.
 */
static const char *contract_rule(const struct req *r)
{
	if (r->kind == K_PAIRING && r->depth == D_KIND)
		return "pairing runs at each depth";
	if (r->kind != K_PAIRING && r->depth != D_KIND)
		return "only pairing varies the depth";
	if (r->proto == P_UNIX && r->kind != K_ERR_NOTSUPP)
		return "AF_UNIX has no zero-copy send: only its refusal is checked";
	if (r->proto != P_UNIX && r->kind == K_ERR_NOTSUPP)
		return "errors.notsupp is the refusal of a family without zero-copy";
	if (r->proto == P_TCP4 && r->kind == K_USAGE_ZC)
		return "the tc sink drops UDP only: no TCP send is zero-copy here";
	if (r->proto == P_TCP4 && r->kind == K_ERR_MSGSIZE)
		return "a TCP stream has no message size";
	return NULL;
}

static const struct req_matrix contract = {
	.base = &(const struct req){ .zc = { .fn = case_contract, .pre = pre_case } },
	.axes = {
		ZC_AXIS(struct req, proto, proto_names, P_UDP4, P_UDP6, P_TCP4, P_UNIX),
		ZC_AXIS(struct req, mode, mode_names, ZC_MODE_SEND_ZC, ZC_MODE_SENDMSG_ZC,
			ZC_MODE_SEND_ZC_FIXED),
		ZC_AXIS(struct req, kind, kind_names, K_PAIRING, K_USAGE_ZC,
			K_USAGE_COPIED, K_USAGE_OFF, K_LIFETIME, K_ERR_REFUSED,
			K_ERR_MSGSIZE, K_ERR_NOTSUPP),
		ZC_AXIS(struct req, depth, depth_names, D_1, D_8, D_64, D_KIND),
	},
	.rule = contract_rule,
};

/* A registered buffer's index exists for send_zc_fixed only. */
static const struct req_matrix bad_index = {
	.base = &(const struct req){ .zc = { .fn = case_contract, .pre = pre_case } },
	.axes = {
		ZC_AXIS(struct req, proto, proto_names, P_UDP4),
		ZC_AXIS(struct req, mode, mode_names, ZC_MODE_SEND_ZC_FIXED),
		ZC_AXIS(struct req, kind, kind_names, K_ERR_BADINDEX),
	},
};

/* The rates: every API to the tc sink, SEND_ZC's at the depths named. */
static const char *rate_rule(const struct req *r)
{
	bool zc = zc_send_mode_uring(r->mode) && zc_send_mode_zerocopy(r->mode);

	if (!zc && r->depth != D_KIND)
		return "send, uring_send and msg_zerocopy are rated at the default depth";
	if (zc && r->depth == D_KIND)
		return "a SEND_ZC rate names its depth";
	if (r->mode != ZC_MODE_SEND_ZC && r->depth == D_1)
		return "depth 1 (a notification per send) is rated on send_zc only";
	return NULL;
}

static const struct req_matrix rates = {
	.base = &(const struct req){ .zc = { .fn = case_rate, .pre = pre_case } },
	.axes = {
		ZC_AXIS(struct req, proto, proto_names, P_UDP4),
		ZC_AXIS(struct req, kind, kind_names, K_RATE),
		ZC_AXIS(struct req, mode, mode_names, ZC_MODE_SEND, ZC_MODE_URING_SEND,
			ZC_MODE_MSG_ZEROCOPY, ZC_MODE_SEND_ZC, ZC_MODE_SENDMSG_ZC,
			ZC_MODE_SEND_ZC_FIXED),
		ZC_AXIS_GLUED(struct req, depth, depth_names, D_KIND, D_1, D_8),
	},
	.rule = rate_rule,
};

static bool is_udp(enum proto p)
{
	return p == P_UDP4 || p == P_UDP6;
}

static size_t case_size(const struct ctx *c, enum proto p);
static int session_setup(struct ctx *c, const struct req *a,
			 struct zc_session *ss, struct zc_session_cfg *sc);

/* ---- cases ---- */

/* What the row needs that this kernel or setup may not have. */
static enum zc_pre pre_case(const struct zc_case *zc, const struct req *a,
			    struct ctx *c, struct zc_why *why)
{
	bool sink = a->kind == K_USAGE_ZC || a->kind == K_RATE;

	if (zc_sink_feat_need(&c->feat, &(struct zc_sink_need){
				.uring = zc_send_mode_uring(a->mode) }, why))
		return ZC_SKIP;
	if (a->mode == ZC_MODE_SENDMSG_ZC && !c->feat.sendmsg_zc)
		return zc_why_skip(why, ZC_CLASS_KERNEL, "kernel lacks IORING_OP_SENDMSG_ZC"), ZC_SKIP;
	if (a->kind == K_LIFETIME && is_udp(a->proto) &&
	    case_size(c, a->proto) < sizeof(uint64_t))
		return zc_why_skip(why, ZC_CLASS_HARNESS,
				   "UDP lifetime needs --size >= 8 to number datagrams"),
		       ZC_SKIP;
	if ((a->kind == K_USAGE_ZC || a->kind == K_USAGE_COPIED) && !c->have_usage)
		return zc_why_skip(why, c->usage_why.cls, "%s", c->usage_why.msg),
		       ZC_SKIP;
	/* Any local receiver copies: zero-copy needs the tc sink. */
	return zc_sink_feat_need(&c->feat, &(struct zc_sink_need){
					.sink = sink,
					.what = a->kind == K_RATE ? "" :
						" for a path that does not copy",
				 }, why) ? ZC_SKIP : ZC_RUN;
}

/*
 * pairing: n requests at depth N, every CQE and notification matched by
 * user_data. TCP requests run unlinked here, so they complete (and notify)
 * out of order; their bytes may interleave, so only their count is checked.
 *
 * lifetime: each buffer is poisoned the moment the kernel gives it back
 * and rewritten just before it goes out again; had a notification come
 * before the kernel was done with the pages, the receiver would see
 * poison. Every byte is checked, --verify or not: that is the point.
 */
static void case_requests(const struct zc_case *zc, const struct req *a,
			  struct ctx *c)
{
	bool life = a->kind == K_LIFETIME, udp = is_udp(a->proto);
	uint64_t n = life ? LIFETIME_SENDS : depth_of(a) * 4 > 128 ? depth_of(a) * 4 : 128;
	/* Without BPF, a receiver in b stands in for the tc sink. */
	struct zc_session_cfg sc = {
		.n = n, .usage = c->have_usage, .unlinked = !life,
		.sink = !life && udp && c->sink.skel,
		.verify = life || (c->o.verify && udp),
	};
	struct zc_session ss;
	struct zc_why why;
	int ret;

	if (!life && udp && !c->sink.skel)
		ktap_print_msg("%s: runs with a receiver socket in b instead of the tc drop sink (%s)",
			       zc->name, c->feat.bpf.msg);
	ret = session_setup(c, a, &ss, &sc);
	if (ret) {
		ktap_fail(zc->name, "setup: %s", strerror(-ret));
		goto out;
	}
	/* Requests wait for the receiver's window: it must hold the depth. */
	if (!sc.sink && udp && ss.rx.window < depth_of(a)) {
		ktap_skip(zc->name, ZC_CLASS_ENV, "the receiver standing in for the tc sink holds %u datagrams, depth %u needs more (SO_RCVBUFFORCE refused; %s)",
			  ss.rx.window, depth_of(a), c->feat.bpf.msg);
		goto out;
	}
	ss.l.poison = life;
	zc_session_run(&ss);
	ktap_print_msg("%s: depth=%u %s, notifications out of submission order: %llu",
		       zc->name, depth_of(a), ss.contract.msg,
		       (unsigned long long)ss.l.reordered);
	if (!sc.sink)
		ktap_print_msg("%s: receiver got %llu bytes%s", zc->name,
			       (unsigned long long)ss.rx.bytes,
			       sc.verify ? ", each checked against the pattern" : "");
	if (c->have_usage)
		ktap_zcmode(zc->name, ss.l.usage_zc, ss.l.usage_copied);
	if (!zc_session_traffic(&ss, &why))
		ktap_fail_why(zc->name, &why);
	else
		ktap_result(zc->name, ss.ok, "contract broken");
out:
	zc_session_end(&ss);
}

/* Checks every notification's res, with REPORT_USAGE or without. */
static void case_usage(const struct zc_case *zc, const struct req *a,
			  struct ctx *c)
{
	bool usage = a->kind != K_USAGE_OFF, copied = a->kind == K_USAGE_COPIED;
	/*
	 * Over veth, delivery to a socket in b is local and copies; past a
	 * ZC_PAIR of real devices it is not, so the copied case uses lo.
	 */
	uint64_t n = USAGE_SENDS, want_zc = copied ? 0 : n, want_cp = copied ? n : 0;
	struct zc_session_cfg sc = {
		.n = n, .usage = usage, .verify = c->o.verify,
		.sink = a->kind == K_USAGE_ZC, .lo = copied && c->sink.t.real_pair,
	};
	struct zc_session ss;
	struct zc_why why;
	int ret;

	ret = session_setup(c, a, &ss, &sc);
	if (ret) {
		ktap_fail(zc->name, "setup: %s", strerror(-ret));
		goto out;
	}
	zc_session_run(&ss);
	ktap_print_msg("%s: %s", zc->name, ss.contract.msg);
	ktap_print_msg("%s: notification res: 0 x%llu, ZC_COPIED x%llu, other x%llu",
		       zc->name, (unsigned long long)ss.l.usage_zc,
		       (unsigned long long)ss.l.usage_copied,
		       (unsigned long long)ss.l.usage_other);
	if (usage)
		ktap_zcmode(zc->name, ss.l.usage_zc, ss.l.usage_copied);
	if (!zc_session_traffic(&ss, &why))
		ktap_fail_why(zc->name, &why);
	else if (!ss.ok)
		ktap_fail(zc->name, "contract broken");
	else if (ss.l.usage_copied > want_cp && zc_env_copy_cause(&c->sink.t, &why))
		ktap_skip_why(zc->name, &why);
	else
		ktap_result(zc->name, ss.l.usage_zc == want_zc &&
			    ss.l.usage_copied == want_cp && !ss.l.usage_other,
			    "want res 0 x%llu and ZC_COPIED x%llu",
			    (unsigned long long)want_zc, (unsigned long long)want_cp);
out:
	zc_session_end(&ss);
}

/* ---- errors: the failing send's -errno, and the contract still holds ---- */

struct err_setup {
	int fd;
	size_t size;
	int restore_mtu;	/* 0: MTU untouched */
	const char *what;
	char buf[96];
};

static int err_prepare(struct ctx *c, const struct req *a, struct err_setup *e);
static int err_want(const struct req *a);

static int err_open(struct ctx *c, const struct req *a, struct err_setup *e,
		    struct zc_ledger *r)
{
	struct zc_sender_cfg cfg = {
		.mode = a->mode, .depth = 1, .report_usage = c->have_usage,
		.on_event = zc_ledger_event, .ctx = r,
		.force_index = a->kind == K_ERR_BADINDEX, .buf_index = 1000,
	};
	int ret = err_prepare(c, a, e);

	if (!ret)
		ret = zc_ledger_init(r, e->size, ERR_TRIES);
	if (ret)
		return ret;
	cfg.fd = e->fd;
	cfg.size = e->size;
	r->s = zc_sender_open(&cfg, &ret);
	return r->s ? 0 : ret;
}

static void err_report(const struct zc_case *zc, const struct err_setup *e,
		       const struct zc_ledger *r, long sent, int failed_at, int flush)
{
	int want = err_want(zc->arg);
	struct zc_why why = { "" };
	bool ok = false;

	if (sent > 0) {
		/* Successful sends before the failing one must have sent all. */
		ok = zc_ledger_ok(r, sent, INT_MIN, &why);
		ktap_print_msg("%s: %s: %s", zc->name, e->what, why.msg);
		ktap_print_msg("%s: request %d failed with %d (%s), F_MORE %s",
			       zc->name, failed_at,
			       failed_at >= 0 ? r->res[failed_at] : 0,
			       failed_at >= 0 ? strerror(-r->res[failed_at]) : "-",
			       failed_at >= 0 && r->more[failed_at] ? "set" : "clear");
	}
	if (sent <= 0 || flush)
		ktap_fail(zc->name, "sends: %s, flush: %s",
			  sent < 0 ? strerror(-sent) : "none",
			  flush ? strerror(-flush) : "ok");
	else if (failed_at < 0)
		ktap_fail(zc->name, "no send failed in %ld tries, want %s", sent,
			  strerror(-want));
	else
		ktap_result(zc->name, ok && r->res[failed_at] == want &&
			    zc_ledger_all_sent(r, failed_at),
			    "want %d (%s) after whole sends, contract %s", want,
			    strerror(-want), ok ? "held" : "broken");
}

static void case_error(const struct zc_case *zc, const struct req *a,
		       struct ctx *c)
{
	struct err_setup e = { .fd = -1 };
	int failed_at = -1, ret;
	struct zc_ledger r = {};
	long sent;

	ret = err_open(c, a, &e, &r);
	if (ret) {
		ktap_fail(zc->name, "setup: %s", strerror(-ret));
	} else {
		sent = zc_ledger_send_until_fail(&r, &failed_at, OP_TIMEOUT,
						 FLUSH_TIMEOUT);
		ret = zc_sender_flush(r.s, FLUSH_TIMEOUT, GRACE);
		err_report(zc, &e, &r, sent, failed_at, ret);
	}
	if (e.restore_mtu && zc_topo_set_mtu(&c->sink.t, e.restore_mtu))
		ktap_print_msg("could not restore MTU %d", e.restore_mtu);
	if (e.fd >= 0)
		close(e.fd);
	zc_ledger_free(&r);
}

/* ---- rates ---- */

/* The contract's body is its kind's. */
static void case_contract(const struct zc_case *zc, const struct req *a,
			  struct ctx *c)
{
	switch (a->kind) {
	case K_PAIRING:
	case K_LIFETIME:
		case_requests(zc, a, c);
		break;
	case K_USAGE_ZC:
	case K_USAGE_COPIED:
	case K_USAGE_OFF:
		case_usage(zc, a, c);
		break;
	default:
		case_error(zc, a, c);
		break;
	}
}

static void rate_config(const struct zc_case *zc, const struct ctx *c,
			const struct zc_sender_cfg *cfg,
			const struct zc_sink_tx *tx)
{
	socklen_t len = sizeof(int);
	int sndbuf = 0;

	getsockopt(tx->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len);
	zc_report_config(&c->o, zc->name,
		  "mode=%s size=%zu depth=%u one_buffer=%s fixed_buf=%s report_usage=%s ring=%s sndbuf=%d proto=udp4 sink=tc_drop cpu_tx=%d cpu_rx=%d mtu=%d",
		  zc_send_mode_name(cfg->mode), cfg->size, cfg->depth,
		  cfg->one_buffer ? "yes" : "no",
		  cfg->mode == ZC_MODE_SEND_ZC_FIXED ? "yes" : "no",
		  cfg->report_usage ? "yes" : "no", zc_sender_ring_desc(tx->s),
		  sndbuf, c->o.cpu_tx, c->o.cpu_rx, c->sink.t.mtu);
}

static void rate_report(const struct zc_case *zc, const struct zc_rate *rate,
			const struct zc_stats *vs_send)
{
	char prefix[160];

	snprintf(prefix, sizeof(prefix), "%s.%s", TEST_NAME, zc->name);
	zc_report_rate(prefix, rate, false);
	if (vs_send->n) {
		snprintf(prefix, sizeof(prefix), "%s.%s.vs_send", TEST_NAME,
			 zc->name);
		ktap_metric(prefix, vs_send, "ratio");
	}
}

/*
 * The rate, and for every mode but send() itself its ratio to send():
 * a send() sender (as udp4.rate.send measures it) on its own socket runs
 * in alternation with the mode, repeat by repeat, so each repeat gives
 * one ratio sample.
 */
static int rate_open(struct ctx *c, const struct req *a,
		     struct zc_sink_arm arm[2], struct zc_sender_cfg *cfg)
{
	struct zc_sender_cfg ref = { .mode = ZC_MODE_SEND, .size = cfg->size,
				     .depth = 8 };
	bool alone = a->mode == ZC_MODE_SEND;
	/*
	 * Eight 64 KiB sends in flight overrun the default send buffer
	 * (wmem_default) whenever softirq falls behind, and a full buffer
	 * sends io_uring requests the slow way (poll, then retry).
	 */
	int ret = zc_sink_tx_open(&c->sink, &arm[!alone].tx, cfg, RATE_SNDBUF);

	if (!ret && !alone)
		ret = zc_sink_tx_open(&c->sink, &arm[0].tx, &ref, 0);
	return ret;
}

/* Backed by real traffic: over veth every datagram sent reaches the sink. */
static void rate_judge(const struct zc_case *zc, struct ctx *c,
		       const struct zc_sink_arm *arm, int narm, uint64_t sunk)
{
	const struct zc_send_stats *st = zc_sender_stats(arm[narm - 1].tx.s);
	uint64_t ref = narm > 1 ? zc_sender_stats(arm[0].tx.s)->completed : 0;
	uint64_t sent = st->completed + ref;

	ktap_print_msg("%s: tc sink counted %llu datagrams, sender completed %llu (failed %llu), send() reference %llu",
		       zc->name, (unsigned long long)sunk,
		       (unsigned long long)st->completed,
		       (unsigned long long)st->failed, (unsigned long long)ref);
	/* A real device pair may lose some at these rates. */
	ktap_result(zc->name, !st->failed && sunk <= sent &&
		    (c->sink.t.real_pair ? sunk > 0 : sunk == sent),
		    "traffic does not add up");
}

static void case_rate(const struct zc_case *zc, const struct req *a,
		      struct ctx *c)
{
	struct zc_meter_cfg mc = {
		.duration = c->o.duration, .warmup = c->o.warmup,
		.repeat = c->o.repeat, .max_steps = 1ULL << 32,
	};
	struct zc_sender_cfg cfg = {
		.mode = a->mode, .size = case_size(c, P_UDP4), .depth = depth_of(a),
		.one_buffer = true,
		.report_usage = c->have_usage && zc_send_mode_uring(a->mode) &&
				zc_send_mode_zerocopy(a->mode),
	};
	struct zc_sink_arm arm[2] = { { .tx.fd = -1 }, { .tx.fd = -1 } };
	int narm = a->mode == ZC_MODE_SEND ? 1 : 2, ret;
	const struct zc_send_stats *st;
	struct zc_stats vs_send = {};
	struct zc_why why = { "" };
	uint64_t sunk;

	ret = rate_open(c, a, arm, &cfg);
	if (ret) {
		ktap_fail(zc->name, "setup: %s", strerror(-ret));
		goto out;
	}
	rate_config(zc, c, &cfg, &arm[narm - 1].tx);
	if (zc_sink_rate(&c->sink, &mc, arm, narm, &vs_send, &sunk, &why)) {
		ktap_fail_why(zc->name, &why);
		goto out;
	}
	st = zc_sender_stats(arm[narm - 1].tx.s);
	/* A copy a cause outside the kernel explains is no zcmode to compare. */
	if (zc_send_mode_zerocopy(a->mode) && st->copied &&
	    zc_env_copy_cause(&c->sink.t, &why)) {
		ktap_skip_why(zc->name, &why);
		goto out;
	}
	rate_report(zc, &arm[narm - 1].rate, &vs_send);
	if (zc_send_mode_zerocopy(a->mode) &&
	    (cfg.report_usage || a->mode == ZC_MODE_MSG_ZEROCOPY))
		ktap_zcmode(zc->name, st->zerocopy, st->copied);
	rate_judge(zc, c, arm, narm, sunk);
out:
	zc_sink_tx_close(&arm[0].tx);
	zc_sink_tx_close(&arm[1].tx);
}

/* ---- a session: the case's request stream over lib/sendzc_notif/zcsession ---- */

/* --size, capped so a datagram fits the MTU: fragments would be copied. */
static size_t case_size(const struct ctx *c, enum proto p)
{
	size_t hdr = p == P_UDP6 ? 48 : 28;

	if (is_udp(p) && (size_t)c->o.size > c->sink.t.mtu - hdr)
		return c->sink.t.mtu - hdr;
	return c->o.size;
}

static int family_of(enum proto p)
{
	return p == P_UDP6 ? AF_INET6 : AF_INET;
}

static int type_of(enum proto p)
{
	return is_udp(p) ? SOCK_DGRAM : SOCK_STREAM;
}

/* Socket in a, connected to b:port (or lo:port). Returns fd or -errno. */
static int sender_socket(const struct ctx *c, enum proto p, int port, bool lo)
{
	return zc_session_socket(&c->sink, family_of(p), type_of(p), port, lo);
}

/* sc carries where to (sink, lo) and how (unlinked); the rest is the row's. */
static int session_setup(struct ctx *c, const struct req *a,
			 struct zc_session *ss, struct zc_session_cfg *sc)
{
	sc->family = family_of(a->proto);
	sc->type = type_of(a->proto);
	sc->mode = a->mode;
	sc->depth = depth_of(a);
	sc->size = case_size(c, a->proto);
	sc->rx_port = RX_PORT;
	sc->cpu_rx = c->o.cpu_rx;
	sc->seed = SEED;
	sc->timeout = OP_TIMEOUT;
	sc->flush_timeout = FLUSH_TIMEOUT;
	sc->grace = GRACE;
	return zc_session_open(ss, &c->sink, sc);
}

/* ---- errors: how each is provoked ---- */

/* No datagram exceeds 65535: lower the MTU to exceed it. */
static int err_msgsize(struct ctx *c, const struct req *a, struct err_setup *e)
{
	int ret;

	e->fd = sender_socket(c, a->proto, SINK_PORT, false);
	if (e->fd < 0)
		return e->fd;
	ret = zc_sockerr_dontfrag(e->fd, family_of(a->proto));
	if (!ret && c->sink.t.mtu > MTU_SMALL) {
		e->restore_mtu = c->sink.t.mtu;
		ret = zc_topo_set_mtu(&c->sink.t, MTU_SMALL);
		if (ret)
			e->restore_mtu = 0;
	}
	e->size = c->sink.t.mtu + 500;
	snprintf(e->buf, sizeof(e->buf), "%zu-byte datagram, don't fragment, MTU %d",
		 e->size, c->sink.t.mtu);
	e->what = e->buf;
	return ret;
}

static int err_prepare(struct ctx *c, const struct req *a, struct err_setup *e)
{
	e->size = case_size(c, a->proto);
	switch (a->kind) {
	case K_ERR_REFUSED:
		e->what = "send to a port nobody listens on";
		e->fd = a->proto != P_TCP4 ?
			sender_socket(c, a->proto, CLOSED_PORT, false) :
			zc_sockerr_refused(c->sink.t.a.nsfd, &c->sink.t.b.addr4,
					   CLOSED_PORT, OP_TIMEOUT);
		return e->fd < 0 ? e->fd : 0;
	case K_ERR_MSGSIZE:
		return err_msgsize(c, a, e);
	case K_ERR_NOTSUPP:
		e->what = "AF_UNIX datagram socket";
		e->fd = zc_sockerr_unix();
		return e->fd < 0 ? e->fd : 0;
	case K_ERR_BADINDEX:
		e->what = "buf_index past the registered buffers";
		e->fd = sender_socket(c, a->proto, SINK_PORT, false);
		return e->fd < 0 ? e->fd : 0;
	default:
		return -EINVAL;
	}
}

static int err_want(const struct req *a)
{
	switch (a->kind) {
	case K_ERR_REFUSED:
		return -ECONNREFUSED;
	case K_ERR_MSGSIZE:
		return -EMSGSIZE;
	case K_ERR_NOTSUPP:
		return -EOPNOTSUPP;
	default:
		return -EFAULT;	/* no registered buffer at that index */
	}
}

/* ---- probes, setup, options ---- */

/*
 * Capabilities decide for the whole binary; io_uring and BPF only for the
 * cases that need them (MSG_ZEROCOPY and send() rates, a receiver instead
 * of the tc sink).
 */
static int probe(void *arg, struct zc_why *why)
{
	static const cap_value_t caps[] = { CAP_NET_ADMIN, CAP_SYS_ADMIN };
	struct ctx *c = arg;

	return zc_sink_probe(caps, ZC_ARRAY_SIZE(caps), &c->feat, why);
}

static int setup(void *arg, struct zc_why *why)
{
	struct ctx *c = arg;
	bool bpf = !c->feat.bpf.msg[0];

	if (zc_sink_setup(&c->sink, MTU, SINK_PORT, bpf, why) ||
	    (bpf && zc_sink_wait_path(&c->sink, PATH_TIMEOUT, why)))
		return -1;
	if (!bpf)
		ktap_print_msg("no BPF, no tc sink: UDP cases use a receiver in b, zero-copy ones skip (%s)",
			       c->feat.bpf.msg);
	if (!c->feat.uring.msg[0])
		c->have_usage = zc_session_usage(&c->sink, OP_TIMEOUT,
						 &c->usage_why);
	if (c->feat.uring.msg[0])
		ktap_print_msg("io_uring cases skip: %s", c->feat.uring.msg);
	else if (!c->have_usage)
		ktap_print_msg("%s", c->usage_why.msg);
	/* The peer of --peer-exec chooses its own CPU. */
	if (!c->peer_exec)
		zc_pin_cpu(c->o.cpu_tx);
	return 0;
}

static void teardown(void *arg)
{
	struct ctx *c = arg;

	zc_sink_teardown(&c->sink);
}

/*
 * --peer-exec: another sender (liburing's examples/send-zerocopy.c, say)
 * on exactly this topology, so tools/zc-peer-bench can hold the suite's
 * rates against it. The command runs under /bin/sh in namespace a; the
 * sink's count tells whether its datagrams really reached tc drop.
 */
static int peer_mode(void *arg)
{
	struct ctx *c = arg;
	struct zc_why why = { "" };
	int ret;

	if (!c->peer_exec)
		return -1;
	if (probe(c, &why)) {
		fprintf(stderr, "%s: --peer-exec: %s\n", TEST_NAME, why.msg);
		return KSFT_SKIP;
	}
	zc_raise_limits();
	if (setup(c, &why)) {
		teardown(c);
		ktap_exit_fail_msg("%s: %s", TEST_NAME, why.msg);
	}
	ret = zc_sink_exec(&c->sink, c->peer_exec);
	teardown(c);
	return ret;
}

enum { OPT_PEER_EXEC = 256 };

static const struct zc_opt_extra extra_opts[] = {
	{ "peer-exec", 1, OPT_PEER_EXEC, "CMD",
	  "set up the topology, run CMD (sh -c) in the sender namespace with ZC_PEER_ADDR, ZC_PEER_PORT, ZC_PEER_MTU set, print the datagrams the tc sink counted, exit with CMD's status" },
	{ NULL }
};

static int parse_extra(int val, const char *arg, void *ctx, struct zc_why *why)
{
	struct ctx *c = ctx;

	if (val == OPT_PEER_EXEC && zc_sink_cmd_ok(arg)) {
		c->peer_exec = arg;
		return 0;
	}
	return zc_why_set(why, "--peer-exec wants a command whose first word is an executable, got '%.40s'",
			  arg);
}

static const struct zc_test_desc desc = {
	.name = TEST_NAME,
	.extra = extra_opts,
	.parse = parse_extra,
	.summary = "io_uring SEND_ZC/SENDMSG_ZC notification contract, REPORT_USAGE, buffer lifetime, zero-copy rates",
	.size_default = SIZE_DEFAULT,
	.size_max = SIZE_DEFAULT,
};

static struct zc_test test = {
	.desc = &desc,
	.mode = peer_mode,
	.probe = probe,
	.setup = setup,
	.teardown = teardown,
};

int main(int argc, char **argv)
{
	static struct ctx ctx;

	const struct zc_matrix ms[] = {
		req_matrix(&contract), req_matrix(&bad_index), req_matrix(&rates),
	};

	return zc_matrix_main(&test, ms, ZC_ARRAY_SIZE(ms), argc, argv,
			      &ctx.o, &ctx);
}
