/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sockmap loopback topology (as the kernel's bench_sockmap
 * rx-verdict-ingress mode), in a namespace of its own: a listener,
 * c1<->p1 and c2<->p2; a sockmap holds p1 and c2 and the verdict program
 * on p1 decides where the bytes written into c1 go. Every socket and the
 * pipe are non-blocking and every wait is bounded, whatever the kernel does.
 */
#ifndef ZC_SOCKMAP_H
#define ZC_SOCKMAP_H

#include <stddef.h>

#include "core/why.h"

#define ZC_SM_DELIVER_S	2.0	/* redirected bytes show up within this */

/* Where the verdict program sends the bytes arriving on p1. */
enum zc_sm_mode {
	ZC_SM_PLAIN,	/* no sockmap: plain TCP, c1 -> p1 */
	ZC_SM_INGRESS,	/* redirected into c2's receive queue */
	ZC_SM_EGRESS,	/* redirected out of c2, so to p2 */
	ZC_SM_PASS,	/* SK_PASS: stays on p1, queued through its psock */
};

struct sockmap;		/* the skeleton of bpf/sockmap.bpf.c */

struct zc_sm_topo {
	enum zc_sm_mode mode;
	int nsfd, lfd, c1, p1, c2, p2;
	int rx;			/* the consumer's socket, one of the above */
	int pipe[2];		/* for splice(2) from rx */
	int pipe_bytes;
	int rcvbuf;		/* the consumer's SO_RCVBUF as read back */
	struct sockmap *skel;
};

/*
 * rcvbuf: SO_RCVBUFFORCE on the consumer, 0 keeps the default. On failure
 * everything is closed and why says which step failed.
 */
int zc_sm_topo_setup(struct zc_sm_topo *t, enum zc_sm_mode m, long rcvbuf,
		     struct zc_why *why);
void zc_sm_topo_close(struct zc_sm_topo *t);

const char *zc_sm_mode_name(enum zc_sm_mode m);
/* How often the verdict program ran: "never ran" vs "bytes lost". */
unsigned long long zc_sm_verdicts(const struct zc_sm_topo *t);
/* Bytes queued on fd, or -errno. */
int zc_sm_fionread(int fd);
/* "FIONREAD c2=N, verdicts=V": where things stand, for a failure message. */
void zc_sm_state(const struct zc_sm_topo *t, char *buf, size_t len);
/* MTU of lo in the topology's namespace, -1 when unknown. */
int zc_sm_lo_mtu(const struct zc_sm_topo *t);

#endif
