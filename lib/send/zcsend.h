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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum zc_send_mode {
	ZC_MODE_SEND,		/* send(2), one syscall per send */
	ZC_MODE_URING_SEND,	/* IORING_OP_SEND, depth in flight */
	ZC_MODE_MSG_ZEROCOPY,	/* send(2) with MSG_ZEROCOPY + error queue */
	ZC_MODE_SEND_ZC,	/* IORING_OP_SEND_ZC */
	ZC_MODE_SENDMSG_ZC,	/* IORING_OP_SENDMSG_ZC */
	ZC_MODE_SEND_ZC_FIXED,	/* IORING_OP_SEND_ZC on a registered buffer */
	ZC_MODE_COUNT
};

#define ZC_SEND_MAX_DEPTH	256

/* Called before a slot's buffer is (re)submitted; nonzero stops sending. */
typedef int (*zc_fill_fn)(void *ctx, void *buf, size_t len, uint64_t seq);

struct zc_event {
	unsigned int slot;
	uint64_t seq;		/* request number, 0-based, per sender */
	int res;
	unsigned int flags;	/* cqe->flags */
	bool notif;		/* IORING_CQE_F_NOTIF / MSG_ZEROCOPY completion */
};

/* Sees every completion (io_uring modes), for tests that keep their own books. */
typedef void (*zc_event_fn)(void *ctx, const struct zc_event *ev);

struct zc_sender_cfg {
	enum zc_send_mode mode;
	int fd;			/* connected socket, owned by the caller */
	size_t size;		/* bytes per send (> 0) */
	unsigned int depth;	/* slots in flight, 1..ZC_SEND_MAX_DEPTH (0: 1) */
	bool report_usage;	/* SEND_ZC*: IORING_SEND_ZC_REPORT_USAGE */
	/*
	 * MSG_ZEROCOPY: wait for each send's completion before the next, so
	 * every verdict is exact (completions coalesce otherwise).
	 */
	bool exact;
	/* Extra msg_flags; MSG_WAITALL is added for stream sockets. */
	int msg_flags;
	/*
	 * io_uring on a stream socket: requests go as linked chains, so the
	 * bytes keep submission order. unlinked lets them run concurrently
	 * (their bytes may interleave; contract tests only).
	 */
	bool unlinked;
	/* SEND_ZC_FIXED: send with buf_index instead of the slot's (error tests). */
	bool force_index;
	unsigned int buf_index;
	/*
	 * Every slot sends the same buffer (one registered buffer for
	 * SEND_ZC_FIXED), as liburing's send-zerocopy example does: for rates,
	 * where nothing rewrites the data (fill NULL) and one 64 KiB source
	 * stays in cache for the copying modes. Slots still gate requests.
	 */
	bool one_buffer;
	zc_fill_fn fill;	/* NULL: slots keep a fixed pattern */
	zc_event_fn on_event;
	void *ctx;
};

struct zc_send_stats {
	uint64_t submitted;	/* sends issued (syscalls or SQEs) */
	uint64_t completed;	/* sends completed (request CQEs, syscall returns) */
	uint64_t bytes;		/* bytes the kernel reported sent */
	uint64_t failed;	/* completions with res < 0 */
	int first_err;		/* first negative res, 0 if none */
	uint64_t more;		/* request CQEs with IORING_CQE_F_MORE */
	uint64_t notifs;	/* notifications (F_NOTIF CQEs, MSG_ZEROCOPY ids) */
	uint64_t zerocopy;	/* notifications saying zero-copy (needs report_usage) */
	uint64_t copied;	/* notifications saying the kernel copied */
	uint64_t violations;	/* io_uring contract breaches seen */
	char violation[160];	/* the first breach, described */
};

/* Copy verdict of one send (zc_sender_verdict). */
#define ZC_VERDICT_ZEROCOPY	0
#define ZC_VERDICT_COPIED	1

struct zc_sender;

const char *zc_send_mode_name(enum zc_send_mode m);
bool zc_send_mode_uring(enum zc_send_mode m);
bool zc_send_mode_zerocopy(enum zc_send_mode m);

/*
 * Set up ring, buffers, SO_ZEROCOPY as the mode needs. Returns the sender,
 * or NULL with -errno in *err.
 */
struct zc_sender *zc_sender_open(const struct zc_sender_cfg *cfg, int *err);
/* Waits (at most 2 s) for buffers still in the kernel, then frees all. */
void zc_sender_close(struct zc_sender *s);

/* A slot's buffer (size bytes), e.g. to write a pattern before sending. */
void *zc_sender_buf(struct zc_sender *s, unsigned int slot);
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
 * Issue exactly n sends with depth in flight, bounded by timeout seconds.
 * Returns the number of sends completed (failed ones included), or
 * -ETIMEDOUT/-EPROTO/-errno of the ring. Does not wait for notifications.
 */
long zc_sender_send(struct zc_sender *s, uint64_t n, double timeout);

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
