// SPDX-License-Identifier: GPL-2.0
/*
 * Zero-copy senders (see zcsend.h): the entry points. Each dispatches to
 * the syscall modes (zcsend_sys.c) or the io_uring slot machine
 * (zcsend_uring.c); both keep their state in zcslot.h and call nothing
 * here.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "core/clock.h"
#include "send/zcsend.h"
#include "send/zcsend_sys.h"
#include "send/zcsend_uring.h"
#include "send/zcslot.h"

#define CLOSE_TIMEOUT	2.0

const struct zc_send_stats *zc_sender_stats(const struct zc_sender *s)
{
	return &s->st;
}

const char *zc_sender_ring_desc(const struct zc_sender *s)
{
	return s->ring_desc;
}

int zc_sender_step(void *arg, uint64_t *bytes, uint64_t *pkts)
{
	struct zc_sender *s = arg;

	if (s->have_ring)
		return zc_sender_uring_step(s, bytes, pkts);
	return zc_sender_sys_step(s, bytes, pkts);
}

/*
 * Issue exactly n sends with depth in flight, bounded by timeout seconds.
 * Returns the number of sends completed (failed ones included), or
 * -ETIMEDOUT/-EPROTO/-errno of the ring. Does not wait for notifications.
 */
static long sender_send(struct zc_sender *s, uint64_t n, double timeout)
{
	if (s->have_ring)
		return zc_sender_uring_send(s, n, timeout);
	return zc_sender_sys_send(s, n, timeout);
}

int zc_sender_flush(struct zc_sender *s, double timeout, double grace)
{
	if (s->cfg.mode == ZC_MODE_MSG_ZEROCOPY)
		return zc_sender_sys_wait(s, 0, timeout);
	if (!s->have_ring)
		return 0;
	return zc_sender_uring_flush(s, timeout, grace);
}

int zc_sender_verdict(struct zc_sender *s, double timeout)
{
	uint64_t copied0, zc0, v0 = s->st.violations;
	long n;
	int ret;

	if (zc_slot_uring_zc(s) && !s->cfg.report_usage)
		return -EOPNOTSUPP;
	ret = zc_sender_flush(s, timeout, 0);
	if (ret)
		return ret;
	copied0 = s->st.copied;
	zc0 = s->st.zerocopy;
	n = sender_send(s, 1, timeout);
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

/* msg_flags and stream ordering from the socket's type. */
static int sock_setup(struct zc_sender *s)
{
	int type = 0;
	socklen_t len = sizeof(type);

	if (getsockopt(s->cfg.fd, SOL_SOCKET, SO_TYPE, &type, &len))
		return -errno;
	s->msg_flags = s->cfg.msg_flags | MSG_NOSIGNAL;
	/* Stream sends complete whole, as send(2) on a blocking socket does. */
	if (type == SOCK_STREAM)
		s->msg_flags |= MSG_WAITALL;
	s->stream = type == SOCK_STREAM;
	return 0;
}

struct zc_sender *zc_sender_open(const struct zc_sender_cfg *cfg, int *err)
{
	struct zc_sender *s;
	int ret;

	if ((unsigned int)cfg->mode >= ZC_MODE_COUNT || !cfg->size ||
	    cfg->depth > ZC_SEND_MAX_DEPTH || cfg->fd < 0) {
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
	ret = zc_slot_alloc(s);
	if (!ret)
		ret = sock_setup(s);
	if (!ret)
		ret = zc_send_mode_uring(cfg->mode) ? zc_sender_uring_setup(s) :
						      zc_sender_sys_setup(s);
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
		zc_sender_uring_wait_idle(s, CLOSE_TIMEOUT);
		io_uring_queue_exit(&s->ring);
	} else if (s->cfg.mode == ZC_MODE_MSG_ZEROCOPY && s->area) {
		zc_sender_sys_wait(s, 0, CLOSE_TIMEOUT);
	}
	zc_slot_release(s);
	free(s);
}
