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

#define ZC_XSK_FRAME_DEFAULT	2048
#define ZC_XSK_NFRAMES_DEFAULT	1024
#define ZC_XSK_RING_DEFAULT	512

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int set_ring_size(int fd, int opt, uint32_t size)
{
	if (setsockopt(fd, SOL_XDP, opt, &size, sizeof(size)))
		return -errno;
	return 0;
}

/*
 * Map one ring. Producer rings (fill, tx) start with every slot free,
 * consumer rings (rx, completion) empty.
 */
static int map_ring(int fd, struct zc_xsk_ring *r, const struct xdp_ring_offset *off,
		    uint32_t size, size_t desc_size, off_t pgoff, bool producer)
{
	size_t len = off->desc + (size_t)size * desc_size;
	void *m;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		 fd, pgoff);
	if (m == MAP_FAILED)
		return -errno;
	r->map = m;
	r->map_len = len;
	r->producer = (uint32_t *)((char *)m + off->producer);
	r->consumer = (uint32_t *)((char *)m + off->consumer);
	r->flags = (uint32_t *)((char *)m + off->flags);
	r->descs = (char *)m + off->desc;
	r->size = size;
	r->mask = size - 1;
	r->cached_prod = *r->producer;
	r->cached_cons = *r->consumer;
	if (producer)
		r->cached_cons += size;
	return 0;
}

static void unmap_ring(struct zc_xsk_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	memset(r, 0, sizeof(*r));
}

static int register_umem(struct zc_xsk *x)
{
	struct xdp_umem_reg reg = {
		.addr = (uintptr_t)x->umem,
		.len = x->umem_len,
		.chunk_size = x->frame_size,
		.headroom = 0,
	};

	if (setsockopt(x->fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)))
		return -errno;
	return 0;
}

static int map_rings(struct zc_xsk *x, uint32_t ring_size)
{
	struct xdp_mmap_offsets off;
	socklen_t optlen = sizeof(off);
	int err;

	err = set_ring_size(x->fd, XDP_UMEM_FILL_RING, x->nframes);
	if (!err)
		err = set_ring_size(x->fd, XDP_UMEM_COMPLETION_RING, x->nframes);
	if (!err)
		err = set_ring_size(x->fd, XDP_RX_RING, ring_size);
	if (!err)
		err = set_ring_size(x->fd, XDP_TX_RING, ring_size);
	if (err)
		return err;
	if (getsockopt(x->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &optlen))
		return -errno;

	err = map_ring(x->fd, &x->fq, &off.fr, x->nframes, sizeof(uint64_t),
		       XDP_UMEM_PGOFF_FILL_RING, true);
	if (!err)
		err = map_ring(x->fd, &x->cq, &off.cr, x->nframes, sizeof(uint64_t),
			       XDP_UMEM_PGOFF_COMPLETION_RING, false);
	if (!err)
		err = map_ring(x->fd, &x->rx, &off.rx, ring_size,
			       sizeof(struct xdp_desc), XDP_PGOFF_RX_RING, false);
	if (!err)
		err = map_ring(x->fd, &x->tx, &off.tx, ring_size,
			       sizeof(struct xdp_desc), XDP_PGOFF_TX_RING, true);
	return err;
}

int zc_xsk_create(struct zc_xsk *x, const struct zc_xsk_cfg *cfg, int sock_fd)
{
	uint32_t ring_size = cfg && cfg->ring_size ? cfg->ring_size : ZC_XSK_RING_DEFAULT;
	uint32_t i;
	int err;

	memset(x, 0, sizeof(*x));
	x->fd = -1;
	x->frame_size = cfg && cfg->frame_size ? cfg->frame_size : ZC_XSK_FRAME_DEFAULT;
	x->nframes = cfg && cfg->nframes ? cfg->nframes : ZC_XSK_NFRAMES_DEFAULT;
	if (!is_pow2(x->frame_size) || x->frame_size < 2048 ||
	    !is_pow2(x->nframes) || !is_pow2(ring_size)) {
		if (sock_fd >= 0)
			close(sock_fd);
		return -EINVAL;
	}

	x->fd = sock_fd >= 0 ? sock_fd : socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (x->fd < 0)
		return -errno;

	x->umem_len = (size_t)x->frame_size * x->nframes;
	x->umem = mmap(NULL, x->umem_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (x->umem == MAP_FAILED) {
		x->umem = NULL;
		err = -errno;
		goto fail;
	}
	x->free_addr = calloc(x->nframes, sizeof(*x->free_addr));
	if (!x->free_addr) {
		err = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < x->nframes; i++)
		x->free_addr[i] = (uint64_t)(x->nframes - 1 - i) * x->frame_size;
	x->nfree = x->nframes;

	err = register_umem(x);
	if (!err)
		err = map_rings(x, ring_size);
	if (err)
		goto fail;
	return 0;
fail:
	zc_xsk_close(x);
	return err;
}

void zc_xsk_close(struct zc_xsk *x)
{
	unmap_ring(&x->fq);
	unmap_ring(&x->cq);
	unmap_ring(&x->rx);
	unmap_ring(&x->tx);
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	if (x->umem)
		munmap(x->umem, x->umem_len);
	x->umem = NULL;
	free(x->free_addr);
	x->free_addr = NULL;
	x->nfree = 0;
}

int zc_xsk_stats(const struct zc_xsk *x, struct xdp_statistics *st)
{
	socklen_t optlen = sizeof(*st);

	memset(st, 0, sizeof(*st));
	if (getsockopt(x->fd, SOL_XDP, XDP_STATISTICS, st, &optlen))
		return -errno;
	return 0;
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
