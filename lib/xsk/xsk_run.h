/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One AF_XDP socket on the device under test and its traffic: the XDP
 * programs on both sides, the socket and its UMEM, the generator, and
 * the data paths xdpsock knows (rx-drop, tx-only, l2fwd) next to native
 * XDP_DROP, each with every frame followed to its end.
 */
#ifndef ZC_XSK_RUN_H
#define ZC_XSK_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/meter.h"
#include "core/why.h"
#include "net/rtnl.h"
#include "xsk/xsk.h"
#include "xsk/xsk_dut.h"
#include "xsk/xsk_gen.h"
#include "xsk/xsk_prog.h"
#include "xsk/xsk_witness.h"

#define ZC_XSK_BATCH		64	/* ring entries handled per step */
#define ZC_XSK_IDLE_SPIN	256	/* empty rx polls before sleeping in poll(2) */
#define ZC_XSK_BURST		32	/* frames each way after a bind */
#define ZC_XSK_SETTLE_S		1.0	/* bound on every drain after a run */

enum zc_xsk_path { ZC_XSK_RXDROP, ZC_XSK_TXONLY, ZC_XSK_L2FWD, ZC_XSK_XDPDROP };
#define ZC_XSK_PATH_N	(ZC_XSK_XDPDROP + 1)
/* By path: xdpsock's names, the cases' name parts. */
extern const char *const zc_xsk_run_path_names[ZC_XSK_PATH_N];

struct zc_xsk_run {
	struct zc_xsk_dut *d;
	struct zc_xsk x;
	struct zc_xsk_prog a, b;	/* on the device, on its peer */
	struct zc_xsk_gen g;
	bool zc, wakeup, verify, have_seq;
	bool xdpsock_rx;	/* cfg's: no frame read, no sleep */
	unsigned int idle_polls;
	uint64_t tx_seq, rx, tx_sub, tx_done, tx_busy, bad, last_seq, tx_waits;
	int err;
	struct zc_why why;	/* the first thing that went wrong */
	struct zc_xsk_wit_mark mark;	/* the witnesses' counts at the bind */
	/* A real pair's device counters when the generator started: a, b. */
	struct zc_link_counts pair_mark[2];
	bool pair_marked;
};

/* How zc_xsk_run_open() sets a run up. */
struct zc_xsk_run_cfg {
	enum zc_xsk_attach at;	/* the redirect's attach mode on d */
	bool need_peer;		/* the counter on the peer too */
	bool verify;		/* every frame's bytes checked */
	bool drop_only;		/* the counter alone: no redirect, no socket */
	/*
	 * Receive as samples/bpf's xdpsock does (--rx-loop xdpsock): never
	 * read a received frame (no order check; the counts stay exact) and
	 * never sleep on an empty rx ring.
	 */
	bool xdpsock_rx;
};

/*
 * Programs loaded and attached as cfg says; r->x is the test's to open
 * (fd -1 until then) and to close. 0, or -errno with r->why; close r
 * either way.
 */
int zc_xsk_run_open(struct zc_xsk_run *r, struct zc_xsk_dut *d,
		    const struct zc_xsk_run_cfg *cfg);
void zc_xsk_run_close(struct zc_xsk_run *r);
/*
 * After the test's bind(2), zc as XDP_OPTIONS said: socket in the XSKMAP,
 * the witnesses' counts marked (zc_xsk_run_seen counts from there).
 */
int zc_xsk_run_bound(struct zc_xsk_run *r, bool zc);
/* What the witnesses saw since the bind. */
void zc_xsk_run_seen(const struct zc_xsk_run *r, struct zc_xsk_seen *s);
/* ZC_XSK_BURST frames each way, payloads checked: 0 or -EIO with r->why. */
int zc_xsk_run_burst(struct zc_xsk_run *r);

/*
 * A data path started on the socket the test bound (XDP_DROP: none): tx
 * frames prebuilt, generator running for at most seconds. 0 or -errno
 * with r->why.
 */
int zc_xsk_run_start(struct zc_xsk_run *r, enum zc_xsk_path path, bool native,
		     double seconds);
/* The meter's step for a path (arg: the run). */
zc_step_fn zc_xsk_run_step(enum zc_xsk_path path);
/* Generator stopped, everything in flight received or completed. */
void zc_xsk_run_drain(struct zc_xsk_run *r, enum zc_xsk_path path);

#endif
