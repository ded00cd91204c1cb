// SPDX-License-Identifier: GPL-2.0
/*
 * XDP programs for tests/xsk_bind.c.
 * zc_xsk_redirect hands test frames to the AF_XDP socket bound to the
 * receive queue; zc_xdp_count counts (and with verify checks) test frames
 * and drops them: the native XDP_DROP reference rate, and the counter at
 * the peer for tx-only and l2fwd. Other frames pass, so neighbour traffic
 * never skews the accounting.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <stdbool.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xsk_abi.h"

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} zc_xsk_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ZC_XSK_C_NSLOTS);
	__type(key, __u32);
	__type(value, __u64);
} zc_xsk_cnt SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct zc_xsk_cfg_val);
} zc_xsk_cfg SEC(".maps");

static __always_inline void zc_bump(__u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(&zc_xsk_cnt, &slot);

	if (v)
		*v += 1;	/* per-CPU slot: no atomics needed */
}

/* The test header, or NULL for any other frame. */
static __always_inline struct zc_xsk_hdr *zc_test_hdr(void *data, void *data_end)
{
	struct ethhdr *eth = data;
	struct zc_xsk_hdr *h = (void *)(eth + 1);

	if ((void *)(h + 1) > data_end)
		return NULL;
	if (eth->h_proto != bpf_htons(ZC_XSK_ETHERTYPE))
		return NULL;
	return h;
}

static __always_inline int zc_check(struct zc_xsk_hdr *h, void *data,
				    void *data_end)
{
	__u8 *p = (void *)(h + 1);
	__u64 seq = h->seq;
	__u32 i;

	if (h->magic != ZC_XSK_MAGIC || h->len != data_end - data)
		return -1;
#pragma clang loop unroll(disable)
	for (i = 0; i < ZC_XSK_MAX_CHECK; i++) {
		if (p + i + 1 > (__u8 *)data_end)
			break;
		if (p[i] != zc_xsk_pattern(seq, i))
			return -1;
	}
	return 0;
}

static __always_inline long zc_redirect(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	long ret;

	if (!zc_test_hdr(data, data_end))
		return -1;
	zc_bump(ZC_XSK_C_SEEN);
	ret = bpf_redirect_map(&zc_xsk_map, ctx->rx_queue_index, XDP_PASS);
	zc_bump(ret == XDP_REDIRECT ? ZC_XSK_C_REDIRECT : ZC_XSK_C_MISS);
	return ret;
}

/* Without the per-frame witness: kernels before bpf_cast_to_kern_ctx (6.2). */
SEC("xdp")
int zc_xsk_redirect(struct xdp_md *ctx)
{
	long ret = zc_redirect(ctx);

	return ret < 0 ? XDP_PASS : ret;
}

/*
 * The kernel's view of the frame, only the fields read (CO-RE relocates
 * them against the running kernel's BTF).
 */
enum xdp_mem_type___zc { MEM_TYPE_XSK_BUFF_POOL___zc = 3 };
struct xdp_mem_info___zc {
	__u32 type;
} __attribute__((preserve_access_index));
struct xdp_rxq_info___zc {
	struct xdp_mem_info___zc mem;
} __attribute__((preserve_access_index));
struct xdp_buff___zc {
	struct xdp_rxq_info___zc *rxq;
} __attribute__((preserve_access_index));

/* weak: on kernels without it (6.1) the object still loads, without this program */
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym __weak;

/*
 * The same, and the per-frame witness: which memory the frame sits in
 * decides the socket's receive path (net/xdp/xsk.c xsk_rcv): only a frame
 * in the socket's own pool (MEM_TYPE_XSK_BUFF_POOL, a zero-copy driver
 * received into it) goes to xsk_rcv_zc; any other is copied by __xsk_rcv.
 * A generic (skb-mode) program's frames sit in the skb, so they count as
 * copies, as xsk_generic_rcv copies them.
 */
SEC("xdp")
int zc_xsk_redirect_wit(struct xdp_md *ctx)
{
	struct xdp_buff___zc *kctx = bpf_cast_to_kern_ctx(ctx);
	struct zc_xsk_cfg_val *cfg;
	__u32 key = 0;
	bool pool;
	long ret;

	ret = zc_redirect(ctx);
	if (ret < 0)
		return XDP_PASS;
	if (ret != XDP_REDIRECT)
		return ret;
	pool = kctx->rxq->mem.type ==
	       bpf_core_enum_value(enum xdp_mem_type___zc, MEM_TYPE_XSK_BUFF_POOL___zc);
	cfg = bpf_map_lookup_elem(&zc_xsk_cfg, &key);
	if (cfg && cfg->lie)
		pool = !pool;
	zc_bump(pool ? ZC_XSK_C_POOL : ZC_XSK_C_NOPOOL);
	return ret;
}

SEC("xdp")
int zc_xdp_count(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct zc_xsk_cfg_val *cfg;
	struct zc_xsk_hdr *h;
	__u32 key = 0;

	h = zc_test_hdr(data, data_end);
	cfg = bpf_map_lookup_elem(&zc_xsk_cfg, &key);
	if (!h) {
		if (!cfg || !cfg->count_any)
			return XDP_PASS;
		zc_bump(ZC_XSK_C_COUNT);
		return XDP_DROP;
	}
	zc_bump(ZC_XSK_C_COUNT);
	if (cfg && cfg->verify && zc_check(h, data, data_end))
		zc_bump(ZC_XSK_C_BAD);
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
