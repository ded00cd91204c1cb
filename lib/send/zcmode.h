/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a zero-copy sender (zcsend.h) is: its modes, its configuration, the
 * completions it reports and the counts it keeps. The bottom of the
 * sender's files: zcslot, zcsend_sys, zcsend_uring and zcsend all use it,
 * it uses none of them.
 */
#ifndef ZC_ZCMODE_H
#define ZC_ZCMODE_H

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
	/* Extra msg_flags; MSG_WAITALL is added for stream sockets. */
	int msg_flags;
	/*
	 * Every slot sends the same buffer (one registered buffer for
	 * SEND_ZC_FIXED), as liburing's send-zerocopy example does: for rates,
	 * where nothing rewrites the data and one 64 KiB source
	 * stays in cache for the copying modes. Slots still gate requests.
	 */
	bool one_buffer;
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

const char *zc_send_mode_name(enum zc_send_mode m);
bool zc_send_mode_uring(enum zc_send_mode m);
bool zc_send_mode_zerocopy(enum zc_send_mode m);

#endif
