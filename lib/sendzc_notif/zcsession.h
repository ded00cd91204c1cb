/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a session of zero-copy requests goes over the sink topology
 * (lib/send/sink.h): the sender's socket in a, to the tc sink or to a
 * checking receiver (lib/send/sock.h zc_rx) in b or on a's loopback, and
 * the books (zc_ledger) the test's CQE loop fills; then the traffic
 * judged. The requests themselves are tests/sendzc_notif.c's.
 */
#ifndef ZC_ZCSESSION_H
#define ZC_ZCSESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "send/sock.h"
#include "core/why.h"
#include "sendzc_notif/zcledger.h"
#include "send/zcmode.h"

struct zc_sink;

struct zc_session_cfg {
	int family, type;	/* of the sender's socket */
	enum zc_send_mode mode;	/* for the sender */
	size_t size;
	uint64_t n;		/* requests */
	bool verify;		/* the receiver checks the pattern too */
	bool sink;		/* to the tc sink, else to a receiver */
	bool lo;		/* receiver on a's loopback instead of b */
	int rx_port;
	int cpu_rx;
	uint64_t seed;
	double timeout;		/* bound on every send/receive phase */
	double flush_timeout, grace;	/* for the sender */
};

struct zc_session {
	struct zc_ledger l;
	struct zc_rx rx;
	const struct zc_sink *sink;
	struct zc_session_cfg cfg;
	int fd;
	/* set by the sender */
	long done;		/* requests completed, or -errno */
	int flush;		/* 0, or -errno of waiting for the buffers */
	uint64_t sunk;		/* datagrams the tc sink counted */
};

/* Socket in a, connected to the peer's port. fd or -errno. */
int zc_session_socket(const struct zc_sink *sink, int family, int type,
		      int port, bool lo);

/* Books, receiver, socket. 0 or -errno; zc_session_end() always. */
int zc_session_open(struct zc_session *ss, const struct zc_sink *sink,
		    const struct zc_session_cfg *cfg);
/*
 * Before request seq is written: wait (cfg.timeout at most) until the
 * receiver has room for it, so no datagram drops. 0, or -1 when it never
 * had.
 */
int zc_session_room(struct zc_session *ss, uint64_t seq);
/* After the sends: count what the sink took, or let the receiver finish. */
void zc_session_settle(struct zc_session *ss, uint64_t pk0);
/* Sent all, flushed, and the peer got it all: else the reason in why. */
bool zc_session_traffic(const struct zc_session *ss, struct zc_why *why);
void zc_session_end(struct zc_session *ss);

/*
 * Does IORING_SEND_ZC_REPORT_USAGE work? One SEND_ZC with it to the
 * sink; false with why when not (-EINVAL: the kernel predates 6.2).
 */
bool zc_session_usage(const struct zc_sink *sink, double timeout,
		      struct zc_why *why);

#endif
