// SPDX-License-Identifier: GPL-2.0
/*
 * The io_uring modes of the zero-copy senders (see zcsend_uring.h): one slot
 * machine for send, SEND_ZC, SENDMSG_ZC and SEND_ZC with a registered
 * buffer, checking every request CQE and notification the kernel posts.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/clock.h"
#include "core/util.h"
#include "send/zcsend_uring.h"
#include "send/zcslot.h"

static void violation(struct zc_sender *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->st.violations++) {
		va_start(ap, fmt);
		vsnprintf(s->st.violation, sizeof(s->st.violation), fmt, ap);
		va_end(ap);
	}
}

static void count_usage(struct zc_sender *s, int res)
{
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
	if (s->cfg.report_usage)
		count_usage(s, cqe->res);
	if (sl->state == SLOT_WAIT_NOTIF)
		zc_slot_free(s, i);
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
	if (more && !s->zc)
		violation(s, "IORING_CQE_F_MORE on a non-zero-copy send");
	if (more) {
		s->st.more++;
		sl->state = SLOT_WAIT_NOTIF;
		/* A notification that came first has been counted already. */
		if (sl->early_notif)
			zc_slot_free(s, i);
	} else {
		if (sl->early_notif)
			violation(s, "notification for %llu whose CQE lacks F_MORE",
				  (unsigned long long)sl->seq);
		zc_slot_free(s, i);
	}
}

/* Out of line: reap's fast loop keeps its registers. */
static __attribute__((noinline, cold)) void
handle_cqe(struct zc_sender *s, const struct io_uring_cqe *cqe)
{
	unsigned int i = cqe->user_data & SLOT_MASK;
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
	if (s->cfg.on_event) {
		ev = (struct zc_event){ i, seq, cqe->res, cqe->flags, notif };
		s->cfg.on_event(s->cfg.ctx, &ev);
	}
}

/*
 * The completions a clean stream consists of, judged by the same rules
 * as handle_cqe in a few compares: a successful request CQE of a slot
 * waiting for it, F_MORE exactly when the mode is zero-copy, no
 * notification before it; or the notification a slot waits for, without
 * F_MORE. Reaps from head until the first completion that is anything
 * else, which it leaves to handle_cqe to name; returns where it stopped.
 * The counts stay in registers until then: under icount, the full path
 * on every CQE cost ~0.8 % of SEND_ZC's instructions per byte.
 */
static inline __attribute__((always_inline)) unsigned int
reap_fast(struct zc_sender *s, unsigned int head, unsigned int tail)
{
	const struct io_uring_cqe *cqes = s->ring.cq.cqes;
	unsigned int mask = s->ring.cq.ring_mask;
	unsigned int want_more = s->zc ? IORING_CQE_F_MORE : 0;
	unsigned int *stack = s->free_stack, nfree = s->nfree;
	struct zc_slot *slots = s->slots;
	uint64_t reqs = 0, bytes = 0, notifs = 0, copied = 0;
	int last_req = s->last_req_res, last_notif = s->last_notif_res;

	_Static_assert(IORING_NOTIF_USAGE_ZC_COPIED == 1U << 31, "sign bit");
	for (; head != tail; head++) {
		const struct io_uring_cqe *cqe = &cqes[head & mask];
		uint64_t ud = cqe->user_data;
		unsigned int i = ud & SLOT_MASK, flags = cqe->flags;
		struct zc_slot *sl = &slots[i];
		int res = cqe->res;

		if (sl->seq != ud >> SLOT_BITS)
			break;
		if (flags & IORING_CQE_F_NOTIF) {
			if (sl->state != SLOT_WAIT_NOTIF ||
			    (flags & IORING_CQE_F_MORE))
				break;
			notifs++;
			/* IORING_NOTIF_USAGE_ZC_COPIED is the sign bit */
			copied += (unsigned int)res >> 31;
			last_notif = res;
		} else {
			if (sl->state != SLOT_WAIT_CQE || sl->early_notif ||
			    res < 0 || (flags & IORING_CQE_F_MORE) != want_more)
				break;
			reqs++;
			bytes += res;
			last_req = res;
			if (want_more) {
				sl->state = SLOT_WAIT_NOTIF;
				continue;
			}
		}
		/* early_notif is false on both ways here */
		sl->state = SLOT_FREE;
		stack[nfree++] = i;
	}
	s->st.completed += reqs;
	s->pending -= reqs;
	s->st.bytes += bytes;
	if (want_more)
		s->st.more += reqs;
	s->st.notifs += notifs;
	if (s->cfg.report_usage) {
		s->st.copied += copied;
		s->st.zerocopy += notifs - copied;
	}
	s->nfree = nfree;
	s->last_req_res = last_req;
	s->last_notif_res = last_notif;
	return head;
}

/*
 * The tail is read once: completions posted meanwhile wait for the next
 * reap, which every path that waits does. Everything goes the full way
 * when a listener wants events.
 */
static inline __attribute__((always_inline)) unsigned int
reap(struct zc_sender *s)
{
	struct io_uring_cq *cq = &s->ring.cq;
	unsigned int head = *cq->khead;
	unsigned int tail = io_uring_smp_load_acquire(cq->ktail);
	unsigned int n = tail - head;
	bool slow = s->cfg.on_event;

	if (!n)
		return 0;
	while (head != tail) {
		if (!slow)
			head = reap_fast(s, head, tail);
		if (head != tail)
			handle_cqe(s, &cq->cqes[head++ & cq->ring_mask]);
	}
	io_uring_smp_store_release(cq->khead, tail);
	return n;
}

