/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel frame generator: BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES
 * runs bpf/xdpgen.bpf.c on copies of one test frame and redirects them out
 * of a device, thousands of frames per syscall (what xdp-trafficgen does),
 * so the receiver under test, not the generator, sets the rate.
 *
 * Needs kernel 5.18+ and a receiving end that takes XDP frames: on veth
 * the peer must run NAPI (an XDP program in native mode). Frames the device
 * refuses (its ring full) are counted apart from those it passed on, from
 * the device's own xdp_xmit_errors statistics.
 */
#ifndef ZC_XDPGEN_H
#define ZC_XDPGEN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/why.h"

struct xdpgen;

struct zc_xdpgen {
	struct xdpgen *skel;
	int nsfd;		/* namespace of the device the frames leave by */
	int ifindex;
	int cpu;		/* runner thread's CPU, -1 unpinned */
	uint8_t frame[4096];
	uint32_t len;
	uint64_t max;		/* frames at most per start */
	double deadline;
	uint64_t seq0;		/* program's count at the start */
	uint64_t xmit_err0;	/* device's refusals before the start */
	double t0, t1;		/* runner thread's first and last run */
	int err;		/* first error of the runner, -errno */
	int stop;
	int ended;		/* the runner stopped by itself (bound, error) */
	pthread_t thr;
	bool running;
};

/*
 * Load the program and try one live run into ifindex (in nsfd). The frame
 * (len bytes, bpf/xsk_abi.h format) gets its sequence number, and with
 * payload its payload pattern, rewritten per frame. 0, or -errno with a
 * one-line reason in why (kernel too old, no NAPI at the peer, ...).
 */
int zc_xdpgen_open(struct zc_xdpgen *g, int nsfd, int ifindex, int cpu,
		   const void *frame, uint32_t len, bool payload,
		   struct zc_why *why);
void zc_xdpgen_close(struct zc_xdpgen *g);

/* Run the generator in its own thread for at most seconds / max frames. */
int zc_xdpgen_start(struct zc_xdpgen *g, double seconds, uint64_t max);
void zc_xdpgen_stop(struct zc_xdpgen *g);

/*
 * Frames generated since the last start (the program's count) and, of
 * those, the ones the device refused (-errno if unreadable).
 */
uint64_t zc_xdpgen_generated(const struct zc_xdpgen *g);
int zc_xdpgen_refused(const struct zc_xdpgen *g, uint64_t *refused);

#endif
