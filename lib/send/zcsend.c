// SPDX-License-Identifier: GPL-2.0
/*
 * Zero-copy senders (see zcsend.h): modes, slot buffers, the syscall
 * modes (send(2), MSG_ZEROCOPY with its error queue), the entry points
 * and setup. The io_uring slot machine is in zcsend_uring.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/errqueue.h>
#include <liburing.h>

#include "core/clock.h"
#include "core/util.h"
#include "send/zcsend_int.h"

#define CLOSE_TIMEOUT	2.0
#define PATTERN_SEED	0x7a6373656e64ULL

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

void zc_sender_slot_free(struct zc_sender *s, unsigned int i)
{
	s->slots[i].state = SLOT_FREE;
	s->slots[i].early_notif = false;
	s->free_stack[s->nfree++] = i;
}

const char *zc_sender_ring_desc(const struct zc_sender *s)
{
	return s->ring_desc;
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
		return zc_sender_uring_step(s, bytes, pkts);
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

	if (zc_send_mode_uring(s->cfg.mode))
		return zc_sender_uring_send(s, n, deadline);
	return sys_send_n(s, n, deadline);
}

int zc_sender_flush(struct zc_sender *s, double timeout, double grace)
{
	if (s->cfg.mode == ZC_MODE_MSG_ZEROCOPY)
		return errq_wait(s, 0, timeout);
	if (!zc_send_mode_uring(s->cfg.mode))
		return 0;
	return zc_sender_uring_flush(s, timeout, grace);
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
		zc_sender_slot_free(s, i);
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
		ret = zc_sender_uring_setup(s);
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
		zc_sender_uring_wait_idle(s, zc_now() + CLOSE_TIMEOUT);
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
