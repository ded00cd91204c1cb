/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The syscall modes of a zero-copy sender: send(2) and MSG_ZEROCOPY, one
 * syscall per send, MSG_ZEROCOPY's completions drained from the error
 * queue. zcsend calls these; they call only zcslot.
 */
#ifndef ZC_ZCSEND_SYS_H
#define ZC_ZCSEND_SYS_H

#include <stdint.h>

struct zc_sender;

/* SO_ZEROCOPY for MSG_ZEROCOPY. 0 or -errno. */
int zc_sender_sys_setup(struct zc_sender *s);
/* zc_sender_step() of the syscall modes. */
int zc_sender_sys_step(struct zc_sender *s, uint64_t *bytes, uint64_t *pkts);
/* n sends completed (failed ones included), or -errno (zc_bound: timeout s). */
long zc_sender_sys_send(struct zc_sender *s, uint64_t n, double timeout);
/*
 * MSG_ZEROCOPY: drain completions until at most `left` ids are
 * outstanding. 0, -ETIMEDOUT or -errno.
 */
int zc_sender_sys_wait(struct zc_sender *s, uint64_t left, double timeout);

#endif
