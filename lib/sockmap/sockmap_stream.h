/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pattern stream over the sockmap topology: a producer thread writes a
 * repeating pattern into c1, the consumer takes it from the topology's rx
 * socket by read(2) or by splice(2) through a pipe, and checks every byte
 * against its stream offset. Every wait is bounded.
 */
#ifndef ZC_SOCKMAP_STREAM_H
#define ZC_SOCKMAP_STREAM_H

#include <pthread.h>
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
#define ZC_SM_PROBE_BYTES	4096

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
 * One receive call's worth: bytes (> 0), 0 at end of file, -ETIMEDOUT
 * after `wait` seconds without a byte, -EBADMSG on a wrong byte.
 */
long zc_sm_rx_once(struct zc_sm_rx *r, double wait);
/* zc_measure's step over zc_sm_rx_once; an end of file is -EPIPE. */
int zc_sm_rx_step(void *rx, uint64_t *bytes, uint64_t *pkts);
/*
 * What went wrong at ret; total 0: an open-ended stream (rates). A wrong
 * byte is described from r->seen (zc_sm_describe_slip) and r->seen freed.
 */
void zc_sm_rx_error(struct zc_sm_rx *r, long ret, uint64_t total,
		    struct zc_why *why);
/* Nothing beyond what was sent: no POLLIN, FIONREAD 0, read says EAGAIN. */
int zc_sm_nothing_more(struct zc_sm_topo *t, struct zc_why *why);
/*
 * Send `total` pattern bytes from the producer thread and take every one
 * of them at the consumer, verified, then check nothing more arrives.
 * slip (may be NULL): on a wrong byte, the map of what came instead
 * (nseg 0 otherwise).
 */
int zc_sm_transfer(const struct zc_sm_pattern *pat, struct zc_sm_topo *t,
		   enum zc_sm_call call, uint64_t total,
		   struct zc_sm_slip *slip, struct zc_why *why);
/* Take size more bytes at *off by read(2), verified. */
int zc_sm_read_exact(const struct zc_sm_pattern *pat, struct zc_sm_topo *t,
		     uint64_t *off, int size, struct zc_why *why);
/*
 * Wait until FIONREAD reaches want (bounded); returns the last value.
 * *blind: POLLIN with FIONREAD 0, a kernel whose FIONREAD does not count
 * the psock queue; the bytes were given time to queue and 0 is returned.
 */
int zc_sm_wait_inq(int fd, int want, double secs, bool *blind);

/* A measured stream: its own topology, producer thread and consumer. */
struct zc_sm_stream {
	struct zc_sm_topo t;
	struct zc_sm_producer p;
	struct zc_sm_rx r;
};

int zc_sm_stream_open(struct zc_sm_stream *st, const struct zc_sm_pattern *pat,
		      enum zc_sm_mode mode, enum zc_sm_call call, long rcvbuf,
		      bool verify, double secs, struct zc_why *why);
void zc_sm_stream_close(struct zc_sm_stream *st);

enum zc_sm_probe_state {
	ZC_SM_PROBE_NOT_RUN,
	ZC_SM_PROBE_SUPPORTED,	/* splice took the queued bytes, verified */
	ZC_SM_PROBE_UNSUPPORTED,	/* EAGAIN throughout; read(2) got them */
	ZC_SM_PROBE_FAILED,	/* neither: why says what happened */
};

struct zc_sm_probe {
	enum zc_sm_probe_state state;
	int err;		/* errno of the last splice */
	int inq;		/* FIONREAD while splice refused */
	size_t spliced;
	bool blind;		/* FIONREAD ignores the psock queue */
	struct zc_why why;	/* for ZC_SM_PROBE_FAILED */
};

/*
 * Queue ZC_SM_PROBE_BYTES on the topology's consumer and see whether
 * splice takes them. Never blocks.
 */
void zc_sm_splice_probe(const struct zc_sm_pattern *pat, struct zc_sm_topo *t,
			struct zc_sm_probe *po);
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
