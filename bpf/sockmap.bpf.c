// SPDX-License-Identifier: GPL-2.0
/*
 * sk_skb stream verdict programs for tests/sockmap_splice.c, loaded and
 * attached by lib/sockmap/sockmap.c. The map holds the producer's peer p1 at
 * ZC_SM_KEY_RX and the consumer c2 at ZC_SM_KEY_TARGET; whichever program
 * the topology attaches decides where the bytes arriving on p1 go.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "sockmap_abi.h"

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} zc_sm_map SEC(".maps");

/*
 * Verdicts run, so a test can tell "program never ran" from "bytes lost".
 * A named map rather than a global: leak checks find maps by the zc_ prefix.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} zc_sm_count SEC(".maps");

static __always_inline void zc_count(void)
{
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&zc_sm_count, &key);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* Into the target's receive queue: what bench_sockmap calls rx-verdict-ingress. */
SEC("sk_skb/stream_verdict")
int zc_sm_ingress(struct __sk_buff *skb)
{
	zc_count();
	return bpf_sk_redirect_map(skb, &zc_sm_map, ZC_SM_KEY_TARGET,
				   BPF_F_INGRESS);
}

/* Out of the target socket, so the bytes arrive at the target's TCP peer. */
SEC("sk_skb/stream_verdict")
int zc_sm_egress(struct __sk_buff *skb)
{
	zc_count();
	return bpf_sk_redirect_map(skb, &zc_sm_map, ZC_SM_KEY_TARGET, 0);
}

/* Bytes stay on the socket they arrived on, queued through the psock. */
SEC("sk_skb/stream_verdict")
int zc_sm_pass(struct __sk_buff *skb)
{
	zc_count();
	return SK_PASS;
}

char _license[] SEC("license") = "GPL";
