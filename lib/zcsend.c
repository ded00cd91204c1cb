// SPDX-License-Identifier: GPL-2.0
/*
 * Zero-copy senders (see zcsend.h). One slot machine serves every io_uring
 * mode; the syscall modes share the slot buffers and the statistics.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/errqueue.h>
#include <liburing.h>

#include "compat.h"
#include "meter.h"
#include "util.h"
#include "zcsend.h"

#define SLOT_BITS	8	/* user_data = seq << SLOT_BITS | slot */
#define STEP_TIMEOUT	1.0	/* a step that sees nothing complete fails */
#define CLOSE_TIMEOUT	2.0
#define PATTERN_SEED	0x7a6373656e64ULL

_Static_assert(ZC_SEND_MAX_DEPTH <= (1 << SLOT_BITS), "slot index must fit");

enum slot_state { SLOT_FREE, SLOT_WAIT_CQE, SLOT_WAIT_NOTIF };

struct zc_slot {
	uint64_t seq;
	unsigned char state;
	bool early_notif;	/* notification seen before the request CQE */
	struct msghdr msg;
	struct iovec iov;
};

struct zc_sender {
	struct zc_sender_cfg cfg;
	struct zc_send_stats st;
	struct io_uring ring;
	bool have_ring;
	bool fixed_file;
	const char *ring_desc;
	unsigned char *area;
	size_t area_len, stride;	/* stride 0: one buffer for all slots */
	struct zc_slot *slots;
	unsigned int *free_stack;
	unsigned int nfree;
	unsigned int pending;	/* requests waiting for their CQE */
	bool stream;		/* linked chains keep a byte stream in order */
	uint64_t next_seq;
	int msg_flags;
	bool stopped;		/* fill asked to stop */
	int last_req_res;	/* for verdicts */
	int last_notif_res;
	/* MSG_ZEROCOPY: ids handed out and completed */
	uint64_t zc_sent;
	unsigned int next_slot;
};

static const char *const mode_names[ZC_MODE_COUNT] = {
	[ZC_MODE_SEND] = "send",
	[ZC_MODE_URING_SEND] = "uring_send",
	[ZC_MODE_MSG_ZEROCOPY] = "msg_zerocopy",
	[ZC_MODE_SEND_ZC] = "send_zc",
	[ZC_MODE_SENDMSG_ZC] = "sendmsg_zc",
	[ZC_MODE_SEND_ZC_FIXED] = "send_zc_fixed",
};

const char *zc_send_mode_name(enum zc_send_mode m)
{
	return (unsigned int)m < ZC_MODE_COUNT ? mode_names[m] : "unknown";
}

bool zc_send_mode_uring(enum zc_send_mode m)
{
	return m == ZC_MODE_URING_SEND || m == ZC_MODE_SEND_ZC ||
	       m == ZC_MODE_SENDMSG_ZC || m == ZC_MODE_SEND_ZC_FIXED;
}

bool zc_send_mode_zerocopy(enum zc_send_mode m)
{
	return m == ZC_MODE_MSG_ZEROCOPY || m == ZC_MODE_SEND_ZC ||
	       m == ZC_MODE_SENDMSG_ZC || m == ZC_MODE_SEND_ZC_FIXED;
}

static bool uring_zc(const struct zc_sender *s)
{
	return zc_send_mode_uring(s->cfg.mode) && s->cfg.mode != ZC_MODE_URING_SEND;
}

static void violation(struct zc_sender *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->st.violations++) {
		va_start(ap, fmt);
		vsnprintf(s->st.violation, sizeof(s->st.violation), fmt, ap);
		va_end(ap);
	}
}

void *zc_sender_buf(struct zc_sender *s, unsigned int slot)
{
	return slot < s->cfg.depth ? s->area + (size_t)slot * s->stride : NULL;
}

const struct zc_send_stats *zc_sender_stats(const struct zc_sender *s)
{
	return &s->st;
}

/* Requests or buffers the kernel still holds. */
static unsigned int zc_sender_inflight(const struct zc_sender *s)
{
	if (s->cfg.mode == ZC_MODE_MSG_ZEROCOPY)
		return s->zc_sent - s->st.notifs;
	return s->cfg.depth - s->nfree;
}

const char *zc_sender_ring_desc(const struct zc_sender *s)
{
	return s->ring_desc;
}

/* ---- io_uring modes ---- */

static void slot_free(struct zc_sender *s, unsigned int i)
{
	s->slots[i].state = SLOT_FREE;
	s->slots[i].early_notif = false;
	s->free_stack[s->nfree++] = i;
}