static void prep_one(struct zc_sender *s, struct io_uring_sqe *sqe,
		     unsigned int i)
{
	struct zc_slot *sl = &s->slots[i];
	void *buf = zc_slot_buf(s, i);
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
 * A slot's request is prepared once (zc_sender_uring_setup): queueing it
 * copies it and stamps its user_data.
 */
static inline __attribute__((always_inline)) unsigned int
prep_free(struct zc_sender *s, uint64_t max)
{
	struct io_uring_sq *sq = &s->ring.sq;
	struct io_uring_sqe *sqes = sq->sqes;
	unsigned int tail = sq->sqe_tail, mask = sq->ring_mask;
	unsigned int room = sq->ring_entries - (tail - IO_URING_READ_ONCE(*sq->khead));
	unsigned int *stack = s->free_stack + s->nfree;
	unsigned int n, want = s->nfree < room ? s->nfree : room;
	uint64_t seq = s->next_seq;

	if (s->stream && s->pending)
		return 0;
	if (want > max)
		want = max;
	for (n = 0; n < want; n++) {
		unsigned int i = *--stack;
		struct zc_slot *sl = &s->slots[i];
		struct io_uring_sqe *sqe = &sqes[(tail + n) & mask];

		*sqe = sl->sqe;
		sqe->user_data = seq << SLOT_BITS | i;
		sl->seq = seq++;
		sl->state = SLOT_WAIT_CQE;
	}
	for (n = 0; s->stream && n + 1 < want; n++)
		sqes[(tail + n) & mask].flags |= IOSQE_IO_LINK;
	sq->sqe_tail = tail + want;
	s->next_seq = seq;
	s->nfree -= want;
	s->pending += want;
	s->st.submitted += want;
	return want;
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

int zc_sender_uring_step(struct zc_sender *s, uint64_t *bytes, uint64_t *pkts)
{
	uint64_t b0 = s->st.bytes, c0 = s->st.completed;
	int ret;

	prep_free(s, UINT64_MAX);
	/*
	 * Sends to a local sink complete inline and their notifications
	 * are deferred task work: one enter with GETEVENTS and no wait
	 * submits and posts both. Copying sends have no notifications: a
	 * plain submit posts their CQEs, and liburing adds GETEVENTS itself
	 * when IORING_SQ_TASKRUN says work is pending. (A COOP_TASKRUN ring
	 * runs notifications as any enter returns, as the example's does:
	 * with a plain submit for all modes it read 0.07 % / 0.13 % slower
	 * for SEND_ZC / fixed buffer under icount.) Wait (bounded) only when
	 * the enter brought nothing.
	 */
	ret = s->zc ? io_uring_submit_and_get_events(&s->ring) :
		      io_uring_submit(&s->ring);
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

int zc_sender_uring_wait_idle(struct zc_sender *s, double timeout)
{
	struct zc_bound b;
	int ret;

	reap(s);
	zc_bound_start(&b, timeout, s->st.completed + s->st.notifs);
	while (!zc_slot_all_free(s)) {
		double left;

		if (zc_bound_over(&b, s->st.completed + s->st.notifs))
			return -ETIMEDOUT;
		left = zc_bound_left(&b);
		ret = submit_wait(s, 1, left < STEP_TIMEOUT ? left : STEP_TIMEOUT);
		if (ret < 0 && ret != -ETIMEDOUT)
			return ret;
		reap(s);
	}
	return 0;
}

long zc_sender_uring_send(struct zc_sender *s, uint64_t n, double timeout)
{
	uint64_t c0 = s->st.completed, target = s->st.submitted + n;
	struct zc_bound b;
	int ret;

	zc_bound_start(&b, timeout, c0);
	while (s->st.completed - c0 < n) {
		if (zc_bound_over(&b, s->st.completed))
			return -ETIMEDOUT;
		prep_free(s, target - s->st.submitted);
		ret = submit_wait(s, 1, STEP_TIMEOUT);
		if (ret < 0 && ret != -ETIMEDOUT)
			return ret;
		reap(s);
		if (s->st.violations)
			return -EPROTO;
	}
	return s->st.completed - c0;
}

int zc_sender_uring_flush(struct zc_sender *s, double timeout, double grace)
{
	double end;
	int ret;

	ret = zc_sender_uring_wait_idle(s, timeout);
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

int zc_sender_uring_setup(struct zc_sender *s)
{
	static const struct {
		unsigned int flags;
		const char *desc;
	} ladder[] = {
		{ IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
		  IORING_SETUP_TASKRUN_FLAG,
		  "single_issuer,defer_taskrun,taskrun_flag" },
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
	s->zc = zc_slot_uring_zc(s);
	if (io_uring_register_files(&s->ring, &s->cfg.fd, 1) == 0)
		s->fixed_file = true;
	io_uring_register_ring_fd(&s->ring);
	if (s->cfg.mode == ZC_MODE_SEND_ZC_FIXED) {
		unsigned int nbufs = s->stride ? s->cfg.depth : 1;
		struct iovec *iov = calloc(nbufs, sizeof(*iov));

		if (!iov)
			return -ENOMEM;
		for (i = 0; i < nbufs; i++)
			iov[i] = (struct iovec){ zc_slot_buf(s, i), s->cfg.size };
		ret = io_uring_register_buffers(&s->ring, iov, nbufs);
		free(iov);
		if (ret)
			return ret;
	}
	for (i = 0; i < s->cfg.depth; i++)
		prep_one(s, &s->slots[i].sqe, i);
	return 0;
}
