/* SPDX-License-Identifier: GPL-2.0 */
/* Small shared helpers: cleanup on every exit path, errors, patterns. */
#ifndef ZC_UTIL_H
#define ZC_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Cleanups run once, last registered first, at exit() and on
 * SIGINT/SIGTERM/SIGHUP/SIGQUIT (then the process dies of that signal).
 * Use them only for what does not die with the process by itself.
 * Returns a handle for zc_cleanup_cancel(), or -1.
 */
int zc_cleanup_push(void (*fn)(void *arg), void *arg);
void zc_cleanup_cancel(int handle);

/* Fill a buffer with a pattern derived from (seed, offset); check it back. */
void zc_pattern_fill(void *buf, size_t len, uint64_t seed, uint64_t off);
/* Returns the index of the first bad byte, or -1 if all match. */
long zc_pattern_check(const void *buf, size_t len, uint64_t seed, uint64_t off);

/* Write all / read all with a deadline (seconds). Return bytes or -errno. */
long zc_write_all(int fd, const void *buf, size_t len, double timeout);
/* Wait for events on fd up to timeout seconds: revents, 0 on timeout, -errno. */
int zc_poll_one(int fd, short events, double timeout);

/*
 * Raise the open-files limit and memlock where we are allowed; returns
 * the open-files limit now in force (-1 if unknown). Below
 * ZC_NOFILE_MIN a test cannot hold its sockets: its cases skip naming
 * the limit, which is the caller's shell (ulimit -n), not the kernel.
 */
#define ZC_NOFILE_MIN	256
long zc_raise_limits(void);

/*
 * A duplicate of process pid's file descriptor fd here (pidfd_open and
 * pidfd_getfd, Linux 5.6; ptrace rights over pid): the new fd, or -errno.
 */
int zc_pidfd_getfd(int pid, int fd);

#endif
