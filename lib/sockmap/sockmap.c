// SPDX-License-Identifier: GPL-2.0
/* The sockmap loopback topology: sockets, pipe, skeleton, see sockmap.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/sockmap_abi.h"
#include "sockmap.skel.h"
#include "net/netns.h"
#include "sockmap/sockmap.h"
#include "core/util.h"

#define PIPE_BYTES	(1 << 20)

const char *zc_sm_mode_name(enum zc_sm_mode m)
{
	static const char *const names[] = { "plain", "ingress", "egress", "pass" };

	return names[m];
}

int zc_sm_fionread(int fd)
{
	int v = 0;

	return ioctl(fd, FIONREAD, &v) ? -errno : v;
}

unsigned long long zc_sm_verdicts(const struct zc_sm_topo *t)
{
	__u64 v = 0;
	__u32 key = 0;

	if (t->skel)
		bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.zc_sm_count),
				    &key, &v);
	return v;
}

void zc_sm_state(const struct zc_sm_topo *t, char *buf, size_t len)
{
	snprintf(buf, len, "FIONREAD %s=%d, verdicts=%llu", t->rx == t->c2 ?
		 "c2" : t->rx == t->p2 ? "p2" : "p1", zc_sm_fionread(t->rx),
		 zc_sm_verdicts(t));
}

int zc_sm_lo_mtu(const struct zc_sm_topo *t)
{
	struct ifreq ifr = {};
	int fd = zc_socket_in(t->nsfd, AF_INET, SOCK_DGRAM, 0), mtu = -1;

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (!ioctl(fd, SIOCGIFMTU, &ifr))
		mtu = ifr.ifr_mtu;
	close(fd);
	return mtu;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) ? -errno : 0;
}

static int listener(struct zc_sm_topo *t, struct sockaddr_in *addr)
{
	socklen_t alen = sizeof(*addr);

	t->lfd = zc_socket_in(t->nsfd, AF_INET, SOCK_STREAM, 0);
	if (t->lfd < 0)
		return t->lfd;
	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(t->lfd, (struct sockaddr *)addr, sizeof(*addr)) ||
	    listen(t->lfd, 4) ||
	    getsockname(t->lfd, (struct sockaddr *)addr, &alen))
		return -errno;
	return set_nonblock(t->lfd);
}

/* One loopback connection, both ends non-blocking, every wait bounded. */
static int tcp_pair(struct zc_sm_topo *t, const struct sockaddr_in *addr,
		    int *c, int *p)
{
	int ret;

	*c = zc_socket_in(t->nsfd, AF_INET, SOCK_STREAM, 0);
	if (*c < 0)
		return *c;
	ret = set_nonblock(*c);
	if (ret)
		return ret;
	if (connect(*c, (const struct sockaddr *)addr, sizeof(*addr)) &&
	    errno != EINPROGRESS)
		return -errno;
	if (zc_poll_one(*c, POLLOUT, ZC_SM_DELIVER_S) <= 0 ||
	    zc_poll_one(t->lfd, POLLIN, ZC_SM_DELIVER_S) <= 0)
		return -ETIMEDOUT;
	*p = accept4(t->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	return *p < 0 ? -errno : 0;
}

static int set_rcvbuf(struct zc_sm_topo *t, int fd, long bytes)
{
	socklen_t len = sizeof(t->rcvbuf);
	int v = bytes;

	/*
	 * In a user namespace FORCE is refused (CAP_NET_ADMIN counts in the
	 * initial one): take what rmem_max allows; the size is printed.
	 */
	if (bytes && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) &&
	    (errno != EPERM || setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v))))
		return -errno;
	return getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &t->rcvbuf, &len) ?
		-errno : 0;
}

static struct bpf_program *verdict_prog(struct sockmap *s, enum zc_sm_mode m)
{
	if (m == ZC_SM_EGRESS)
		return s->progs.zc_sm_egress;
	if (m == ZC_SM_PASS)
		return s->progs.zc_sm_pass;
	return s->progs.zc_sm_ingress;
}

