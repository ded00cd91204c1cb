/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Another AF_XDP program (samples/bpf's xdpsock, say) on a rate case's
 * own topology and traffic, so tools/zc-peer-bench can hold xsk_bind's
 * rates against it: the veth pair, the counter on the peer side, the
 * generator as the rate case runs it; the program binds and attaches its
 * own XDP program in place of the suite's socket.
 */
#ifndef ZC_XSK_PEER_H
#define ZC_XSK_PEER_H

#include "xsk/xsk_dut.h"
#include "xsk/xsk_prog.h"
#include "xsk/xsk_run.h"

struct zc_xsk_peer_cfg {
	const char *cmd;	/* sh -c, in the device's namespace */
	enum zc_xsk_path path;	/* rxdrop and l2fwd get the generator */
	enum zc_xsk_attach at;	/* native: the live-frame generator */
	double bound;		/* seconds the case may take (the generator's budget) */
};

/*
 * Run cmd with ZC_PEER_IFACE, ZC_PEER_QUEUE, ZC_PEER_FRAME and ZC_PEER_XDP
 * (skb or native) set; feed its device once its XDP program is attached,
 * until it exits; print what the generator sent and the peer side's
 * counter counted. On a real pair (ZC_PAIR) the generator is held to a
 * window over the rx ring of cmd's AF_XDP socket, as the suite's cases
 * over their own. A cmd still running bound + a margin after its start
 * is ended (SIGTERM, then SIGKILL, its process group): a harness failure.
 * cmd's exit status, or < 0 with why.
 */
int zc_xsk_peer_exec(struct zc_xsk_dut *d, const struct zc_xsk_peer_cfg *cfg,
		     struct zc_why *why);

#endif
