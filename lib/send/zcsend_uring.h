/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The io_uring modes of a zero-copy sender (IORING_OP_SEND, SEND_ZC,
 * SENDMSG_ZC, SEND_ZC on a registered buffer): the ring, its slot machine
 * and the contract check of every completion. zcsend calls these; they
 * call only zcslot.
 */
#ifndef ZC_ZCSEND_URING_H
#define ZC_ZCSEND_URING_H

#include <stdint.h>

struct zc_sender;

/* The ring, its registered file, ring fd and buffers. 0 or -errno. */
int zc_sender_uring_setup(struct zc_sender *s);
/* zc_sender_step() of the io_uring modes. */
int zc_sender_uring_step(struct zc_sender *s, uint64_t *bytes, uint64_t *pkts);
/* n sends completed, failed ones included, or -errno. */
long zc_sender_uring_send(struct zc_sender *s, uint64_t n, double timeout);
/* Every slot back, then reap for grace seconds. */
int zc_sender_uring_flush(struct zc_sender *s, double timeout, double grace);
/* Reap until every slot is back, or timeout s pass without one (zc_bound). */
int zc_sender_uring_wait_idle(struct zc_sender *s, double timeout);

#endif
