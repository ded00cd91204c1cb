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
 * Topology: namespaces a (sender) and b (receiver) joined by veth at MTU
 * 65535 (or the ZC_PAIR devices at the MTU they take). In b,
 * bpf/tc_drop.bpf.c drops UDP to the sink port at clsact ingress (the
 * clean zero-copy peer); real UDP/TCP receivers on other ports in b take
 * the cases that must be copied and the data checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <liburing.h>
#include <bpf/libbpf.h>

#include "compat.h"
#include "runner.h"
#include "meter.h"
#include "netns.h"
#include "opts.h"
#include "env.h"
#include "probe.h"
#include "util.h"
#include "zcsend.h"
#include "tc_drop.skel.h"

#define TEST_NAME	"sendzc_notif"
#define MTU		65535	/* ZC_PAIR devices may settle for less */
#define MTU_SMALL	1500	/* errors.msgsize lowers a larger MTU to this */
#define SIZE_DEFAULT	65507	/* largest UDP/IPv4 datagram */
#define SINK_PORT	9	/* dropped by tc_drop in b */
#define RX_PORT		5001	/* real receivers in b */
#define CLOSED_PORT	5003	/* nothing listens: refused */
#define SEED		0x5a43736e64ULL
#define UDP_WINDOW	16	/* datagrams ahead of a UDP receiver */
#define LIFETIME_SENDS	512
#define USAGE_SENDS	64
#define ERR_TRIES	32
#define OP_TIMEOUT	10.0	/* bound on every send/receive phase */
#define FLUSH_TIMEOUT	5.0
#define PATH_TIMEOUT	15.0	/* carrier of a ZC_PAIR after the move */
#define SETTLE		2.0	/* for the last datagrams to reach the sink */
#define GRACE		0.05	/* late CQEs nobody expects are looked for this long */
#define WARMUP		0.2
/* The rates' send buffer: what liburing's send-zerocopy example asks for. */
#define RATE_SNDBUF	(1 << 21)
#define POISON		0xa5

enum proto { P_UDP4, P_UDP6, P_TCP4, P_UNIX };
enum kind {
	K_PAIRING, K_USAGE_ZC, K_USAGE_COPIED, K_USAGE_OFF, K_LIFETIME,
	K_ERR_REFUSED, K_ERR_MSGSIZE, K_ERR_NOTSUPP, K_ERR_BADINDEX, K_RATE,
};

struct case_arg {
	enum kind kind;
	enum proto proto;
	enum zc_send_mode mode;
	unsigned int depth;
};

struct ctx {
	const struct zc_opts *o;
	struct zc_topo t;
	struct tc_drop *skel;
	bool have_sendmsg_zc, have_usage;
	char usage_reason[128];
	char uring_skip[200];	/* "" when io_uring and SEND_ZC work */
	char bpf_skip[256];	/* "" when BPF loads: the tc sink exists */
};

/* ---- sockets ---- */

static bool is_udp(enum proto p)
{
	return p == P_UDP4 || p == P_UDP6;
}

static int family_of(enum proto p)
{
	return p == P_UDP6 ? AF_INET6 : AF_INET;
}

/*
 * Where a socket connects or binds: b's address, or with lo the loopback
 * of a (the one local delivery a ZC_PAIR of real devices still has).
 */
