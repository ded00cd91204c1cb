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
 * The contract cases drive io_uring themselves (struct tx below: the
 * requests, the CQE loop, the checks), not through lib/send's sender, so
 * the test does not trust the code the rates measure with.
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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <liburing.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "core/clock.h"

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
#define STEP_WAIT	1.0	/* one wait for a CQE */
#define POISON		0xa5	/* a buffer the kernel gave back */
#define BAD_INDEX	1000	/* past the registered buffers */
/* The rates' send buffer: what liburing's send-zerocopy example asks for. */
#define RATE_SNDBUF	(1 << 21)

struct ctx;
struct row;
struct err_setup;

typedef void case_fn(const struct zc_case *c, const struct row *r,
		     struct ctx *ctx);
/* Make the send of e fail as the kind wants: 0 or -errno. */
typedef int provoke_fn(struct ctx *ctx, const struct row *r,
		       struct err_setup *e);

/* What every notification's res must say (REPORT_USAGE). */
enum usage_want { USAGE_UNCHECKED, USAGE_OFF, USAGE_ZEROCOPY, USAGE_COPIED };

/* The sockets a case sends over. */
static const struct proto {
	const char *name;
	int family, type;
} protos[] = {
	{ "udp4", AF_INET, SOCK_DGRAM },
	{ "udp6", AF_INET6, SOCK_DGRAM },
	{ "tcp4", AF_INET, SOCK_STREAM },
	/* no zero-copy send: only its refusal is checked */
	{ "unix", AF_UNIX, SOCK_DGRAM },
};

/* The io_uring zero-copy requests. */
static const struct mode {
	const char *name;
	enum zc_send_mode mode;
} modes[] = {
	{ "send_zc", ZC_MODE_SEND_ZC },
	{ "sendmsg_zc", ZC_MODE_SENDMSG_ZC },
	{ "send_zc_fixed", ZC_MODE_SEND_ZC_FIXED },
};

/* Requests in flight, for the kinds that vary it; n 0: the kind's own. */
static const struct depth {
	const char *name;
	unsigned int n;
} depths[] = {
	{ "depth1", 1 }, { "depth8", 8 }, { "depth64", 64 }, { "", 0 },
};

static case_fn case_requests, case_usage, case_error;
static provoke_fn err_refused, err_msgsize, err_notsupp, err_bad_index;

/*
 * The contract's checks, each declared once: pairing at depth 1, 8 and
 * 64, REPORT_USAGE where nothing copies (the tc sink takes UDP only),
 * where local delivery copies and switched off, buffer lifetime, and
 * errors (one send each: the failing send's -errno, the contract still
 * holds).
 */
static const struct kind {
	const char *name;
	case_fn *fn;
	unsigned int depth;	/* 0: the depth axis gives it */
	enum usage_want usage;
	bool lifetime;
	int err;		/* the -errno the failing send must get */
	provoke_fn *provoke;
	const char *no_tcp;	/* why TCP has no such case */
	bool fixed_only;	/* a registered buffer's index: udp4 shows it */
} kinds[] = {
	{ "pairing", case_requests },
	{ "report_usage.zerocopy", case_usage, 8, USAGE_ZEROCOPY,
	  .no_tcp = "the tc sink drops UDP only: no TCP send is zero-copy here" },
	{ "report_usage.copied", case_usage, 8, USAGE_COPIED },
	{ "report_usage.off", case_usage, 8, USAGE_OFF },
	{ "lifetime", case_requests, 8, .lifetime = true },
	{ "errors.refused", case_error, 1, .err = -ECONNREFUSED,
	  .provoke = err_refused },
	{ "errors.msgsize", case_error, 1, .err = -EMSGSIZE,
	  .provoke = err_msgsize, .no_tcp = "a TCP stream has no message size" },
	{ "errors.notsupp", case_error, 1, .err = -EOPNOTSUPP,
	  .provoke = err_notsupp },
	/* no registered buffer at that index */
	{ "errors.bad_index", case_error, 1, .err = -EFAULT,
	  .provoke = err_bad_index, .fixed_only = true },
};

/* The rates: every API to the tc sink, SEND_ZC's at the depths named. */
static const struct rate {
	const char *name;
	enum zc_send_mode mode;
	unsigned int depth;
} rates[] = {
	{ "udp4.rate.send", ZC_MODE_SEND, 8 },
	{ "udp4.rate.uring_send", ZC_MODE_URING_SEND, 8 },
	{ "udp4.rate.msg_zerocopy", ZC_MODE_MSG_ZEROCOPY, 8 },
	/* a notification per send */
	{ "udp4.rate.send_zc_depth1", ZC_MODE_SEND_ZC, 1 },
	{ "udp4.rate.send_zc_depth8", ZC_MODE_SEND_ZC, 8 },
	{ "udp4.rate.sendmsg_zc_depth8", ZC_MODE_SENDMSG_ZC, 8 },
	{ "udp4.rate.send_zc_fixed_depth8", ZC_MODE_SEND_ZC_FIXED, 8 },
};

/*
 * A row: a contract case (proto, mode, kind, depth index their tables)
 * or a rate (rate indexes rates); fill points p, m, k, d, rt at them.
 */
struct row {
	ZC_ROW_HOOKS(struct row, struct ctx);
	int proto, mode, kind, depth, rate;
	const struct proto *p;
	const struct mode *m;
	const struct kind *k;
	const struct depth *d;
	const struct rate *rt;
};

struct ctx {
	struct zc_opts o;
	struct zc_sink sink;
	const char *peer_exec;		/* --peer-exec CMD */
	struct zc_sink_feat feat;	/* io_uring SEND_ZC, BPF for the sink */
	bool have_usage;
	struct zc_why usage_why;	/* why REPORT_USAGE cannot be used */
};

