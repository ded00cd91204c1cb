// SPDX-License-Identifier: GPL-2.0
/*
 * Copy witness: counts how often the kernel copies zero-copy frags,
 * independently of the copied/zero-copy flag the socket reports.
 *
 * Two interchangeable sets of programs; user space loads one of them:
 * - fentry on skb_copy_ubufs and skb_pp_cow_data (exact calls), where the
 *   kernel allows fentry;
 * - tracepoints, for kernels that refuse fentry: mm_page_alloc with a
 *   kernel stack that passes through one of the functions (each page
 *   skb_copy_ubufs allocates for the copy), and consume_skb called from
 *   skb_pp_cow_data (one per call; its pages come from a page_pool, which
 *   recycles them without mm_page_alloc). Each exists as tp_btf and as
 *   raw_tp, the latter for kernels without tp_btf.
 * User space fills the address ranges of both functions from
 * /proc/kallsyms, and the tgid that owns the counts.
 *
 * Kernels before skb_pp_cow_data (6.8) copy for veth's XDP inline in the
 * veth module (veth_xdp_rcv_skb, alloc_page per page of the copy), where
 * the consume_skb tracepoint may not even carry a location (before 6.3):
 * there user space gives that function's range as the ZC_WIT_PP_COW kind
 * and sets cow_pages, and its pages are counted as hits instead, also
 * next to the fentry programs.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "witness_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space; enabled = 0 pauses every program (rate runs). */
__u32 enabled;
__u32 target_tgid;
__u32 nr_ranges;
__u32 cow_pages;	/* ZC_WIT_PP_COW counts pages, not consume_skb calls */
struct zc_wit_range ranges[ZC_WIT_MAX_RANGES];

/* Read by user space through the mmap'ed .bss. */
__u64 hits[ZC_WIT_NKINDS];	/* calls (fentry/consume_skb) or pages */
__u64 bytes[ZC_WIT_NKINDS];	/* bytes of pages allocated for copies */
__u64 softirqd[ZC_WIT_NKINDS];	/* the same, seen in ksoftirqd threads */
__u64 foreign[ZC_WIT_NKINDS];	/* the same, seen in other processes */
__u64 stack_errors;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[ZC_WIT_STACK_DEPTH]);
} stack_buf SEC(".maps");

static __always_inline int range_kind(__u64 ip)
{
	__u32 i;

	for (i = 0; i < ZC_WIT_MAX_RANGES; i++) {
		if (i >= nr_ranges)
			break;
		if (ip >= ranges[i].lo && ip < ranges[i].hi)
			return ranges[i].kind;
	}
	return -1;
}

static __always_inline bool is_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid;
}

static __always_inline void count_bytes(int kind, __u64 nbytes)
{
	if (kind >= 0 && kind < ZC_WIT_NKINDS && is_target())
		__sync_fetch_and_add(&bytes[kind], nbytes);
}

/*
 * Receive-side copies run in softirq: in the sender's context when the
 * softirq runs on its bh-enable, in ksoftirqd when deferred. The latter
 * cannot be told apart by process, so it is counted on its own.
 */
static __always_inline bool in_ksoftirqd(void)
{
	char comm[16];

	if (bpf_get_current_comm(comm, sizeof(comm)))
		return false;
	return comm[0] == 'k' && comm[1] == 's' && comm[2] == 'o' &&
	       comm[3] == 'f' && comm[4] == 't' && comm[5] == 'i' &&
	       comm[6] == 'r' && comm[7] == 'q' && comm[8] == 'd';
}

static __always_inline void count(int kind, __u64 nbytes)
{
	if (!enabled)
		return;
	if (kind < 0 || kind >= ZC_WIT_NKINDS)
		return;
	if (!is_target()) {
		if (in_ksoftirqd())
			__sync_fetch_and_add(&softirqd[kind], 1);
		else
			__sync_fetch_and_add(&foreign[kind], 1);
		return;
	}
	__sync_fetch_and_add(&hits[kind], 1);
	if (nbytes)
		__sync_fetch_and_add(&bytes[kind], nbytes);
}

struct frame_scan {
	__u64 *buf;
	long n;
	int kind;
};

