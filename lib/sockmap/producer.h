/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pattern a sockmap stream carries (both ends agree on it) and the
 * producer thread that writes it into a socket, bounded in time and
 * bytes; the consumer is tests/sockmap_splice.c's.
 */
#ifndef ZC_SM_PRODUCER_H
#define ZC_SM_PRODUCER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/why.h"

/* Prime, so a lost or repeated chunk shifts the pattern and shows. */
#define ZC_SM_PERIOD		1048573UL

/* The pattern both ends agree on, and the consumer's buffers. */
struct zc_sm_pattern {
	unsigned char *ring;	/* ZC_SM_PERIOD + chunk bytes */
	unsigned char *rxbuf;	/* chunk bytes */
	int devnull;		/* unverified spliced bytes go here, no copy */
	size_t chunk;		/* bytes per write and per receive call */
	int cpu_tx;		/* the producer thread's CPU, -1: any */
};

int zc_sm_pattern_init(struct zc_sm_pattern *p, size_t chunk, int cpu_tx,
		       struct zc_why *why);
void zc_sm_pattern_free(struct zc_sm_pattern *p);

/* Writes the pattern into fd from a thread, bounded in time and bytes. */
struct zc_sm_producer {
	pthread_t tid;
	bool running;
	int fd, cpu;
	const unsigned char *ring;
	size_t chunk;
	uint64_t limit, sent;
	double deadline;
	int stop, err;
	/* zc_sm_producer_pause: the thread waits on cond while paused */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool paused;
};

/*
 * Writes pat->chunk bytes at a time from a thread pinned to pat->cpu_tx,
 * limit bytes in all, for at most secs; 0 or -errno.
 */
int zc_sm_producer_start(struct zc_sm_producer *p,
			 const struct zc_sm_pattern *pat, int fd,
			 uint64_t limit, double secs);
uint64_t zc_sm_producer_sent(struct zc_sm_producer *p);
/* Bounded: the thread looks at stop at least every 50 ms. */
void zc_sm_producer_stop(struct zc_sm_producer *p);
/*
 * Hold the thread after its current write (on) or let it go on (off).
 * Two streams measured in alternation need it: a sockmap ingress
 * redirect does not hold a producer back, so the stream not being
 * measured would write on, share the CPU with the one that is, and pile
 * up bytes its next window drains at the consumer's speed alone.
 */
void zc_sm_producer_pause(struct zc_sm_producer *p, bool on);

#endif
