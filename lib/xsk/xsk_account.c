// SPDX-License-Identifier: GPL-2.0
/*
 * Every frame of a data path followed to its end (zc_xsk_run_account(),
 * xsk_run.h): what the generator handed over, what each XDP program saw,
 * what the socket received, dropped, transmitted and completed, and what
 * the peer counted. The first mismatch is the reason.
 */
#include <string.h>

#include "core/ktap.h"
#include "xsk/xsk_account.h"
#include "xsk/xsk_pair.h"

#define ULL(v)	((unsigned long long)(v))

static bool account_rx(struct zc_xsk_run *r, const uint64_t *ca,
		       const struct xdp_statistics *st)
{
	uint64_t sock_drops = st->rx_dropped + st->rx_ring_full;
	struct zc_why *w = &r->why;
	bool ok = !w->msg[0];

	ktap_print_msg("generated %llu (%llu more dropped by veth at send), program saw %llu, redirected %llu, missed %llu; socket received %llu, dropped %llu (rx_dropped %llu, ring full %llu, fill empty %llu)\n",
		       ULL(r->g.sent), ULL(r->g.dropped), ULL(ca[ZC_XSK_C_SEEN]),
		       ULL(ca[ZC_XSK_C_REDIRECT]), ULL(ca[ZC_XSK_C_MISS]), ULL(r->rx),
		       ULL(sock_drops), ULL(st->rx_dropped), ULL(st->rx_ring_full),
		       ULL(st->rx_fill_ring_empty_descs));
	ok = ok && ZC_CHECK(w, !r->g.err, "generator: %s", strerror(-r->g.err));
	ok = ok && ZC_CHECK(w, r->rx, "no frame received");
	ok = ok && ZC_CHECK(w, ca[ZC_XSK_C_SEEN] == r->g.sent,
			    "generated %llu frames, XDP program saw %llu",
			    ULL(r->g.sent), ULL(ca[ZC_XSK_C_SEEN]));
	ok = ok && ZC_CHECK(w, !ca[ZC_XSK_C_MISS], "%llu frames on a queue without the socket",
			    ULL(ca[ZC_XSK_C_MISS]));
	ok = ok && ZC_CHECK(w, ca[ZC_XSK_C_REDIRECT] == r->rx + sock_drops,
			    "redirected %llu frames, socket received %llu and dropped %llu",
			    ULL(ca[ZC_XSK_C_REDIRECT]), ULL(r->rx), ULL(sock_drops));
	ok = ok && ZC_CHECK(w, !st->rx_invalid_descs, "%llu invalid fill descriptors",
			    ULL(st->rx_invalid_descs));
	return ok;
}

static bool account_tx(struct zc_xsk_run *r, const uint64_t *cb,
		       const struct xdp_statistics *st)
{
	struct zc_why *w = &r->why;
	bool ok = !w->msg[0];

	ktap_print_msg("transmitted %llu, completed %llu, dropped by veth %llu, peer counted %llu (%llu bad)\n",
		       ULL(r->tx_sub), ULL(r->tx_done), ULL(r->tx_busy),
		       ULL(cb[ZC_XSK_C_COUNT]), ULL(cb[ZC_XSK_C_BAD]));
	ok = ok && ZC_CHECK(w, r->tx_done, "no frame transmitted");
	ok = ok && ZC_CHECK(w, r->tx_done == r->tx_sub, "%llu frames never completed",
			    ULL(r->tx_sub - r->tx_done));
	ok = ok && ZC_CHECK(w, cb[ZC_XSK_C_COUNT] + r->tx_busy == r->tx_done,
			    "completed %llu frames, peer counted %llu and veth dropped %llu",
			    ULL(r->tx_done), ULL(cb[ZC_XSK_C_COUNT]), ULL(r->tx_busy));
	ok = ok && ZC_CHECK(w, !cb[ZC_XSK_C_BAD], "peer found %llu frames with a bad payload",
			    ULL(cb[ZC_XSK_C_BAD]));
	ok = ok && ZC_CHECK(w, !st->tx_invalid_descs, "%llu invalid tx descriptors",
			    ULL(st->tx_invalid_descs));
	return ok;
}

static bool account_xdpdrop(struct zc_xsk_run *r)
{
	uint64_t ca[ZC_XSK_C_NSLOTS];
	struct zc_why *w = &r->why;
	bool ok = !w->msg[0];

	zc_xsk_cnt_settle(&r->a, ZC_XSK_C_COUNT, r->g.sent, ZC_XSK_SETTLE_S);
	zc_xsk_cnt_read(&r->a, ca);
	ktap_print_msg("generated %llu (%llu more dropped by veth at send), XDP_DROP counted %llu (%llu bad)\n",
		       ULL(r->g.sent), ULL(r->g.dropped), ULL(ca[ZC_XSK_C_COUNT]),
		       ULL(ca[ZC_XSK_C_BAD]));
	ok = ok && ZC_CHECK(w, ca[ZC_XSK_C_COUNT] == r->g.sent && r->g.sent,
			    "generated %llu frames, XDP_DROP counted %llu",
			    ULL(r->g.sent), ULL(ca[ZC_XSK_C_COUNT]));
	ok = ok && ZC_CHECK(w, !ca[ZC_XSK_C_BAD], "%llu frames with a bad payload",
			    ULL(ca[ZC_XSK_C_BAD]));
	return ok;
}

