/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test frames (bpf/xsk_abi.h) into side a of a topology from side b:
 * BPF_PROG_RUN live frames (lib/xsk/xdpgen.h) where a runs NAPI (native XDP),
 * else an AF_PACKET socket, qdisc bypassed, one frame per send. On a
 * real pair the AF_PACKET sender keeps at most ZC_XSK_PAIR_WINDOW frames
 * in flight beyond what the receiver took.
 *
 * ZC_XDPGEN=0 in the environment turns the live generator off (doc/tests.md:
 * under qemu TCG its BPF_PROG_RUN re-pointing the XDP dispatcher
 * panicked a guest; tools/vmtest sets it there).
 */
#ifndef ZC_XSK_GEN_H
#define ZC_XSK_GEN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "net/netns.h"
#include "core/why.h"

#define ZC_XSK_FRAME_MAX	1514	/* 1500 MTU plus the Ethernet header */
/*
 * Frames in flight on a real pair: qemu's hub (and a real switch) drops
 * or reorders what the receiver has no buffer for, unseen by either
 * driver; below the rx ring's size every frame stays accounted for.
 */
#define ZC_XSK_PAIR_WINDOW	128

struct zc_xdpgen;

struct zc_xsk_gen {
	struct zc_xdpgen *live;	/* in-kernel generator, or NULL */
	int fd;			/* AF_PACKET on side b */
	int cpu;
	bool payload;		/* rewrite the payload of every frame */
	uint32_t len;
	uint8_t frame[ZC_XSK_FRAME_MAX];
	uint8_t dst[6], src[6];
	uint64_t seq, sent, dropped, max;
	/*
	 * Real pair: the receiving socket's rx ring consumer index (frames
	 * the program took out of the ring, whichever program it is: a
	 * program refills its fill ring before it releases them) and the
	 * socket, whose rx drops (ring full, no fill buffer) land too:
	 * their values when the generator started, the drops when last
	 * read (only while the window holds the generator back).
	 */
	const uint32_t *acked;
	int acked_fd;
	uint32_t acked_base;
	uint64_t drops_base, drops;
	uint64_t waits;		/* sends held back by ZC_XSK_PAIR_WINDOW */
	double deadline, t0, t1;	/* t0/t1: the sending thread's run */
	int err;
	int stop;
	int ended;		/* the sending thread returned */
	pthread_t thr;
	bool running;
};

/* Make g closable before any open. */
void zc_xsk_gen_init(struct zc_xsk_gen *g);
/* The AF_PACKET generator: 0 or -errno. */
int zc_xsk_gen_open(struct zc_xsk_gen *g, const struct zc_topo *t, uint32_t len,
		    bool payload, int cpu);
/*
 * The generator for a rate into a: live frames where a runs native XDP,
 * else AF_PACKET (printing why live frames cannot run); on a real pair
 * AF_PACKET held to the window over *acked, an AF_XDP rx ring's consumer
 * index (the suite's own, or mapped from a peer program's socket),
 * plus what acked_fd, that socket, dropped at its rx ring.
 */
int zc_xsk_gen_open_rate(struct zc_xsk_gen *g, const struct zc_topo *t,
			 uint32_t len, bool payload, int cpu, bool native,
			 const uint32_t *acked, int acked_fd);
/* Send up to n frames within timeout seconds; returns frames handed over. */
uint64_t zc_xsk_gen_burst(struct zc_xsk_gen *g, uint64_t n, double timeout);
/* Run in the background for at most seconds / max frames. */
int zc_xsk_gen_start(struct zc_xsk_gen *g, double seconds, uint64_t max);
/*
 * A step's answer when the generator ended by itself (its time or count
 * bound, or an error) while a rate still measured: that window holds no
 * frames of the kernel's path, so it must not become a sample (not an
 * errno).
 */
#define ZC_XSK_EGENEND	0x5a47
/* The running generator's thread has returned (bound, error or stop). */
bool zc_xsk_gen_ended(const struct zc_xsk_gen *g);
/* Stop; sent and dropped (refused by the device) are final after this. */
void zc_xsk_gen_stop(struct zc_xsk_gen *g);
void zc_xsk_gen_close(struct zc_xsk_gen *g);

/* The generator's own rate over its run, Mpps (0: it did not run). */
double zc_xsk_gen_mpps(const struct zc_xsk_gen *g);
/* Which generator, for the config line (no spaces). */
const char *zc_xsk_gen_desc(const struct zc_xsk_gen *g);
/* Its rate over secs, and whether the window held it back (real pair). */
void zc_xsk_gen_print(const struct zc_xsk_gen *g, double secs);

#endif
