// SPDX-License-Identifier: GPL-2.0
/*
 * Splice copy witness: pages the kernel allocates inside a splice(2) call
 * from a socket into a pipe. A splice_read that puts the socket's pages
 * into the pipe by reference allocates none; one that copies allocates a
 * page per page of data. It knows no kernel function by name: user space
 * arms it for one thread around each splice call (armed_tid, through the
 * mmap'ed .bss) and counts the bytes that call returned itself.
 * tp_btf, and raw_tp for kernels without it; user space loads one.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

__u32 target_tgid;
__u32 armed_tid;	/* 0: off */

/* Read by user space. */
__u64 pages;		/* 4 KiB pages allocated while armed */
__u64 allocs;		/* allocations while armed (any order) */

static __always_inline int on_page_alloc(__u64 order)
{
	__u64 id = bpf_get_current_pid_tgid();

	if (!armed_tid || (__u32)id != armed_tid || (id >> 32) != target_tgid)
		return 0;
	__sync_fetch_and_add(&pages, 1ULL << (order & 15));
	__sync_fetch_and_add(&allocs, 1);
	return 0;
}

/* mm_page_alloc(struct page *page, unsigned int order, gfp_t, int) */
SEC("tp_btf/mm_page_alloc")
int zc_spl_page_btf(__u64 *ctx)
{
	return on_page_alloc(ctx[1]);
}

SEC("raw_tp/mm_page_alloc")
int zc_spl_page_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return on_page_alloc(ctx->args[1]);
}
