/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The zero-copy sink: two namespaces (lib/net/netns.h), a sends to b, and in
 * b bpf/tc_drop.bpf.c counts and drops UDP to one port at clsact ingress.
 * Dropping there frees the sender's skb untouched, so nothing on the way
 * copies; the count proves the datagrams were really sent. Rates to the
 * sink go through one helper, zc_sink_rate().
 */
#ifndef ZC_SINK_H
#define ZC_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include <sys/capability.h>

#include "core/meter.h"
#include "net/netns.h"
#include "core/probe.h"
#include "core/why.h"

struct tc_drop;
struct zc_sender;
struct zc_sender_cfg;

/* What cases on the sink may lack: io_uring SEND_ZC, BPF for the sink. */
struct zc_sink_feat {
	bool sendmsg_zc;	/* IORING_OP_SENDMSG_ZC too */
	struct zc_why uring;	/* "" when io_uring and SEND_ZC work */
	struct zc_why bpf;	/* "" when BPF loads: the sink exists */
};

/*
 * The capabilities the binary needs (-1 with why: every case skips),
 * then what only some cases need, into f.
 */
int zc_sink_probe(const cap_value_t *caps, int ncaps, struct zc_sink_feat *f,
		  struct zc_why *why);

/* What a case needs of the features zc_sink_probe() found. */
struct zc_sink_need {
	bool uring;		/* io_uring SEND_ZC */
	bool sink;		/* the tc drop sink (BPF) */
	const char *what;	/* after "needs the tc drop sink": why (NULL: "") */
};

/* 0 when f has what n asks for; -1 with why: the case skips. */
int zc_sink_feat_need(const struct zc_sink_feat *f, const struct zc_sink_need *n,
		      struct zc_why *why);

struct zc_sink {
	struct zc_topo t;
	struct tc_drop *skel;	/* NULL: no BPF here, the topology only */
	int port;		/* UDP port dropped in b */
};

/*
 * The topology at mtu and, with bpf, the tc drop sink for port at b's
 * ingress. 0, or -errno with why (everything made so far is gone on
 * zc_sink_teardown()).
 */
int zc_sink_setup(struct zc_sink *k, int mtu, int port, bool bpf,
		  struct zc_why *why);
void zc_sink_teardown(struct zc_sink *k);

/* Packets the sink dropped so far (0 without a sink). */
uint64_t zc_sink_pkts(const struct zc_sink *k);
/* Drop UDP to port instead; 0 drops every packet (later fragments too). */
void zc_sink_set_port(struct zc_sink *k, int port);
/*
 * Packets since pk0, once there are want or the last ones had time to
 * arrive: a completed send may still sit in a NIC ring.
 */
uint64_t zc_sink_settle(const struct zc_sink *k, uint64_t pk0, uint64_t want);
/*
 * A real device pair may take seconds to get carrier after its move:
 * send small datagrams until one reaches the sink. 0, or -1 with why.
 */
int zc_sink_wait_path(const struct zc_sink *k, double timeout,
		      struct zc_why *why);
/*
 * Run cmd (sh -c) in a with ZC_PEER_ADDR, ZC_PEER_PORT and ZC_PEER_MTU
 * set, print what the sink counted; returns cmd's exit status.
 */
int zc_sink_exec(const struct zc_sink *k, const char *cmd);
/* Does cmd's first word name an executable (a path, or one in PATH)? */
bool zc_sink_cmd_ok(const char *cmd);

/* A UDP/IPv4 socket in a, connected to the sink, and its sender. */
struct zc_sink_tx {
	int fd;
	struct zc_sender *s;
};

/*
 * cfg->fd is set to the new socket; sndbuf > 0 sets SO_SNDBUF first.
 * 0 or -errno; zc_sink_tx_close() in either case.
 */
int zc_sink_tx_open(const struct zc_sink *k, struct zc_sink_tx *tx,
		    struct zc_sender_cfg *cfg, int sndbuf);
void zc_sink_tx_close(struct zc_sink_tx *tx);

/* One arm of a rate to the sink: its sender, optional hooks, its rate. */
struct zc_sink_arm {
	struct zc_sink_tx tx;
	int (*begin)(void *arg);	/* untimed, around each repeat */
	int (*end)(void *arg);
	void *arg;
	struct zc_rate rate;		/* out */
};

/*
 * The one rate to the sink: one arm alone, or two arms interleaved
 * repeat by repeat with ratio = arm[1] / arm[0]. Every sender is then
 * flushed and *sunk is what the sink counted of their sends. 0, or
 * -errno with why.
 */
int zc_sink_rate(const struct zc_sink *k, const struct zc_meter_cfg *mc,
		 struct zc_sink_arm *arm, int narm, struct zc_stats *ratio,
		 uint64_t *sunk, struct zc_why *why);

#endif
