/* SPDX-License-Identifier: GPL-2.0 */
/* Every frame of a data path followed to its end (xsk_account.c). */
#ifndef ZC_XSK_ACCOUNT_H
#define ZC_XSK_ACCOUNT_H

#include <stdbool.h>

#include "xsk/xsk_run.h"

/* Every frame followed to its end (printed); false with r->why. */
bool zc_xsk_run_account(struct zc_xsk_run *r, enum zc_xsk_path path);

/*
 * On a real pair, the devices' counters since the generator started
 * (printed); true with the reason in why when the pair lost frames.
 */
bool zc_xsk_account_pair(struct zc_xsk_run *r, enum zc_xsk_path path,
			  struct zc_why *why);
/*
 * On a real pair, frames the socket sent that never completed: true with
 * the reason in why when side a's device did not count them transmitted
 * either (its transmit queue stopped), false when it did (the socket's
 * completions are then at fault) or when every frame completed.
 */
bool zc_xsk_account_pair_tx(struct zc_xsk_run *r, struct zc_why *why);

#endif
