/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Zero-copy senders: send(2), IORING_OP_SEND, MSG_ZEROCOPY, and
 * IORING_OP_SEND_ZC / SENDMSG_ZC (optionally on registered buffers), behind
 * one small interface: a step function for lib/core/meter.h rates, a bounded
 * "send N" loop, and a per-send copy verdict.
 *
 * A sender owns `depth` buffers (slots). A slot's buffer is handed to the
 * kernel again only after the kernel gave it back: for SEND_ZC after the
 * request CQE and, when that CQE had IORING_CQE_F_MORE, after the
 * IORING_CQE_F_NOTIF with the same user_data. Completions are matched by
 * user_data, never by order. The io_uring contract is checked on every
 * completion and breaches are counted (zc_send_stats.violations).
 *
 * A sender is used by one thread: the one that opened it (the ring may be
 * IORING_SETUP_SINGLE_ISSUER). The socket belongs to the caller.
 */
#ifndef ZC_ZCSEND_H
#define ZC_ZCSEND_H

#include <stdint.h>

#include "send/zcmode.h"

struct zc_sender;

/*
 * Set up ring, buffers, SO_ZEROCOPY as the mode needs. Returns the sender,
 * or NULL with -errno in *err.
 */
struct zc_sender *zc_sender_open(const struct zc_sender_cfg *cfg, int *err);
/* Waits (at most 2 s) for buffers still in the kernel, then frees all. */
void zc_sender_close(struct zc_sender *s);

const struct zc_send_stats *zc_sender_stats(const struct zc_sender *s);
/* How the ring was set up, for "# config:" lines ("defer_taskrun", ...). */
const char *zc_sender_ring_desc(const struct zc_sender *s);

/*
 * zc_step_fn for zc_measure(): keeps `depth` sends in flight with one
 * syscall per step, adds completed bytes/sends. Negative errno on a failed
 * send, -ETIMEDOUT if nothing completes within a second, -EPROTO on a
 * contract breach.
 */
int zc_sender_step(void *sender, uint64_t *bytes, uint64_t *pkts);

/*
 * Wait until the kernel gave every buffer back (timeout seconds), then keep
 * reaping for `grace` seconds so completions nobody expects get counted as
 * violations. 0, or -ETIMEDOUT when something is still outstanding.
 */
int zc_sender_flush(struct zc_sender *s, double timeout, double grace);

/*
 * One send of size bytes from slot 0, waited for with its notification:
 * ZC_VERDICT_ZEROCOPY, ZC_VERDICT_COPIED, the send's -errno, -ETIMEDOUT,
 * -EPROTO on a contract breach, or -EOPNOTSUPP when the mode cannot tell
 * (SEND_ZC without report_usage). Plain modes always copy.
 */
int zc_sender_verdict(struct zc_sender *s, double timeout);

#endif
