// SPDX-License-Identifier: GPL-2.0
/* AF_XDP sockets on the raw UAPI; see xsk.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "xsk/xsk.h"

int zc_xsk_fd_stats(int fd, struct xdp_statistics *st)
{
	socklen_t optlen = sizeof(*st);

	memset(st, 0, sizeof(*st));
	if (getsockopt(fd, SOL_XDP, XDP_STATISTICS, st, &optlen))
		return -errno;
	return 0;
}

int zc_xsk_stats(const struct zc_xsk *x, struct xdp_statistics *st)
{
	return zc_xsk_fd_stats(x->fd, st);
}

int zc_xsk_kick_tx(const struct zc_xsk *x)
{
	if (sendto(x->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0)
		return -errno;
	return 0;
}

int zc_xsk_wakeup_rx(const struct zc_xsk *x)
{
	if (recvfrom(x->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL) < 0 &&
	    errno != EAGAIN)
		return -errno;
	return 0;
}

uint32_t zc_xsk_fill(struct zc_xsk *x, uint32_t n)
{
	uint32_t idx, i;

	if (n > x->nfree)
		n = x->nfree;
	n = zc_ring_prod_reserve(&x->fq, n, &idx);
	for (i = 0; i < n; i++)
		*zc_ring_addr(&x->fq, idx + i) = x->free_addr[--x->nfree];
	if (n)
		zc_ring_prod_submit(&x->fq);
	return n;
}

uint32_t zc_xsk_complete(struct zc_xsk *x, uint32_t n)
{
	uint32_t idx, i;

	n = zc_ring_cons_peek(&x->cq, n, &idx);
	for (i = 0; i < n; i++)
		x->free_addr[x->nfree++] = *zc_ring_addr(&x->cq, idx + i);
	if (n)
		zc_ring_cons_release(&x->cq);
	return n;
}

void zc_xsk_frame_build(void *buf, uint32_t len, const uint8_t dst[6],
			const uint8_t src[6], uint64_t seq, bool payload)
{
	uint8_t *p = buf;
	struct zc_xsk_hdr h = {
		.magic = ZC_XSK_MAGIC,
		.len = len,
		.seq = seq,
	};
	uint16_t proto = htons(ZC_XSK_ETHERTYPE);
	uint32_t i;

	memcpy(p, dst, 6);
	memcpy(p + 6, src, 6);
	memcpy(p + 12, &proto, 2);
	memcpy(p + ZC_XSK_ETH_LEN, &h, sizeof(h));
	if (!payload)
		return;
	for (i = 0; i < len - ZC_XSK_HDR_LEN; i++)
		p[ZC_XSK_HDR_LEN + i] = zc_xsk_pattern(seq, i);
}

void zc_xsk_frame_set_seq(void *buf, uint64_t seq)
{
	memcpy((uint8_t *)buf + ZC_XSK_ETH_LEN + offsetof(struct zc_xsk_hdr, seq), &seq,
	       sizeof(seq));
}

int zc_xsk_frame_check(const void *buf, uint32_t len, bool check_payload,
		       uint64_t *seq, struct zc_why *why)
{
	const uint8_t *p = buf;
	struct zc_xsk_hdr h;
	uint16_t proto;
	uint32_t i;

	if (len < ZC_XSK_HDR_LEN)
		return zc_why_set(why, "frame of %u bytes is shorter than the header", len);
	memcpy(&proto, p + 12, 2);
	memcpy(&h, p + ZC_XSK_ETH_LEN, sizeof(h));
	if (ntohs(proto) != ZC_XSK_ETHERTYPE || h.magic != ZC_XSK_MAGIC) {
		return zc_why_set(why, "not a test frame (ethertype 0x%04x magic 0x%08x)",
				  ntohs(proto), h.magic);
	}
	*seq = h.seq;
	if (h.len != len) {
		return zc_why_set(why, "frame %llu is %u bytes, sent as %u",
				  (unsigned long long)h.seq, len, h.len);
	}
	if (!check_payload)
		return 0;
	for (i = 0; i < len - ZC_XSK_HDR_LEN; i++) {
		uint8_t want = zc_xsk_pattern(h.seq, i);

		if (p[ZC_XSK_HDR_LEN + i] != want) {
			return zc_why_set(why,
					  "frame %llu payload byte %u is 0x%02x, expected 0x%02x",
					  (unsigned long long)h.seq, i,
					  p[ZC_XSK_HDR_LEN + i], want);
		}
	}
	return 0;
}

void zc_xsk_swap_mac(void *buf)
{
	uint8_t tmp[6], *p = buf;

	memcpy(tmp, p, 6);
	memcpy(p, p + 6, 6);
	memcpy(p + 6, tmp, 6);
}
