// SPDX-License-Identifier: GPL-2.0
/*
 * Slowdown injector (ZC_INJECT_SLOW=N): a fixed kernel-side cost on the
 * transmit path, to validate the comparison tool with a regression of a
 * known size. Every packet the test's own process hands to a device
 * (the net_dev_start_xmit tracepoint, in the sender's context) burns
 * `loops` iterations of bpf_loop before the driver sees it.
 *
 * A raw tracepoint, not fentry: fentry is refused on some VMs (EPERM) and
 * raw tracepoints load everywhere bpf_loop exists (5.17). The program is
 * global, so it filters on the owning tgid: other processes' traffic,
 * including concurrent runs of the suite, keeps its speed.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load. */
const volatile __u32 target_tgid;
const volatile __u32 loops;

/* Read by user space through the mmap'ed .bss. */
__u64 pkts;
__u64 foreign;

static long burn(__u64 i, void *ctx)
{
	__u64 *acc = ctx;

	/* A dependent multiply-add the verifier cannot fold away. */
	*acc = *acc * 6364136223846793005ULL + i;
	return 0;
}

SEC("raw_tp/net_dev_start_xmit")
int zc_slow_xmit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 acc = 1;

	if ((__u32)(bpf_get_current_pid_tgid() >> 32) != target_tgid) {
		__sync_fetch_and_add(&foreign, 1);
		return 0;
	}
	bpf_loop(loops, burn, &acc, 0);
	/* Keep the result alive; adds 0 or 1 only. */
	__sync_fetch_and_add(&pkts, 1 + (acc == 0));
	return 0;
}
