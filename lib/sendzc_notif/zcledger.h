/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The books of one stream of io_uring zero-copy requests, by request
 * number: how many request CQEs, whether the CQE had IORING_CQE_F_MORE,
 * how many notifications, the res, what each notification's res said
 * (REPORT_USAGE). tests/sendzc_notif.c reads the CQEs and judges the
 * contract over the tally; the books are kept here so the unit tests can
 * feed them by hand.
 */
#ifndef ZC_ZCLEDGER_H
#define ZC_ZCLEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct zc_ledger {
	size_t size;		/* bytes per request */
	uint64_t n;		/* requests the books hold */
	unsigned char *cqes, *notifs, *more;
	int *res;
	uint64_t notif_first, unknown, reordered, last_notif;
	bool any_notif;
	/* notification res: 0, IORING_NOTIF_USAGE_ZC_COPIED, anything else */
	uint64_t usage_zc, usage_copied, usage_other;
};

/* Counts over requests [0, upto): each should be 0 but with_more. */
struct zc_ledger_tally {
	uint64_t no_cqe, extra_cqe, no_notif, extra_notif, stray_notif;
	uint64_t bad_res, with_more;
};

/* Zeroes l and allocates books for n requests of size bytes. */
int zc_ledger_init(struct zc_ledger *l, size_t size, uint64_t n);
void zc_ledger_free(struct zc_ledger *l);

/* A request CQE of request seq (more: it had IORING_CQE_F_MORE). */
void zc_ledger_cqe(struct zc_ledger *l, uint64_t seq, int res, bool more);
/* A notification (IORING_CQE_F_NOTIF) of request seq. */
void zc_ledger_notif(struct zc_ledger *l, uint64_t seq, int res);
/*
 * The kernel is done with request seq's buffer: its CQE came without
 * F_MORE, or with it and its notification came too.
 */
bool zc_ledger_back(const struct zc_ledger *l, uint64_t seq);

/* want_res INT_MIN: the caller judges each res itself (bad_res 0). */
void zc_ledger_tally(const struct zc_ledger *l, uint64_t upto, int want_res,
		     struct zc_ledger_tally *t);
/* The requests before upto went out whole. */
bool zc_ledger_all_sent(const struct zc_ledger *l, int upto);

#endif
