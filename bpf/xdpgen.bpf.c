// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel frame generator for lib/xsk/xdpgen.c (what xdp-trafficgen does):
 * run by BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES, it stamps the next
 * sequence number (and, when verifying, the payload pattern of
 * bpf/xsk_abi.h) into the test frame and redirects it out of a device,
 * many frames per syscall. Live frames keep what the program wrote when
 * their page is recycled, so every field that varies is written each time.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

#include "xsk_abi.h"

__u32 zc_gen_ifindex;	/* redirect target, in the runner's namespace */
__u32 zc_gen_payload;	/* rewrite the payload pattern too */
__u64 zc_gen_seq;	/* next sequence number: frames generated */

SEC("xdp")
int zc_xdp_gen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct zc_xsk_hdr *h = data + ZC_XSK_ETH_LEN;
	__u8 *p = (void *)(h + 1);
	__u64 seq;
	__u32 i;

	/* Not counted: a frame too short for the header is never sent. */
	if ((void *)(h + 1) > data_end)
		return XDP_ABORTED;
	/* One runner thread: a plain increment keeps frames in order. */
	seq = zc_gen_seq++;
	h->seq = seq;
	if (!zc_gen_payload)
		return bpf_redirect(zc_gen_ifindex, 0);
#pragma clang loop unroll(disable)
	for (i = 0; i < ZC_XSK_MAX_CHECK; i++) {
		if (p + i + 1 > (__u8 *)data_end)
			break;
		p[i] = zc_xsk_pattern(seq, i);
	}
	return bpf_redirect(zc_gen_ifindex, 0);
}

char _license[] SEC("license") = "GPL";
