// SPDX-License-Identifier: GPL-2.0
/* The pattern of a sockmap stream and its producer thread (producer.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/meter.h"
#include "core/util.h"
#include "sockmap/producer.h"

#define SEED		0x5a11ce

int zc_sm_pattern_init(struct zc_sm_pattern *p, size_t chunk, int cpu_tx,
		       struct zc_why *why)
{
	size_t i;

	p->chunk = chunk;
	p->cpu_tx = cpu_tx;
	p->ring = malloc(ZC_SM_PERIOD + chunk);
	p->rxbuf = malloc(chunk);
	p->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (!p->ring || !p->rxbuf || p->devnull < 0)
		return zc_why_set(why, "out of memory or no /dev/null");
	/*
	 * The ring repeats its head past the period so any chunk is
	 * contiguous. Byte by byte: a chunk (--size up to 1 MiB) may be
	 * longer than the period, and memcpy of overlapping areas is
	 * undefined.
	 */
	zc_pattern_fill(p->ring, ZC_SM_PERIOD, SEED, 0);
	for (i = 0; i < chunk; i++)
		p->ring[ZC_SM_PERIOD + i] = p->ring[i];
	return 0;
}

void zc_sm_pattern_free(struct zc_sm_pattern *p)
{
	free(p->ring);
	free(p->rxbuf);
	if (p->devnull >= 0)
		close(p->devnull);
	memset(p, 0, sizeof(*p));
	p->devnull = -1;
}

/* Producer */

/* Paused: wait, at no cost, until resumed or stopped. */
static void wait_resumed(struct zc_sm_producer *p)
{
	pthread_mutex_lock(&p->lock);
	while (p->paused && !p->stop)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

static void *producer_main(void *arg)
{
	struct zc_sm_producer *p = arg;
	uint64_t sent = 0;

	zc_pin_cpu(p->cpu);
	while (sent < p->limit && !__atomic_load_n(&p->stop, __ATOMIC_RELAXED)) {
		size_t len;

		if (__atomic_load_n(&p->paused, __ATOMIC_RELAXED))
			wait_resumed(p);
		len = p->limit - sent < p->chunk ? p->limit - sent : p->chunk;
		ssize_t n = write(p->fd, p->ring + sent % ZC_SM_PERIOD, len);

		if (n > 0) {
			sent += n;
			__atomic_store_n(&p->sent, sent, __ATOMIC_RELAXED);
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			p->err = -errno;
			break;
		}
		if (zc_now() >= p->deadline) {
			p->err = -ETIMEDOUT;
			break;
		}
		/* Short, so a stop request is seen quickly. */
		zc_poll_one(p->fd, POLLOUT, 0.05);
	}
	return NULL;
}

int zc_sm_producer_start(struct zc_sm_producer *p,
			 const struct zc_sm_pattern *pat, int fd,
			 uint64_t limit, double secs)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->cpu = pat->cpu_tx;
	p->ring = pat->ring;
	p->chunk = pat->chunk;
	p->limit = limit;
	p->deadline = zc_now() + secs;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	ret = pthread_create(&p->tid, NULL, producer_main, p);
	p->running = !ret;
	return -ret;
}

void zc_sm_producer_pause(struct zc_sm_producer *p, bool on)
{
	if (!p->running)
		return;
	pthread_mutex_lock(&p->lock);
	__atomic_store_n(&p->paused, on, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

uint64_t zc_sm_producer_sent(struct zc_sm_producer *p)
{
	return __atomic_load_n(&p->sent, __ATOMIC_RELAXED);
}

void zc_sm_producer_stop(struct zc_sm_producer *p)
{
	if (!p->running)
		return;
	pthread_mutex_lock(&p->lock);
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->tid, NULL);
	p->running = false;
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
}
