/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io_uring zero-copy notification accounting: the books of one stream of
 * SEND_ZC / SENDMSG_ZC requests, kept apart from lib/send/zcsend's own checker
 * so a test of the contract does not trust the code it tests. Per request
 * number: how many CQEs, whether the CQE had IORING_CQE_F_MORE, how many
 * IORING_CQE_F_NOTIF, the res; then the contract judged over them: one
 * CQE each, F_MORE <=> exactly one notification, no notification before
 * its CQE, nothing unknown.
 */
#ifndef ZC_ZCLEDGER_H
#define ZC_ZCLEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/why.h"

struct zc_event;
struct zc_rx;
struct zc_sender;

struct zc_ledger {
	struct zc_sender *s;	/* closed by zc_ledger_free() */
	struct zc_rx *rx;	/* datagram receiver to pace fills by, or NULL */
	size_t size;		/* bytes per request */
	bool stream;		/* payload is one pattern by offset */
	uint64_t seed;		/* payload pattern (lib/send/sock.h) */
	double timeout;		/* bound on waiting for the receiver */
	bool poison;		/* rewrite each buffer as soon as it comes back */
	/* books, indexed by request number */
	uint64_t n;
	unsigned char *cqes, *notifs, *more;
	int *res;
	uint64_t notif_first, unknown, reordered, last_notif;
	bool any_notif;
	/* notification res: 0, IORING_NOTIF_USAGE_ZC_COPIED, anything else */
	uint64_t usage_zc, usage_copied, usage_other;
};

/* Zeroes l and allocates books for n requests of size bytes. */
int zc_ledger_init(struct zc_ledger *l, size_t size, uint64_t n);
void zc_ledger_free(struct zc_ledger *l);

/* zc_event_fn for the sender (ctx = the ledger): books every completion. */
void zc_ledger_event(void *arg, const struct zc_event *ev);
/*
 * zc_fill_fn (ctx = the ledger): zc_payload_fill, first waiting until the
 * receiver has room for the datagram so none drops.
 */
int zc_ledger_fill(void *arg, void *buf, size_t len, uint64_t seq);

/*
 * True when the books of requests [0, upto) and the sender's own checker
 * agree the contract held; why holds the counts either way. want_res
 * INT_MIN: the caller judges each res itself.
 */
bool zc_ledger_ok(const struct zc_ledger *l, uint64_t upto, int want_res,
		  struct zc_why *why);

/*
 * Send one request at a time until one fails (a refused UDP send fails
 * only once the ICMP error of an earlier one is back). Returns how many
 * requests went out (*failed_at the one that failed, -1 none), or -errno.
 */
long zc_ledger_send_until_fail(struct zc_ledger *l, int *failed_at,
			       double timeout, double flush_timeout);
/* The requests before upto went out whole. */
bool zc_ledger_all_sent(const struct zc_ledger *l, int upto);

#endif
