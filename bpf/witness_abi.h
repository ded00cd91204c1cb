/* SPDX-License-Identifier: GPL-2.0 */
/* Layout shared by bpf/witness.bpf.c and lib/net/witness.c. */
#ifndef ZC_WITNESS_ABI_H
#define ZC_WITNESS_ABI_H

#include <linux/types.h>

enum zc_wit_kind {
	ZC_WIT_COPY_UBUFS,	/* skb_copy_ubufs: zero-copy frags copied */
	ZC_WIT_PP_COW,		/* skb_pp_cow_data: veth XDP copies the skb */
	ZC_WIT_XSK_XMIT,	/* stack kind only: AF_XDP copy-mode transmit */
	ZC_WIT_NKINDS,
};

#include "witness_xsk.h"

/* A function and its .cold/.part clones: a few ranges each */
#define ZC_WIT_MAX_RANGES	8
#define ZC_WIT_STACK_DEPTH	48
#define ZC_WIT_PAGE_SIZE	4096

struct zc_wit_range {
	__u64 lo, hi;		/* [lo, hi) in kernel text */
	__u32 kind;
	__u32 pad;
};

#endif
