/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test frame format and counters shared by bpf/xsk.bpf.c and lib/xsk/xsk.c:
 * Ethernet header with the IEEE 802 local experimental ethertype (no
 * protocol handler takes it), struct zc_xsk_hdr, then a payload whose byte
 * i is zc_xsk_pattern(seq, i): simple enough for an XDP program to check.
 */
#ifndef ZC_XSK_ABI_H
#define ZC_XSK_ABI_H

#include <linux/types.h>

#define ZC_XSK_ETHERTYPE	0x88b5
#define ZC_XSK_MAGIC		0x7a635853u	/* "zcXS" */
#define ZC_XSK_ETH_LEN		14
#define ZC_XSK_HDR_LEN		(ZC_XSK_ETH_LEN + 16)
/* Largest payload the XDP program checks (frames up to a 1500 MTU). */
#define ZC_XSK_MAX_CHECK	1500

struct zc_xsk_hdr {
	__u32 magic;
	__u32 len;		/* whole frame, Ethernet header included */
	__u64 seq;
} __attribute__((packed));

static inline __u8 zc_xsk_pattern(__u64 seq, __u32 i)
{
	return (__u8)((seq ^ (seq >> 8)) * 13 + i * 7 + (i >> 8));
}

/* Slots of the zc_xsk_cnt per-CPU array */
enum {
	ZC_XSK_C_SEEN,		/* zc_xsk_redirect: test frames seen */
	ZC_XSK_C_REDIRECT,	/* ... handed to the XSKMAP */
	ZC_XSK_C_MISS,		/* ... no socket at rx_queue_index: passed */
	ZC_XSK_C_COUNT,		/* zc_xdp_count: test frames counted, dropped */
	ZC_XSK_C_BAD,		/* ... of which failed the check */
	/*
	 * The per-frame witness (zc_xsk_redirect_wit): frames handed to the
	 * XSKMAP whose xdp->rxq->mem.type is MEM_TYPE_XSK_BUFF_POOL (the
	 * driver received them into the socket's pool: xsk_rcv_zc can take
	 * them without a copy), and the rest (__xsk_rcv copies them).
	 */
	ZC_XSK_C_POOL,
	ZC_XSK_C_NOPOOL,
	ZC_XSK_C_NSLOTS,
};

/* Slot of the zc_xsk_cfg array */
struct zc_xsk_cfg_val {
	__u32 verify;		/* zc_xdp_count checks every payload byte */
	/*
	 * The witness lies: pool frames counted as not, and the other way
	 * round (ZC_INJECT_XSK_WITNESS_LIE=1), so a check can show that a
	 * witness disagreeing with XDP_OPTIONS fails the row.
	 */
	__u32 lie;
	/*
	 * zc_xdp_count counts and drops every frame, not just test frames:
	 * the counter behind another program's sender (xsk_bind --peer-exec).
	 */
	__u32 count_any;
};

#endif
