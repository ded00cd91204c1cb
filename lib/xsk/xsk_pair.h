/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A real device pair's own counters (ZC_PAIR): where frames the path
 * under test never saw were lost (xsk_pair.c).
 */
#ifndef ZC_XSK_PAIR_H
#define ZC_XSK_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/why.h"
#include "net/netns.h"
#include "net/rtnl.h"

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
 * Does side a's device still hold frames the socket sent? True, with the
 * reason in why, when some never completed and the device counted fewer
 * transmitted (dev_tx) than the socket sent: its transmit queue stopped,
 * no verdict on the path. False when all completed, or when the device
 * counted them (the socket's completions are then at fault).
 */
bool zc_xsk_pair_held(uint64_t dev_tx, uint64_t sent, uint64_t done,
		      const char *dev, struct zc_why *why);

#endif
