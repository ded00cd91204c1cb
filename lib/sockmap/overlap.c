// SPDX-License-Identifier: GPL-2.0
/* Overlapping TCP segments on the sockmap topology: see overlap.h. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "tcp_overlap.skel.h"
#include "core/clock.h"
#include "net/netns.h"
#include "sockmap/overlap.h"
#include "core/util.h"

#define LO_IFINDEX	1	/* lo is the first device of every namespace */
#define FORCE_S		5.0	/* RTO 200 ms, backed off: a few rounds */
#define SETTLE_S	0.3	/* what p1 still gives after the ACKs pass */

static int port_of(int fd)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	return getsockname(fd, (struct sockaddr *)&a, &len) ? -errno :
		ntohs(a.sin_port);
}

int zc_sm_overlap_attach(struct zc_sm_overlap *o, const struct zc_sm_topo *t)
{
	int sport = port_of(t->c1), dport = port_of(t->p1), ret;

	if (sport < 0 || dport < 0)
		return sport < 0 ? sport : dport;
	o->skel = tcp_overlap__open_and_load();
	if (!o->skel)
		return errno ? -errno : -EINVAL;
	o->skel->bss->sport = sport;
	o->skel->bss->dport = dport;
	ret = zc_tc_attach(t->nsfd, LO_IFINDEX,
			   bpf_program__fd(o->skel->progs.zc_tcp_overlap), true);
	if (ret)
		zc_sm_overlap_detach(o);
	return ret;
}

/* The qdisc and its filter go with the topology's namespace. */
void zc_sm_overlap_detach(struct zc_sm_overlap *o)
{
	tcp_overlap__destroy(o->skel);
	o->skel = NULL;
}

void zc_sm_overlap_read(const struct zc_sm_overlap *o,
			struct zc_sm_overlap_counts *n)
{
	const struct tcp_overlap__bss *b = o->skel->bss;

	n->data_segs = b->data_segs;
	n->overlaps = b->overlaps;
	n->overlap_last = b->overlap_last;
	n->repeats = b->repeats;
	n->splits = b->splits;
	n->split_last = b->split_last;
	n->dropped_data = b->dropped_data;
	n->dropped_acks = b->dropped_acks;
}

/* Tail loss probes would resend the lost write alone: timer only. */
static int no_early_retrans(void *arg)
{
	int fd = open("/proc/sys/net/ipv4/tcp_early_retrans", O_WRONLY);
	int ok = fd >= 0 && write(fd, "0", 1) == 1;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -errno;
}

static void nap(double s)
{
	struct timespec ts = { 0, (long)(s * 1e9) };

	nanosleep(&ts, NULL);
}

/* Everything the consumer gives until it is quiet for SETTLE_S. */
static void drain(struct zc_sm_topo *t, struct zc_sm_overlap_run *r)
{
	double end = zc_now() + FORCE_S;
	long n;

	while (r->got < (int)sizeof(r->rx) && zc_now() < end &&
	       zc_poll_one(t->rx, POLLIN, SETTLE_S) > 0) {
		n = read(t->rx, r->rx + r->got, sizeof(r->rx) - r->got);
		if (n <= 0)
			break;
		r->got += n;
	}
}

/*
 * Take the first write at the consumer: p1's skb is a clone of c1's, and
 * c1 retransmits nothing whose clone is still queued on this host.
 */
static int take_head(const unsigned char *pattern, struct zc_sm_topo *t,
		     struct zc_sm_overlap_run *r, struct zc_why *why)
{
	double end = zc_now() + FORCE_S;
	long n;

	while (r->got < ZC_SM_OVERLAP_HEAD && zc_now() < end) {
		if (zc_poll_one(t->rx, POLLIN, end - zc_now()) <= 0)
			break;
		n = read(t->rx, r->rx + r->got, ZC_SM_OVERLAP_HEAD - r->got);
		if (n <= 0)
			break;
		r->got += n;
	}
	if (r->got != ZC_SM_OVERLAP_HEAD || memcmp(r->rx, pattern, r->got))
		return zc_why_set(why, "the first %d bytes: the consumer gave %d, %s",
				  ZC_SM_OVERLAP_HEAD, r->got,
				  r->got ? "not those written" : "none");
	return 0;
}

static int force_run(const unsigned char *pattern, struct zc_sm_topo *t,
		     struct zc_sm_overlap *o, struct zc_sm_overlap_run *r,
		     struct zc_why *why)
{
	/* mmap'ed: nap() is a call, so each test of it loads it again */
	struct tcp_overlap__bss *b = o->skel->bss;
	double end;

	b->drop_len = ZC_SM_OVERLAP_TAIL;
	b->armed = 1;
	if (zc_write_all(t->c1, pattern, ZC_SM_OVERLAP_HEAD, FORCE_S) !=
	    ZC_SM_OVERLAP_HEAD)
		return zc_why_set(why, "write of %d bytes into c1 failed",
				  ZC_SM_OVERLAP_HEAD);
	r->sent = ZC_SM_OVERLAP_HEAD;
	if (take_head(pattern, t, r, why))
		return -1;
	if (zc_write_all(t->c1, pattern + r->sent, ZC_SM_OVERLAP_TAIL, FORCE_S) !=
	    ZC_SM_OVERLAP_TAIL)
		return zc_why_set(why, "write of %d bytes into c1 failed",
				  ZC_SM_OVERLAP_TAIL);
	r->sent += ZC_SM_OVERLAP_TAIL;
	end = zc_now() + FORCE_S;
	while (!b->overlaps && zc_now() < end)
		nap(0.005);
	b->armed = 0;
	drain(t, r);
	zc_sm_overlap_read(o, &r->n);
	return 0;
}

int zc_sm_overlap_force(const unsigned char *pattern, struct zc_sm_topo *t,
			struct zc_sm_overlap_run *r, struct zc_why *why)
{
	struct linger abort_close = { .l_onoff = 1, .l_linger = 0 };
	struct zc_sm_overlap o;
	int one = 1, ret;

	memset(r, 0, sizeof(*r));
	ret = zc_netns_run(t->nsfd, no_early_retrans, NULL);
	if (ret)
		return zc_why_set(why, "net.ipv4.tcp_early_retrans=0 in the namespace: %s",
				  strerror(-ret));
	if (setsockopt(t->c1, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		return zc_why_set(why, "TCP_NODELAY on c1: %s", strerror(errno));
	/*
	 * Killed while the program drops, an orphaned c1 or p1 would go on
	 * resending: the socket holds the namespace, the namespace the
	 * program. A close that aborts lets them go with the process.
	 */
	if (setsockopt(t->c1, SOL_SOCKET, SO_LINGER, &abort_close,
		       sizeof(abort_close)) ||
	    setsockopt(t->p1, SOL_SOCKET, SO_LINGER, &abort_close,
		       sizeof(abort_close)))
		return zc_why_set(why, "SO_LINGER 0 on c1, p1: %s",
				  strerror(errno));
	ret = zc_sm_overlap_attach(&o, t);
	if (ret)
		return zc_why_set(why, "tc program on lo: %s", strerror(-ret));
	ret = force_run(pattern, t, &o, r, why);
	zc_sm_overlap_detach(&o);
	return ret;
}