static int map_add(struct zc_sm_topo *t, __u32 key, int fd)
{
	__u64 v = fd;

	return bpf_map_update_elem(bpf_map__fd(t->skel->maps.zc_sm_map), &key,
				   &v, BPF_ANY) ? -errno : 0;
}

/*
 * The program is attached to the map, which only fds hold: it goes with
 * the skeleton or the process, never outlives either.
 */
static int attach_verdict(struct zc_sm_topo *t)
{
	int ret;

	t->skel = sockmap__open_and_load();
	if (!t->skel)
		return errno ? -errno : -EINVAL;
	if (bpf_prog_attach(bpf_program__fd(verdict_prog(t->skel, t->mode)),
			    bpf_map__fd(t->skel->maps.zc_sm_map),
			    BPF_SK_SKB_STREAM_VERDICT, 0))
		return -errno;
	ret = map_add(t, ZC_SM_KEY_RX, t->p1);
	if (!ret && t->mode != ZC_SM_PASS)
		ret = map_add(t, ZC_SM_KEY_TARGET, t->c2);
	return ret;
}

static int consumer_fd(const struct zc_sm_topo *t)
{
	switch (t->mode) {
	case ZC_SM_INGRESS:
		return t->c2;
	case ZC_SM_EGRESS:
		return t->p2;
	default:
		return t->p1;
	}
}

static int make_pipe(struct zc_sm_topo *t)
{
	if (pipe2(t->pipe, O_NONBLOCK | O_CLOEXEC))
		return -errno;
	/* Root may go above pipe-max-size; the smaller default still works. */
	fcntl(t->pipe[1], F_SETPIPE_SZ, PIPE_BYTES);
	t->pipe_bytes = fcntl(t->pipe[1], F_GETPIPE_SZ);
	return t->pipe_bytes > 0 ? 0 : -errno;
}

void zc_sm_topo_close(struct zc_sm_topo *t)
{
	int *fds[] = { &t->c1, &t->p1, &t->c2, &t->p2, &t->lfd, &t->pipe[0],
		       &t->pipe[1], &t->nsfd };
	size_t i;

	for (i = 0; i < ZC_ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	sockmap__destroy(t->skel);
	t->skel = NULL;
}

static int topo_build(struct zc_sm_topo *t, long rcvbuf, const char **step)
{
	struct sockaddr_in addr;
	int ret;

	*step = "namespace";
	t->nsfd = zc_netns_new();
	if (t->nsfd < 0)
		return t->nsfd;
	*step = "listener";
	ret = listener(t, &addr);
	*step = "connections";
	if (!ret)
		ret = tcp_pair(t, &addr, &t->c1, &t->p1);
	if (!ret)
		ret = tcp_pair(t, &addr, &t->c2, &t->p2);
	if (ret)
		return ret;
	t->rx = consumer_fd(t);
	*step = "SO_RCVBUFFORCE";
	ret = set_rcvbuf(t, t->rx, rcvbuf);
	*step = "pipe";
	if (!ret)
		ret = make_pipe(t);
	*step = "sockmap and verdict program";
	if (!ret && t->mode != ZC_SM_PLAIN)
		ret = attach_verdict(t);
	return ret;
}

int zc_sm_topo_setup(struct zc_sm_topo *t, enum zc_sm_mode m, long rcvbuf,
		     struct zc_why *why)
{
	const char *step = "";
	int ret;

	memset(t, 0, sizeof(*t));
	t->nsfd = t->lfd = t->c1 = t->p1 = t->c2 = t->p2 = -1;
	t->pipe[0] = t->pipe[1] = -1;
	t->mode = m;
	ret = topo_build(t, rcvbuf, &step);
	if (ret) {
		zc_why_set(why, "%s topology: %s: %s", zc_sm_mode_name(m), step,
			   strerror(-ret));
		zc_sm_topo_close(t);
	}
	return ret;
}