static void count_usage(struct zc_sender *s, int res)
{
	if (!s->cfg.report_usage)
		return;
	if (res & IORING_NOTIF_USAGE_ZC_COPIED)
		s->st.copied++;
	else
		s->st.zerocopy++;
}

static void on_notif(struct zc_sender *s, struct zc_slot *sl, unsigned int i,
		     const struct io_uring_cqe *cqe)
{
	if (cqe->flags & IORING_CQE_F_MORE)
		violation(s, "notification %llu carries IORING_CQE_F_MORE",
			  (unsigned long long)sl->seq);
	if (sl->state == SLOT_WAIT_CQE && !sl->early_notif) {
		violation(s, "notification %llu before its request CQE",
			  (unsigned long long)sl->seq);
		sl->early_notif = true;
	} else if (sl->state != SLOT_WAIT_NOTIF) {
		violation(s, "extra notification for request %llu",
			  (unsigned long long)sl->seq);
		return;
	}
	s->st.notifs++;
	s->last_notif_res = cqe->res;
	count_usage(s, cqe->res);
	if (sl->state == SLOT_WAIT_NOTIF)
		slot_free(s, i);
}

static void on_request(struct zc_sender *s, struct zc_slot *sl, unsigned int i,
		       const struct io_uring_cqe *cqe)
{
	bool more = cqe->flags & IORING_CQE_F_MORE;

	if (sl->state != SLOT_WAIT_CQE) {
		violation(s, "extra request CQE for %llu (res %d)",
			  (unsigned long long)sl->seq, cqe->res);
		return;
	}
	s->st.completed++;
	s->pending--;
	s->last_req_res = cqe->res;
	if (cqe->res >= 0) {
		s->st.bytes += cqe->res;
	} else {
		s->st.failed++;
		if (!s->st.first_err)
			s->st.first_err = cqe->res;
	}
	if (more && !uring_zc(s))
		violation(s, "IORING_CQE_F_MORE on a non-zero-copy send");
	if (more) {
		s->st.more++;
		sl->state = SLOT_WAIT_NOTIF;
		/* A notification that came first has been counted already. */
		if (sl->early_notif)
			slot_free(s, i);
	} else {
		if (sl->early_notif)
			violation(s, "notification for %llu whose CQE lacks F_MORE",
				  (unsigned long long)sl->seq);
		slot_free(s, i);
	}
}

static void handle_cqe(struct zc_sender *s, const struct io_uring_cqe *cqe)
{
	unsigned int i = cqe->user_data & ((1U << SLOT_BITS) - 1);
	uint64_t seq = cqe->user_data >> SLOT_BITS;
	bool notif = cqe->flags & IORING_CQE_F_NOTIF;
	struct zc_slot *sl;
	struct zc_event ev;

	if (i >= s->cfg.depth || s->slots[i].seq != seq ||
	    s->slots[i].state == SLOT_FREE) {
		violation(s, "%s for unknown user_data 0x%llx (res %d)",
			  notif ? "notification" : "CQE",
			  (unsigned long long)cqe->user_data, cqe->res);
		return;
	}
	sl = &s->slots[i];
	if (notif)
		on_notif(s, sl, i, cqe);
	else
		on_request(s, sl, i, cqe);
	/* Built only for a listener: rates reap on the hot path. */
	if (s->cfg.on_event) {
		ev = (struct zc_event){ i, seq, cqe->res, cqe->flags, notif };
		s->cfg.on_event(s->cfg.ctx, &ev);
	}
}

static unsigned int reap(struct zc_sender *s)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;

	io_uring_for_each_cqe(&s->ring, head, cqe) {
		handle_cqe(s, cqe);
		n++;
	}
	io_uring_cq_advance(&s->ring, n);
	return n;
}