static long scan_frame(__u32 i, void *arg)
{
	struct frame_scan *fs = arg;

	if (i >= fs->n || i >= ZC_WIT_STACK_DEPTH)
		return 1;
	fs->kind = range_kind(fs->buf[i]);
	return fs->kind >= 0;
}

/* Which witnessed function, if any, is on the current kernel stack. */
static __always_inline int stack_kind(void *ctx)
{
	struct frame_scan fs = { .kind = -1 };
	__u32 zero = 0;

	fs.buf = bpf_map_lookup_elem(&stack_buf, &zero);
	if (!fs.buf)
		return -1;
	fs.n = bpf_get_stack(ctx, fs.buf, ZC_WIT_STACK_DEPTH * sizeof(__u64), 0);
	if (fs.n < 0) {
		__sync_fetch_and_add(&stack_errors, 1);
		return -1;
	}
	fs.n /= sizeof(__u64);
	/* bpf_loop: the verifier checks the body once, not per frame */
	bpf_loop(ZC_WIT_STACK_DEPTH, scan_frame, &fs, 0);
	return fs.kind;
}

/* mm_page_alloc(struct page *page, unsigned int order, gfp_t, int) */
static __always_inline int on_page_alloc(void *ctx, __u64 order)
{
	__u64 nbytes = (__u64)ZC_WIT_PAGE_SIZE << (order & 15);
	int kind;

	if (!enabled || !nr_ranges)
		return 0;
	kind = stack_kind(ctx);
	/* skb_pp_cow_data calls are counted on consume_skb, pages here */
	if (kind == ZC_WIT_COPY_UBUFS || (kind == ZC_WIT_PP_COW && cow_pages))
		count(kind, nbytes);
	else if (kind == ZC_WIT_PP_COW)
		count_bytes(kind, nbytes);
	return 0;
}

/* consume_skb(struct sk_buff *skb, void *location) */
static __always_inline int on_consume_skb(__u64 location)
{
	int kind;

	if (!enabled || cow_pages)
		return 0;
	kind = range_kind(location);
	if (kind == ZC_WIT_PP_COW)
		count(kind, 0);
	return 0;
}

SEC("tp_btf/mm_page_alloc")
int zc_wit_page_btf(__u64 *ctx)
{
	return on_page_alloc(ctx, ctx[1]);
}

SEC("tp_btf/consume_skb")
int zc_wit_consume_btf(__u64 *ctx)
{
	return on_consume_skb(ctx[1]);
}

SEC("raw_tp/mm_page_alloc")
int zc_wit_page_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return on_page_alloc(ctx, ctx->args[1]);
}

SEC("raw_tp/consume_skb")
int zc_wit_consume_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return on_consume_skb(ctx->args[1]);
}

SEC("fentry/skb_copy_ubufs")
int zc_wit_copy_fentry(__u64 *ctx)
{
	count(ZC_WIT_COPY_UBUFS, 0);
	return 0;
}

SEC("fentry/skb_pp_cow_data")
int zc_wit_cow_fentry(__u64 *ctx)
{
	count(ZC_WIT_PP_COW, 0);
	return 0;
}

/*
 * AF_XDP: the kernel's functions that decide copy or zero-copy, counted
 * for one device (xsk_ifindex in the namespace with inode xsk_netns).
 * xsk_rcv_zc and xsk_build_skb are inlined in Debian's kernels, so a
 * zero-copy receive is a native redirect that __xsk_rcv did not copy, and
 * a copy-mode transmit is counted where its skb is freed (xsk_destruct_skb)
 * or, where fentry is refused, where its skb is allocated: the
 * kmem_cache_alloc tracepoint with __xsk_generic_xmit on the stack.
 */
__u32 xsk_ifindex;
__u32 xsk_netns;
__u64 xsk_hits[ZC_WIT_XSK_N];

