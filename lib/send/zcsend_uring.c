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

static void handle_cqe(struct zc_sender *s, const struct io_uring_cqe *cqe)
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
 * F_MORE. Anything else (and everything when a listener wants events)
 * goes to handle_cqe, which names the breach. Rates reap here: the full
 * path cost ~0.8 % of SEND_ZC's instructions per byte under icount.
 */
static inline bool fast_cqe(struct zc_sender *s, const struct io_uring_cqe *cqe)
{
	unsigned int i = cqe->user_data & SLOT_MASK, flags = cqe->flags;
	struct zc_slot *sl = &s->slots[i];

	if (i >= s->cfg.depth || sl->seq != cqe->user_data >> SLOT_BITS)
		return false;
	if (flags & IORING_CQE_F_NOTIF) {
		if (sl->state != SLOT_WAIT_NOTIF || (flags & IORING_CQE_F_MORE))
			return false;
		s->st.notifs++;
		s->last_notif_res = cqe->res;
		if (s->cfg.report_usage)
			count_usage(s, cqe->res);
		zc_slot_free(s, i);
		return true;
	}
	if (sl->state != SLOT_WAIT_CQE || sl->early_notif || cqe->res < 0 ||
	    !(flags & IORING_CQE_F_MORE) != !s->zc)
		return false;
	s->st.completed++;
	s->pending--;
	s->last_req_res = cqe->res;
	s->st.bytes += cqe->res;
	if (s->zc) {
		s->st.more++;
		sl->state = SLOT_WAIT_NOTIF;
	} else {
		zc_slot_free(s, i);
	}
	return true;
}

static unsigned int reap(struct zc_sender *s)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;

	io_uring_for_each_cqe(&s->ring, head, cqe) {
		if (s->cfg.on_event || !fast_cqe(s, cqe))
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

		if (s->cfg.fill && s->cfg.fill(s->cfg.ctx, zc_slot_buf(s, i),
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

int zc_sender_uring_step(struct zc_sender *s, uint64_t *bytes, uint64_t *pkts)
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

int zc_sender_uring_wait_idle(struct zc_sender *s, double deadline)
{
	int ret;

	reap(s);
	while (!zc_slot_all_free(s)) {
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

long zc_sender_uring_send(struct zc_sender *s, uint64_t n, double deadline)
{
	uint64_t c0 = s->st.completed, target = s->st.submitted + n;
	int ret;

	while (s->st.completed - c0 < n) {
		if (zc_now() >= deadline)
			return -ETIMEDOUT;
		prep_free(s, target - s->st.submitted);
		if (s->stopped && zc_slot_all_free(s))
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

int zc_sender_uring_flush(struct zc_sender *s, double timeout, double grace)
{
	double end;
	int ret;

	ret = zc_sender_uring_wait_idle(s, zc_now() + timeout);
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
	return 0;
}
