// SPDX-License-Identifier: GPL-2.0
/* Sockets in the test namespaces, and a checking receiver thread. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>

#include "core/meter.h"
#include "net/netns.h"
#include "send/sock.h"
#include "core/util.h"

#define RX_WINDOW	16	/* datagrams ahead of a receiver at most */
#define RX_BUF		(256 << 10)

/* addr is a struct in_addr or struct in6_addr, as family says. */
static socklen_t fill_sockaddr(struct sockaddr_storage *ss, int family,
			       const void *addr, int port)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(&s6->sin6_addr, addr, sizeof(s6->sin6_addr));
		return sizeof(*s6);
	}
	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	memcpy(&s4->sin_addr, addr, sizeof(s4->sin_addr));
	return sizeof(*s4);
}

int zc_connect_to(int fd, int family, const void *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = fill_sockaddr(&ss, family, addr, port);

	return connect(fd, (struct sockaddr *)&ss, len) ? -errno : 0;
}

const void *zc_side_addr(const struct zc_side *s, int family)
{
	return family == AF_INET6 ? (const void *)&s->addr6 :
				    (const void *)&s->addr4;
}

int zc_socket_to(int nsfd, int family, int type, const void *addr, int port)
{
	int fd, ret;

	fd = zc_socket_in(nsfd, family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	ret = zc_connect_to(fd, family, addr, port);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int zc_socket_bound(int nsfd, int family, int type, const void *addr,
		    int port, int rcvbuf)
{
	struct sockaddr_storage ss;
	socklen_t len = fill_sockaddr(&ss, family, addr, port);
	int fd, one = 1, ret = 0;

	fd = zc_socket_in(nsfd, family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* FORCE passes rmem_max; a user namespace has no CAP_NET_ADMIN for it. */
	if (rcvbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
				     sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&ss, len))
		ret = -errno;
	else if ((type & 0xf) == SOCK_STREAM && listen(fd, 4))
		ret = -errno;
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

void zc_payload_fill(void *buf, size_t len, uint64_t seq, uint64_t seed,
		     bool stream)
{
	if (stream) {
		zc_pattern_fill(buf, len, seed, seq * len);
		return;
	}
	if (len < sizeof(seq)) {
		memset(buf, 0, len);
		return;
	}
	memcpy(buf, &seq, sizeof(seq));
	zc_pattern_fill((char *)buf + sizeof(seq), len - sizeof(seq), seed,
			seq * len + sizeof(seq));
}

static bool rx_dgram_sock(const struct zc_rx *r)
{
	return r->type == SOCK_DGRAM;
}

static void rx_bad(struct zc_rx *r, long long off)
{
	if (!r->bad++)
		r->first_bad = off;
}

static void rx_dgram(struct zc_rx *r, const unsigned char *buf, size_t n)
{
	uint64_t seq;
	long bad;

	r->bytes += n;
	/* Too short to carry a request number: counted, not checked. */
	if (r->size < sizeof(seq))
		return;
	if (n < sizeof(seq)) {
		rx_bad(r, 0);
		return;
	}
	memcpy(&seq, buf, sizeof(seq));
	if (seq >= r->nseq) {
		r->out_of_range++;
		return;
	}
	if (r->seen[seq]++)
		r->dups++;
	if (n != r->size)
		rx_bad(r, seq * r->size);
	if (!r->verify)
		return;
	bad = zc_pattern_check(buf + sizeof(seq), n - sizeof(seq), r->seed,
			       seq * r->size + sizeof(seq));
	if (bad >= 0)
		rx_bad(r, seq * r->size + sizeof(seq) + bad);
}

/* One bounded wait for input; false when the thread should end. */
static bool rx_wait(struct zc_rx *r, int fd)
{
	int ret;

	while (!atomic_load(&r->stop) &&
	       !zc_bound_over(&r->bound, r->bytes + atomic_load(&r->dgrams))) {
		ret = zc_poll_one(fd, POLLIN, 0.1);
		if (ret < 0) {
			r->err = ret;
			return false;
		}
		if (ret)
			return true;
	}
	if (!atomic_load(&r->stop))
		r->err = -ETIMEDOUT;
	return false;
}

static void rx_udp(struct zc_rx *r, unsigned char *buf, size_t cap)
{
	while (atomic_load(&r->dgrams) < r->nseq && rx_wait(r, r->fd)) {
		ssize_t n = recv(r->fd, buf, cap, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			r->err = -errno;
			return;
		}
		rx_dgram(r, buf, n);
		atomic_fetch_add(&r->dgrams, 1);
	}
}

static void rx_tcp(struct zc_rx *r, unsigned char *buf, size_t cap)
{
	int cfd;

	if (!rx_wait(r, r->fd))
		return;
	cfd = accept4(r->fd, NULL, NULL, SOCK_CLOEXEC);
	if (cfd < 0) {
		r->err = -errno;
		return;
	}
	while (rx_wait(r, cfd)) {
		ssize_t n = recv(cfd, buf, cap, MSG_DONTWAIT);
		long bad;

		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			r->err = -errno;
			break;
		}
		bad = r->verify ? zc_pattern_check(buf, n, r->seed, r->bytes) : -1;
		if (bad >= 0)
			rx_bad(r, r->bytes + bad);
		r->bytes += n;
		atomic_fetch_add(&r->dgrams, 1);
	}
	close(cfd);
}

static void *rx_main(void *arg)
{
	struct zc_rx *r = arg;
	unsigned char *buf = malloc(RX_BUF);

	zc_pin_cpu(r->cpu);
	if (!buf)
		r->err = -ENOMEM;
	else if (rx_dgram_sock(r))
		rx_udp(r, buf, RX_BUF);
	else
		rx_tcp(r, buf, RX_BUF);
	free(buf);
	return NULL;
}

/* A datagram takes about twice its size of buffer (truesize). */
static unsigned int rx_window(int fd, size_t size)
{
	socklen_t glen = sizeof(int);
	int got = 0;

	if (!getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &glen) &&
	    (size_t)got / (2 * (size + 1)) < RX_WINDOW)
		return got / (2 * (size + 1)) ?: 1;
	return RX_WINDOW;
}

int zc_rx_start(struct zc_rx *r, int nsfd, const void *addr, int port)
{
	int ret;

	r->first_bad = -1;
	zc_bound_start(&r->bound, r->timeout, 0);
	r->running = false;
	r->seen = calloc(r->nseq ? r->nseq : 1, 1);
	if (!r->seen)
		return -ENOMEM;
	r->fd = zc_socket_bound(nsfd, r->family, r->type, addr, port, 4 << 20);
	if (r->fd < 0)
		return r->fd;
	r->window = rx_window(r->fd, r->size);
	ret = -pthread_create(&r->th, NULL, rx_main, r);
	r->running = !ret;
	return ret;
}

static uint64_t rx_missing(const struct zc_rx *r)
{
	uint64_t i, miss = 0;

	if (!rx_dgram_sock(r) || r->size < sizeof(uint64_t))
		return 0;
	for (i = 0; r->seen && i < r->nseq; i++)
		miss += !r->seen[i];
	return miss;
}

void zc_rx_join(struct zc_rx *r, double timeout)
{
	struct zc_bound b;

	zc_bound_start(&b, timeout, atomic_load(&r->dgrams));
	if (r->running) {
		while (rx_dgram_sock(r) && atomic_load(&r->dgrams) < r->nseq &&
		       !zc_bound_over(&b, atomic_load(&r->dgrams)))
			usleep(1000);
		if (rx_dgram_sock(r))
			atomic_store(&r->stop, 1);
		pthread_join(r->th, NULL);
		r->running = false;
	}
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->missing = rx_missing(r);
	free(r->seen);
	r->seen = NULL;
}