ZC_MATRIX_TYPE(row, struct row, struct ctx)

static void case_rate(const struct zc_case *c, const struct row *r,
		      struct ctx *ctx);
static enum zc_pre pre_case(const struct zc_case *c, const struct row *r,
			    struct ctx *ctx, struct zc_why *why);

static void contract_fill(struct row *r)
{
	r->p = &protos[r->proto];
	r->m = &modes[r->mode];
	r->k = &kinds[r->kind];
	r->d = &depths[r->depth];
	r->zc.fn = r->k->fn;
}

static bool is_udp(const struct proto *p)
{
	return p->family != AF_UNIX && p->type == SOCK_DGRAM;
}

static const char *contract_rule(const struct row *r)
{
	const struct kind *k = r->k;

	if (!k->depth && !r->d->n)
		return "pairing runs at each depth";
	if (k->depth && r->d->n)
		return "only pairing varies the depth";
	if (r->p->family == AF_UNIX && k->err != -EOPNOTSUPP)
		return "AF_UNIX has no zero-copy send: only its refusal is checked";
	if (r->p->family != AF_UNIX && k->err == -EOPNOTSUPP)
		return "errors.notsupp is the refusal of a family without zero-copy";
	if (r->p->type == SOCK_STREAM && k->no_tcp)
		return k->no_tcp;
	if (k->fixed_only && r->m->mode != ZC_MODE_SEND_ZC_FIXED)
		return "a registered buffer's index exists for send_zc_fixed only";
	if (k->fixed_only && (r->p->family != AF_INET || !is_udp(r->p)))
		return "a bad buffer index is refused before the socket: udp4 shows it";
	return NULL;
}

static const struct row_matrix contract = {
	.base = &(const struct row){ .zc = { .pre = pre_case } },
	.axes = {
		ZC_AXIS_TABLE(struct row, proto, protos, name),
		ZC_AXIS_TABLE(struct row, mode, modes, name),
		ZC_AXIS_TABLE(struct row, kind, kinds, name),
		ZC_AXIS_TABLE(struct row, depth, depths, name),
	},
	.fill = contract_fill,
	.rule = contract_rule,
};

static void rate_fill(struct row *r)
{
	r->rt = &rates[r->rate];
}

static const struct row_matrix rate_matrix = {
	.base = &(const struct row){ .zc = { .fn = case_rate, .pre = pre_case } },
	.axes = { ZC_AXIS_TABLE(struct row, rate, rates, name) },
	.fill = rate_fill,
};

static enum zc_send_mode mode_of(const struct row *r)
{
	return r->rt ? r->rt->mode : r->m->mode;
}

static unsigned int depth_of(const struct row *r)
{
	if (r->rt)
		return r->rt->depth;
	return r->k->depth ? r->k->depth : r->d->n;
}

static size_t case_size(const struct ctx *ctx, const struct proto *p);
static int session_setup(struct ctx *ctx, const struct row *r,
			 struct zc_session *ss, struct zc_session_cfg *sc);
/* ---- the path: SEND_ZC requests and their completions ---- */

/*
 * The contract's own io_uring sender, not lib/send's (the rates use that
 * one): a test of the contract does not trust the code it tests.
 * user_data is the request number. A slot's buffer goes out again only
 * once the kernel gave it back: the request CQE without IORING_CQE_F_MORE,
 * or with it and then the IORING_CQE_F_NOTIF of the same user_data.
 */
struct tx {
	struct io_uring ring;
	bool have_ring;
	struct zc_session *ss;	/* socket, receiver, books (ss->l) */
	enum zc_send_mode mode;
	unsigned int depth;
	unsigned int zc_flags;	/* IORING_SEND_ZC_REPORT_USAGE or 0 */
	int bad_index;		/* SEND_ZC_FIXED: this buf_index, -1 the slot's */
	int msg_flags;
	bool linked;		/* a stream's requests as one chain at a time */
	bool poison;		/* rewrite each buffer as soon as it comes back */
	unsigned char *area;	/* depth buffers of ss->l.size bytes */
	struct iovec *iov;
	struct msghdr *msg;
	unsigned int *free, nfree;
	unsigned int *slot_of;	/* by request number */
	unsigned char *back;	/* by request number: slot freed */
	uint64_t next, pending, cqes, notifs;
	uint64_t notif_more;	/* notifications that carried F_MORE */
	bool stopped;		/* the receiver had no room in time */
};

static void *tx_buf(const struct tx *t, unsigned int slot)
{
	return t->area + (size_t)slot * t->ss->l.size;
}

