// SPDX-License-Identifier: GPL-2.0
/* The books of a stream of zero-copy requests (see zcledger.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <liburing.h>

#include "core/compat.h"
#include "sendzc_notif/zcledger.h"

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
	free(l->cqes);
	free(l->notifs);
	free(l->more);
	free(l->res);
	memset(l, 0, sizeof(*l));
}

void zc_ledger_cqe(struct zc_ledger *l, uint64_t seq, int res, bool more)
{
	if (seq >= l->n) {
		l->unknown++;
		return;
	}
	l->cqes[seq]++;
	l->res[seq] = res;
	l->more[seq] = more;
}

void zc_ledger_notif(struct zc_ledger *l, uint64_t seq, int res)
{
	if (seq >= l->n) {
		l->unknown++;
		return;
	}
	if (!l->cqes[seq])
		l->notif_first++;
	l->notifs[seq]++;
	if (l->any_notif && seq < l->last_notif)
		l->reordered++;
	l->any_notif = true;
	l->last_notif = seq;
	if ((unsigned int)res == IORING_NOTIF_USAGE_ZC_COPIED)
		l->usage_copied++;
	else if (res == 0)
		l->usage_zc++;
	else
		l->usage_other++;
}

bool zc_ledger_back(const struct zc_ledger *l, uint64_t seq)
{
	return seq < l->n && l->cqes[seq] && (!l->more[seq] || l->notifs[seq]);
}

void zc_ledger_tally(const struct zc_ledger *l, uint64_t upto, int want_res,
		     struct zc_ledger_tally *t)
{
	uint64_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < upto && i < l->n; i++) {
		t->no_cqe += l->cqes[i] == 0;
		t->extra_cqe += l->cqes[i] > 1;
		t->with_more += l->more[i];
		if (l->more[i]) {
			t->no_notif += l->notifs[i] == 0;
			t->extra_notif += l->notifs[i] > 1;
		} else {
			t->stray_notif += l->notifs[i] != 0;
		}
		t->bad_res += want_res != INT_MIN && l->cqes[i] &&
			      l->res[i] != want_res;
	}
}

bool zc_ledger_all_sent(const struct zc_ledger *l, int upto)
{
	int i;

	for (i = 0; i < upto; i++)
		if (l->res[i] != (int)l->size)
			return false;
	return true;
}