static socklen_t peer_addr(const struct ctx *c, enum proto p, int port,
			   bool lo, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (p == P_UDP6) {
		struct sockaddr_in6 *s6 = (void *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		s6->sin6_addr = lo ? in6addr_loopback : c->t.b.addr6;
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (void *)ss;

	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	s4->sin_addr.s_addr = lo ? htonl(INADDR_LOOPBACK) : c->t.b.addr4.s_addr;
	return sizeof(*s4);
}

/* Socket in a, connected to b:port (or lo:port). Returns fd or -errno. */
static int sender_socket(const struct ctx *c, enum proto p, int port, bool lo)
{
	struct sockaddr_storage ss;
	socklen_t len = peer_addr(c, p, port, lo, &ss);
	int fd, ret;

	fd = zc_socket_in(c->t.a.nsfd, family_of(p),
			  is_udp(p) ? SOCK_DGRAM : SOCK_STREAM, 0);
	if (fd < 0)
		return fd;
	if (connect(fd, (struct sockaddr *)&ss, len)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/* ---- a real receiver in b ---- */

struct rx {
	enum proto proto;
	bool lo;		/* on a's loopback instead of in b */
	int fd;			/* bound UDP socket or TCP listener */
	size_t size;		/* UDP datagram size */
	unsigned int window;	/* UDP datagrams the receive buffer holds */
	uint64_t nseq;		/* UDP: datagrams expected */
	bool verify;
	atomic_uint_fast64_t dgrams;	/* datagrams or reads so far */
	atomic_int stop;
	pthread_t th;
	bool running;
	int cpu;
	double deadline;
	/* results, read after join */
	uint64_t bytes, bad, dups, out_of_range, missing;
	long long first_bad;	/* stream or datagram offset, -1 none */
	int err;
	unsigned char *seen;
};

static void rx_bad(struct rx *r, long long off)
{
	if (!r->bad++)
		r->first_bad = off;
}

static void rx_dgram(struct rx *r, const unsigned char *buf, size_t n)
{
	uint64_t seq;
	long bad;

	r->bytes += n;
	/* Too short to carry a request number: counted, not checked. */
	if (r->size < sizeof(seq))
		return;
	if (n < sizeof(seq)) {
		rx_bad(r, 0);
		return;
	}
	memcpy(&seq, buf, sizeof(seq));
	if (seq >= r->nseq) {
		r->out_of_range++;
		return;
	}
	if (r->seen[seq]++)
		r->dups++;
	if (n != r->size)
		rx_bad(r, seq * r->size);
	if (!r->verify)
		return;
	bad = zc_pattern_check(buf + sizeof(seq), n - sizeof(seq), SEED,
			       seq * r->size + sizeof(seq));
	if (bad >= 0)
		rx_bad(r, seq * r->size + sizeof(seq) + bad);
}

/* One bounded wait for input; false when the thread should end. */
static bool rx_wait(struct rx *r, int fd)
{
	int ret;

	while (!atomic_load(&r->stop) && zc_now() < r->deadline) {
		ret = zc_poll_one(fd, POLLIN, 0.1);
		if (ret < 0) {
			r->err = ret;
			return false;
		}
		if (ret)
			return true;
	}
	if (!atomic_load(&r->stop))
		r->err = -ETIMEDOUT;
	return false;
}

static void rx_udp(struct rx *r, unsigned char *buf, size_t cap)
{
	while (atomic_load(&r->dgrams) < r->nseq && rx_wait(r, r->fd)) {
		ssize_t n = recv(r->fd, buf, cap, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			r->err = -errno;
			return;
		}
		rx_dgram(r, buf, n);
		atomic_fetch_add(&r->dgrams, 1);
	}
}

static void rx_tcp(struct rx *r, unsigned char *buf, size_t cap)
{
	int cfd;

	if (!rx_wait(r, r->fd))
		return;
	cfd = accept4(r->fd, NULL, NULL, SOCK_CLOEXEC);
	if (cfd < 0) {
		r->err = -errno;
		return;
	}
	while (rx_wait(r, cfd)) {
		ssize_t n = recv(cfd, buf, cap, MSG_DONTWAIT);
		long bad;

		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			r->err = -errno;
			break;
		}
		bad = r->verify ? zc_pattern_check(buf, n, SEED, r->bytes) : -1;
		if (bad >= 0)
			rx_bad(r, r->bytes + bad);
		r->bytes += n;
		atomic_fetch_add(&r->dgrams, 1);
	}
	close(cfd);
}

static void *rx_main(void *arg)
{
	size_t cap = 256 << 10;
	struct rx *r = arg;
	unsigned char *buf = malloc(cap);

	zc_pin_cpu(r->cpu);
	if (!buf)
		r->err = -ENOMEM;
	else if (is_udp(r->proto))
		rx_udp(r, buf, cap);
	else
		rx_tcp(r, buf, cap);
	free(buf);
	return NULL;
}

static int rx_socket(const struct ctx *c, struct rx *r)
{
	struct sockaddr_storage ss;
	socklen_t len = peer_addr(c, r->proto, RX_PORT, r->lo, &ss);
	int one = 1, rcvbuf = 4 << 20, got = 0;
	socklen_t glen = sizeof(got);

	r->fd = zc_socket_in(r->lo ? c->t.a.nsfd : c->t.b.nsfd,
			     family_of(r->proto),
			     is_udp(r->proto) ? SOCK_DGRAM : SOCK_STREAM, 0);
	if (r->fd < 0)
		return r->fd;
	setsockopt(r->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Room for the whole UDP window; FORCE passes rmem_max. */
	if (setsockopt(r->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		/* A user namespace has no CAP_NET_ADMIN where FORCE counts. */
		setsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	/* A datagram takes about twice its size of buffer (truesize). */
	r->window = UDP_WINDOW;
	if (!getsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &got, &glen) &&
	    (size_t)got / (2 * (r->size + 1)) < UDP_WINDOW)
		r->window = got / (2 * (r->size + 1)) ?: 1;
	if (bind(r->fd, (struct sockaddr *)&ss, len))
		return -errno;
	if (!is_udp(r->proto) && listen(r->fd, 4))
		return -errno;
	return 0;
}

static int rx_start(const struct ctx *c, struct rx *r, enum proto p,
		    size_t size, uint64_t nseq, bool verify, bool lo)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->lo = lo;
	r->proto = p;
	r->size = size;
	r->nseq = nseq;
	r->verify = verify;
	r->first_bad = -1;
	r->cpu = c->o->cpu_rx;
	r->deadline = zc_now() + OP_TIMEOUT;
	r->seen = calloc(nseq ? nseq : 1, 1);
	if (!r->seen)
		return -ENOMEM;
	ret = rx_socket(c, r);
	if (!ret)
		ret = -pthread_create(&r->th, NULL, rx_main, r);
	r->running = !ret;
	return ret;
}

static uint64_t rx_missing(const struct rx *r)
{
	uint64_t i, miss = 0;

	if (!is_udp(r->proto) || r->size < sizeof(uint64_t))
		return 0;
	for (i = 0; r->seen && i < r->nseq; i++)
		miss += !r->seen[i];
	return miss;
}

/* Wait for the receiver to finish (UDP: all datagrams; TCP: EOF). */
static void rx_join(struct rx *r, double timeout)
{
	double end = zc_now() + timeout;

	if (!r->running)
		goto out;
	while (is_udp(r->proto) && atomic_load(&r->dgrams) < r->nseq &&
	       zc_now() < end)
		usleep(1000);
	if (is_udp(r->proto))
		atomic_store(&r->stop, 1);
	pthread_join(r->th, NULL);
	r->running = false;
out:
	if (r->fd > 0)
		close(r->fd);
	r->fd = -1;
	r->missing = rx_missing(r);
	free(r->seen);
	r->seen = NULL;
}

/* ---- what each send carries, and the per-request books ---- */

struct run {
	const struct ctx *c;
	enum proto proto;
	struct zc_sender *s;
	struct rx *rx;		/* NULL: tc sink or no peer */
	size_t size;
	bool poison;		/* rewrite each buffer as soon as it comes back */
	/* books, indexed by request number */
	uint64_t n;
	unsigned char *cqes, *notifs, *more;
	int *res;
	uint64_t notif_first, unknown, reordered, last_notif;
	bool any_notif;
	uint64_t usage_zc, usage_copied, usage_other;
};

/*
 * Datagrams carry their request number first, so the receiver can check
 * each on its own; a stream is one pattern by offset.
 */
static int fill_payload(void *arg, void *buf, size_t len, uint64_t seq)
{
	struct run *r = arg;
	double end;

	if (r->rx && is_udp(r->proto)) {
		/* Stay within the receiver's buffer: no datagram may drop. */
		end = zc_now() + OP_TIMEOUT;
		while (seq >= atomic_load(&r->rx->dgrams) + r->rx->window) {
			if (zc_now() >= end || r->rx->err)
				return -1;
			usleep(50);
		}
	}
	if (r->proto == P_TCP4) {
		zc_pattern_fill(buf, len, SEED, seq * len);
		return 0;
	}
	if (len < sizeof(seq)) {
		memset(buf, 0, len);
		return 0;
	}
	memcpy(buf, &seq, sizeof(seq));
	zc_pattern_fill((char *)buf + sizeof(seq), len - sizeof(seq), SEED,
			seq * len + sizeof(seq));
	return 0;
}

static void book_notif(struct run *r, const struct zc_event *ev)
{
	if (!r->cqes[ev->seq])
		r->notif_first++;
	r->notifs[ev->seq]++;
	if (r->any_notif && ev->seq < r->last_notif)
		r->reordered++;
	r->any_notif = true;
	r->last_notif = ev->seq;
	if ((unsigned int)ev->res == IORING_NOTIF_USAGE_ZC_COPIED)
		r->usage_copied++;
	else if (ev->res == 0)
		r->usage_zc++;
	else
		r->usage_other++;
}

static void on_event(void *arg, const struct zc_event *ev)
{
	struct run *r = arg;
	bool back = ev->notif || !(ev->flags & IORING_CQE_F_MORE);

	if (ev->seq >= r->n) {
		r->unknown++;
		return;
	}
	if (ev->notif) {
		book_notif(r, ev);
	} else {
		r->cqes[ev->seq]++;
		r->res[ev->seq] = ev->res;
		r->more[ev->seq] = !!(ev->flags & IORING_CQE_F_MORE);
	}
	/* The buffer is ours again: a late kernel read would see poison. */
	if (back && r->poison)
		memset(zc_sender_buf(r->s, ev->slot), POISON, r->size);
}

static int run_init(struct run *r, const struct ctx *c, enum proto p,
		    size_t size, uint64_t n)
{
	memset(r, 0, sizeof(*r));
	r->c = c;
	r->proto = p;
	r->size = size;
	r->n = n;
	r->cqes = calloc(n, 1);
	r->notifs = calloc(n, 1);
	r->more = calloc(n, 1);
	r->res = calloc(n, sizeof(*r->res));
	return r->cqes && r->notifs && r->more && r->res ? 0 : -ENOMEM;
}

static void run_free(struct run *r)
{
	zc_sender_close(r->s);
	r->s = NULL;
	free(r->cqes);
	free(r->notifs);
	free(r->more);
	free(r->res);
}

static int run_open(struct run *r, const struct case_arg *a, int fd,
		    bool usage, bool unlinked)
{
	struct zc_sender_cfg cfg = {
		.mode = a->mode, .fd = fd, .size = r->size,
		.depth = a->depth ? a->depth : 8, .report_usage = usage,
		.unlinked = unlinked, .fill = fill_payload,
		.on_event = on_event, .ctx = r,
	};
	int err;

	r->s = zc_sender_open(&cfg, &err);
	return r->s ? 0 : err;
}

/* The contract over the books: one CQE each, F_MORE <=> one notification. */
struct verdict {
	uint64_t no_cqe, extra_cqe, no_notif, extra_notif, stray_notif;
	uint64_t bad_res, with_more;
};

static void run_check(const struct run *r, uint64_t upto, int want_res,
		      struct verdict *v)
{
	uint64_t i;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < upto; i++) {
		v->no_cqe += r->cqes[i] == 0;
		v->extra_cqe += r->cqes[i] > 1;
		v->with_more += r->more[i];
		if (r->more[i]) {
			v->no_notif += r->notifs[i] == 0;
			v->extra_notif += r->notifs[i] > 1;
		} else {
			v->stray_notif += r->notifs[i] != 0;
		}
		/* INT_MIN: the caller judges each res itself */
		v->bad_res += want_res != INT_MIN && r->cqes[i] &&
			      r->res[i] != want_res;
	}
}

/* Returns true when the books and the sender agree the contract held. */
static bool contract_ok(const struct run *r, uint64_t upto, int want_res,
			char *why, size_t len)
{
	const struct zc_send_stats *st = zc_sender_stats(r->s);
	struct verdict v;
	char res[48];

	run_check(r, upto, want_res, &v);
	if (want_res == INT_MIN)
		snprintf(res, sizeof(res), "res checked per request");
	else
		snprintf(res, sizeof(res), "res!=%d:%llu", want_res,
			 (unsigned long long)v.bad_res);
	snprintf(why, len,
		 "requests=%llu missing_cqe=%llu extra_cqe=%llu %s f_more=%llu missing_notif=%llu extra_notif=%llu notif_without_more=%llu notif_before_cqe=%llu unknown=%llu violations=%llu%s%s",
		 (unsigned long long)upto, (unsigned long long)v.no_cqe,
		 (unsigned long long)v.extra_cqe, res,
		 (unsigned long long)v.with_more,
		 (unsigned long long)v.no_notif, (unsigned long long)v.extra_notif,
		 (unsigned long long)v.stray_notif,
		 (unsigned long long)r->notif_first,
		 (unsigned long long)r->unknown,
		 (unsigned long long)st->violations,
		 st->violations ? ": " : "", st->violation);
	return !v.no_cqe && !v.extra_cqe && !v.bad_res && !v.no_notif &&
	       !v.extra_notif && !v.stray_notif && !r->notif_first &&
	       !r->unknown && !st->violations;
}

static uint64_t sink_pkts(const struct ctx *c)
{
	return c->skel ? c->skel->bss->pkts : 0;
}

/*
 * Datagrams the sink counted since pk0, once it has `want` or the last
 * ones had time to arrive: a completed send may still sit in a NIC ring.
 */
static uint64_t sink_settle(const struct ctx *c, uint64_t pk0, uint64_t want)
{
	double end = zc_now() + SETTLE;

	while (sink_pkts(c) - pk0 < want && zc_now() < end)
		usleep(1000);
	return sink_pkts(c) - pk0;
}

/* ---- cases ---- */

static bool mode_available(const struct ctx *c, const struct zc_case *zc,
			   const struct case_arg *a)
{
	if (zc_send_mode_uring(a->mode) && c->uring_skip[0]) {
		ktap_skip(zc->name, "%s", c->uring_skip);
		return false;
	}
	if (a->mode == ZC_MODE_SENDMSG_ZC && !c->have_sendmsg_zc) {
		ktap_skip(zc->name, "kernel lacks IORING_OP_SENDMSG_ZC");
		return false;
	}
	return true;
}

/* --size, capped so a datagram fits the MTU: fragments would be copied. */
static size_t case_size(const struct ctx *c, enum proto p)
{
	size_t hdr = p == P_UDP6 ? 48 : 28;

	if (is_udp(p) && (size_t)c->o->size > c->t.mtu - hdr)
		return c->t.mtu - hdr;
	return c->o->size;
}

/*
 * One request stream: n sends at the case's depth to the tc sink or to a
 * real receiver, every completion booked, then the contract checked.
 */
struct session {
	struct run r;
	struct rx rx;
	int fd;
	bool sink;
	bool unlinked;		/* TCP requests may run concurrently */
	bool lo;		/* receiver on a's loopback */
	long done;
	int flush;
	uint64_t sunk;		/* datagrams the tc sink counted */
	bool ok;		/* contract held */
	char why[512];
};

static int session_setup(struct ctx *c, const struct case_arg *a,
			 struct session *ss, uint64_t n, bool usage, bool verify)
{
	size_t size = case_size(c, a->proto);
	int ret;

	ss->fd = -1;
	ss->rx.fd = -1;
	ret = run_init(&ss->r, c, a->proto, size, n);
	if (!ret && !ss->sink) {
		ret = rx_start(c, &ss->rx, a->proto, size, n, verify, ss->lo);
		ss->r.rx = &ss->rx;
	}
	if (!ret) {
		ss->fd = sender_socket(c, a->proto, ss->sink ? SINK_PORT : RX_PORT,
				       ss->lo);
		ret = ss->fd < 0 ? ss->fd : 0;
	}
	if (!ret)
		ret = run_open(&ss->r, a, ss->fd, usage, ss->unlinked);
	return ret;
}

static void session_run(struct ctx *c, struct session *ss)
{
	uint64_t pk0 = sink_pkts(c);

	ss->done = zc_sender_send(ss->r.s, ss->r.n, OP_TIMEOUT);
	ss->flush = zc_sender_flush(ss->r.s, FLUSH_TIMEOUT, GRACE);
	ss->sunk = ss->sink ? sink_settle(c, pk0, ss->r.n) : 0;
	if (!ss->sink) {
		if (!is_udp(ss->r.proto))
			shutdown(ss->fd, SHUT_WR);
		rx_join(&ss->rx, OP_TIMEOUT);
	}
	ss->ok = contract_ok(&ss->r, ss->r.n, (int)ss->r.size, ss->why,
			     sizeof(ss->why));
}

/* Sent all, flushed, and the peer got it all: else a reason in why. */
static bool session_traffic(const struct session *ss, char *why, size_t len)
{
	const struct rx *rx = &ss->rx;
	uint64_t n = ss->r.n, want = n * ss->r.size;

	if (ss->done != (long)n || ss->flush)
		snprintf(why, len, "sent %ld of %llu requests, flush: %s",
			 ss->done, (unsigned long long)n,
			 ss->flush ? strerror(-ss->flush) : "ok");
	else if (ss->sink && ss->sunk != n)
		snprintf(why, len, "tc sink counted %llu datagrams, want %llu",
			 (unsigned long long)ss->sunk, (unsigned long long)n);
	else if (!ss->sink && (rx->bytes != want || rx->bad || rx->dups ||
			       rx->err))
		snprintf(why, len,
			 "receiver got %llu of %llu bytes, first bad byte at %lld (%llu bad reads), missing %llu, dups %llu, %s",
			 (unsigned long long)rx->bytes, (unsigned long long)want,
			 rx->first_bad, (unsigned long long)rx->bad,
			 (unsigned long long)rx->missing,
			 (unsigned long long)rx->dups,
			 rx->err ? strerror(-rx->err) : "no receiver error");
	else
		return true;
	return false;
}

static void session_end(struct session *ss)
{
	if (ss->rx.running || ss->rx.fd > 0)
		rx_join(&ss->rx, 0);
	if (ss->fd >= 0)
		close(ss->fd);
	run_free(&ss->r);
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
static void case_requests(const struct zc_case *zc, void *arg)
{
	const struct case_arg *a = zc->arg;
	struct ctx *c = arg;
	bool life = a->kind == K_LIFETIME, udp = is_udp(a->proto);
	uint64_t n = life ? LIFETIME_SENDS : a->depth * 4 > 128 ? a->depth * 4 : 128;
	/* Without BPF, a receiver in b stands in for the tc sink. */
	struct session ss = { .sink = !life && udp && c->skel };
	bool verify = life || (c->o->verify && udp);
	char why[512];
	int ret;

	if (!mode_available(c, zc, a))
		return;
	if (life && udp && case_size(c, a->proto) < sizeof(uint64_t)) {
		ktap_skip(zc->name, "UDP lifetime needs --size >= 8 to number datagrams");
		return;
	}
	ss.unlinked = !life;
	if (!life && udp && !c->skel)
		ktap_print_msg("%s: runs with a receiver socket in b instead of the tc drop sink (%s)",
			       zc->name, c->bpf_skip);
	ret = session_setup(c, a, &ss, n, c->have_usage, verify);
	if (ret) {
		ktap_fail(zc->name, "setup: %s", strerror(-ret));
		goto out;
	}
	/* Requests wait for the receiver's window: it must hold the depth. */
	if (!ss.sink && udp && ss.rx.window < a->depth) {
		ktap_skip(zc->name, "the receiver standing in for the tc sink holds %u datagrams, depth %u needs more (SO_RCVBUFFORCE refused; %s)",
			  ss.rx.window, a->depth, c->bpf_skip);
		goto out;
	}
	ss.r.poison = life;
	session_run(c, &ss);
	ktap_print_msg("%s: depth=%u %s, notifications out of submission order: %llu",
		       zc->name, a->depth, ss.why,
		       (unsigned long long)ss.r.reordered);
	if (!ss.sink)
		ktap_print_msg("%s: receiver got %llu bytes%s", zc->name,
			       (unsigned long long)ss.rx.bytes,
			       verify ? ", each checked against the pattern" : "");
	if (c->have_usage)
		ktap_zcmode(zc->name, ss.r.usage_zc, ss.r.usage_copied);
	if (!session_traffic(&ss, why, sizeof(why)))
		ktap_fail(zc->name, "%s", why);
	else
		ktap_result(zc->name, ss.ok, "contract broken");
out:
	session_end(&ss);
}

/* Checks every notification's res, with REPORT_USAGE or without. */
static void case_usage(const struct zc_case *zc, void *arg)
{
	const struct case_arg *a = zc->arg;
	struct ctx *c = arg;
	bool usage = a->kind != K_USAGE_OFF;
	/*
	 * Over veth, delivery to a socket in b is local and copies; past a
	 * ZC_PAIR of real devices it is not, so the copied case uses lo.
	 */
	struct session ss = { .sink = a->kind == K_USAGE_ZC,
			      .lo = a->kind == K_USAGE_COPIED && c->t.real_pair };
	uint64_t n = USAGE_SENDS, want_zc = n, want_cp = 0;
	struct zc_why env;
	char why[512];
	int ret;

	if (!mode_available(c, zc, a))
		return;
	if (usage && !c->have_usage) {
		ktap_skip(zc->name, "%s", c->usage_reason);
		return;
	}
	/* Any local receiver copies: zero-copy needs the tc sink. */
	if (ss.sink && !c->skel) {
		ktap_skip(zc->name, "needs the tc drop sink for a path that does not copy: %s",
			  c->bpf_skip);
		return;
	}
	ret = session_setup(c, a, &ss, n, usage, c->o->verify);
	if (ret) {
		ktap_fail(zc->name, "setup: %s", strerror(-ret));
		goto out;
	}
	session_run(c, &ss);
	ktap_print_msg("%s: %s", zc->name, ss.why);
	ktap_print_msg("%s: notification res: 0 x%llu, ZC_COPIED x%llu, other x%llu",
		       zc->name, (unsigned long long)ss.r.usage_zc,
		       (unsigned long long)ss.r.usage_copied,
		       (unsigned long long)ss.r.usage_other);
	if (usage)
		ktap_zcmode(zc->name, ss.r.usage_zc, ss.r.usage_copied);
	if (a->kind == K_USAGE_COPIED) {
		want_cp = n;
		want_zc = 0;
	}
	if (!session_traffic(&ss, why, sizeof(why)))
		ktap_fail(zc->name, "%s", why);
	else if (!ss.ok)
		ktap_fail(zc->name, "contract broken");
	else if (ss.r.usage_copied > want_cp && zc_env_copy_cause(&c->t, &env))
		ktap_skip(zc->name, "%s", env.msg);
	else
		ktap_result(zc->name, ss.r.usage_zc == want_zc &&
			    ss.r.usage_copied == want_cp && !ss.r.usage_other,
			    "want res 0 x%llu and ZC_COPIED x%llu",
			    (unsigned long long)want_zc, (unsigned long long)want_cp);
out:
	session_end(&ss);
}

/* ---- errors: the failing send's -errno, and the contract still holds ---- */

struct err_setup {
	int fd;
	size_t size;
	int restore_mtu;	/* 0: MTU untouched */
	char what[96];
};

static int udp_dontfrag(int fd, enum proto p)
{
	int v = IP_PMTUDISC_DO, one = 1;

	if (p == P_UDP6)
		return setsockopt(fd, IPPROTO_IPV6, IPV6_DONTFRAG, &one,
				  sizeof(one)) ? -errno : 0;
	return setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof(v)) ?
		-errno : 0;
}

/* TCP whose connect was refused: the RST leaves ECONNREFUSED in sk_err. */
static int tcp_refused_socket(const struct ctx *c)
{
	struct sockaddr_storage ss;
	socklen_t len = peer_addr(c, P_TCP4, CLOSED_PORT, false, &ss);
	int fd, ret;

	fd = zc_socket_in(c->t.a.nsfd, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	if (!connect(fd, (struct sockaddr *)&ss, len) || errno != EINPROGRESS) {
		ret = -EPROTO;	/* nobody listens there: it cannot connect */
		goto fail;
	}
	ret = zc_poll_one(fd, POLLOUT, OP_TIMEOUT);
	if (ret <= 0) {
		ret = ret ? ret : -ETIMEDOUT;
		goto fail;
	}
	/* Blocking again, so io_uring does not answer -EAGAIN instead. */
	ret = fcntl(fd, F_SETFL, 0) ? -errno : 0;
	if (!ret)
		return fd;
fail:
	close(fd);
	return ret;
}

static int err_prepare(struct ctx *c, const struct case_arg *a,
		       struct err_setup *e)
{
	int sv[2], ret = 0;

	e->size = case_size(c, a->proto);
	switch (a->kind) {
	case K_ERR_REFUSED:
		snprintf(e->what, sizeof(e->what), "send to a port nobody listens on");
		if (a->proto == P_TCP4) {
			e->fd = tcp_refused_socket(c);
			return e->fd < 0 ? e->fd : 0;
		}
		e->fd = sender_socket(c, a->proto, CLOSED_PORT, false);
		return e->fd < 0 ? e->fd : 0;
	case K_ERR_MSGSIZE:
		e->fd = sender_socket(c, a->proto, SINK_PORT, false);
		if (e->fd < 0)
			return e->fd;
		ret = udp_dontfrag(e->fd, a->proto);
		/* No datagram exceeds 65535: lower the MTU to exceed it. */
		if (!ret && c->t.mtu > MTU_SMALL) {
			e->restore_mtu = c->t.mtu;
			ret = zc_topo_set_mtu(&c->t, MTU_SMALL);
			if (ret)
				e->restore_mtu = 0;
		}
		e->size = c->t.mtu + 500;
		snprintf(e->what, sizeof(e->what), "%zu-byte datagram, don't fragment, MTU %d",
			 e->size, c->t.mtu);
		return ret;
	case K_ERR_NOTSUPP:
		snprintf(e->what, sizeof(e->what), "AF_UNIX datagram socket");
		if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
			return -errno;
		close(sv[1]);
		e->fd = sv[0];
		return 0;
	case K_ERR_BADINDEX:
		snprintf(e->what, sizeof(e->what), "buf_index past the registered buffers");
		e->fd = sender_socket(c, a->proto, SINK_PORT, false);
		return e->fd < 0 ? e->fd : 0;
	default:
		return -EINVAL;
	}
}

static int err_want(const struct case_arg *a)
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

/*
 * Send one request at a time until one fails (a refused UDP send fails
 * only once the ICMP error of an earlier one is back). Returns how many
 * requests went out, or -errno.
 */
static long err_sends(struct run *r, int *failed_at)
{
	uint64_t i;
	long done;

	*failed_at = -1;
	for (i = 0; i < r->n; i++) {
		done = zc_sender_send(r->s, 1, OP_TIMEOUT);
		if (done != 1)
			return done < 0 ? done : -EIO;
		if (zc_sender_flush(r->s, FLUSH_TIMEOUT, 0))
			return -ETIMEDOUT;
		if (r->res[i] < 0) {
			*failed_at = i;
			return i + 1;
		}
		usleep(2000);
	}
	return i;
}

/* The sends before the failing one went out whole. */
static bool all_sent(const struct run *r, int upto)
{
	int i;

	for (i = 0; i < upto; i++)
		if (r->res[i] != (int)r->size)
			return false;
	return true;
}

static void case_error(const struct zc_case *zc, void *arg)
{
	const struct case_arg *a = zc->arg;
	struct ctx *c = arg;
	struct err_setup e = { .fd = -1 };
	int want = err_want(a), failed_at, ret;
	char why[512];
	struct run r;
	long sent;
	bool ok;

	if (!mode_available(c, zc, a))
		return;
	memset(&r, 0, sizeof(r));
	ret = err_prepare(c, a, &e);
	if (!ret)
		ret = run_init(&r, c, a->proto, e.size, ERR_TRIES);
	if (!ret) {
		struct zc_sender_cfg cfg = {
			.mode = a->mode, .fd = e.fd, .size = e.size, .depth = 1,
			.report_usage = c->have_usage, .on_event = on_event,
			.ctx = &r, .force_index = a->kind == K_ERR_BADINDEX,
			.buf_index = 1000,
		};

		r.s = zc_sender_open(&cfg, &ret);
	}
	if (ret) {
		ktap_fail(zc->name, "setup: %s", strerror(-ret));
		goto out;
	}
	sent = err_sends(&r, &failed_at);
	ret = zc_sender_flush(r.s, FLUSH_TIMEOUT, GRACE);
	if (sent > 0) {
		/* Successful sends before the failing one must have sent all. */
		ok = contract_ok(&r, sent, INT_MIN, why, sizeof(why));
		ktap_print_msg("%s: %s: %s", zc->name, e.what, why);
		ktap_print_msg("%s: request %d failed with %d (%s), F_MORE %s",
			       zc->name, failed_at,
			       failed_at >= 0 ? r.res[failed_at] : 0,
			       failed_at >= 0 ? strerror(-r.res[failed_at]) : "-",
			       failed_at >= 0 && r.more[failed_at] ? "set" : "clear");
	}
	if (sent <= 0 || ret)
		ktap_fail(zc->name, "sends: %s, flush: %s",
			  sent < 0 ? strerror(-sent) : "none",
			  ret ? strerror(-ret) : "ok");
	else if (failed_at < 0)
		ktap_fail(zc->name, "no send failed in %ld tries, want %s", sent,
			  strerror(-want));
	else
		ktap_result(zc->name, ok && r.res[failed_at] == want &&
			    all_sent(&r, failed_at),
			    "want %d (%s) after whole sends, contract %s", want,
			    strerror(-want), ok ? "held" : "broken");
out:
	if (e.restore_mtu && zc_topo_set_mtu(&c->t, e.restore_mtu))
		ktap_print_msg("could not restore MTU %d", e.restore_mtu);
	if (e.fd >= 0)
		close(e.fd);
	run_free(&r);
}

/* ---- rates ---- */

static void rate_config(const struct zc_case *zc, const struct ctx *c,
			const struct zc_sender_cfg *cfg,
			const struct zc_sender *s)
{
	int sndbuf = 0;
	socklen_t len = sizeof(sndbuf);

	getsockopt(cfg->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len);
	ktap_print_msg("config: %s mode=%s size=%zu depth=%u one_buffer=%s fixed_buf=%s report_usage=%s ring=%s sndbuf=%d proto=udp4 sink=tc_drop cpu_tx=%d cpu_rx=%d mtu=%d kernel=%s duration=%g repeat=%d warmup=%g",
		       zc->name, zc_send_mode_name(cfg->mode), cfg->size,
		       cfg->depth, cfg->one_buffer ? "yes" : "no",
		       cfg->mode == ZC_MODE_SEND_ZC_FIXED ? "yes" : "no",
		       cfg->report_usage ? "yes" : "no",
		       zc_sender_ring_desc(s), sndbuf, c->o->cpu_tx, c->o->cpu_rx,
		       c->t.mtu, zc_kernel_release(), c->o->duration,
		       c->o->repeat, WARMUP);
}

static void rate_report(const struct zc_case *zc, const struct zc_rate *rate,
			const struct zc_stats *vs_send)
{
	char prefix[160];

	snprintf(prefix, sizeof(prefix), "%s.%s", TEST_NAME, zc->name);
	zc_report_rate(prefix, rate, false);
	if (vs_send) {
		snprintf(prefix, sizeof(prefix), "%s.%s.vs_send", TEST_NAME,
			 zc->name);
		ktap_metric(prefix, vs_send, "ratio");
	}
}

/*
 * The rate, and for every mode but send() itself its ratio to send():
 * a send() sender on its own socket runs in alternation with the mode,
 * repeat by repeat, so each repeat gives one ratio sample.
 */
static int measure_rate(const struct zc_case *zc, struct ctx *c,
			const struct zc_meter_cfg *mc,
			const struct zc_sender_cfg *cfg, struct zc_sender *s,
			struct zc_rate *rate, struct zc_stats *vs_send,
			uint64_t *ref_sent)
{
	/* As udp4.rate.send measures it. */
	struct zc_sender_cfg rcfg = { .mode = ZC_MODE_SEND, .size = cfg->size,
				      .depth = 8 };
	struct zc_sender *ref = NULL;
	struct zc_rate both[2];
	int ret;

	*ref_sent = 0;
	if (!strcmp(zc->name, "udp4.rate.send"))
		return zc_measure(mc, zc_sender_step, s, rate);
	rcfg.fd = sender_socket(c, P_UDP4, SINK_PORT, false);
	ret = rcfg.fd < 0 ? rcfg.fd : 0;
	if (!ret)
		ref = zc_sender_open(&rcfg, &ret);
	if (ref) {
		const struct zc_arm arm[2] = {
			{ zc_sender_step, ref }, { zc_sender_step, s } };

		ret = zc_measure_pair(mc, arm, both, vs_send, false);
		*rate = both[1];
		*ref_sent = zc_sender_stats(ref)->completed;
		zc_sender_close(ref);
	}
	if (rcfg.fd >= 0)
		close(rcfg.fd);
	return ret;
}

static void case_rate(const struct zc_case *zc, void *arg)
{
	const struct case_arg *a = zc->arg;
	struct ctx *c = arg;
	struct zc_meter_cfg mc = {
		.duration = c->o->duration, .warmup = WARMUP,
		.repeat = c->o->repeat, .max_steps = 1ULL << 32,
	};
	struct zc_sender_cfg cfg = {
		.mode = a->mode, .size = case_size(c, P_UDP4), .depth = a->depth,
		.one_buffer = true,
		.report_usage = c->have_usage && zc_send_mode_uring(a->mode) &&
				zc_send_mode_zerocopy(a->mode),
	};
	const struct zc_send_stats *st;
	struct zc_sender *s = NULL;
	struct zc_stats vs_send = {};
	struct zc_rate rate;
	uint64_t pk0, sunk, ref_sent;
	struct zc_why env;
	int ret, fl;

	if (!mode_available(c, zc, a))
		return;
	if (!c->skel) {
		ktap_skip(zc->name, "needs the tc drop sink: %s", c->bpf_skip);
		return;
	}
	cfg.fd = sender_socket(c, P_UDP4, SINK_PORT, false);
	ret = cfg.fd < 0 ? cfg.fd : 0;
	/*
	 * Eight 64 KiB sends in flight overrun the default send buffer
	 * (wmem_default) whenever softirq falls behind, and a full buffer
	 * sends io_uring requests the slow way (poll, then retry).
	 */
	if (!ret && setsockopt(cfg.fd, SOL_SOCKET, SO_SNDBUF,
			       &(int){ RATE_SNDBUF }, sizeof(int)))
		ret = -errno;
	if (!ret)
		s = zc_sender_open(&cfg, &ret);
	if (!s) {
		ktap_fail(zc->name, "setup: %s", strerror(-ret));
		goto out;
	}
	rate_config(zc, c, &cfg, s);
	pk0 = sink_pkts(c);
	ret = measure_rate(zc, c, &mc, &cfg, s, &rate, &vs_send, &ref_sent);
	fl = zc_sender_flush(s, FLUSH_TIMEOUT, 0);
	st = zc_sender_stats(s);
	sunk = sink_settle(c, pk0, st->completed + ref_sent);
	if (ret || fl) {
		ktap_fail(zc->name, "measure: %s, flush: %s%s%s", strerror(-ret),
			  strerror(-fl), st->violations ? ", " : "", st->violation);
		goto out;
	}
	/* A copy a cause outside the kernel explains is no zcmode to compare. */
	if (zc_send_mode_zerocopy(a->mode) && st->copied &&
	    zc_env_copy_cause(&c->t, &env)) {
		ktap_skip(zc->name, "%s", env.msg);
		goto out;
	}
	rate_report(zc, &rate, vs_send.n ? &vs_send : NULL);
	if (zc_send_mode_zerocopy(a->mode) &&
	    (cfg.report_usage || a->mode == ZC_MODE_MSG_ZEROCOPY))
		ktap_zcmode(zc->name, st->zerocopy, st->copied);
	/*
	 * Backed by real traffic: over veth every datagram sent reaches the
	 * sink; a real device pair may lose some at these rates.
	 */
	ktap_print_msg("%s: tc sink counted %llu datagrams, sender completed %llu (failed %llu), send() reference %llu",
		       zc->name, (unsigned long long)sunk,
		       (unsigned long long)st->completed,
		       (unsigned long long)st->failed,
		       (unsigned long long)ref_sent);
	ktap_result(zc->name, !st->failed && sunk <= st->completed + ref_sent &&
		    (c->t.real_pair ? sunk > 0 :
		     sunk == st->completed + ref_sent),
		    "traffic does not add up");
out:
	zc_sender_close(s);
	if (cfg.fd >= 0)
		close(cfg.fd);
}

/* ---- case table ---- */

#define ARG(k, p, m, d)	(&(const struct case_arg){ k, p, m, d })

#define C_PAIRING(pn, p, mn, m)						\
	{ pn "." mn ".pairing.depth1", case_requests, ARG(K_PAIRING, p, m, 1) },	\
	{ pn "." mn ".pairing.depth8", case_requests, ARG(K_PAIRING, p, m, 8) },	\
	{ pn "." mn ".pairing.depth64", case_requests, ARG(K_PAIRING, p, m, 64) }
#define C_USAGE(pn, p, mn, m, name, k)						\
	{ pn "." mn ".report_usage." name, case_usage, ARG(k, p, m, 8) }
#define C_LIFETIME(pn, p, mn, m)						\
	{ pn "." mn ".lifetime", case_requests, ARG(K_LIFETIME, p, m, 8) }
#define C_ERROR(pn, p, mn, m, name, k)						\
	{ pn "." mn ".errors." name, case_error, ARG(k, p, m, 1) }

/* The tc sink takes UDP only: TCP needs a receiver, and that copies. */
#define ZC_UDP_CASES(pn, p, mn, m)						\
	C_PAIRING(pn, p, mn, m),						\
	C_USAGE(pn, p, mn, m, "zerocopy", K_USAGE_ZC),				\
	C_USAGE(pn, p, mn, m, "copied", K_USAGE_COPIED),			\
	C_USAGE(pn, p, mn, m, "off", K_USAGE_OFF),				\
	C_LIFETIME(pn, p, mn, m),						\
	C_ERROR(pn, p, mn, m, "refused", K_ERR_REFUSED),			\
	C_ERROR(pn, p, mn, m, "msgsize", K_ERR_MSGSIZE)

#define ZC_TCP_CASES(pn, p, mn, m)						\
	C_PAIRING(pn, p, mn, m),						\
	C_USAGE(pn, p, mn, m, "copied", K_USAGE_COPIED),			\
	C_USAGE(pn, p, mn, m, "off", K_USAGE_OFF),				\
	C_LIFETIME(pn, p, mn, m),						\
	C_ERROR(pn, p, mn, m, "refused", K_ERR_REFUSED)

#define ZC_ALL_MODES(X, pn, p)							\
	X(pn, p, "send_zc", ZC_MODE_SEND_ZC),					\
	X(pn, p, "sendmsg_zc", ZC_MODE_SENDMSG_ZC),				\
	X(pn, p, "send_zc_fixed", ZC_MODE_SEND_ZC_FIXED)

#define RATE(name, m, d) { "udp4.rate." name, case_rate, ARG(K_RATE, P_UDP4, m, d) }

static const struct zc_case cases[] = {
	ZC_ALL_MODES(ZC_UDP_CASES, "udp4", P_UDP4),
	ZC_ALL_MODES(ZC_UDP_CASES, "udp6", P_UDP6),
	ZC_ALL_MODES(ZC_TCP_CASES, "tcp4", P_TCP4),
	{ "unix.send_zc.errors.notsupp", case_error,
	  ARG(K_ERR_NOTSUPP, P_UNIX, ZC_MODE_SEND_ZC, 1) },
	{ "unix.sendmsg_zc.errors.notsupp", case_error,
	  ARG(K_ERR_NOTSUPP, P_UNIX, ZC_MODE_SENDMSG_ZC, 1) },
	{ "unix.send_zc_fixed.errors.notsupp", case_error,
	  ARG(K_ERR_NOTSUPP, P_UNIX, ZC_MODE_SEND_ZC_FIXED, 1) },
	{ "udp4.send_zc_fixed.errors.bad_index", case_error,
	  ARG(K_ERR_BADINDEX, P_UDP4, ZC_MODE_SEND_ZC_FIXED, 1) },
	RATE("send", ZC_MODE_SEND, 8),
	RATE("uring_send", ZC_MODE_URING_SEND, 8),
	RATE("msg_zerocopy", ZC_MODE_MSG_ZEROCOPY, 8),
	RATE("send_zc_depth1", ZC_MODE_SEND_ZC, 1),
	RATE("send_zc_depth8", ZC_MODE_SEND_ZC, 8),
	RATE("sendmsg_zc_depth8", ZC_MODE_SENDMSG_ZC, 8),
	RATE("send_zc_fixed_depth8", ZC_MODE_SEND_ZC_FIXED, 8),
};

/* ---- probes and setup ---- */

static int probe_uring(struct ctx *c, char *reason, size_t len)
{
	struct zc_why w = { "" };
	struct io_uring_probe *p;
	struct io_uring ring;
	int ret;

	if (zc_probe_uring(&w))
		return snprintf(reason, len, "%s", w.msg), -1;
	ret = io_uring_queue_init(2, &ring, 0);
	if (ret) {
		snprintf(reason, len, "io_uring_setup: %s", strerror(-ret));
		return -1;
	}
	p = io_uring_get_probe_ring(&ring);
	io_uring_queue_exit(&ring);
	if (!p) {
		snprintf(reason, len, "io_uring opcode probe failed (kernel before 5.6)");
		return -1;
	}
	ret = io_uring_opcode_supported(p, IORING_OP_SEND_ZC) ? 0 : -1;
	if (ret)
		snprintf(reason, len, "kernel lacks IORING_OP_SEND_ZC (6.0+)");
	c->have_sendmsg_zc = io_uring_opcode_supported(p, IORING_OP_SENDMSG_ZC);
	io_uring_free_probe(p);
	return ret;
}

/*
 * Capabilities decide for the whole binary; io_uring and BPF only for the
 * cases that need them (MSG_ZEROCOPY and send() rates, a receiver instead
 * of the tc sink).
 */
static int probe_all(struct ctx *c, char *reason, size_t len)
{
	static const cap_value_t caps[] = { CAP_NET_ADMIN, CAP_SYS_ADMIN };
	struct zc_why w = { "" };

	if (zc_require_caps(&w, caps, ZC_ARRAY_SIZE(caps)) ||
	    zc_require_bpf_caps(&w))
		return snprintf(reason, len, "%s", w.msg), -1;
	probe_uring(c, c->uring_skip, sizeof(c->uring_skip));
	if (zc_probe_bpf(&w))
		snprintf(c->bpf_skip, sizeof(c->bpf_skip), "%s", w.msg);
	return 0;
}

/* A SEND_ZC with REPORT_USAGE to the sink: -EINVAL before 6.2. */
static void probe_usage(struct ctx *c)
{
	struct zc_sender_cfg cfg = { .mode = ZC_MODE_SEND_ZC, .size = 64,
				     .depth = 1, .report_usage = true };
	struct zc_sender *s = NULL;
	int ret;

	cfg.fd = sender_socket(c, P_UDP4, SINK_PORT, false);
	ret = cfg.fd < 0 ? cfg.fd : 0;
	if (!ret)
		s = zc_sender_open(&cfg, &ret);
	if (s)
		ret = zc_sender_verdict(s, OP_TIMEOUT);
	zc_sender_close(s);
	if (cfg.fd >= 0)
		close(cfg.fd);
	c->have_usage = ret == ZC_VERDICT_ZEROCOPY || ret == ZC_VERDICT_COPIED;
	if (ret == -EINVAL)
		snprintf(c->usage_reason, sizeof(c->usage_reason),
			 "kernel lacks IORING_SEND_ZC_REPORT_USAGE (6.2+)");
	else if (!c->have_usage)
		snprintf(c->usage_reason, sizeof(c->usage_reason),
			 "IORING_SEND_ZC_REPORT_USAGE probe: %s", strerror(-ret));
}

/*
 * A real device pair may take seconds to get carrier after it moved:
 * send small datagrams until one reaches the tc sink.
 */
static int wait_path(struct ctx *c)
{
	double end = zc_now() + PATH_TIMEOUT;
	uint64_t pk0 = sink_pkts(c);
	int fd = sender_socket(c, P_UDP4, SINK_PORT, false);
	int ret = -ETIMEDOUT;

	if (fd < 0)
		return fd;
	while (zc_now() < end) {
		send(fd, "", 1, MSG_DONTWAIT);
		usleep(20000);
		if (sink_pkts(c) != pk0) {
			ret = 0;
			break;
		}
	}
	close(fd);
	return ret;
}

static int setup(struct ctx *c, char *err, size_t len)
{
	struct zc_why w = { "" };
	int ret;

	ret = zc_topo_setup(&c->t, MTU, &w);
	if (ret)
		return snprintf(err, len, "%s", w.msg), ret;
	if (c->bpf_skip[0]) {
		ktap_print_msg("no BPF, no tc sink: UDP cases use a receiver in b, zero-copy ones skip (%s)",
			       c->bpf_skip);
		goto usage;
	}
	c->skel = tc_drop__open_and_load();
	if (!c->skel) {
		ret = errno ? -errno : -EINVAL;
		snprintf(err, len, "load bpf/tc_drop: %s", strerror(-ret));
		return ret;
	}
	c->skel->bss->drop_port = SINK_PORT;
	ret = zc_tc_attach(c->t.b.nsfd, c->t.b.ifindex,
			   bpf_program__fd(c->skel->progs.zc_tc_drop), true);
	if (ret) {
		snprintf(err, len, "tc attach at %s ingress: %s", c->t.b.ifname,
			 strerror(-ret));
		return ret;
	}
	ret = wait_path(c);
	if (ret) {
		snprintf(err, len, "no datagram from %s reached the tc sink on %s in %g s: %s",
			 c->t.a.ifname, c->t.b.ifname, PATH_TIMEOUT,
			 strerror(-ret));
		return ret;
	}
usage:
	if (!c->uring_skip[0])
		probe_usage(c);
	return 0;
}

static void teardown(struct ctx *c)
{
	tc_drop__destroy(c->skel);
	c->skel = NULL;
	zc_topo_teardown(&c->t);
}

/*
 * --peer-exec: another sender (liburing's examples/send-zerocopy.c, say)
 * on exactly this topology, so tools/zc-peer-bench can hold the suite's
 * rates against it. The command runs under /bin/sh in namespace a; the
 * sink's count tells whether its datagrams really reached tc drop.
 */
static const char *opt_peer_exec;

enum { OPT_PEER_EXEC = 256 };

static const struct zc_opt_extra extra_opts[] = {
	{ "peer-exec", 1, OPT_PEER_EXEC, "CMD",
	  "set up the topology, run CMD (sh -c) in the sender namespace with ZC_PEER_ADDR, ZC_PEER_PORT, ZC_PEER_MTU set, print the datagrams the tc sink counted, exit with CMD's status" },
	{ NULL }
};

/* The command's first word names an executable (a path, or one in PATH). */
static bool peer_cmd_ok(const char *cmd)
{
	char word[PATH_MAX], path[PATH_MAX * 2];
	const char *env = getenv("PATH");
	size_t n = strcspn(cmd, " \t");
	char *dirs, *dir, *save = NULL;
	bool ok = false;

	if (!n || n >= sizeof(word))
		return false;
	memcpy(word, cmd, n);
	word[n] = '\0';
	if (strchr(word, '/'))
		return !access(word, X_OK);
	dirs = strdup(env ? env : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir && !ok;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s/%s", dir, word);
		ok = !access(path, X_OK);
	}
	free(dirs);
	return ok;
}

static int parse_extra(int val, const char *arg, void *ctx, struct zc_why *why)
{
	char *err = why->msg;
	size_t len = sizeof(why->msg);

	if (val == OPT_PEER_EXEC && peer_cmd_ok(arg)) {
		opt_peer_exec = arg;
		return 0;
	}
	snprintf(err, len, "--peer-exec wants a command whose first word is an executable, got '%.40s'",
		 arg);
	return -1;
}

static int peer_exec(struct ctx *c)
{
	char mtu[16], port[16];
	uint64_t pk0 = sink_pkts(c);
	int status = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		snprintf(mtu, sizeof(mtu), "%d", c->t.mtu);
		snprintf(port, sizeof(port), "%d", SINK_PORT);
		if (zc_netns_enter(c->t.a.nsfd))
			_exit(127);
		setenv("ZC_PEER_ADDR", ZC_ADDR4_B, 1);
		setenv("ZC_PEER_PORT", port, 1);
		setenv("ZC_PEER_MTU", mtu, 1);
		execl("/bin/sh", "sh", "-c", opt_peer_exec, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	printf("# peer: tc sink counted %llu datagrams\n",
	       (unsigned long long)(sink_pkts(c) - pk0));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static const struct zc_test_desc desc = {
	.name = TEST_NAME,
	.extra = extra_opts,
	.parse = parse_extra,
	.summary = "io_uring SEND_ZC/SENDMSG_ZC notification contract, REPORT_USAGE, buffer lifetime, zero-copy rates",
	.size_default = SIZE_DEFAULT,
	.size_max = SIZE_DEFAULT,
};

int main(int argc, char **argv)
{
	size_t n = ZC_ARRAY_SIZE(cases);
	struct zc_opts o;
	struct ctx c = { .o = &o };
	char reason[256];
	int ret;

	zc_opts_parse_or_exit(&o, argc, argv, &desc, NULL);
	if (o.list) {
		zc_list_cases(cases, n, &o);
		return KSFT_PASS;
	}
	if (probe_all(&c, reason, sizeof(reason)))
		return zc_skip_cases(cases, n, &o, "%s", reason);
	zc_raise_limits();
	if (setup(&c, reason, sizeof(reason))) {
		teardown(&c);
		ktap_exit_fail_msg("%s", reason);
	}
	if (c.uring_skip[0])
		ktap_print_msg("io_uring cases skip: %s", c.uring_skip);
	else if (!c.have_usage)
		ktap_print_msg("%s", c.usage_reason);
	if (opt_peer_exec) {
		ret = peer_exec(&c);
		teardown(&c);
		return ret;
	}
	zc_pin_cpu(o.cpu_tx);
	ret = zc_run_cases(cases, n, &o, &c);
	teardown(&c);
	return ret;
}
