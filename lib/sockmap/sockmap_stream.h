/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The consumer's side of a pattern stream over the sockmap topology, as
 * far as the reader of tests/sockmap_splice.c need not see it: its state,
 * what it keeps of a wrong byte and how a failure is described. The
 * receive calls and the checks of the contract are in the test.
 */
#ifndef ZC_SOCKMAP_STREAM_H
#define ZC_SOCKMAP_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "sockmap/producer.h"
#include "sockmap/slip.h"
#include "sockmap/sockmap.h"
#include "core/why.h"

#define ZC_SM_STALL_S		3.0	/* no progress this long is a failure */
#define ZC_SM_QUIET_S		0.05	/* "nothing more arrives" window */

/*
 * ZC_SM_SPLICE_USER splices into the pipe and reads the pipe into the
 * user buffer, as the bpf-next splice series' bench does: the bytes
 * reach user space as read(2)'s do, verified or not.
 */
enum zc_sm_call { ZC_SM_READ, ZC_SM_SPLICE, ZC_SM_SPLICE_USER };

/* "read", "splice", "splice_user": the name a config line gives a call. */
const char *zc_sm_call_name(enum zc_sm_call call);

/* The consumer's side of a stream. */
struct zc_sm_rx {
	const struct zc_sm_pattern *pat;
	struct zc_sm_topo *t;
	enum zc_sm_call call;
	bool verify;
	uint64_t got;		/* stream offset of the next byte */
	uint64_t calls;		/* receive calls made (rates' --per-repeat) */
	uint64_t waits;		/* polls after a call found nothing */
	long bad;		/* stream offset of a wrong byte */
	/*
	 * What came instead: the received bytes from the one before the
	 * wrong one on (and more read after it, zc_sm_rx_follow), for
	 * zc_sm_rx_error to map back onto the pattern.
	 */
	unsigned char *seen;
	size_t seen_len;
	int seen_before;	/* bytes of seen before the wrong one */
	struct zc_sm_slip *slip;	/* zc_sm_rx_error's map of them, if set */
};

#define ZC_SM_SEEN_MAX	(1UL << 20)	/* bytes kept after a wrong one */

void zc_sm_rx_init(struct zc_sm_rx *r, const struct zc_sm_pattern *pat,
		   struct zc_sm_topo *t, enum zc_sm_call call, bool verify);
/*
 * buf (n bytes at stream offset r->got) differs from the pattern: keep
 * where and what came instead. Returns -EBADMSG.
 */
int zc_sm_rx_wrong(struct zc_sm_rx *r, const unsigned char *buf, size_t n);
/*
 * After a wrong byte, read on (bounded by secs and ZC_SM_SEEN_MAX) so
 * the map of what came instead shows whether the missing bytes arrive
 * later.
 */
void zc_sm_rx_follow(struct zc_sm_rx *r, double secs);
/*
 * What went wrong at ret (a receive's: 0 end of file, -ETIMEDOUT,
 * -EBADMSG, -errno); total 0: an open-ended stream (rates). A wrong
 * byte is described from r->seen (zc_sm_describe_slip) and r->seen freed.
 */
void zc_sm_rx_error(struct zc_sm_rx *r, long ret, uint64_t total,
		    struct zc_why *why);

/* A "# hint:" line: does the kernel's struct proto have splice_read (BTF)? */
void zc_sm_splice_hint(void);

/* zc_poll_one's result (events, 0 on timeout, -errno) has ev. */
static inline bool zc_sm_polled(int revents, short ev)
{
	return revents > 0 && (revents & ev);
}

static inline const char *zc_sm_errname(int err)
{
	const char *s = strerrorname_np(err);

	return s ? s : "unknown error";
}

#endif
