// SPDX-License-Identifier: GPL-2.0
/*
 * tap_copy's XDP sink: drops everything at the receiving veth in native
 * mode and counts it. Frags-aware so it attaches while the peer's MTU is
 * 65535; veth then runs skb_pp_cow_data on every zero-copy skb (the copy
 * the sender's completion does not report).
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* Read by user space through the mmap'ed .bss. */
__u64 pkts;

SEC("xdp.frags")
int zc_tap_xdp_drop(struct xdp_md *ctx)
{
	__sync_fetch_and_add(&pkts, 1);
	return XDP_DROP;
}
