/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What happened to an AF_XDP socket's frames, from the data path rather
 * than the socket's word (XDP_OPTIONS_ZEROCOPY says how it was bound):
 *   rx, per frame: the redirect program reads each frame's
 *       xdp->rxq->mem.type (bpf_cast_to_kern_ctx, 6.2+): in the socket's
 *       pool (MEM_TYPE_XSK_BUFF_POOL) the kernel takes xsk_rcv_zc, any
 *       other memory is copied by __xsk_rcv; a generic (skb-mode)
 *       program's frames are never in the pool (xsk_generic_rcv copies);
 *   rx and tx, the kernel's functions (lib/net/witness, where fentry
 *       loads): __xsk_map_redirect, __xsk_rcv, xsk_generic_rcv on
 *       receive; xsk_tx_peek_* (a zero-copy driver's transmit) and
 *       xsk_destruct_skb (the copy-mode transmit's skbs); where only
 *       tracepoints load, the copy-mode transmit alone.
 * Each count says which witness made it; a direction no witness can see
 * is "unwitnessed" with the reason.
 */
#ifndef ZC_XSK_WITNESS_H
#define ZC_XSK_WITNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/why.h"
#include "bpf/witness_xsk.h"
#include "net/witness.h"
#include "xsk/xsk_dut.h"

struct zc_xsk_prog;

/* A point in time: the XDP program's counts and the kernel functions'. */
struct zc_xsk_wit_mark {
	uint64_t pool, nopool;
	uint64_t fn[ZC_WIT_XSK_N];
};

/* What the witnesses saw between two marks, per direction. */
struct zc_xsk_seen {
	bool rx_known, tx_known;
	uint64_t rx_zc, rx_copy, tx_zc, tx_copy;
	const char *rx_by, *tx_by;	/* which witness counted */
	/* The second rx witness (fentry), when the first was the XDP program. */
	bool rx2_known;
	uint64_t rx2_zc, rx2_copy;
};

/*
 * Open the kernel-function witness for d and print the one line saying
 * which witness counts what (prog_wit: the XDP program witness loads; else
 * nowit says why). Never fails: a missing witness is a reason on the line.
 */
void zc_xsk_wit_open(const struct zc_xsk_dut *d, bool prog_wit, const char *nowit);
void zc_xsk_wit_close(void);
/*
 * Does the transmit witness cost a stack walk per frame (the tracepoint
 * one, ~3x slower tx-only copy rates on a 2-vCPU VM)? Then a rate
 * witnesses a sample and pauses it for the measurement (the counts say
 * "tracepoint_sample").
 */
bool zc_xsk_wit_costly(void);
void zc_xsk_wit_pause(bool pause);

void zc_xsk_wit_mark(const struct zc_xsk_prog *a, struct zc_xsk_wit_mark *m);
/* Counts between from and now, a the redirect program. */
void zc_xsk_wit_seen(const struct zc_xsk_prog *a, const struct zc_xsk_wit_mark *from,
		     struct zc_xsk_seen *s);

/* What a row expects of each direction: the data, per bound mode. */
enum zc_xsk_want { ZC_XSK_WANT_ZC, ZC_XSK_WANT_COPY };

struct zc_xsk_expect {
	enum zc_xsk_want rx, tx;
	const char *why;	/* printed on the zcmode line */
};

/*
 * The zcmode line of name (counts from the witnesses, the socket's word
 * beside them) and the verdict: true when every witnessed direction that
 * moved frames (rx, tx as given) agrees with e; else false with why
 * naming the witness's counts and XDP_OPTIONS.
 */
bool zc_xsk_wit_judge(const char *name, const struct zc_xsk_seen *s, bool rx, bool tx,
		      bool sock_zc, const struct zc_xsk_expect *e, struct zc_why *why);
/* "rx=copied tx=unwitnessed": the verdict words for a config line. */
int zc_xsk_wit_words(const struct zc_xsk_seen *s, bool rx, bool tx, char *buf, size_t len);

#endif