static void prep_one(struct zc_sender *s, struct io_uring_sqe *sqe,
		     unsigned int i)
{
	struct zc_slot *sl = &s->slots[i];
	void *buf = zc_sender_buf(s, i);
	unsigned int zc_flags = s->cfg.report_usage ? IORING_SEND_ZC_REPORT_USAGE : 0;
	int fd = s->fixed_file ? 0 : s->cfg.fd;

	switch (s->cfg.mode) {
	case ZC_MODE_URING_SEND:
		io_uring_prep_send(sqe, fd, buf, s->cfg.size, s->msg_flags);
		break;
	case ZC_MODE_SEND_ZC:
		io_uring_prep_send_zc(sqe, fd, buf, s->cfg.size, s->msg_flags,
				      zc_flags);
		break;
	case ZC_MODE_SEND_ZC_FIXED:
		io_uring_prep_send_zc_fixed(sqe, fd, buf, s->cfg.size,
					    s->msg_flags, zc_flags,
					    s->cfg.force_index ? s->cfg.buf_index :
					    s->stride ? i : 0);
		break;
	case ZC_MODE_SENDMSG_ZC:
		sl->iov = (struct iovec){ buf, s->cfg.size };
		sl->msg = (struct msghdr){ .msg_iov = &sl->iov, .msg_iovlen = 1 };
		io_uring_prep_sendmsg_zc(sqe, fd, &sl->msg, s->msg_flags);
		/* sendmsg takes REPORT_USAGE in ioprio like send_zc */
		sqe->ioprio = zc_flags;
		break;
	default:
		break;
	}
	if (s->fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = sl->seq << SLOT_BITS | i;
}

/*
 * Queue sends on free slots, at most `max`. Returns how many.
 * Two sends in flight on a stream socket may interleave their bytes (one
 * waits for room, the next goes first), so stream sends go as one linked
 * chain at a time: the byte stream keeps submission order while buffers
 * still come back only with their notifications.
 */
static unsigned int prep_free(struct zc_sender *s, uint64_t max)
{
	struct io_uring_sqe *sqe = NULL, *prev;
	unsigned int n = 0;

	if (s->stream && s->pending)
		return 0;
	while (s->nfree && n < max && !s->stopped) {
		unsigned int i = s->free_stack[s->nfree - 1];
		struct zc_slot *sl = &s->slots[i];

		if (s->cfg.fill && s->cfg.fill(s->cfg.ctx, zc_sender_buf(s, i),
					       s->cfg.size, s->next_seq)) {
			s->stopped = true;
			break;
		}
		prev = sqe;
		sqe = io_uring_get_sqe(&s->ring);
		if (!sqe)
			break;
		if (prev && s->stream)
			prev->flags |= IOSQE_IO_LINK;
		s->nfree--;
		sl->seq = s->next_seq++;
		sl->state = SLOT_WAIT_CQE;
		prep_one(s, sqe, i);
		n++;
	}
	s->pending += n;
	s->st.submitted += n;
	return n;
}

/* Submit what is queued and wait for `want` CQEs at most `timeout` s. */
static int submit_wait(struct zc_sender *s, unsigned int want, double timeout)
{
	struct __kernel_timespec ts = {
		.tv_sec = (long)timeout,
		.tv_nsec = (long)((timeout - (long)timeout) * 1e9),
	};
	struct io_uring_cqe *cqe;
	int ret;

	if (!want)
		return io_uring_submit_and_get_events(&s->ring);
	do {
		ret = io_uring_submit_and_wait_timeout(&s->ring, &cqe, want,
						       &ts, NULL);
	} while (ret == -EINTR);
	return ret == -ETIME ? -ETIMEDOUT : ret;
}

static int uring_step(struct zc_sender *s, uint64_t *bytes, uint64_t *pkts)
{
	uint64_t b0 = s->st.bytes, c0 = s->st.completed;
	int ret;

	prep_free(s, UINT64_MAX);
	if (s->stopped && s->nfree == s->cfg.depth)
		return 1;
	/*
	 * Sends to a local sink complete inline and their notifications
	 * are deferred task work: one enter with GETEVENTS and no wait
	 * submits and posts both, as liburing's send-zerocopy example's
	 * submit does. Wait (bounded) only when it brought nothing.
	 */
	ret = io_uring_submit_and_get_events(&s->ring);
	if (ret < 0 && ret != -EINTR)
		return ret;
	if (!reap(s)) {
		ret = submit_wait(s, 1, STEP_TIMEOUT);
		if (ret < 0 && ret != -ETIMEDOUT)
			return ret;
		if (!reap(s) && ret == -ETIMEDOUT)
			return -ETIMEDOUT;
	}
	*bytes += s->st.bytes - b0;
	*pkts += s->st.completed - c0;
	if (s->st.violations)
		return -EPROTO;
	return s->st.first_err;
}

/* Reap until `done` says so or the deadline passes. */
static int uring_wait_until(struct zc_sender *s, bool (*done)(struct zc_sender *),
			    double deadline)
{
	int ret;

	reap(s);
	while (!done(s)) {
		double left = deadline - zc_now();

		if (left <= 0)
			return -ETIMEDOUT;
		ret = submit_wait(s, 1, left < STEP_TIMEOUT ? left : STEP_TIMEOUT);
		if (ret < 0 && ret != -ETIMEDOUT)
			return ret;
		reap(s);
	}
	return 0;
}

static bool all_free(struct zc_sender *s)
{
	return s->nfree == s->cfg.depth;
}

/* ---- syscall modes ---- */

static int errq_level_ok(const struct cmsghdr *c)
{
	return (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
	       (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR);
}

static void errq_note(struct zc_sender *s, const struct sock_extended_err *ee)
{
	uint64_t n;

	if (ee->ee_origin != SO_EE_ORIGIN_ZEROCOPY || ee->ee_errno)
		return;
	n = (uint32_t)(ee->ee_data - ee->ee_info) + 1ULL;
	s->st.notifs += n;
	if (ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
		s->st.copied += n;
	else
		s->st.zerocopy += n;
	s->last_notif_res = ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED;
}

/* Read every MSG_ZEROCOPY completion queued now. Returns how many or -errno. */
static int errq_read(struct zc_sender *s)
{
	char control[256];
	int n = 0;

	for (;;) {
		struct msghdr msg = { .msg_control = control,
				      .msg_controllen = sizeof(control) };
		struct cmsghdr *c;

		if (recvmsg(s->cfg.fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return n;
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
			if (errq_level_ok(c))
				errq_note(s, (void *)CMSG_DATA(c));
		n++;
	}
}

/* Drain completions until at most `left` ids are outstanding. */
static int errq_wait(struct zc_sender *s, uint64_t left, double timeout)
{
	double deadline = zc_now() + timeout;
	int ret;

	for (;;) {
		ret = errq_read(s);
		if (ret < 0)
			return ret;
		if (s->zc_sent - s->st.notifs <= left)
			return 0;
		if (zc_now() >= deadline)
			return -ETIMEDOUT;
		/* The error queue raises POLLERR whatever we ask for. */
		ret = zc_poll_one(s->cfg.fd, 0, deadline - zc_now());
		if (ret < 0)
			return ret;
	}
}

/*
 * One send(2) from the next slot. Returns 0 when it was issued (a failed
 * send is counted in the stats and left in last_req_res), 1 when fill
 * asked to stop, or -errno of the error queue.
 */
static int sys_send_one(struct zc_sender *s)
{
	unsigned int i = s->next_slot;
	int zc = s->cfg.mode == ZC_MODE_MSG_ZEROCOPY ? MSG_ZEROCOPY : 0;
	double deadline = zc_now() + STEP_TIMEOUT;
	ssize_t n;
	int ret;

	if (s->cfg.fill && s->cfg.fill(s->cfg.ctx, zc_sender_buf(s, i),
				       s->cfg.size, s->next_seq)) {
		s->stopped = true;
		return 1;
	}
	for (;;) {
		n = send(s->cfg.fd, zc_sender_buf(s, i), s->cfg.size,
			 s->msg_flags | zc);
		if (n >= 0 || errno != ENOBUFS || !zc || zc_now() >= deadline)
			break;
		/* optmem_max bounds MSG_ZEROCOPY in flight: get some back. */
		ret = errq_wait(s, zc_sender_inflight(s) / 2, deadline - zc_now());
		if (ret && ret != -ETIMEDOUT)
			return ret;
	}
	s->next_slot = (i + 1) % s->cfg.depth;
	s->next_seq++;
	s->st.submitted++;
	s->st.completed++;
	if (n < 0) {
		s->st.failed++;
		s->last_req_res = -errno;
		if (!s->st.first_err)
			s->st.first_err = -errno;
		return 0;
	}
	s->last_req_res = n;
	s->st.bytes += n;
	if (zc)
		s->zc_sent++;
	return 0;
}

static int sys_step(struct zc_sender *s, uint64_t *bytes, uint64_t *pkts)
{
	int ret = sys_send_one(s);

	if (ret)
		return ret;
	if (s->last_req_res < 0)
		return s->last_req_res;
	*bytes += s->last_req_res;
	*pkts += 1;
	if (s->cfg.mode != ZC_MODE_MSG_ZEROCOPY)
		return 0;
	/* Exact verdicts need each completion before the next send. */
	if (s->cfg.exact)
		return errq_wait(s, 0, STEP_TIMEOUT);
	if (zc_sender_inflight(s) >= s->cfg.depth)
		return errq_wait(s, s->cfg.depth / 2, STEP_TIMEOUT);
	return 0;
}

/* ---- public entry points ---- */

int zc_sender_step(void *arg, uint64_t *bytes, uint64_t *pkts)
{
	struct zc_sender *s = arg;

	if (zc_send_mode_uring(s->cfg.mode))
		return uring_step(s, bytes, pkts);
	return sys_step(s, bytes, pkts);
}

static long sys_send_n(struct zc_sender *s, uint64_t n, double deadline)
{
	uint64_t c0 = s->st.completed;
	int ret;

	while (s->st.completed - c0 < n) {
		if (zc_now() >= deadline)
			return -ETIMEDOUT;
		ret = sys_send_one(s);
		if (ret == 1)
			break;
		if (ret < 0)
			return ret;
		if (s->cfg.mode == ZC_MODE_MSG_ZEROCOPY && s->cfg.exact) {
			ret = errq_wait(s, 0, deadline - zc_now());
			if (ret)
				return ret;
		}
	}
	return s->st.completed - c0;
}

long zc_sender_send(struct zc_sender *s, uint64_t n, double timeout)
{
	double deadline = zc_now() + timeout;
	uint64_t c0 = s->st.completed, target = s->st.submitted + n;
	int ret;

	if (!zc_send_mode_uring(s->cfg.mode))
		return sys_send_n(s, n, deadline);
	while (s->st.completed - c0 < n) {
		if (zc_now() >= deadline)
			return -ETIMEDOUT;
		prep_free(s, target - s->st.submitted);
		if (s->stopped && all_free(s))
			break;
		ret = submit_wait(s, 1, STEP_TIMEOUT);
		if (ret < 0 && ret != -ETIMEDOUT)
			return ret;
		reap(s);
		if (s->st.violations)
			return -EPROTO;
	}
	return s->st.completed - c0;
}

int zc_sender_flush(struct zc_sender *s, double timeout, double grace)
{
	double end;
	int ret;

	if (s->cfg.mode == ZC_MODE_MSG_ZEROCOPY)
		return errq_wait(s, 0, timeout);
	if (!zc_send_mode_uring(s->cfg.mode))
		return 0;
	ret = uring_wait_until(s, all_free, zc_now() + timeout);
	if (ret)
		return ret;
	end = zc_now() + grace;
	while (zc_now() < end) {
		ret = submit_wait(s, 1, end - zc_now());
		if (ret < 0 && ret != -ETIMEDOUT)
			return ret;
		reap(s);
	}
	return 0;
}

int zc_sender_verdict(struct zc_sender *s, double timeout)
{
	uint64_t copied0, zc0, v0 = s->st.violations;
	long n;
	int ret;

	if (uring_zc(s) && !s->cfg.report_usage)
		return -EOPNOTSUPP;
	ret = zc_sender_flush(s, timeout, 0);
	if (ret)
		return ret;
	copied0 = s->st.copied;
	zc0 = s->st.zerocopy;
	n = zc_sender_send(s, 1, timeout);
	if (n < 0)
		return n;
	if (n != 1)
		return -EIO;
	/* A failed SEND_ZC still owes its notification (F_MORE). */
	ret = zc_sender_flush(s, timeout, 0);
	if (ret)
		return ret;
	if (s->st.violations != v0)
		return -EPROTO;
	if (s->last_req_res < 0)
		return s->last_req_res;
	if (!zc_send_mode_zerocopy(s->cfg.mode))
		return ZC_VERDICT_COPIED;
	if (s->st.copied - copied0 == 1 && s->st.zerocopy == zc0)
		return ZC_VERDICT_COPIED;
	if (s->st.zerocopy - zc0 == 1 && s->st.copied == copied0)
		return ZC_VERDICT_ZEROCOPY;
	return -EPROTO;
}

/* ---- setup ---- */

static int ring_setup(struct zc_sender *s)
{
	static const struct {
		unsigned int flags;
		const char *desc;
	} ladder[] = {
		{ IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		  "single_issuer,defer_taskrun" },
		{ IORING_SETUP_COOP_TASKRUN, "coop_taskrun" },
		{ 0, "default" },
	};
	unsigned int entries = 1;
	size_t i;
	int ret = -EINVAL;

	while (entries < s->cfg.depth)
		entries <<= 1;
	for (i = 0; i < ZC_ARRAY_SIZE(ladder); i++) {
		struct io_uring_params p = {
			.flags = ladder[i].flags | IORING_SETUP_CQSIZE,
			/* a request CQE and a notification per slot, twice over */
			.cq_entries = entries * 4,
		};

		ret = io_uring_queue_init_params(entries, &s->ring, &p);
		if (!ret) {
			s->ring_desc = ladder[i].desc;
			break;
		}
		if (ret != -EINVAL)
			return ret;
	}
	if (ret)
		return ret;
	s->have_ring = true;
	if (io_uring_register_files(&s->ring, &s->cfg.fd, 1) == 0)
		s->fixed_file = true;
	io_uring_register_ring_fd(&s->ring);
	if (s->cfg.mode == ZC_MODE_SEND_ZC_FIXED) {
		unsigned int nbufs = s->stride ? s->cfg.depth : 1;
		struct iovec *iov = calloc(nbufs, sizeof(*iov));

		if (!iov)
			return -ENOMEM;
		for (i = 0; i < nbufs; i++)
			iov[i] = (struct iovec){ zc_sender_buf(s, i), s->cfg.size };
		ret = io_uring_register_buffers(&s->ring, iov, nbufs);
		free(iov);
		if (ret)
			return ret;
	}
	return 0;
}

static int sock_setup(struct zc_sender *s)
{
	int type = 0, one = 1;
	socklen_t len = sizeof(type);

	if (getsockopt(s->cfg.fd, SOL_SOCKET, SO_TYPE, &type, &len))
		return -errno;
	s->msg_flags = s->cfg.msg_flags | MSG_NOSIGNAL;
	/* Stream sends complete whole, as send(2) on a blocking socket does. */
	if (type == SOCK_STREAM)
		s->msg_flags |= MSG_WAITALL;
	s->stream = type == SOCK_STREAM && !s->cfg.unlinked;
	if (s->cfg.mode == ZC_MODE_MSG_ZEROCOPY &&
	    setsockopt(s->cfg.fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))
		return -errno;
	return 0;
}

static int alloc_slots(struct zc_sender *s)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned int i;

	s->stride = (s->cfg.size + page - 1) / page * page;
	s->area_len = s->stride * (s->cfg.one_buffer ? 1 : s->cfg.depth);
	if (s->cfg.one_buffer)
		s->stride = 0;
	s->area = mmap(NULL, s->area_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (s->area == MAP_FAILED) {
		s->area = NULL;
		return -errno;
	}
	s->slots = calloc(s->cfg.depth, sizeof(*s->slots));
	s->free_stack = calloc(s->cfg.depth, sizeof(*s->free_stack));
	if (!s->slots || !s->free_stack)
		return -ENOMEM;
	/* Highest index on the bottom: slot 0 is used first. */
	for (i = s->cfg.depth; i-- > 0;)
		slot_free(s, i);
	for (i = 0; i < (s->stride ? s->cfg.depth : 1); i++)
		zc_pattern_fill(zc_sender_buf(s, i), s->cfg.size, PATTERN_SEED,
				(uint64_t)i * s->cfg.size);
	return 0;
}

struct zc_sender *zc_sender_open(const struct zc_sender_cfg *cfg, int *err)
{
	struct zc_sender *s;
	int ret;

	if ((unsigned int)cfg->mode >= ZC_MODE_COUNT || !cfg->size ||
	    cfg->depth > ZC_SEND_MAX_DEPTH || cfg->fd < 0 ||
	    (cfg->one_buffer && cfg->fill)) {
		*err = -EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	s->cfg = *cfg;
	if (!s->cfg.depth)
		s->cfg.depth = 1;
	s->ring_desc = "none";
	ret = alloc_slots(s);
	if (!ret)
		ret = sock_setup(s);
	if (!ret && zc_send_mode_uring(cfg->mode))
		ret = ring_setup(s);
	if (ret) {
		zc_sender_close(s);
		*err = ret;
		return NULL;
	}
	*err = 0;
	return s;
}

void zc_sender_close(struct zc_sender *s)
{
	if (!s)
		return;
	if (s->have_ring) {
		/* The kernel may still hold slot buffers: let them come back. */
		uring_wait_until(s, all_free, zc_now() + CLOSE_TIMEOUT);
		io_uring_queue_exit(&s->ring);
	} else if (s->cfg.mode == ZC_MODE_MSG_ZEROCOPY && s->area) {
		errq_wait(s, 0, CLOSE_TIMEOUT);
	}
	if (s->area)
		munmap(s->area, s->area_len);
	free(s->slots);
	free(s->free_stack);
	free(s);
}
