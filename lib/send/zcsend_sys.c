// SPDX-License-Identifier: GPL-2.0
/*
 * The syscall modes of the zero-copy senders (see zcsend_sys.h): send(2)
 * and send(2) with MSG_ZEROCOPY, its completions read from the error
 * queue.
 */
#include <errno.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/errqueue.h>

#include "core/clock.h"
#include "core/util.h"
#include "send/zcsend_sys.h"
#include "send/zcslot.h"

int zc_sender_sys_setup(struct zc_sender *s)
{
	int one = 1;

	if (s->cfg.mode == ZC_MODE_MSG_ZEROCOPY &&
	    setsockopt(s->cfg.fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))
		return -errno;
	return 0;
}

/*
 * send(2) and recvmsg(2) of the rate loop, past libc's wrappers: they are
 * cancellation points, and once the process has a second thread (core/
 * clock's pause watch) glibc 2.36 wraps each call in the asynchronous
 * cancellation switch: 49 more instructions a send, 41 a recvmsg
 * (callgrind), 0.41 % of a MSG_ZEROCOPY send under icount (doc/noise.md).
 * No thread of the suite is ever cancelled.
 */
static ssize_t sys_send(int fd, const void *buf, size_t len, int flags)
{
	return syscall(SYS_sendto, fd, buf, len, flags, NULL, 0);
}

static ssize_t sys_recvmsg(int fd, struct msghdr *msg, int flags)
{
	return syscall(SYS_recvmsg, fd, msg, flags);
}

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

		if (sys_recvmsg(s->cfg.fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
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

int zc_sender_sys_wait(struct zc_sender *s, uint64_t left, double timeout)
{
	struct zc_bound b;
	int ret;

	zc_bound_start(&b, timeout, s->st.notifs);
	for (;;) {
		ret = errq_read(s);
		if (ret < 0)
			return ret;
		if (s->zc_sent - s->st.notifs <= left)
			return 0;
		if (zc_bound_over(&b, s->st.notifs))
			return -ETIMEDOUT;
		/* The error queue raises POLLERR whatever we ask for. */
		ret = zc_poll_one(s->cfg.fd, 0, zc_bound_left(&b));
		if (ret < 0)
			return ret;
	}
}

/*
 * One send(2) from the next slot. Returns 0 when it was issued (a failed
 * send is counted in the stats and left in last_req_res), or -errno of
 * the error queue.
 */
static int sys_send_one(struct zc_sender *s)
{
	unsigned int i = s->next_slot;
	int zc = s->cfg.mode == ZC_MODE_MSG_ZEROCOPY ? MSG_ZEROCOPY : 0;
	double deadline = 0;
	ssize_t n;
	int ret;

	for (;;) {
		n = sys_send(s->cfg.fd, zc_slot_buf(s, i), s->cfg.size,
			     s->msg_flags | zc);
		if (n >= 0 || errno != ENOBUFS || !zc)
			break;
		/* The clock only once a send is refused: not per send. */
		if (!deadline)
			deadline = zc_now() + STEP_TIMEOUT;
		else if (zc_now() >= deadline)
			break;
		/* optmem_max bounds MSG_ZEROCOPY in flight: get some back. */
		ret = zc_sender_sys_wait(s, (s->zc_sent - s->st.notifs) / 2,
					deadline - zc_now());
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

int zc_sender_sys_step(struct zc_sender *s, uint64_t *bytes, uint64_t *pkts)
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
	if (s->zc_sent - s->st.notifs >= s->cfg.depth)
		return zc_sender_sys_wait(s, s->cfg.depth / 2, STEP_TIMEOUT);
	return 0;
}

long zc_sender_sys_send(struct zc_sender *s, uint64_t n, double timeout)
{
	uint64_t c0 = s->st.completed;
	struct zc_bound b;
	int ret;

	zc_bound_start(&b, timeout, c0);
	while (s->st.completed - c0 < n) {
		if (zc_bound_over(&b, s->st.completed))
			return -ETIMEDOUT;
		ret = sys_send_one(s);
		if (ret < 0)
			return ret;
	}
	return s->st.completed - c0;
}
