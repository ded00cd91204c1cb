/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel log watch: every case's window of /dev/kmsg is read after the
 * case (and after a settle that lets deferred work such as psock
 * destruction run); a WARNING, BUG, Oops, KASAN/UBSAN/KFENCE report,
 * lockdep splat or hung task in it is a verdict, not noise.
 *
 * The parser (splat.h) is separate from the device so that make check
 * can feed it recorded records (check/fixtures/kmsg/): nothing here ever
 * writes to /dev/kmsg.
 */
#ifndef ZC_KMSG_H
#define ZC_KMSG_H

#include <stdbool.h>

#include "core/splat.h"

/*
 * The watch. zc_kmsg_start() opens /dev/kmsg at its end (or, with
 * zc_kmsg_use_fd(), reads the given fd: a pipe in the unit tests) and
 * registers this run so that concurrent runs can tell they share the
 * host. Unreadable: prints "kmsg: not readable (...)" once; every later
 * call is a no-op.
 */
int zc_kmsg_use_fd(int fd);
bool zc_kmsg_start(void);
/*
 * Settle (let RCU callbacks and the work they queue run), then read the
 * records since the last call. Returns the number of splats (at most
 * max kept in out); *shared is set when another run of the suite was
 * active during the window, so a splat of no task cannot be placed.
 */
int zc_kmsg_collect(struct zc_splat *out, int max, bool *shared);
/* RCU grace periods each settle waits (<= 0: one). */
void zc_kmsg_settle_gp(int n);
/* zc_splat_owner() for this process. */
enum zc_splat_owner zc_kmsg_owner(const struct zc_splat *s);
void zc_kmsg_stop(void);
/* Last sequence number read, for the runner's own after-exit look. */
unsigned long long zc_kmsg_last_seq(void);

#endif
