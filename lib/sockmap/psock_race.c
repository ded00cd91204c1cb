// SPDX-License-Identifier: GPL-2.0
/* Charges racing uncharges on a psock's socket, see psock_race.h. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sockmap/psock_race.h"
#include "core/meter.h"
#include "core/util.h"

#define ROUND_S		60.0	/* a producer's bound for one round */

/*
 * Read c2 until a round's bytes came, spinning on EAGAIN: a reader woken
 * by the work is late (under emulation, by far) or woken on the work's
 * own CPU, where two updates never overlap. -ETIMEDOUT after
 * ZC_SM_STALL_S without a byte.
 */
static long pair_drain(struct zc_pr_pair *pp)
{
	double stall = zc_now() + ZC_SM_STALL_S;
	unsigned int spins = 0;
	uint64_t got = 0;
	ssize_t n;

	while (got < pp->bytes) {
		n = read(pp->t.c2, pp->buf, pp->buf_len);
		if (n > 0) {
			got += n;
			stall = zc_now() + ZC_SM_STALL_S;
			continue;
		}
		if (!n)
			return -EPIPE;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		if (!(++spins & 255) && zc_now() >= stall)
			return -ETIMEDOUT;
	}
	return 0;
}

static void *pair_reader(void *arg)
{
	struct zc_pr_pair *pp = arg;

	pp->ret = zc_pin_cpu(pp->cpu_rx);
	if (!pp->ret)
		pp->ret = pair_drain(pp);
	return NULL;
}

static int pair_start(struct zc_pr_pair *pp)
{
	int ret;

	ret = zc_sm_producer_start(&pp->p, &pp->pat, pp->t.c1, pp->bytes,
				   ROUND_S);
	if (ret)
		return ret;
	ret = -pthread_create(&pp->reader, NULL, pair_reader, pp);
	pp->reading = !ret;
	return ret;
}

/* Joins both threads; the first problem goes to why (when why is set). */
static int pair_stop(struct zc_pr_pair *pp, struct zc_why *why)
{
	if (pp->reading)
		pthread_join(pp->reader, NULL);
	pp->reading = false;
	zc_sm_producer_stop(&pp->p);
	if (!why)
		return 0;
	if (pp->ret)
		return zc_why_set(why, "read c2: %s (producer sent %llu of %llu B)",
				  strerror(-pp->ret),
				  (unsigned long long)zc_sm_producer_sent(&pp->p),
				  (unsigned long long)pp->bytes);
	if (pp->p.err)
		return zc_why_set(why, "producer: %s", strerror(-pp->p.err));
	return 0;
}

int zc_psock_race_round(struct zc_psock_race *r, struct zc_why *why)
{
	int i, ret = 0;

	for (i = 0; i < ZC_PR_PAIRS && !ret; i++) {
		ret = pair_start(&r->pair[i]);
		if (ret)
			zc_why_set(why, "threads: %s", strerror(-ret));
	}
	for (i = 0; i < ZC_PR_PAIRS; i++)
		if (pair_stop(&r->pair[i], ret ? NULL : why))
			ret = -1;
	return ret ? -1 : 0;
}

static void pair_close(struct zc_pr_pair *pp)
{
	close(pp->t.c2);
	pp->t.c2 = -1;
	zc_sm_topo_close(&pp->t);
	free(pp->buf);
	pp->buf = NULL;
}

static void pairs_close(struct zc_psock_race *r, int n)
{
	while (n--)
		pair_close(&r->pair[n]);
}

void zc_psock_race_close(struct zc_psock_race *r)
{
	pairs_close(r, ZC_PR_PAIRS);
}

static int pair_open(struct zc_pr_pair *pp, long rcvbuf, struct zc_why *why)
{
	int one = 1;

	pp->buf = malloc(pp->buf_len);
	if (!pp->buf)
		return zc_why_set(why, "out of memory");
	if (zc_sm_topo_setup(&pp->t, ZC_SM_INGRESS, rcvbuf, why)) {
		free(pp->buf);
		return -1;
	}
	if (setsockopt(pp->t.c1, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))) {
		zc_why_errno(why, "TCP_NODELAY");
		pair_close(pp);
		return -1;
	}
	return 0;
}

int zc_psock_race_open(struct zc_psock_race *r, const struct zc_sm_pattern *pat,
		       int cpu_a, int cpu_b, long rcvbuf, uint64_t bytes,
		       struct zc_why *why)
{
	int i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < ZC_PR_PAIRS; i++) {
		struct zc_pr_pair *pp = &r->pair[i];

		pp->pat = *pat;
		pp->buf_len = pat->chunk;
		/* The ring repeats pat->chunk bytes past its period. */
		if (pp->pat.chunk > ZC_PR_CHUNK)
			pp->pat.chunk = ZC_PR_CHUNK;
		pp->pat.cpu_tx = i % 2 ? cpu_b : cpu_a;
		pp->cpu_rx = i % 2 ? cpu_a : cpu_b;
		pp->bytes = bytes;
		if (pair_open(pp, rcvbuf, why)) {
			pairs_close(r, i);
			return -1;
		}
	}
	return 0;
}
