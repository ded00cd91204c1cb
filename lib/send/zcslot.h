/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside a zero-copy sender (zcsend.h): its state, its slots and their
 * buffers. zcsend_sys (send(2), MSG_ZEROCOPY), zcsend_uring (the io_uring
 * slot machine) and zcsend (the entry points) keep a sender's state here;
 * this module calls none of them. Not for tests: they see only zcsend.h.
 */
#ifndef ZC_ZCSLOT_H
#define ZC_ZCSLOT_H

#include <sys/socket.h>
#include <liburing.h>

#include "core/compat.h"
#include "send/zcmode.h"

#define SLOT_BITS	8	/* user_data = seq << SLOT_BITS | slot */
#define SLOT_MASK	((1U << SLOT_BITS) - 1)
#define STEP_TIMEOUT	1.0	/* a step that sees nothing complete fails */

_Static_assert(ZC_SEND_MAX_DEPTH <= (1 << SLOT_BITS), "slot index must fit");

enum slot_state { SLOT_FREE, SLOT_WAIT_CQE, SLOT_WAIT_NOTIF };

struct zc_slot {
	uint64_t seq;
	unsigned char state;
	bool early_notif;	/* notification seen before the request CQE */
	struct msghdr msg;
	struct iovec iov;
	struct io_uring_sqe sqe;	/* this slot's request but its user_data */
};

struct zc_sender {
	struct zc_sender_cfg cfg;
	struct zc_send_stats st;
	struct io_uring ring;
	bool have_ring;
	bool zc;		/* io_uring zero-copy: request CQEs carry F_MORE */
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
	int last_req_res;	/* for verdicts */
	int last_notif_res;
	/* MSG_ZEROCOPY: ids handed out and completed */
	uint64_t zc_sent;
	unsigned int next_slot;
};

/* io_uring SEND_ZC, SENDMSG_ZC or SEND_ZC on a registered buffer. */
static inline bool zc_slot_uring_zc(const struct zc_sender *s)
{
	return zc_send_mode_uring(s->cfg.mode) && s->cfg.mode != ZC_MODE_URING_SEND;
}

/* Slot i's buffer (i < depth). */
static inline void *zc_slot_buf(const struct zc_sender *s, unsigned int i)
{
	return s->area + (size_t)i * s->stride;
}

/* Put slot i back on the free stack. */
static inline void zc_slot_free(struct zc_sender *s, unsigned int i)
{
	s->slots[i].state = SLOT_FREE;
	s->slots[i].early_notif = false;
	s->free_stack[s->nfree++] = i;
}

/* Every slot is back: the kernel holds none of the sender's buffers. */
static inline bool zc_slot_all_free(const struct zc_sender *s)
{
	return s->nfree == s->cfg.depth;
}

/*
 * The slots and their buffers (s->cfg set): one page-aligned area, a
 * pattern in each buffer, every slot free. 0 or -errno; zc_slot_release()
 * either way.
 */
int zc_slot_alloc(struct zc_sender *s);
void zc_slot_release(struct zc_sender *s);

#endif
