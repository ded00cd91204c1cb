/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_XDP on the raw UAPI (linux/if_xdp.h), no libxdp: the UAPI is what the
 * tests check. One socket owns one UMEM and all four rings. Also builds and
 * checks the test frames of bpf/xsk_abi.h (a pattern of its own rather than
 * zc_pattern_fill(), because an XDP program checks it too).
 */
#ifndef ZC_XSK_H
#define ZC_XSK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/if_xdp.h>

#include "core/compat.h"
#include "core/why.h"
#include "bpf/xsk_abi.h"

/* libc headers older than AF_XDP */
#ifndef AF_XDP
#define AF_XDP		44
#endif
#ifndef SOL_XDP
#define SOL_XDP		283
#endif

/* A flag no kernel defines (bind must refuse it with EINVAL). */
#define ZC_XDP_UNKNOWN_FLAG	(1 << 15)

struct zc_xsk_ring {
	uint32_t *producer;
	uint32_t *consumer;
	uint32_t *flags;
	void *descs;		/* __u64 addrs (fill, completion) or struct xdp_desc */
	uint32_t size, mask;
	/* producer rings keep consumer + size here, consumer rings producer */
	uint32_t cached_prod, cached_cons;
	void *map;
	size_t map_len;
};

/*
 * One socket, its UMEM and its four rings; the test makes and binds it
 * (tests/xsk_bind.c: xsk_open, xsk_bind), the data paths here move
 * frames through it.
 */
struct zc_xsk {
	int fd;
	void *umem;
	size_t umem_len;
	uint32_t frame_size, nframes;
	struct zc_xsk_ring fq, cq, rx, tx;
	uint64_t *free_addr;	/* frames owned by user space */
	uint32_t nfree;
	/* Where and how the test's bind(2) bound it (the XSKMAP key is the queue). */
	int ifindex;
	uint32_t queue;
	uint16_t bind_flags;
};

int zc_xsk_stats(const struct zc_xsk *x, struct xdp_statistics *st);
/* The same for any AF_XDP socket's fd (another program's, duplicated). */
int zc_xsk_fd_stats(int fd, struct xdp_statistics *st);

/*
 * Wakeups. kick_tx is sendto(MSG_DONTWAIT): 0, or -errno where EAGAIN and
 * ENOBUFS mean "try again" and EBUSY means one frame was dropped by the
 * device after it was taken from the ring (it still completes).
 */
int zc_xsk_kick_tx(const struct zc_xsk *x);
int zc_xsk_wakeup_rx(const struct zc_xsk *x);

/* Move up to n free frames to the fill ring; returns how many moved. */
uint32_t zc_xsk_fill(struct zc_xsk *x, uint32_t n);
/* Drain up to n completions back to the free list; returns how many. */
uint32_t zc_xsk_complete(struct zc_xsk *x, uint32_t n);

static inline void *zc_xsk_data(const struct zc_xsk *x, uint64_t addr)
{
	return (char *)x->umem + addr;
}

/* Producer side (fill, tx) */
/* Free slots of a producer ring, up to want, without reserving them. */
static inline uint32_t zc_ring_prod_free(struct zc_xsk_ring *r, uint32_t want)
{
	uint32_t free = r->cached_cons - r->cached_prod;

	if (free < want) {
		r->cached_cons = __atomic_load_n(r->consumer, __ATOMIC_ACQUIRE) +
				 r->size;
		free = r->cached_cons - r->cached_prod;
	}
	return free < want ? free : want;
}

/* Reserve up to n slots, *idx the first; returns how many. */
static inline uint32_t zc_ring_prod_reserve(struct zc_xsk_ring *r, uint32_t n,
					    uint32_t *idx)
{
	n = zc_ring_prod_free(r, n);
	*idx = r->cached_prod;
	r->cached_prod += n;
	return n;
}

/* Publish everything reserved so far. */
static inline void zc_ring_prod_submit(struct zc_xsk_ring *r)
{
	__atomic_store_n(r->producer, r->cached_prod, __ATOMIC_RELEASE);
}

/* Consumer side (rx, completion): up to n filled slots, *idx the first. */
static inline uint32_t zc_ring_cons_peek(struct zc_xsk_ring *r, uint32_t n,
					 uint32_t *idx)
{
	uint32_t avail = r->cached_prod - r->cached_cons;

	if (avail < n) {
		r->cached_prod = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
		avail = r->cached_prod - r->cached_cons;
	}
	if (n > avail)
		n = avail;
	*idx = r->cached_cons;
	r->cached_cons += n;
	return n;
}

/* Hand everything peeked so far back to the kernel. */
static inline void zc_ring_cons_release(struct zc_xsk_ring *r)
{
	__atomic_store_n(r->consumer, r->cached_cons, __ATOMIC_RELEASE);
}

static inline uint64_t *zc_ring_addr(const struct zc_xsk_ring *r, uint32_t idx)
{
	return &((uint64_t *)r->descs)[idx & r->mask];
}

static inline struct xdp_desc *zc_ring_desc(const struct zc_xsk_ring *r,
					    uint32_t idx)
{
	return &((struct xdp_desc *)r->descs)[idx & r->mask];
}

static inline bool zc_ring_needs_wakeup(const struct zc_xsk_ring *r)
{
	return __atomic_load_n(r->flags, __ATOMIC_RELAXED) & XDP_RING_NEED_WAKEUP;
}

/* Entries the kernel has not consumed yet (producer rings). */
static inline uint32_t zc_ring_prod_pending(const struct zc_xsk_ring *r)
{
	return r->cached_prod - __atomic_load_n(r->consumer, __ATOMIC_ACQUIRE);
}

/* Test frames (format in bpf/xsk_abi.h) */
#define ZC_XSK_MIN_FRAME	ZC_XSK_HDR_LEN

/*
 * Build a frame of len bytes (len >= ZC_XSK_MIN_FRAME). With payload false
 * only the headers are written (the body stays whatever it was).
 */
void zc_xsk_frame_build(void *buf, uint32_t len, const uint8_t dst[6],
			const uint8_t src[6], uint64_t seq, bool payload);
/* Restamp only the sequence number of a frame built before. */
void zc_xsk_frame_set_seq(void *buf, uint64_t seq);
/*
 * Check a received frame: 0 if good (seq in *seq), else -1 with a one-line
 * reason in why ("bad magic", "payload byte 17 is 0x12, expected 0x34", ...).
 * check_payload false checks only the headers and the length.
 */
int zc_xsk_frame_check(const void *buf, uint32_t len, bool check_payload,
		       uint64_t *seq, struct zc_why *why);
/* Swap destination and source MAC (l2fwd). */
void zc_xsk_swap_mac(void *buf);

#endif
