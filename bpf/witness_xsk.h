/* SPDX-License-Identifier: GPL-2.0 */
/* The AF_XDP counts of bpf/witness.bpf.c, shared with lib/net/witness.h. */
#ifndef ZC_WITNESS_XSK_H
#define ZC_WITNESS_XSK_H

/*
 * AF_XDP frames seen in the kernel's own functions, for one device (ifindex
 * in one network namespace), a count per function (net/xdp/xsk.c).
 */
enum {
	ZC_WIT_XSK_REDIRECT,	/* __xsk_map_redirect: native redirects to a socket */
	ZC_WIT_XSK_RCV_COPY,	/* __xsk_rcv: a frame copied into the UMEM */
	ZC_WIT_XSK_GENERIC,	/* xsk_generic_rcv: skb-mode redirects (all copied) */
	ZC_WIT_XSK_TX_ZC,	/* descriptors a zero-copy driver took (xsk_tx_peek_*) */
	ZC_WIT_XSK_TX_COPY,	/* skbs of the copy-mode transmit, per frame */
	ZC_WIT_XSK_N,
};

#endif