static int tx_open(struct tx *t, struct zc_session *ss, unsigned int depth,
		   bool usage, bool linked)
{
	/* a request CQE and a notification per slot, twice over */
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE,
				     .cq_entries = depth * 4 };
	size_t size = ss->l.size;
	unsigned int i;
	int ret;

	memset(t, 0, sizeof(*t));
	t->ss = ss;
	t->mode = ss->cfg.mode;
	t->depth = depth;
	t->zc_flags = usage ? IORING_SEND_ZC_REPORT_USAGE : 0;
	t->bad_index = -1;
	t->msg_flags = MSG_NOSIGNAL |
		       (ss->cfg.type == SOCK_STREAM ? MSG_WAITALL : 0);
	t->linked = linked && ss->cfg.type == SOCK_STREAM;
	ret = io_uring_queue_init_params(depth, &t->ring, &p);
	if (ret)
		return ret;
	t->have_ring = true;
	/* page-aligned buffers, as registered ones must be */
	t->area = mmap(NULL, (size_t)depth * size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->area == MAP_FAILED) {
		t->area = NULL;
		return -errno;
	}
	t->iov = calloc(depth, sizeof(*t->iov));
	t->msg = calloc(depth, sizeof(*t->msg));
	t->free = calloc(depth, sizeof(*t->free));
	t->slot_of = calloc(ss->l.n, sizeof(*t->slot_of));
	t->back = calloc(ss->l.n, 1);
	if (!t->area || !t->iov || !t->msg || !t->free || !t->slot_of ||
	    !t->back)
		return -ENOMEM;
	for (i = 0; i < depth; i++) {
		t->iov[i] = (struct iovec){ tx_buf(t, i), size };
		t->msg[i] = (struct msghdr){ .msg_iov = &t->iov[i], .msg_iovlen = 1 };
		t->free[t->nfree++] = depth - 1 - i;
	}
	if (t->mode == ZC_MODE_SEND_ZC_FIXED)
		return io_uring_register_buffers(&t->ring, t->iov, depth);
	return 0;
}

static void tx_close(struct tx *t)
{
	if (t->have_ring)
		io_uring_queue_exit(&t->ring);
	if (t->area)
		munmap(t->area, (size_t)t->depth * t->ss->l.size);
	free(t->iov);
	free(t->msg);
	free(t->free);
	free(t->slot_of);
	free(t->back);
}

/* Request t->next from a free slot: written, then queued. NULL: not now. */
static struct io_uring_sqe *tx_prep(struct tx *t)
{
	struct zc_session *ss = t->ss;
	unsigned int slot = t->free[t->nfree - 1];
	struct io_uring_sqe *sqe;
	void *buf = tx_buf(t, slot);
	int fd = ss->fd;

	if (zc_session_room(ss, t->next)) {
		t->stopped = true;
		return NULL;
	}
	sqe = io_uring_get_sqe(&t->ring);
	if (!sqe)
		return NULL;
	zc_payload_fill(buf, ss->l.size, t->next, ss->cfg.seed,
			ss->cfg.type == SOCK_STREAM);
	switch (t->mode) {
	case ZC_MODE_SEND_ZC_FIXED:
		io_uring_prep_send_zc_fixed(sqe, fd, buf, ss->l.size,
					    t->msg_flags, t->zc_flags,
					    t->bad_index < 0 ? slot : (unsigned int)t->bad_index);
		break;
	case ZC_MODE_SENDMSG_ZC:
		io_uring_prep_sendmsg_zc(sqe, fd, &t->msg[slot], t->msg_flags);
		/* SENDMSG_ZC takes REPORT_USAGE in ioprio as SEND_ZC does */
		sqe->ioprio |= t->zc_flags;
		break;
	default:
		io_uring_prep_send_zc(sqe, fd, buf, ss->l.size, t->msg_flags,
				      t->zc_flags);
		break;
	}
	io_uring_sqe_set_data64(sqe, t->next);
	t->slot_of[t->next++] = slot;
	t->nfree--;
	t->pending++;
	return sqe;
}

/*
 * Queue requests on free slots until upto. Two sends in flight on a
 * stream may interleave their bytes, so a linked stream goes as one
 * IOSQE_IO_LINK chain at a time, the next once the last completed.
 */
static void tx_queue(struct tx *t, uint64_t upto)
{
	struct io_uring_sqe *last = NULL, *sqe;

	if (t->linked && t->pending)
		return;
	while (t->nfree && t->next < upto && !t->stopped) {
		sqe = tx_prep(t);
		if (!sqe)
			break;
		if (last && t->linked)
			last->flags |= IOSQE_IO_LINK;
		last = sqe;
	}
}

/* One completion, booked; the buffer freed once the kernel is done. */
static void tx_cqe(struct tx *t, const struct io_uring_cqe *cqe)
{
	struct zc_ledger *l = &t->ss->l;
	uint64_t seq = cqe->user_data;

	if (cqe->flags & IORING_CQE_F_NOTIF) {
		t->notifs++;
		t->notif_more += !!(cqe->flags & IORING_CQE_F_MORE);
		zc_ledger_notif(l, seq, cqe->res);
	} else {
		zc_ledger_cqe(l, seq, cqe->res, cqe->flags & IORING_CQE_F_MORE);
		if (seq < t->next) {
			t->pending--;
			t->cqes++;
		}
	}
	if (seq >= t->next || t->back[seq] || !zc_ledger_back(l, seq))
		return;
	t->back[seq] = 1;
	t->free[t->nfree++] = t->slot_of[seq];
	/* The buffer is ours again: a late kernel read would see poison. */
	if (t->poison)
		memset(tx_buf(t, t->slot_of[seq]), POISON, l->size);
}

/* Submit what is queued, wait up to wait s for one CQE, book them all. */
static int tx_reap(struct tx *t, double wait)
{
	struct __kernel_timespec ts = {
		.tv_sec = (long)wait,
		.tv_nsec = (long)((wait - (long)wait) * 1e9),
	};
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;
	int ret;

	do {
		ret = io_uring_submit_and_wait_timeout(&t->ring, &cqe, 1, &ts,
						       NULL);
	} while (ret == -EINTR);
	if (ret < 0 && ret != -ETIME)
		return ret;
	io_uring_for_each_cqe(&t->ring, head, cqe) {
		tx_cqe(t, cqe);
		n++;
	}
	io_uring_cq_advance(&t->ring, n);
	return 0;
}

/*
 * Until upto requests have their CQE: the wait ends timeout s after the
 * last progress (lib/core/clock.h: a slow machine is told from a stall).
 * CQEs seen, or -errno.
 */
