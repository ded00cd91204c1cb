/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sockets in the test namespaces: addresses, a socket connected or bound
 * in a namespace, and a receiver thread that checks what arrives.
 */
#ifndef ZC_SOCK_H
#define ZC_SOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/clock.h"

struct zc_side;

int zc_connect_to(int fd, int family, const void *addr, int port);
/* The side's address of that family. */
const void *zc_side_addr(const struct zc_side *s, int family);
/* Socket in nsfd connected to addr:port; fd or -errno. */
int zc_socket_to(int nsfd, int family, int type, const void *addr, int port);
/*
 * Socket in nsfd bound to addr:port (SO_REUSEADDR), listening when it is
 * a stream; rcvbuf > 0 asks for that receive buffer (SO_RCVBUFFORCE, then
 * SO_RCVBUF). fd or -errno. type may carry SOCK_NONBLOCK.
 */
int zc_socket_bound(int nsfd, int family, int type, const void *addr,
		    int port, int rcvbuf);

/*
 * What the senders of zc_rx send: a datagram carries its number first,
 * then the pattern (zc_pattern_fill with seed) at seq * len + 8; a stream
 * is one pattern by offset.
 */
void zc_payload_fill(void *buf, size_t len, uint64_t seq, uint64_t seed,
		     bool stream);

/* A receiver thread, bounded in time, checking every datagram or byte. */
struct zc_rx {
	/* what to expect, set before zc_rx_start() */
	int family, type;
	size_t size;		/* datagram size */
	uint64_t nseq;		/* datagrams expected */
	bool verify;		/* check the pattern too */
	uint64_t seed;
	int cpu;		/* -1: not pinned */
	double timeout;		/* without a byte (zc_bound) */
	/* running */
	int fd;			/* bound datagram socket or listener */
	unsigned int window;	/* datagrams its receive buffer holds */
	atomic_uint_fast64_t dgrams;	/* datagrams or reads so far */
	atomic_int stop;
	pthread_t th;
	bool running;
	struct zc_bound bound;	/* the thread's waits: timeout without progress */
	/* results, read after zc_rx_join() */
	uint64_t bytes, bad, dups, out_of_range, missing;
	long long first_bad;	/* stream or datagram offset, -1 none */
	int err;
	unsigned char *seen;
};

/* Bind in nsfd at addr:port and start the thread. 0 or -errno. */
int zc_rx_start(struct zc_rx *r, int nsfd, const void *addr, int port);
/* Wait for it (datagrams: all nseq or the timeout; stream: EOF). */
void zc_rx_join(struct zc_rx *r, double timeout);

#endif
