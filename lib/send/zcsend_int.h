/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the zero-copy senders: the state zcsend.c (modes, syscall
 * senders, setup) and zcsend_uring.c (the io_uring slot machine) share.
 * Not for tests: they see only zcsend.h.
 */
#ifndef ZC_ZCSEND_INT_H
#define ZC_ZCSEND_INT_H

#include <sys/socket.h>
#include <liburing.h>

#include "core/compat.h"
#include "send/zcsend.h"

#define SLOT_BITS	8	/* user_data = seq << SLOT_BITS | slot */
#define STEP_TIMEOUT	1.0	/* a step that sees nothing complete fails */

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

static inline bool uring_zc(const struct zc_sender *s)
{
	return zc_send_mode_uring(s->cfg.mode) && s->cfg.mode != ZC_MODE_URING_SEND;
}

/* Put slot i back on the free stack. */
void zc_sender_slot_free(struct zc_sender *s, unsigned int i);

/* io_uring modes (zcsend_uring.c). */
int zc_sender_uring_setup(struct zc_sender *s);
int zc_sender_uring_step(struct zc_sender *s, uint64_t *bytes, uint64_t *pkts);
/* n sends completed, failed ones included, or -errno. */
long zc_sender_uring_send(struct zc_sender *s, uint64_t n, double deadline);
/* Every slot back, then reap for grace seconds. */
int zc_sender_uring_flush(struct zc_sender *s, double timeout, double grace);
/* Reap until every slot is back or the deadline passes. */
int zc_sender_uring_wait_idle(struct zc_sender *s, double deadline);

#endif
