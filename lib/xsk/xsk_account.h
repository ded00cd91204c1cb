/* SPDX-License-Identifier: GPL-2.0 */
/* Every frame of a data path followed to its end (xsk_account.c). */
#ifndef ZC_XSK_ACCOUNT_H
#define ZC_XSK_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "xsk/xsk_run.h"

/* Every frame followed to its end (printed); false with r->why. */
bool zc_xsk_run_account(struct zc_xsk_run *r, enum zc_xsk_path path);

/* A real pair's device counters: [0] side a (receives), [1] side b. */
int zc_xsk_pair_counts(const struct zc_topo *t, struct zc_link_counts c[2]);

/* What a real pair's devices counted over a run, beside what was sent. */
struct zc_xsk_pair_delta {
	uint64_t sent, refused;			/* the generator's sends */
	uint64_t tx, tx_dropped;		/* side b's device */
	uint64_t rx, rx_dropped, rx_missed;	/* side a's device */
};

/*
 * Did the device pair lose frames before the path under test? True, with
 * the reason in why, when side a's driver took up fewer frames than the
 * generator sent (those never reached XDP), or when side b's device
 * refused every frame (its transmit queue stayed stopped): no verdict on
 * the path then.
 */
bool zc_xsk_pair_lost(const struct zc_xsk_pair_delta *p, const char *tx_dev,
		      const char *rx_dev, struct zc_why *why);

/*
 * On a real pair, the devices' counters since the generator started
 * (printed); true with the reason in why when the pair lost frames.
 */
bool zc_xsk_run_pair_lost(struct zc_xsk_run *r, enum zc_xsk_path path,
			  struct zc_why *why);

#endif
