// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/sendzc_notif/zcledger's books: completions fed by hand,
 * the tally the contract is judged by (one CQE each, F_MORE <=> exactly
 * one notification, none before its CQE, nothing unknown, the res), when
 * a buffer is back, and the REPORT_USAGE tallies. No root, no io_uring.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <liburing.h>

#include "core/compat.h"

#include "sendzc_notif/zcledger.h"
#include "unit_tap.h"

#define N	4
#define SIZE	100

static int ledger(struct zc_ledger *l)
{
	return zc_ledger_init(l, SIZE, N);
}

static void cqe(struct zc_ledger *l, uint64_t seq, int res, bool more)
{
	zc_ledger_cqe(l, seq, res, more);
}

static void notif(struct zc_ledger *l, uint64_t seq, int res)
{
	zc_ledger_notif(l, seq, res);
}

/* Every request: a CQE with F_MORE and its notification. */
static void clean(struct zc_ledger *l)
{
	uint64_t i;

	for (i = 0; i < N; i++) {
		cqe(l, i, SIZE, true);
		notif(l, i, 0);
	}
}

typedef void (*books_fn)(struct zc_ledger *l);

/* Request 0 gets its CQE with F_MORE, never its notification. */
static void missing_notif(struct zc_ledger *l)
{
	uint64_t i;

	for (i = 0; i < N; i++) {
		cqe(l, i, SIZE, true);
		if (i)
			notif(l, i, 0);
	}
}

static void notif_first(struct zc_ledger *l)
{
	uint64_t i;

	notif(l, 0, 0);
	for (i = 0; i < N; i++) {
		cqe(l, i, SIZE, true);
		if (i)
			notif(l, i, 0);
	}
}

static void extra_cqe(struct zc_ledger *l)
{
	clean(l);
	cqe(l, 1, SIZE, true);
}

static void no_more_notif(struct zc_ledger *l)
{
	uint64_t i;

	for (i = 0; i < N; i++) {
		cqe(l, i, SIZE, i != 2);
		notif(l, i, 0);
	}
}

static void unknown(struct zc_ledger *l)
{
	clean(l);
	notif(l, N + 7, 0);
}

static void twice_notif(struct zc_ledger *l)
{
	clean(l);
	notif(l, 3, 0);
}

/* The tally as the test prints it, and whether every count is clean. */
static bool tally(const struct zc_ledger *l, int want_res, char *buf,
		  size_t len)
{
	struct zc_ledger_tally t;

	zc_ledger_tally(l, N, want_res, &t);
	snprintf(buf, len, "missing_cqe=%llu extra_cqe=%llu bad_res=%llu f_more=%llu missing_notif=%llu extra_notif=%llu notif_without_more=%llu notif_before_cqe=%llu unknown=%llu",
		 (unsigned long long)t.no_cqe, (unsigned long long)t.extra_cqe,
		 (unsigned long long)t.bad_res, (unsigned long long)t.with_more,
		 (unsigned long long)t.no_notif, (unsigned long long)t.extra_notif,
		 (unsigned long long)t.stray_notif,
		 (unsigned long long)l->notif_first,
		 (unsigned long long)l->unknown);
	return !t.no_cqe && !t.extra_cqe && !t.bad_res && !t.no_notif &&
	       !t.extra_notif && !t.stray_notif && !l->notif_first &&
	       !l->unknown;
}

/* Books that break the contract: the tally says how. */
static void broken(const char *name, books_fn books, const char *want)
{
	struct zc_ledger l;
	char buf[256] = "";
	bool ok = false;

	if (!ledger(&l)) {
		books(&l);
		ok = !tally(&l, SIZE, buf, sizeof(buf)) && unit_has(buf, want);
	}
	unit_check(ok, name, buf);
	zc_ledger_free(&l);
}

int main(void)
{
	struct zc_ledger l;
	char buf[256] = "";
	bool ok;

	if (ledger(&l)) {
		printf("1..0 # SKIP no memory for the books\n");
		return 0;
	}
	clean(&l);
	ok = tally(&l, SIZE, buf, sizeof(buf)) && unit_has(buf, "f_more=4") &&
	     l.usage_zc == N;
	unit_check(ok, "zcledger.clean_books_keep_the_contract", buf);
	ok = !tally(&l, SIZE + 1, buf, sizeof(buf)) && unit_has(buf, "bad_res=4");
	unit_check(ok, "zcledger.wrong_res_breaks_it", buf);
	ok = tally(&l, INT_MIN, buf, sizeof(buf)) && unit_has(buf, "bad_res=0");
	unit_check(ok, "zcledger.res_left_to_the_caller", buf);
	ok = zc_ledger_all_sent(&l, N);
	unit_check(ok, "zcledger.all_sent", NULL);
	zc_ledger_free(&l);

	broken("zcledger.missing_notification", missing_notif, "missing_notif=1");
	broken("zcledger.notification_before_its_cqe", notif_first, "notif_before_cqe=1");
	broken("zcledger.two_cqes_for_one_request", extra_cqe, "extra_cqe=1");
	broken("zcledger.notification_without_f_more", no_more_notif, "notif_without_more=1");
	broken("zcledger.unknown_request", unknown, "unknown=1");
	broken("zcledger.two_notifications", twice_notif, "extra_notif=1");

	/* A buffer is back after a CQE without F_MORE, or F_MORE and its notification. */
	if (!ledger(&l)) {
		cqe(&l, 0, SIZE, true);
		ok = !zc_ledger_back(&l, 0);
		notif(&l, 0, 0);
		ok = ok && zc_ledger_back(&l, 0);
		notif(&l, 1, 0);
		ok = ok && !zc_ledger_back(&l, 1);
		cqe(&l, 1, SIZE, true);
		ok = ok && zc_ledger_back(&l, 1);
		cqe(&l, 2, -EINVAL, false);
		ok = ok && zc_ledger_back(&l, 2) && !zc_ledger_back(&l, 3) &&
		     !zc_ledger_back(&l, N + 1);
		unit_check(ok, "zcledger.buffer_back_only_when_the_kernel_is_done", NULL);
		zc_ledger_free(&l);
	}
	if (!ledger(&l)) {
		cqe(&l, 0, SIZE, true);
		notif(&l, 0, IORING_NOTIF_USAGE_ZC_COPIED);
		cqe(&l, 1, SIZE, true);
		notif(&l, 1, 0);
		cqe(&l, 2, -EMSGSIZE, false);
		ok = l.usage_copied == 1 && l.usage_zc == 1 && l.usage_other == 0 &&
		     !zc_ledger_all_sent(&l, 3) && zc_ledger_all_sent(&l, 2);
		unit_check(ok, "zcledger.usage_books_copied_and_zerocopy", NULL);
		zc_ledger_free(&l);
	}
	return unit_done();
}
