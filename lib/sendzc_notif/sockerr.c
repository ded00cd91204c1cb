// SPDX-License-Identifier: GPL-2.0
/* Sockets a send fails on, each with its errno (sockerr.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "net/netns.h"
#include "send/sock.h"
#include "sendzc_notif/sockerr.h"
#include "core/util.h"

int zc_sockerr_refused(int nsfd, const void *addr, int port, double timeout)
{
	int fd, ret;

	fd = zc_socket_in(nsfd, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	ret = zc_connect_to(fd, AF_INET, addr, port);
	if (ret != -EINPROGRESS) {
		ret = -EPROTO;	/* nobody listens there: it cannot connect */
		goto fail;
	}
	ret = zc_poll_one(fd, POLLOUT, timeout);
	if (ret <= 0) {
		ret = ret ? ret : -ETIMEDOUT;
		goto fail;
	}
	ret = fcntl(fd, F_SETFL, 0) ? -errno : 0;
	if (!ret)
		return fd;
fail:
	close(fd);
	return ret;
}

int zc_sockerr_dontfrag(int fd, int family)
{
	int v = IP_PMTUDISC_DO, one = 1;

	if (family == AF_INET6)
		return setsockopt(fd, IPPROTO_IPV6, IPV6_DONTFRAG, &one,
				  sizeof(one)) ? -errno : 0;
	return setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof(v)) ?
		-errno : 0;
}

int zc_sockerr_unix(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	close(sv[1]);
	return sv[0];
}
