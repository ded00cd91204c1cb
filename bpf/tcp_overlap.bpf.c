// SPDX-License-Identifier: GPL-2.0
/*
 * TCP segments that overlap what the receiver already has, on the
 * sockmap topology's lo (lib/sockmap/overlap.c). A retransmission that
 * begins below the receiver's rcv_nxt and ends above it is queued whole
 * by TCP; plain readers skip its head by sequence number, a reader that
 * takes the skb whole (tcp_read_skb) would deliver the head twice.
 *
 * Watch: every data segment of the flow dport <- sport is compared with
 * the highest end sequence seen so far; one that starts below it and
 * ends above it is counted with its overlap, one that ends below it
 * (a whole retransmission) is counted apart, and one sent again whose
 * end falls inside a later-starting segment seen before (the shape that
 * overlaps an out-of-order queue) as a split.
 *
 * Force (armed): data segments of exactly drop_len payload bytes are
 * dropped, and so are the receiver's pure ACKs, so the sender's timer
 * retransmits from the last acknowledged byte what the receiver has and
 * what it lost as one segment.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <linux/types.h>
#include <stddef.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* Set by user space: the data flow's ports, host order. */
__u32 sport;
__u32 dport;
/* Force: drop data of this payload length and pure ACKs while armed. */
__u32 drop_len;
__u32 armed;

/* Read by user space through the mmap'ed .bss. */
__u64 data_segs;
__u64 overlaps;		/* segments that began below the highest end seen */
__u64 overlap_last;	/* the last one's bytes below it */
__u64 repeats;		/* segments wholly below it: sent again whole */
__u64 dropped_data;
__u64 dropped_acks;
__u64 splits;		/* sent again, ending inside a segment seen before */
__u64 split_last;	/* its bytes beyond that segment's start */
__u32 high;		/* highest end sequence seen, valid once data_segs */

/* The last RING data segments seen, for splits. */
#define RING	64
__u32 ring_seq[RING];
__u32 ring_end[RING];

struct seg {
	__u16 sport, dport;
	__u32 seq;
	__u32 len;		/* payload */
	__u8 flags;		/* byte 13 of the TCP header */
};

static __always_inline int parse(struct __sk_buff *skb, struct seg *s)
{
	struct iphdr ip;
	struct tcphdr th;
	__u32 l4;

	if (skb->protocol != bpf_htons(ETH_P_IP) ||
	    bpf_skb_load_bytes(skb, ETH_HLEN, &ip, sizeof(ip)) ||
	    ip.protocol != IPPROTO_TCP)
		return -1;
	l4 = ETH_HLEN + ip.ihl * 4;
	if (bpf_skb_load_bytes(skb, l4, &th, sizeof(th)))
		return -1;
	s->sport = bpf_ntohs(th.source);
	s->dport = bpf_ntohs(th.dest);
	s->seq = bpf_ntohl(th.seq);
	s->len = bpf_ntohs(ip.tot_len) - ip.ihl * 4 - th.doff * 4;
	bpf_skb_load_bytes(skb, l4 + 13, &s->flags, 1);
	return 0;
}

/*
 * A segment sent again whose end falls inside one the receiver may hold
 * (out of order): the queue gets that one's head a second time.
 */
static __always_inline void split(__u32 seq, __u32 end)
{
	__u32 i;

	for (i = 0; i < RING; i++) {
		__u32 s = ring_seq[i], e = ring_end[i];

		if (s != e && (int)(end - s) > 0 && (int)(e - end) > 0 &&
		    (int)(s - seq) > 0) {
			__sync_fetch_and_add(&splits, 1);
			split_last = end - s;
			return;
		}
	}
}

static __always_inline void watch(const struct seg *s)
{
	__u32 end = s->seq + s->len;
	__u32 slot;

	if (data_segs && (int)(s->seq - high) < 0)
		split(s->seq, end);
	slot = data_segs % RING;
	ring_seq[slot] = s->seq;
	ring_end[slot] = end;

	if (data_segs && (int)(s->seq - high) < 0 && (int)(end - high) > 0) {
		__sync_fetch_and_add(&overlaps, 1);
		overlap_last = high - s->seq;
	} else if (data_segs && (int)(end - high) <= 0) {
		__sync_fetch_and_add(&repeats, 1);
	}
	if (!data_segs || (int)(end - high) > 0)
		high = end;
	__sync_fetch_and_add(&data_segs, 1);
}

SEC("tc")
int zc_tcp_overlap(struct __sk_buff *skb)
{
	struct seg s;

	if (parse(skb, &s))
		return TC_ACT_OK;
	if (s.sport == sport && s.dport == dport && s.len) {
		if (armed && s.len == drop_len) {
			__sync_fetch_and_add(&dropped_data, 1);
			return TC_ACT_SHOT;
		}
		watch(&s);
	} else if (armed && s.sport == dport && s.dport == sport && !s.len &&
		   (s.flags & 0x17) == 0x10) {
		/* ACK alone: no SYN, FIN or RST */
		__sync_fetch_and_add(&dropped_acks, 1);
		return TC_ACT_SHOT;
	}
	return TC_ACT_OK;
}
