/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One verdict case's run: a sender socket (to a sink, or to its own
 * receiver), the path the case wants around it, then sends one at a time,
 * each with the kernel's copy verdict booked against the copy witness
 * (lib/tap_copy/copyjudge.h), proof that real traffic was behind them, and the
 * case's result. A packet tap (lib/net/taps.h) is row data, opened here, also
 * between sends; the rest of the path (an MTU, an XDP program) is the
 * test's: hooks.
 */
#ifndef ZC_VERDICTRUN_H
#define ZC_VERDICTRUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "tap_copy/copyjudge.h"
#include "core/why.h"
#include "send/zcsend.h"

struct zc_vrun;
struct zc_topo;
struct zc_tap_spec;

struct zc_vrun_ops {
	/* After the socket and the tap: the rest of the path (optional). */
	int (*path)(struct zc_vrun *r, struct zc_why *why);
	/* Undoes path; runs whether it succeeded or not (optional). */
	void (*unpath)(struct zc_vrun *r);
	/* Packets the sink has dropped so far (without a receiver). */
	uint64_t (*sink_pkts)(const struct zc_vrun *r);
};

struct zc_vrun {
	/* filled by the test */
	const struct zc_vrun_ops *ops;
	void *ctx;			/* the test's, for its hooks */
	const struct zc_topo *topo;	/* where taps open; causes outside it */
	enum zc_send_mode mode;
	int family, type;
	size_t size;
	long sends;
	int want;			/* ZC_VERDICT_* every send must get */
	/* A tap open through the sends (NULL, or ns ZC_TAP_NONE: none)... */
	const struct zc_tap_spec *tap;
	/*
	 * ... or, with toggle, open ('1') or closed ('0') around send i by
	 * toggle[i], cycling; a send with the tap open must be copied, one
	 * without zero-copy. The whole pattern runs at least once.
	 */
	const char *toggle;
	double verdict_s;		/* one send and its completion */
	double settle_s;		/* for the last packets to reach the sink */
	const char *sink;		/* "tc", "XDP": the sink's name */
	/* the run's */
	int fd, rx_fd, tap_fd;
	uint64_t sink0;
	struct zc_copy_tally t;
	long rx_msgs;
	long long rx_bytes;
};

/*
 * The sender in tx_nsfd connected to addr:port: a sink's address, or with
 * rx_nsfd >= 0 a receiver bound there. Then the tap, then ops->path.
 */
int zc_vrun_open(struct zc_vrun *r, int tx_nsfd, int rx_nsfd,
		 const void *addr, int port, struct zc_why *why);
void zc_vrun_close(struct zc_vrun *r);
/*
 * The case name on an opened run: the sends, the traffic behind them,
 * the summary (nowit: why no witness is loaded), what (why this verdict)
 * and one result. Every send as wanted, the witness agreeing: PASS; every
 * send the other way with the witness agreeing: FAIL (a deviation a
 * precondition may expect); a mix or a witness disagreeing:
 * ktap_fail_unexpected. A copy with a cause outside the kernel
 * (zc_env_copy_cause) is a SKIP. Closes r.
 */
void zc_vrun_case(const char *name, struct zc_vrun *r, const char *what,
		  const char *nowit);

#endif
