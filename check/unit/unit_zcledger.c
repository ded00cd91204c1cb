// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/sendzc_notif/zcledger's books: completions fed by hand, the
 * contract judged over them (one CQE each, F_MORE <=> exactly one
 * notification, none before its CQE, nothing unknown, the res), and the
 * REPORT_USAGE tallies. The sender is a plain send(2) one on a socketpair,
 * only there for its own checker's (empty) counts: no root, no io_uring.
 */
#include <errno.h>
#include <limits.h>
#include <unistd.h>
#include <sys/socket.h>
#include <liburing.h>

#include "core/compat.h"

#include "sendzc_notif/zcledger.h"
#include "send/zcsend.h"
#include "unit_tap.h"

#define N	4
#define SIZE	100

static int sv[2] = { -1, -1 };

static int ledger(struct zc_ledger *l)
{
	struct zc_sender_cfg cfg = { .mode = ZC_MODE_SEND, .fd = sv[0], .size = SIZE };
	int err;

	if (zc_ledger_init(l, SIZE, N))
		return -1;
	l->s = zc_sender_open(&cfg, &err);
	return l->s ? 0 : -1;
}

static void cqe(struct zc_ledger *l, uint64_t seq, int res, bool more)
{
	struct zc_event ev = { .seq = seq, .res = res,
			       .flags = more ? IORING_CQE_F_MORE : 0 };

	zc_ledger_event(l, &ev);
}

static void notif(struct zc_ledger *l, uint64_t seq, int res)
{
	struct zc_event ev = { .seq = seq, .res = res, .notif = true,
			       .flags = IORING_CQE_F_NOTIF };

	zc_ledger_event(l, &ev);
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

/* Books that break the contract: judged broken, the why says how. */
static void broken(const char *name, books_fn books, const char *want)
{
	struct zc_ledger l;
	struct zc_why why = { "" };
	bool ok = false;

	if (!ledger(&l)) {
		books(&l);
		ok = !zc_ledger_ok(&l, N, SIZE, &why) && unit_has(why.msg, want);
	}
	unit_check(ok, name, why.msg);
	zc_ledger_free(&l);
}

int main(void)
{
	struct zc_ledger l;
	struct zc_why why = { "" };
	bool ok;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) || ledger(&l)) {
		printf("1..0 # SKIP no socketpair or sender\n");
		return 0;
	}
	clean(&l);
	ok = zc_ledger_ok(&l, N, SIZE, &why) && unit_has(why.msg, "requests=4") &&
	     unit_has(why.msg, "f_more=4") && l.usage_zc == N;
	unit_check(ok, "zcledger.clean_books_keep_the_contract", why.msg);
	ok = !zc_ledger_ok(&l, N, SIZE + 1, &why) && unit_has(why.msg, "res!=101:4");
	unit_check(ok, "zcledger.wrong_res_breaks_it", why.msg);
	ok = zc_ledger_ok(&l, N, INT_MIN, &why) && unit_has(why.msg, "res checked per request");
	unit_check(ok, "zcledger.res_left_to_the_caller", why.msg);
	ok = zc_ledger_all_sent(&l, N);
	unit_check(ok, "zcledger.all_sent", NULL);
	zc_ledger_free(&l);

	broken("zcledger.missing_notification", missing_notif, "missing_notif=1");
	broken("zcledger.notification_before_its_cqe", notif_first, "notif_before_cqe=1");
	broken("zcledger.two_cqes_for_one_request", extra_cqe, "extra_cqe=1");
	broken("zcledger.notification_without_f_more", no_more_notif, "notif_without_more=1");
	broken("zcledger.unknown_request", unknown, "unknown=1");
	broken("zcledger.two_notifications", twice_notif, "extra_notif=1");

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
