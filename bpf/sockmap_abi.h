/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by bpf/sockmap.bpf.c and lib/sockmap/sockmap.c. */
#ifndef ZC_SOCKMAP_ABI_H
#define ZC_SOCKMAP_ABI_H

/* zc_sm_map keys */
#define ZC_SM_KEY_RX		0	/* p1: where the producer's bytes arrive */
#define ZC_SM_KEY_TARGET	1	/* c2: where the verdict sends them */

#endif
