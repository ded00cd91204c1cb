// SPDX-License-Identifier: GPL-2.0
/* A sender socket and a plain receiver for it (rxpair.h). */
#include <errno.h>
#include <poll.h>
#include <unistd.h>
#include <sys/socket.h>

#include "tap_copy/rxpair.h"
#include "send/sock.h"
#include "core/util.h"

/* The connection a stream listener got within timeout: fd or -errno. */
static int accept_one(int lfd, double timeout)
{
	int fd;

	if (zc_poll_one(lfd, POLLIN, timeout) <= 0)
		return -ETIMEDOUT;
	fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int zc_rxpair_open(int tx_nsfd, int rx_nsfd, int family, int type,
		   const void *addr, int port, double timeout, int *rx_fd,
		   const char **step)
{
	int lfd, fd;

	*rx_fd = -1;
	*step = "receiver";
	lfd = zc_socket_bound(rx_nsfd, family, type | SOCK_NONBLOCK, addr,
			      port, 0);
	if (lfd < 0)
		return lfd;
	*step = "connect";
	fd = zc_socket_to(tx_nsfd, family, type, addr, port);
	if (fd >= 0 && type == SOCK_DGRAM) {
		*rx_fd = lfd;		/* the bound socket receives */
		return fd;
	}
	if (fd >= 0)
		*rx_fd = accept_one(lfd, timeout);
	close(lfd);
	if (fd >= 0 && *rx_fd < 0) {
		close(fd);
		return *rx_fd;
	}
	return fd;
}

void zc_rxpair_drain(int rx_fd, long *msgs, long long *bytes)
{
	static char buf[1 << 16];
	ssize_t n;

	if (rx_fd < 0)
		return;
	while ((n = recv(rx_fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		(*msgs)++;
		*bytes += n;
	}
}
