/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One verdict case's run: a sender socket (to a sink, or to its own
 * receiver), the path the case wants around it, then sends one at a time,
 * each with the kernel's copy verdict booked against the copy witness
 * (lib/copyjudge.h), and proof that real traffic was behind them. What
 * makes the path (a tap, an MTU, an XDP program) is the test's: hooks.
 */
#ifndef ZC_VERDICTRUN_H
#define ZC_VERDICTRUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "copyjudge.h"
#include "why.h"
#include "zcsend.h"

struct zc_vrun;

struct zc_vrun_ops {
	/* After the socket: the rest of the path (optional), why set on error. */
	int (*path)(struct zc_vrun *r, struct zc_why *why);
	/* Undoes path; runs whether it succeeded or not (optional). */
	void (*unpath)(struct zc_vrun *r);
	/* The verdict send i must get. */
	int (*want)(const struct zc_vrun *r, long i);
	/* Before send i: changes the path between sends (optional). */
	int (*step)(struct zc_vrun *r, long i);
	/* Packets the sink has dropped so far (without a receiver). */
	uint64_t (*sunk)(const struct zc_vrun *r);
};

struct zc_vrun {
	/* filled by the test */
	const struct zc_vrun_ops *ops;
	void *ctx;			/* the test's, for its hooks */
	enum zc_send_mode mode;
	int family, type;
	size_t size;
	long sends;
	double verdict_s;		/* one send and its completion */
	const char *sink;		/* "tc", "XDP": the sink's name */
	/* the run's */
	int fd, rx_fd;
	uint64_t sink0;
	struct zc_copy_tally t;
	long rx_msgs;
	long long rx_bytes;
};

/*
 * The sender in tx_nsfd connected to addr:port: a sink's address, or with
 * rx_nsfd >= 0 a receiver bound there. Then ops->path.
 */
int zc_vrun_open(struct zc_vrun *r, int tx_nsfd, int rx_nsfd,
		 const void *addr, int port, struct zc_why *why);
void zc_vrun_close(struct zc_vrun *r);
/* r->sends sends, each booked in r->t. */
int zc_vrun_sends(struct zc_vrun *r, struct zc_why *why);
/* Waits up to settle_s for the traffic behind the verdicts, says what. */
bool zc_vrun_traffic(struct zc_vrun *r, double settle_s, char *what,
		     size_t len);
/* The case's sends, verdicts and witness counts; nowit: why no witness. */
void zc_vrun_summary(const char *name, const struct zc_vrun *r,
		     const char *traffic, const char *nowit);

#endif