bool zc_xsk_run_account(struct zc_xsk_run *r, enum zc_xsk_path path)
{
	uint64_t ca[ZC_XSK_C_NSLOTS], cb[ZC_XSK_C_NSLOTS];
	struct xdp_statistics st = { 0 };
	struct zc_why *w = &r->why;
	bool ok;

	if (r->err && !w->msg[0])
		zc_why_set(w, "data path: %s", strerror(-r->err));
	if (path == ZC_XSK_XDPDROP)
		return account_xdpdrop(r);
	zc_xsk_stats(&r->x, &st);
	if (path != ZC_XSK_RXDROP)
		zc_xsk_cnt_settle(&r->b, ZC_XSK_C_COUNT, r->tx_done - r->tx_busy,
				  ZC_XSK_SETTLE_S);
	zc_xsk_cnt_read(&r->a, ca);
	zc_xsk_cnt_read(&r->b, cb);
	if (path != ZC_XSK_TXONLY)
		account_rx(r, ca, &st);
	if (path != ZC_XSK_RXDROP)
		account_tx(r, cb, &st);
	ok = !w->msg[0];
	if (path == ZC_XSK_L2FWD)
		ok = ok && ZC_CHECK(w, r->rx == r->tx_sub, "received %llu frames, forwarded %llu",
				    ULL(r->rx), ULL(r->tx_sub));
	ok = ok && ZC_CHECK(w, !r->bad, "%llu bad frames received", ULL(r->bad));
	return ok;
}

bool zc_xsk_account_pair(struct zc_xsk_run *r, enum zc_xsk_path path,
			  struct zc_why *why)
{
	const struct zc_topo *t = &r->d->topo;
	const struct zc_link_counts *m = r->pair_mark;
	struct zc_link_counts c[2];
	struct zc_xsk_pair_delta p;

	if (!r->pair_marked || path == ZC_XSK_TXONLY || zc_xsk_pair_counts(t, c))
		return false;
	p = (struct zc_xsk_pair_delta){
		.sent = r->g.sent,
		.refused = r->g.dropped,
		.tx = c[1].tx_packets - m[1].tx_packets,
		.tx_dropped = c[1].tx_dropped - m[1].tx_dropped,
		.rx = c[0].rx_packets - m[0].rx_packets,
		.rx_dropped = c[0].rx_dropped - m[0].rx_dropped,
		.rx_missed = c[0].rx_missed - m[0].rx_missed,
	};
	ktap_print_msg("pair: %s transmitted %llu (tx_dropped %llu), %s took up %llu (rx_dropped %llu, missed %llu), generator sent %llu (refused %llu)\n",
		       t->b.ifname, ULL(p.tx), ULL(p.tx_dropped), t->a.ifname,
		       ULL(p.rx), ULL(p.rx_dropped), ULL(p.rx_missed), ULL(p.sent),
		       ULL(p.refused));
	return zc_xsk_pair_lost(&p, t->b.ifname, t->a.ifname, why);
}

/*
 * Seen under TCG: a virtio-net transmit queue that stops completing for
 * the rest of the boot (doc/tests.md). virtio-net counts a frame
 * transmitted when its buffer comes back, the moment the socket's
 * completion is written: a device that counted fewer frames than the
 * socket sent still holds them.
 */
bool zc_xsk_account_pair_tx(struct zc_xsk_run *r, struct zc_why *why)
{
	const struct zc_topo *t = &r->d->topo;
	const struct zc_link_counts *m = r->pair_mark;
	struct zc_link_counts c[2];
	uint64_t tx;

	zc_why_clear(why);
	if (!r->pair_marked || r->tx_done >= r->tx_sub || zc_xsk_pair_counts(t, c))
		return false;
	tx = c[0].tx_packets - m[0].tx_packets;
	ktap_print_msg("pair: %s transmitted %llu (tx_dropped %llu), %s took up %llu; the socket sent %llu, %llu completed\n",
		       t->a.ifname, ULL(tx), ULL(c[0].tx_dropped - m[0].tx_dropped),
		       t->b.ifname, ULL(c[1].rx_packets - m[1].rx_packets),
		       ULL(r->tx_sub), ULL(r->tx_done));
	return zc_xsk_pair_held(tx, r->tx_sub, r->tx_done, t->a.ifname, why);
}
