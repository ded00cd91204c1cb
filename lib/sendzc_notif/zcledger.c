// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring zero-copy notification accounting (see zcledger.h): books per
 * request number, filled from the sender's completion callback, judged
 * once the stream is flushed.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <liburing.h>

#include "core/clock.h"
#include "core/compat.h"
#include "send/sock.h"
#include "sendzc_notif/zcledger.h"
#include "send/zcsend.h"

#define POISON		0xa5

int zc_ledger_init(struct zc_ledger *l, size_t size, uint64_t n)
{
	memset(l, 0, sizeof(*l));
	l->size = size;
	l->n = n;
	l->cqes = calloc(n, 1);
	l->notifs = calloc(n, 1);
	l->more = calloc(n, 1);
	l->res = calloc(n, sizeof(*l->res));
	return l->cqes && l->notifs && l->more && l->res ? 0 : -ENOMEM;
}

void zc_ledger_free(struct zc_ledger *l)
{
	zc_sender_close(l->s);
	l->s = NULL;
	free(l->cqes);
	free(l->notifs);
	free(l->more);
	free(l->res);
}

int zc_ledger_fill(void *arg, void *buf, size_t len, uint64_t seq)
{
	struct zc_ledger *l = arg;
	double end;

	if (l->rx && !l->stream) {
		/* Stay within the receiver's buffer: no datagram may drop. */
		end = zc_now() + l->timeout;
		while (seq >= atomic_load(&l->rx->dgrams) + l->rx->window) {
			if (zc_now() >= end || l->rx->err)
				return -1;
			usleep(50);
		}
	}
	zc_payload_fill(buf, len, seq, l->seed, l->stream);
	return 0;
}

static void book_notif(struct zc_ledger *l, const struct zc_event *ev)
{
	if (!l->cqes[ev->seq])
		l->notif_first++;
	l->notifs[ev->seq]++;
	if (l->any_notif && ev->seq < l->last_notif)
		l->reordered++;
	l->any_notif = true;
	l->last_notif = ev->seq;
	if ((unsigned int)ev->res == IORING_NOTIF_USAGE_ZC_COPIED)
		l->usage_copied++;
	else if (ev->res == 0)
		l->usage_zc++;
	else
		l->usage_other++;
}

void zc_ledger_event(void *arg, const struct zc_event *ev)
{
	struct zc_ledger *l = arg;
	bool back = ev->notif || !(ev->flags & IORING_CQE_F_MORE);

	if (ev->seq >= l->n) {
		l->unknown++;
		return;
	}
	if (ev->notif) {
		book_notif(l, ev);
	} else {
		l->cqes[ev->seq]++;
		l->res[ev->seq] = ev->res;
		l->more[ev->seq] = !!(ev->flags & IORING_CQE_F_MORE);
	}
	/* The buffer is ours again: a late kernel read would see poison. */
	if (back && l->poison)
		memset(zc_sender_buf(l->s, ev->slot), POISON, l->size);
}

struct verdict {
	uint64_t no_cqe, extra_cqe, no_notif, extra_notif, stray_notif;
	uint64_t bad_res, with_more;
};

static void ledger_check(const struct zc_ledger *l, uint64_t upto,
			 int want_res, struct verdict *v)
{
	uint64_t i;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < upto; i++) {
		v->no_cqe += l->cqes[i] == 0;
		v->extra_cqe += l->cqes[i] > 1;
		v->with_more += l->more[i];
		if (l->more[i]) {
			v->no_notif += l->notifs[i] == 0;
			v->extra_notif += l->notifs[i] > 1;
		} else {
			v->stray_notif += l->notifs[i] != 0;
		}
		v->bad_res += want_res != INT_MIN && l->cqes[i] &&
			      l->res[i] != want_res;
	}
}

bool zc_ledger_ok(const struct zc_ledger *l, uint64_t upto, int want_res,
		  struct zc_why *why)
{
	const struct zc_send_stats *st = zc_sender_stats(l->s);
	struct verdict v;
	char res[48];

	ledger_check(l, upto, want_res, &v);
	if (want_res == INT_MIN)
		snprintf(res, sizeof(res), "res checked per request");
	else
		snprintf(res, sizeof(res), "res!=%d:%llu", want_res,
			 (unsigned long long)v.bad_res);
	zc_why_set(why, "requests=%llu missing_cqe=%llu extra_cqe=%llu %s f_more=%llu missing_notif=%llu extra_notif=%llu notif_without_more=%llu notif_before_cqe=%llu unknown=%llu violations=%llu%s%s",
		   (unsigned long long)upto, (unsigned long long)v.no_cqe,
		   (unsigned long long)v.extra_cqe, res,
		   (unsigned long long)v.with_more,
		   (unsigned long long)v.no_notif, (unsigned long long)v.extra_notif,
		   (unsigned long long)v.stray_notif,
		   (unsigned long long)l->notif_first,
		   (unsigned long long)l->unknown,
		   (unsigned long long)st->violations,
		   st->violations ? ": " : "", st->violation);
	return !v.no_cqe && !v.extra_cqe && !v.bad_res && !v.no_notif &&
	       !v.extra_notif && !v.stray_notif && !l->notif_first &&
	       !l->unknown && !st->violations;
}

long zc_ledger_send_until_fail(struct zc_ledger *l, int *failed_at,
			       double timeout, double flush_timeout)
{
	uint64_t i;
	long done;

	*failed_at = -1;
	for (i = 0; i < l->n; i++) {
		done = zc_sender_send(l->s, 1, timeout);
		if (done != 1)
			return done < 0 ? done : -EIO;
		if (zc_sender_flush(l->s, flush_timeout, 0))
			return -ETIMEDOUT;
		if (l->res[i] < 0) {
			*failed_at = i;
			return i + 1;
		}
		usleep(2000);
	}
	return i;
}

bool zc_ledger_all_sent(const struct zc_ledger *l, int upto)
{
	int i;

	for (i = 0; i < upto; i++)
		if (l->res[i] != (int)l->size)
			return false;
	return true;
}
