// SPDX-License-Identifier: GPL-2.0
/* The consumer's state and failure descriptions, see sockmap_stream.h. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/ktap.h"
#include "core/probe.h"
#include "sockmap/slip.h"
#include "sockmap/sockmap_stream.h"
#include "core/util.h"

#define SEEN_BEFORE	16	/* right bytes kept before a wrong one */

/* Consumer */

void zc_sm_rx_init(struct zc_sm_rx *r, const struct zc_sm_pattern *pat,
		   struct zc_sm_topo *t, enum zc_sm_call call, bool verify)
{
	memset(r, 0, sizeof(*r));
	r->pat = pat;
	r->t = t;
	r->call = call;
	r->verify = verify;
	r->bad = -1;
}

/* Keep what came instead of the pattern, from a little before the wrong byte. */
static void keep_seen(struct zc_sm_rx *r, const unsigned char *buf, size_t n,
		      size_t i)
{
	size_t before = i < SEEN_BEFORE ? i : SEEN_BEFORE;

	free(r->seen);
	r->seen_len = 0;
	r->seen = malloc(SEEN_BEFORE + ZC_SM_SEEN_MAX);
	if (!r->seen)
		return;
	n -= i - before;
	if (n > before + ZC_SM_SEEN_MAX)
		n = before + ZC_SM_SEEN_MAX;
	memcpy(r->seen, buf + i - before, n);
	r->seen_len = n;
	r->seen_before = before;
}

int zc_sm_rx_wrong(struct zc_sm_rx *r, const unsigned char *buf, size_t n)
{
	const unsigned char *want = r->pat->ring + r->got % ZC_SM_PERIOD;
	size_t i;

	for (i = 0; i < n && buf[i] == want[i]; i++)
		;
	r->bad = r->got + i;
	keep_seen(r, buf, n, i);
	return -EBADMSG;
}

void zc_sm_rx_follow(struct zc_sm_rx *r, double secs)
{
	double deadline = zc_now() + secs;
	size_t cap = r->seen_before + ZC_SM_SEEN_MAX;
	int fd;

	while (r->seen && r->seen_len < cap && zc_now() < deadline) {
		/* Spliced bytes still in the pipe come before the socket's. */
		fd = r->call != ZC_SM_READ && zc_poll_one(r->t->pipe[0], POLLIN, 0) > 0 ?
			r->t->pipe[0] : r->t->rx;
		ssize_t m = read(fd, r->seen + r->seen_len, cap - r->seen_len);

		if (m > 0) {
			r->seen_len += m;
			continue;
		}
		if (!m || (errno != EAGAIN && errno != EINTR))
			break;
		zc_poll_one(r->t->rx, POLLIN, 0.05);
	}
}

const char *zc_sm_call_name(enum zc_sm_call call)
{
	static const char *const names[] = {
		[ZC_SM_READ] = "read", [ZC_SM_SPLICE] = "splice",
		[ZC_SM_SPLICE_USER] = "splice_user",
	};

	return names[call];
}

void zc_sm_rx_error(struct zc_sm_rx *r, long ret, uint64_t total,
		    struct zc_why *why)
{
	const char *call = r->call == ZC_SM_READ ? "read" : "splice";
	int inq = zc_sm_fionread(r->t->rx);
	char state[96], at[64];

	zc_sm_state(r->t, state, sizeof(state));
	if (total)
		snprintf(at, sizeof(at), "after %llu of %llu bytes",
			 (unsigned long long)r->got, (unsigned long long)total);
	else
		snprintf(at, sizeof(at), "after %llu bytes",
			 (unsigned long long)r->got);
	if (ret == -EBADMSG && r->seen) {
		char slip[400];
		struct zc_sm_slip s;

		zc_sm_describe_slip(r->pat->ring, ZC_SM_PERIOD,
				    r->pat->chunk, r->bad, r->seen, r->seen_len,
				    r->seen_before, &s, slip, sizeof(slip));
		if (r->slip)
			*r->slip = s;
		zc_why_set(why, "wrong byte at stream offset %ld %s: %s",
			   r->bad, at, slip);
	} else if (ret == -EBADMSG)
		zc_why_set(why, "wrong byte at stream offset %ld", r->bad);
	else if (ret == 0 && inq > 0)
		zc_why_set(why, "%s returned 0 (false end of file) with FIONREAD=%d %s",
			   call, inq, at);
	else if (ret == 0)
		zc_why_set(why, "end of file %s (%s)", at, state);
	else if (ret == -ZC_EPAUSED)
		zc_why_set(why, "%s %s: this process was not scheduled during two tries of a repeat (a harness stall)",
			   call, at);
	else if (ret == -ETIMEDOUT)
		zc_why_set(why, "stalled %.0f s %s (%s)", ZC_SM_STALL_S, at, state);
	else
		zc_why_set(why, "%s %s: %s", call, at, strerror(-ret));
	free(r->seen);
	r->seen = NULL;
	r->seen_len = 0;
}

void zc_sm_splice_hint(void)
{
	int has = zc_btf_has_member("proto", "splice_read");

	if (has < 0)
		ktap_print_msg("hint: vmlinux BTF unavailable (%s), no splice_read check",
			       strerror(-has));
	else
		ktap_print_msg("hint: BTF struct proto %s splice_read%s",
			       has ? "has" : "lacks",
			       has ? "" : " (bpf/sockmap: add splice support for tcp_bpf)");
}