struct ns_common___zc {
	unsigned int inum;
} __attribute__((preserve_access_index));
struct net___zc {
	struct ns_common___zc ns;
} __attribute__((preserve_access_index));
struct possible_net_t___zc {
	struct net___zc *net;
} __attribute__((preserve_access_index));
struct net_device___zc {
	int ifindex;
	struct possible_net_t___zc nd_net;
} __attribute__((preserve_access_index));
struct xdp_sock___zc {
	struct net_device___zc *dev;
} __attribute__((preserve_access_index));
struct xsk_buff_pool___zc {
	struct net_device___zc *netdev;
} __attribute__((preserve_access_index));
struct sock___zc {
	int x;
} __attribute__((preserve_access_index));
struct sk_buff___zc {
	struct sock___zc *sk;
} __attribute__((preserve_access_index));
struct kmem_cache___zc {
	unsigned int object_size;
} __attribute__((preserve_access_index));

/*
 * Read through BPF_CORE_READ (probe reads): xsk_destruct_skb's socket is
 * a struct sock to the verifier, too small for struct xdp_sock's fields.
 */
static __always_inline bool xsk_dev_is_ours(struct net_device___zc *dev)
{
	return dev && BPF_CORE_READ(dev, ifindex) == xsk_ifindex &&
	       BPF_CORE_READ(dev, nd_net.net, ns.inum) == xsk_netns;
}

static __always_inline void xsk_count(struct net_device___zc *dev, int kind, __u64 n)
{
	if (enabled && xsk_dev_is_ours(dev))
		__sync_fetch_and_add(&xsk_hits[kind], n);
}

SEC("fentry/__xsk_map_redirect")
int BPF_PROG(zc_wit_xsk_redirect, struct xdp_sock___zc *xs)
{
	xsk_count(BPF_CORE_READ(xs, dev), ZC_WIT_XSK_REDIRECT, 1);
	return 0;
}

SEC("fentry/__xsk_rcv")
int BPF_PROG(zc_wit_xsk_rcv, struct xdp_sock___zc *xs)
{
	xsk_count(BPF_CORE_READ(xs, dev), ZC_WIT_XSK_RCV_COPY, 1);
	return 0;
}

SEC("fentry/xsk_generic_rcv")
int BPF_PROG(zc_wit_xsk_generic, struct xdp_sock___zc *xs)
{
	xsk_count(BPF_CORE_READ(xs, dev), ZC_WIT_XSK_GENERIC, 1);
	return 0;
}

SEC("fexit/xsk_tx_peek_release_desc_batch")
int BPF_PROG(zc_wit_xsk_tx_batch, struct xsk_buff_pool___zc *pool, __u32 max, __u32 ret)
{
	xsk_count(BPF_CORE_READ(pool, netdev), ZC_WIT_XSK_TX_ZC, ret);
	return 0;
}

SEC("fexit/xsk_tx_peek_desc")
int BPF_PROG(zc_wit_xsk_tx_desc, struct xsk_buff_pool___zc *pool, void *desc, bool ret)
{
	xsk_count(BPF_CORE_READ(pool, netdev), ZC_WIT_XSK_TX_ZC, ret ? 1 : 0);
	return 0;
}

SEC("fentry/xsk_destruct_skb")
int BPF_PROG(zc_wit_xsk_destruct, struct sk_buff___zc *skb)
{
	/* struct xdp_sock starts with its struct sock */
	struct xdp_sock___zc *xs = (void *)BPF_CORE_READ(skb, sk);

	if (xs)
		xsk_count(BPF_CORE_READ(xs, dev), ZC_WIT_XSK_TX_COPY, 1);
	return 0;
}

/*
 * Where fentry is refused: the skb head (one per frame) allocated in this
 * process under __xsk_generic_xmit. kmem_cache_alloc(call_site, ptr, s, ...)
 */
SEC("tp_btf/kmem_cache_alloc")
int zc_wit_xsk_tx_alloc(__u64 *ctx)
{
	struct kmem_cache___zc *s = (void *)ctx[2];

	if (!enabled || !nr_ranges || !is_target())
		return 0;
	if (!s || s->object_size != bpf_core_type_size(struct sk_buff___zc))
		return 0;
	if (stack_kind(ctx) == ZC_WIT_XSK_XMIT)
		__sync_fetch_and_add(&xsk_hits[ZC_WIT_XSK_TX_COPY], 1);
	return 0;
}