static long tx_send(struct tx *t, uint64_t upto, double timeout)
{
	struct zc_bound b;
	int ret;

	zc_bound_start(&b, timeout, t->cqes);
	while (t->cqes < upto) {
		if (zc_bound_over(&b, t->cqes))
			return -ETIMEDOUT;
		tx_queue(t, upto);
		if (t->stopped && !t->pending)
			break;
		ret = tx_reap(t, STEP_WAIT);
		if (ret)
			return ret;
	}
	return t->cqes;
}

/*
 * Until every buffer is back, then reap grace s longer so completions
 * nobody expects are booked. 0 or -ETIMEDOUT.
 */
static int tx_flush(struct tx *t, double timeout, double grace)
{
	struct zc_bound b;
	double end, left;
	int ret;

	zc_bound_start(&b, timeout, t->cqes + t->notifs);
	while (t->nfree < t->depth) {
		if (zc_bound_over(&b, t->cqes + t->notifs))
			return -ETIMEDOUT;
		left = zc_bound_left(&b);
		ret = tx_reap(t, left < STEP_WAIT ? left : STEP_WAIT);
		if (ret)
			return ret;
	}
	for (end = zc_now() + grace; zc_now() < end;) {
		ret = tx_reap(t, end - zc_now());
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The contract over requests [0, upto): one CQE each, F_MORE <=> exactly
 * one notification, none before its CQE, none with F_MORE, nothing
 * unknown, each res want_res (INT_MIN: the caller checks them). why
 * holds the counts either way.
 */
static bool contract_held(const struct tx *t, uint64_t upto, int want_res,
			  struct zc_why *why)
{
	const struct zc_ledger *l = &t->ss->l;
	struct zc_ledger_tally v;
	char res[48];

	zc_ledger_tally(l, upto, want_res, &v);
	if (want_res == INT_MIN)
		snprintf(res, sizeof(res), "res checked per request");
	else
		snprintf(res, sizeof(res), "res!=%d:%llu", want_res,
			 (unsigned long long)v.bad_res);
	zc_why_set(why, "requests=%llu missing_cqe=%llu extra_cqe=%llu %s f_more=%llu missing_notif=%llu extra_notif=%llu notif_without_more=%llu notif_before_cqe=%llu notif_with_more=%llu unknown=%llu",
		   (unsigned long long)upto, (unsigned long long)v.no_cqe,
		   (unsigned long long)v.extra_cqe, res,
		   (unsigned long long)v.with_more,
		   (unsigned long long)v.no_notif, (unsigned long long)v.extra_notif,
		   (unsigned long long)v.stray_notif,
		   (unsigned long long)l->notif_first,
		   (unsigned long long)t->notif_more,
		   (unsigned long long)l->unknown);
	return !v.no_cqe && !v.extra_cqe && !v.bad_res && !v.no_notif &&
	       !v.extra_notif && !v.stray_notif && !l->notif_first &&
	       !t->notif_more && !l->unknown;
}

/* ---- cases ---- */

/* What the row needs that this kernel or setup may not have. */
static enum zc_pre pre_case(const struct zc_case *c, const struct row *r,
			    struct ctx *ctx, struct zc_why *why)
{
	enum zc_send_mode mode = mode_of(r);
	const struct kind *k = r->rt ? NULL : r->k;
	struct zc_sink_need need = { .uring = zc_send_mode_uring(mode) };
	bool lifetime = k && k->lifetime && is_udp(r->p);
	bool usage = k && (k->usage == USAGE_ZEROCOPY || k->usage == USAGE_COPIED);

	if (zc_sink_feat_need(&ctx->feat, &need, why))
		return ZC_SKIP;
	if (mode == ZC_MODE_SENDMSG_ZC && !ctx->feat.sendmsg_zc)
		return zc_why_skip(why, ZC_CLASS_KERNEL, "kernel lacks IORING_OP_SENDMSG_ZC"), ZC_SKIP;
	if (lifetime && case_size(ctx, r->p) < sizeof(uint64_t))
		return zc_why_skip(why, ZC_CLASS_HARNESS,
				   "UDP lifetime needs --size >= 8 to number datagrams"),
		       ZC_SKIP;
	if (usage && !ctx->have_usage)
		return zc_why_skip(why, ctx->usage_why.cls, "%s", ctx->usage_why.msg),
		       ZC_SKIP;
	/* Any local receiver copies: zero-copy needs the tc sink. */
	need = (struct zc_sink_need){
		.sink = !k || k->usage == USAGE_ZEROCOPY,
		.what = !k ? "" : " for a path that does not copy",
	};
	return zc_sink_feat_need(&ctx->feat, &need, why) ? ZC_SKIP : ZC_RUN;
}

/*
 * The session's n requests: sent, every buffer back, the peer settled,
 * the contract judged into why.
 */
static bool session_run(struct tx *t, struct zc_why *why)
{
	struct zc_session *ss = t->ss;
	uint64_t pk0 = zc_sink_pkts(ss->sink);

	ss->done = tx_send(t, ss->l.n, ss->cfg.timeout);
	ss->flush = tx_flush(t, ss->cfg.flush_timeout, ss->cfg.grace);
	zc_session_settle(ss, pk0);
	return contract_held(t, ss->l.n, (int)ss->l.size, why);
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
static void case_requests(const struct zc_case *c, const struct row *r,
			  struct ctx *ctx)
{
	bool life = r->k->lifetime, udp = is_udp(r->p), ok;
	uint64_t n = life ? LIFETIME_SENDS : depth_of(r) * 4 > 128 ? depth_of(r) * 4 : 128;
	/* Without BPF, a receiver in b stands in for the tc sink. */
	struct zc_session_cfg sc = {
		.n = n,
		.sink = !life && udp && ctx->sink.skel,
		.verify = life || (ctx->o.verify && udp),
	};
	struct zc_why why, contract;
	struct zc_session ss;
	struct tx t = {};
	int ret;

	if (!life && udp && !ctx->sink.skel)
		ktap_print_msg("%s: runs with a receiver socket in b instead of the tc drop sink (%s)",
			       c->name, ctx->feat.bpf.msg);
	ret = session_setup(ctx, r, &ss, &sc);
	if (!ret)
		ret = tx_open(&t, &ss, depth_of(r), ctx->have_usage, life);
	if (ret) {
		ktap_fail(c->name, "setup: %s", strerror(-ret));
		goto out;
	}
	/* Requests wait for the receiver's window: it must hold the depth. */
	if (!sc.sink && udp && ss.rx.window < depth_of(r)) {
		zc_why_set(&why, "the receiver standing in for the tc sink holds %u datagrams, depth %u needs more (SO_RCVBUFFORCE refused; %s)",
			   ss.rx.window, depth_of(r), ctx->feat.bpf.msg);
		ktap_seen(c->name, KTAP_FACT_ENV, &why);
		goto out;
	}
	t.poison = life;
	ok = session_run(&t, &contract);
	ktap_print_msg("%s: depth=%u %s, notifications out of submission order: %llu",
		       c->name, depth_of(r), contract.msg,
		       (unsigned long long)ss.l.reordered);
	if (!sc.sink)
		ktap_print_msg("%s: receiver got %llu bytes%s", c->name,
			       (unsigned long long)ss.rx.bytes,
			       sc.verify ? ", each checked against the pattern" : "");
	if (ctx->have_usage)
		ktap_zcmode(c->name, ss.l.usage_zc, ss.l.usage_copied);
	if (!zc_session_traffic(&ss, &why))
		ktap_fail_why(c->name, &why);
	else
		ktap_result(c->name, ok, "contract: want every count 0 but requests and f_more, seen %s",
			    contract.msg);
out:
	tx_close(&t);
	zc_session_end(&ss);
}

/* Checks every notification's res, with REPORT_USAGE or without. */
static void case_usage(const struct zc_case *c, const struct row *r,
		       struct ctx *ctx)
{
	bool usage = r->k->usage != USAGE_OFF, copied = r->k->usage == USAGE_COPIED;
	/*
	 * Over veth, delivery to a socket in b is local and copies; past a
	 * ZC_PAIR of real devices it is not, so the copied case uses lo.
	 */
	uint64_t n = USAGE_SENDS, want_zc = copied ? 0 : n, want_cp = copied ? n : 0;
	struct zc_session_cfg sc = {
		.n = n, .verify = ctx->o.verify,
		.sink = r->k->usage == USAGE_ZEROCOPY, .lo = copied && ctx->sink.t.real_pair,
	};
	struct zc_why why, contract;
	struct zc_session ss;
	const struct zc_ledger *l = &ss.l;
	struct tx t = {};
	bool ok;
	int ret;

	ret = session_setup(ctx, r, &ss, &sc);
	if (!ret)
		ret = tx_open(&t, &ss, depth_of(r), usage, true);
	if (ret) {
		ktap_fail(c->name, "setup: %s", strerror(-ret));
		goto out;
	}
	ok = session_run(&t, &contract);
	ktap_print_msg("%s: %s", c->name, contract.msg);
	/* Without REPORT_USAGE every notification's res is 0. */
	ktap_print_msg("%s: notification res: 0 x%llu, ZC_COPIED x%llu, other x%llu",
		       c->name, (unsigned long long)l->usage_zc,
		       (unsigned long long)l->usage_copied,
		       (unsigned long long)l->usage_other);
	if (usage)
		ktap_zcmode(c->name, l->usage_zc, l->usage_copied);
	if (!zc_session_traffic(&ss, &why))
		ktap_fail_why(c->name, &why);
	else if (!ok)
		ktap_fail(c->name, "contract: want every count 0 but requests and f_more, seen %s",
			  contract.msg);
	else if (l->usage_copied > want_cp && zc_env_copy_cause(&ctx->sink.t, &why))
		ktap_seen(c->name, KTAP_FACT_ENV, &why);
	else
		ktap_result(c->name, l->usage_zc == want_zc &&
			    l->usage_copied == want_cp && !l->usage_other,
			    "notification res: want 0 x%llu, ZC_COPIED x%llu, other x0; seen 0 x%llu, ZC_COPIED x%llu, other x%llu",
			    (unsigned long long)want_zc, (unsigned long long)want_cp,
			    (unsigned long long)l->usage_zc,
			    (unsigned long long)l->usage_copied,
			    (unsigned long long)l->usage_other);
out:
	tx_close(&t);
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

/*
 * One request at a time until one fails (a refused UDP send fails only
 * once the ICMP error of an earlier one is back). How many went out
 * (*failed_at the one that failed, -1 none), or -errno.
 */
static long send_until_fail(struct tx *t, int *failed_at)
{
	const struct zc_ledger *l = &t->ss->l;
	uint64_t i;
	long done;

	*failed_at = -1;
	for (i = 0; i < l->n; i++) {
		done = tx_send(t, i + 1, OP_TIMEOUT);
		if (done != (long)i + 1)
			return done < 0 ? done : -EIO;
		if (tx_flush(t, FLUSH_TIMEOUT, 0))
			return -ETIMEDOUT;
		if (l->res[i] < 0) {
			*failed_at = i;
			return i + 1;
		}
		usleep(2000);
	}
	return i;
}

/* The provoked socket as a session of ERR_TRIES requests of one slot. */
static int err_open(struct ctx *ctx, const struct row *r, struct err_setup *e,
		    struct zc_session *ss, struct tx *t)
{
	int ret;

	memset(ss, 0, sizeof(*ss));
	ss->fd = -1;
	ss->rx.fd = -1;
	e->size = case_size(ctx, r->p);
	ret = r->k->provoke(ctx, r, e);
	/* the session owns the socket; the sink paces nothing */
	ss->fd = e->fd;
	e->fd = -1;
	ss->sink = &ctx->sink;
	ss->cfg = (struct zc_session_cfg){
		.type = r->p->type, .mode = r->m->mode, .sink = true,
		.seed = SEED,
	};
	if (!ret)
		ret = zc_ledger_init(&ss->l, e->size, ERR_TRIES);
	if (!ret)
		ret = tx_open(t, ss, 1, ctx->have_usage, false);
	if (!ret && r->k->fixed_only)
		t->bad_index = BAD_INDEX;
	return ret;
}

static void err_report(const struct zc_case *c, const struct err_setup *e,
		       const struct tx *t, long sent, int failed_at, int flush)
{
	const struct row *r = c->arg;
	const struct zc_ledger *l = &t->ss->l;
	int want = r->k->err, seen = failed_at >= 0 ? l->res[failed_at] : 0;
	struct zc_why why = { "" };
	bool ok = false;

	if (sent > 0) {
		/* Successful sends before the failing one must have sent all. */
		ok = contract_held(t, sent, INT_MIN, &why);
		ktap_print_msg("%s: %s: %s", c->name, e->what, why.msg);
		ktap_print_msg("%s: request %d failed with %d (%s), F_MORE %s",
			       c->name, failed_at, seen,
			       failed_at >= 0 ? strerror(-seen) : "-",
			       failed_at >= 0 && l->more[failed_at] ? "set" : "clear");
	}
	if (sent <= 0 || flush)
		ktap_fail(c->name, "sends: %s, flush: %s",
			  sent < 0 ? strerror(-sent) : "none",
			  flush ? strerror(-flush) : "ok");
	else if (failed_at < 0)
		ktap_fail(c->name, "no send failed in %ld tries, want %s", sent,
			  strerror(-want));
	else if (seen != want)
		ktap_fail(c->name, "res of the failing send: want %d (%s), seen %d (%s)",
			  want, strerror(-want), seen, strerror(-seen));
	else if (!zc_ledger_all_sent(l, failed_at))
		ktap_fail(c->name, "each send before the failing one: want res %zu",
			  l->size);
	else
		ktap_result(c->name, ok, "contract: want every count 0 but requests and f_more, seen %s",
			    why.msg);
}

static void case_error(const struct zc_case *c, const struct row *r,
		       struct ctx *ctx)
{
	struct err_setup e = { .fd = -1 };
	struct zc_session ss;
	int failed_at = -1, ret;
	struct tx t = {};
	long sent;

	ret = err_open(ctx, r, &e, &ss, &t);
	if (ret) {
		ktap_fail(c->name, "setup: %s", strerror(-ret));
	} else {
		sent = send_until_fail(&t, &failed_at);
		ret = tx_flush(&t, FLUSH_TIMEOUT, GRACE);
		err_report(c, &e, &t, sent, failed_at, ret);
	}
	tx_close(&t);
	if (e.restore_mtu && zc_topo_set_mtu(&ctx->sink.t, e.restore_mtu))
		ktap_print_msg("could not restore MTU %d", e.restore_mtu);
	zc_session_end(&ss);
}

/* ---- rates ---- */

static void rate_config(const struct zc_case *c, const struct ctx *ctx,
			const struct zc_sender_cfg *cfg,
			const struct zc_sink_tx *tx)
{
	socklen_t len = sizeof(int);
	int sndbuf = 0;

	getsockopt(tx->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len);
	zc_report_config(&ctx->o, c->name,
		  "mode=%s size=%zu depth=%u one_buffer=%s fixed_buf=%s report_usage=%s ring=%s sndbuf=%d proto=udp4 sink=tc_drop cpu_tx=%d cpu_rx=%d mtu=%d",
		  zc_send_mode_name(cfg->mode), cfg->size, cfg->depth,
		  cfg->one_buffer ? "yes" : "no",
		  cfg->mode == ZC_MODE_SEND_ZC_FIXED ? "yes" : "no",
		  cfg->report_usage ? "yes" : "no", zc_sender_ring_desc(tx->s),
		  sndbuf, ctx->o.cpu_tx, ctx->o.cpu_rx, ctx->sink.t.mtu);
}

static void rate_report(const struct zc_case *c, const struct zc_rate *rate,
			const struct zc_stats *vs_send)
{
	char prefix[160];

	snprintf(prefix, sizeof(prefix), "%s.%s", TEST_NAME, c->name);
	zc_report_rate(prefix, rate, false);
	if (vs_send->n) {
		snprintf(prefix, sizeof(prefix), "%s.%s.vs_send", TEST_NAME,
			 c->name);
		ktap_metric(prefix, vs_send, "ratio");
	}
}

/*
 * The rate, and for every mode but send() itself its ratio to send():
 * a send() sender (as udp4.rate.send measures it) on its own socket runs
 * in alternation with the mode, repeat by repeat, so each repeat gives
 * one ratio sample.
 */
static int rate_open(struct ctx *ctx, const struct row *r,
		     struct zc_sink_arm arm[2], struct zc_sender_cfg *cfg)
{
	struct zc_sender_cfg ref = { .mode = ZC_MODE_SEND, .size = cfg->size,
				     .depth = 8 };
	bool alone = r->rt->mode == ZC_MODE_SEND;
	/*
	 * Eight 64 KiB sends in flight overrun the default send buffer
	 * (wmem_default) whenever softirq falls behind, and a full buffer
	 * sends io_uring requests the slow way (poll, then retry).
	 */
	int ret = zc_sink_tx_open(&ctx->sink, &arm[!alone].tx, cfg, RATE_SNDBUF);

	if (!ret && !alone)
		ret = zc_sink_tx_open(&ctx->sink, &arm[0].tx, &ref, 0);
	return ret;
}

/* Backed by real traffic: over veth every datagram sent reaches the sink. */
static void rate_judge(const struct zc_case *c, struct ctx *ctx,
		       const struct zc_sink_arm *arm, int narm, uint64_t sunk)
{
	const struct zc_send_stats *st = zc_sender_stats(arm[narm - 1].tx.s);
	uint64_t ref = narm > 1 ? zc_sender_stats(arm[0].tx.s)->completed : 0;
	uint64_t sent = st->completed + ref;

	ktap_print_msg("%s: tc sink counted %llu datagrams, sender completed %llu (failed %llu), send() reference %llu",
		       c->name, (unsigned long long)sunk,
		       (unsigned long long)st->completed,
		       (unsigned long long)st->failed, (unsigned long long)ref);
	if (st->failed)
		ktap_fail(c->name, "failed sends: want 0, seen %llu (first %s)",
			  (unsigned long long)st->failed, strerror(-st->first_err));
	/* A real device pair may lose some at these rates. */
	else if (ctx->sink.t.real_pair)
		ktap_result(c->name, sunk && sunk <= sent,
			    "tc sink: want 1..%llu datagrams (sent), seen %llu",
			    (unsigned long long)sent, (unsigned long long)sunk);
	else
		ktap_result(c->name, sunk == sent,
			    "tc sink: want %llu datagrams (sent), seen %llu",
			    (unsigned long long)sent, (unsigned long long)sunk);
}

static void case_rate(const struct zc_case *c, const struct row *r,
		      struct ctx *ctx)
{
	struct zc_meter_cfg mc = {
		.duration = ctx->o.duration, .warmup = ctx->o.warmup,
		.repeat = ctx->o.repeat, .max_steps = 1ULL << 32,
	};
	struct zc_sender_cfg cfg = {
		.mode = r->rt->mode, .size = case_size(ctx, &protos[0]),
		.depth = r->rt->depth,
		.one_buffer = true,
		.report_usage = ctx->have_usage && zc_send_mode_uring(r->rt->mode) &&
				zc_send_mode_zerocopy(r->rt->mode),
	};
	struct zc_sink_arm arm[2] = { { .tx.fd = -1 }, { .tx.fd = -1 } };
	int narm = r->rt->mode == ZC_MODE_SEND ? 1 : 2, ret;
	const struct zc_send_stats *st;
	struct zc_stats vs_send = {};
	struct zc_why why = { "" };
	uint64_t sunk;

	ret = rate_open(ctx, r, arm, &cfg);
	if (ret) {
		ktap_fail(c->name, "setup: %s", strerror(-ret));
		goto out;
	}
	rate_config(c, ctx, &cfg, &arm[narm - 1].tx);
	if (zc_sink_rate(&ctx->sink, &mc, arm, narm, &vs_send, &sunk, &why)) {
		ktap_fail_why(c->name, &why);
		goto out;
	}
	st = zc_sender_stats(arm[narm - 1].tx.s);
	/* A copy a cause outside the kernel explains is no zcmode to compare. */
	if (zc_send_mode_zerocopy(r->rt->mode) && st->copied &&
	    zc_env_copy_cause(&ctx->sink.t, &why)) {
		ktap_seen(c->name, KTAP_FACT_ENV, &why);
		goto out;
	}
	rate_report(c, &arm[narm - 1].rate, &vs_send);
	if (zc_send_mode_zerocopy(r->rt->mode) &&
	    (cfg.report_usage || r->rt->mode == ZC_MODE_MSG_ZEROCOPY))
		ktap_zcmode(c->name, st->zerocopy, st->copied);
	rate_judge(c, ctx, arm, narm, sunk);
out:
	zc_sink_tx_close(&arm[0].tx);
	zc_sink_tx_close(&arm[1].tx);
}

/* ---- a session: where the requests go (lib/sendzc_notif/zcsession) ---- */

/* --size, capped so a datagram fits the MTU: fragments would be copied. */
static size_t case_size(const struct ctx *ctx, const struct proto *p)
{
	size_t hdr = p->family == AF_INET6 ? 48 : 28;

	if (is_udp(p) && (size_t)ctx->o.size > ctx->sink.t.mtu - hdr)
		return ctx->sink.t.mtu - hdr;
	return ctx->o.size;
}

/* Socket in a, connected to b:port (or lo:port). Returns fd or -errno. */
static int sender_socket(const struct ctx *ctx, const struct proto *p,
			 int port, bool lo)
{
	return zc_session_socket(&ctx->sink, p->family, p->type, port, lo);
}

/* sc carries where to (sink, lo) and what is checked; the rest is the row's. */
static int session_setup(struct ctx *ctx, const struct row *r,
			 struct zc_session *ss, struct zc_session_cfg *sc)
{
	sc->family = r->p->family;
	sc->type = r->p->type;
	sc->mode = r->m->mode;
	sc->size = case_size(ctx, r->p);
	sc->rx_port = RX_PORT;
	sc->cpu_rx = ctx->o.cpu_rx;
	sc->seed = SEED;
	sc->timeout = OP_TIMEOUT;
	sc->flush_timeout = FLUSH_TIMEOUT;
	sc->grace = GRACE;
	return zc_session_open(ss, &ctx->sink, sc);
}

/* ---- errors: how each is provoked ---- */

/* No datagram exceeds 65535: lower the MTU to exceed it. */
static int err_msgsize(struct ctx *ctx, const struct row *r, struct err_setup *e)
{
	int ret;

	e->fd = sender_socket(ctx, r->p, SINK_PORT, false);
	if (e->fd < 0)
		return e->fd;
	ret = zc_sockerr_dontfrag(e->fd, r->p->family);
	if (!ret && ctx->sink.t.mtu > MTU_SMALL) {
		e->restore_mtu = ctx->sink.t.mtu;
		ret = zc_topo_set_mtu(&ctx->sink.t, MTU_SMALL);
		if (ret)
			e->restore_mtu = 0;
	}
	e->size = ctx->sink.t.mtu + 500;
	snprintf(e->buf, sizeof(e->buf), "%zu-byte datagram, don't fragment, MTU %d",
		 e->size, ctx->sink.t.mtu);
	e->what = e->buf;
	return ret;
}

static int err_refused(struct ctx *ctx, const struct row *r,
		       struct err_setup *e)
{
	e->what = "send to a port nobody listens on";
	if (r->p->type == SOCK_STREAM)
		e->fd = zc_sockerr_refused(ctx->sink.t.a.nsfd,
					   &ctx->sink.t.b.addr4, CLOSED_PORT,
					   OP_TIMEOUT);
	else
		e->fd = sender_socket(ctx, r->p, CLOSED_PORT, false);
	return e->fd < 0 ? e->fd : 0;
}

static int err_notsupp(struct ctx *ctx, const struct row *r,
		       struct err_setup *e)
{
	e->what = "AF_UNIX datagram socket";
	e->fd = zc_sockerr_unix();
	return e->fd < 0 ? e->fd : 0;
}

static int err_bad_index(struct ctx *ctx, const struct row *r,
			 struct err_setup *e)
{
	e->what = "buf_index past the registered buffers";
	e->fd = sender_socket(ctx, r->p, SINK_PORT, false);
	return e->fd < 0 ? e->fd : 0;
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
	struct ctx *ctx = arg;

	return zc_sink_probe(caps, ZC_ARRAY_SIZE(caps), &ctx->feat, why);
}

static int setup(void *arg, struct zc_why *why)
{
	struct ctx *ctx = arg;
	bool bpf = !ctx->feat.bpf.msg[0];

	if (zc_sink_setup(&ctx->sink, MTU, SINK_PORT, bpf, why) ||
	    (bpf && zc_sink_wait_path(&ctx->sink, PATH_TIMEOUT, why)))
		return -1;
	if (!bpf)
		ktap_print_msg("no BPF, no tc sink: UDP cases use a receiver in b, zero-copy ones skip (%s)",
			       ctx->feat.bpf.msg);
	if (!ctx->feat.uring.msg[0])
		ctx->have_usage = zc_session_usage(&ctx->sink, OP_TIMEOUT,
						 &ctx->usage_why);
	if (ctx->feat.uring.msg[0])
		ktap_print_msg("io_uring cases skip: %s", ctx->feat.uring.msg);
	else if (!ctx->have_usage)
		ktap_print_msg("%s", ctx->usage_why.msg);
	/* The peer of --peer-exec chooses its own CPU. */
	if (!ctx->peer_exec)
		zc_pin_cpu(ctx->o.cpu_tx);
	return 0;
}

static void teardown(void *arg)
{
	struct ctx *ctx = arg;

	zc_sink_teardown(&ctx->sink);
}

static struct zc_test test;

/*
 * --peer-exec: another sender (liburing's examples/send-zerocopy.c, say)
 * on exactly this topology, so tools/zc-peer-bench can hold the suite's
 * rates against it. The command runs under /bin/sh in namespace a; the
 * sink's count tells whether its datagrams really reached tc drop.
 */
static int peer_run(void *arg, struct zc_why *why)
{
	struct ctx *ctx = arg;
	int ret = zc_sink_exec(&ctx->sink, ctx->peer_exec);

	if (ret < 0)
		zc_why_set(why, "fork: %s", strerror(-ret));
	return ret;
}

static int peer_mode(void *arg)
{
	struct ctx *ctx = arg;

	if (!ctx->peer_exec)
		return -1;
	return zc_mode_with_setup(&test, ctx, "--peer-exec", peer_run);
}

enum { OPT_PEER_EXEC = 256 };

static const struct zc_opt_extra extra_opts[] = {
	{ "peer-exec", 1, OPT_PEER_EXEC, "CMD",
	  "set up the topology, run CMD (sh -c) in the sender namespace with ZC_PEER_ADDR, ZC_PEER_PORT, ZC_PEER_MTU set, print the datagrams the tc sink counted, exit with CMD's status" },
	{ NULL }
};

static int parse_extra(int val, const char *arg, void *arg_ctx,
		       struct zc_why *why)
{
	struct ctx *ctx = arg_ctx;

	if (val == OPT_PEER_EXEC && zc_sink_cmd_ok(arg)) {
		ctx->peer_exec = arg;
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
		row_matrix(&contract), row_matrix(&rate_matrix),
	};

	return zc_matrix_main(&test, ms, ZC_ARRAY_SIZE(ms), argc, argv,
			      &ctx.o, &ctx);
}
