/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A packet tap a case opens itself, in its own topology: where it opens,
 * bound to which device, with PACKET_IGNORE_OUTGOING or not, and whether
 * the listing of taps (taps.h) shows it as asked.
 */
#ifndef ZC_TAPSPEC_H
#define ZC_TAPSPEC_H

#include <stdbool.h>
#include "core/why.h"
#include "net/taps.h"

/*
 * zc_open_tap() (netns.h) bound to ifindex when non-zero, with
 * PACKET_IGNORE_OUTGOING when asked. Returns the fd or -errno.
 */
int zc_tap_open_on(int nsfd, int ifindex, bool ignore_outgoing);

/*
 * A tap a case opens in its own topology (netns.h), as row data: in
 * which namespace, bound to which device, PACKET_IGNORE_OUTGOING or not.
 */
enum zc_tap_ns { ZC_TAP_NONE, ZC_TAP_SENDER, ZC_TAP_RECEIVER };
enum zc_tap_dev { ZC_TAP_ANY_DEV, ZC_TAP_EGRESS, ZC_TAP_LO };

struct zc_tap_spec {
	enum zc_tap_ns ns;		/* ZC_TAP_NONE: the row has no tap */
	enum zc_tap_dev dev;
	bool ignore_outgoing;
};

struct zc_topo;

/* Opens s's tap in t: its fd, or -errno (-ENOENT: s has none). */
int zc_tap_spec_open(const struct zc_topo *t, const struct zc_tap_spec *s);
/*
 * Is tap (the listing of the socket opened for s; NULL: not listed) ours
 * and listed as s asked for? Prints its line; false with why.
 */
bool zc_tap_spec_listed(const struct zc_topo *t, const struct zc_tap_spec *s,
			const struct zc_tap *tap, struct zc_why *why);

#endif
