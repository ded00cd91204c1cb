// SPDX-License-Identifier: GPL-2.0
/*
 * Zero-copy sink: counts and drops packets at tc clsact ingress of the
 * receiving veth. Dropping there frees the skb without delivering it to a
 * socket, so nothing copies the sender's pages; XDP drop on veth would hide
 * a copy (skb_pp_cow_data) and local delivery always copies.
 *
 * With drop_port set, only UDP datagrams to that port are dropped and
 * everything else passes, so one topology can hold the sink and real
 * receivers at once.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/types.h>
#include <linux/udp.h>
#include <stddef.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* Set by user space: UDP destination port (host order), 0 = drop all. */
__u32 drop_port;

/* Read by user space through the mmap'ed .bss. */
__u64 pkts;
__u64 bytes;

static __always_inline int udp_dport(struct __sk_buff *skb)
{
	__u32 l4 = 0;
	__u8 proto = 0, ihl;
	__be16 port;

	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		if (bpf_skb_load_bytes(skb, ETH_HLEN, &ihl, 1) ||
		    bpf_skb_load_bytes(skb, ETH_HLEN + offsetof(struct iphdr, protocol),
				       &proto, 1))
			return -1;
		l4 = ETH_HLEN + (ihl & 0x0f) * 4;
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		/* The topology sends no extension headers. */
		if (bpf_skb_load_bytes(skb, ETH_HLEN + offsetof(struct ipv6hdr, nexthdr),
				       &proto, 1))
			return -1;
		l4 = ETH_HLEN + sizeof(struct ipv6hdr);
	}
	if (proto != IPPROTO_UDP ||
	    bpf_skb_load_bytes(skb, l4 + offsetof(struct udphdr, dest), &port, 2))
		return -1;
	return bpf_ntohs(port);
}

SEC("tc")
int zc_tc_drop(struct __sk_buff *skb)
{
	if (drop_port && udp_dport(skb) != (int)drop_port)
		return TC_ACT_OK;
	__sync_fetch_and_add(&pkts, 1);
	__sync_fetch_and_add(&bytes, skb->len);
	return TC_ACT_SHOT;
}
