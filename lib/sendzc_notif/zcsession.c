// SPDX-License-Identifier: GPL-2.0
/* A booked session of zero-copy requests over the sink (zcsession.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "core/clock.h"
#include "core/compat.h"
#include "send/sink.h"
#include "send/zcsend.h"
#include "sendzc_notif/zcsession.h"

/*
 * Where a socket in a connects or a receiver binds: b's address, or with
 * lo the loopback of a (the one local delivery a ZC_PAIR of real devices
 * still has).
 */
static const void *session_peer(const struct zc_sink *sink, int family, bool lo)
{
	static struct in_addr lo4;

	lo4.s_addr = htonl(INADDR_LOOPBACK);
	if (lo)
		return family == AF_INET6 ? (const void *)&in6addr_loopback :
					    (const void *)&lo4;
	return zc_side_addr(&sink->t.b, family);
}

int zc_session_socket(const struct zc_sink *sink, int family, int type,
		      int port, bool lo)
{
	return zc_socket_to(sink->t.a.nsfd, family, type,
			    session_peer(sink, family, lo), port);
}

static int rx_start(struct zc_session *ss)
{
	const struct zc_session_cfg *c = &ss->cfg;
	struct zc_rx *rx = &ss->rx;

	memset(rx, 0, sizeof(*rx));
	rx->fd = -1;
	rx->family = c->family;
	rx->type = c->type;
	rx->size = c->size;
	rx->nseq = c->n;
	rx->verify = c->verify;
	rx->seed = c->seed;
	rx->cpu = c->cpu_rx;
	rx->timeout = c->timeout;
	return zc_rx_start(rx, c->lo ? ss->sink->t.a.nsfd : ss->sink->t.b.nsfd,
			   session_peer(ss->sink, c->family, c->lo), c->rx_port);
}

int zc_session_open(struct zc_session *ss, const struct zc_sink *sink,
		    const struct zc_session_cfg *cfg)
{
	int ret;

	memset(ss, 0, sizeof(*ss));
	ss->sink = sink;
	ss->cfg = *cfg;
	ss->fd = -1;
	ss->rx.fd = -1;
	ret = zc_ledger_init(&ss->l, cfg->size, cfg->n);
	if (!ret && !cfg->sink)
		ret = rx_start(ss);
	if (!ret) {
		ss->fd = zc_session_socket(sink, cfg->family, cfg->type,
					   cfg->sink ? sink->port : cfg->rx_port,
					   cfg->lo);
		ret = ss->fd < 0 ? ss->fd : 0;
	}
	return ret;
}

int zc_session_room(struct zc_session *ss, uint64_t seq)
{
	const struct zc_rx *rx = &ss->rx;
	double end = zc_now() + ss->cfg.timeout;

	if (ss->cfg.sink || ss->cfg.type == SOCK_STREAM)
		return 0;
	while (seq >= atomic_load(&rx->dgrams) + rx->window) {
		if (zc_now() >= end || rx->err)
			return -1;
		usleep(50);
	}
	return 0;
}

void zc_session_settle(struct zc_session *ss, uint64_t pk0)
{
	const struct zc_session_cfg *c = &ss->cfg;

	if (c->sink) {
		ss->sunk = zc_sink_settle(ss->sink, pk0, ss->l.n);
		return;
	}
	if (c->type == SOCK_STREAM)
		shutdown(ss->fd, SHUT_WR);
	zc_rx_join(&ss->rx, c->timeout);
}

bool zc_session_traffic(const struct zc_session *ss, struct zc_why *why)
{
	const struct zc_rx *rx = &ss->rx;
	uint64_t n = ss->l.n, want = n * ss->l.size;
	bool sink = ss->cfg.sink;

	if (ss->done != (long)n || ss->flush)
		zc_why_set(why, "sent %ld of %llu requests, flush: %s", ss->done,
			   (unsigned long long)n,
			   ss->flush ? strerror(-ss->flush) : "ok");
	else if (sink && ss->sunk != n)
		zc_why_set(why, "tc sink counted %llu datagrams, want %llu",
			   (unsigned long long)ss->sunk, (unsigned long long)n);
	else if (!sink && (rx->bytes != want || rx->bad || rx->dups ||
			   rx->err))
		zc_why_set(why, "receiver got %llu of %llu bytes, first bad byte at %lld (%llu bad reads), missing %llu, dups %llu, %s",
			   (unsigned long long)rx->bytes, (unsigned long long)want,
			   rx->first_bad, (unsigned long long)rx->bad,
			   (unsigned long long)rx->missing,
			   (unsigned long long)rx->dups,
			   rx->err ? strerror(-rx->err) : "no receiver error");
	else
		return true;
	return false;
}

void zc_session_end(struct zc_session *ss)
{
	if (ss->rx.running || ss->rx.fd >= 0)
		zc_rx_join(&ss->rx, 0);
	if (ss->fd >= 0)
		close(ss->fd);
	zc_ledger_free(&ss->l);
}

bool zc_session_usage(const struct zc_sink *sink, double timeout,
		      struct zc_why *why)
{
	struct zc_sender_cfg cfg = { .mode = ZC_MODE_SEND_ZC, .size = 64,
				     .depth = 1, .report_usage = true };
	struct zc_sink_tx tx;
	int ret;

	ret = zc_sink_tx_open(sink, &tx, &cfg, 0);
	if (!ret)
		ret = zc_sender_verdict(tx.s, timeout);
	zc_sink_tx_close(&tx);
	if (ret == ZC_VERDICT_ZEROCOPY || ret == ZC_VERDICT_COPIED)
		return true;
	if (ret == -EINVAL)
		zc_why_skip(why, ZC_CLASS_KERNEL, "kernel lacks IORING_SEND_ZC_REPORT_USAGE (6.2+)");
	else
		zc_why_set(why, "IORING_SEND_ZC_REPORT_USAGE probe: %s",
			   strerror(-ret));
	return false;
}
