// SPDX-License-Identifier: GPL-2.0
/*
 * example_test: the shape every test has, small enough to read at once
 * (doc/adding-a-test.md walks through it; make check builds it).
 *
 * Path: a send on UDP loopback in a namespace of our own. The kernel
 * cannot leave user pages with a local receiver, so a MSG_ZEROCOPY send
 * is copied (skb_orphan_frags_rx) and its completion on the error queue
 * says so (SO_EE_CODE_ZEROCOPY_COPIED); a plain send(2) queues none.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/errqueue.h>
#include <sys/socket.h>

#include "core/clock.h"
#include "core/compat.h"
#include "core/matrix.h"
#include "core/probe.h"
#include "core/util.h"
#include "net/netns.h"

#define WAIT_S	2.0	/* for a completion the kernel owes */

struct ctx {
	struct zc_opts o;
	int nsfd;		/* our namespace, lo up */
};

/* A case, declared once: how it sends, what the kernel owes, and why. */
static const struct send_case {
	const char *name;
	int flags;		/* send(2)'s */
	int completions;	/* on the error queue, each one copied */
	const char *because;
} sends[] = {
	{ "send", 0, 0, "no MSG_ZEROCOPY: nothing to complete" },
	{ "msg_zerocopy", MSG_ZEROCOPY, 1,
	  "local delivery copies (skb_orphan_frags_rx) and completes copied" },
};

struct row {
	ZC_ROW_HOOKS(struct row, struct ctx);
	int send;		/* its entry in sends[] */
};
ZC_MATRIX_TYPE(row, struct row, struct ctx)

static void case_send(const struct zc_case *c, const struct row *r,
		      struct ctx *x);
static enum zc_pre need_so_zerocopy(const struct zc_case *c, const struct row *r,
				    struct ctx *x, struct zc_why *why);

static const struct row_matrix cases = {
	.base = &(const struct row){
		.zc = { .fn = case_send, .pre = need_so_zerocopy },
	},
	.axes = { ZC_AXIS_TABLE(struct row, send, sends, name) },
};

/* ---- the case body ---- */

static int udp_pair(int nsfd, int fd[2], struct zc_why *why);
static int drain_errqueue(int fd, int want, int *copied, struct zc_why *why);

static void case_send(const struct zc_case *c, const struct row *r,
		      struct ctx *x)
{
	static char buf[65507];
	const struct send_case *s = &sends[r->send];
	struct zc_why why = { "" };
	int fd[2] = { -1, -1 }, one = 1, copied = 0, n = -1;
	ssize_t sent = -1, got = -1;
	bool ok;

	if (udp_pair(x->nsfd, fd, &why))
		goto out;
	if (s->flags & MSG_ZEROCOPY &&
	    setsockopt(fd[0], SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		zc_why_errno(&why, "setsockopt(SO_ZEROCOPY)");
		goto out;
	}
	sent = send(fd[0], buf, x->o.size, s->flags);
	if (sent < 0) {
		zc_why_errno(&why, "send");
		goto out;
	}
	/* The datagram arrives whole, then the kernel owes its completions. */
	if (zc_poll_one(fd[1], POLLIN, WAIT_S) > 0)
		got = recv(fd[1], buf, sizeof(buf), MSG_DONTWAIT);
	if (ZC_EXPECT_EQ(&why, got, sent))
		n = drain_errqueue(fd[0], s->completions, &copied, &why);
out:
	if (fd[0] >= 0)
		close(fd[0]);
	if (fd[1] >= 0)
		close(fd[1]);
	ok = n >= 0 && ZC_EXPECT_EQ(&why, n, s->completions) &&
	     ZC_EXPECT_EQ(&why, copied, s->completions);
	if (n >= 0 && !ok)
		zc_why_prefix(&why, "%s", s->because);
	ktap_result_why(c->name, ok, &why);
}

/* A connected UDP pair on 127.0.0.1 in nsfd: fd[0] sends to fd[1]. */
static int udp_pair(int nsfd, int fd[2], struct zc_why *why)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd[0] = zc_socket_in(nsfd, AF_INET, SOCK_DGRAM, 0);
	fd[1] = zc_socket_in(nsfd, AF_INET, SOCK_DGRAM, 0);
	if (fd[0] < 0 || fd[1] < 0) {
		errno = -(fd[0] < 0 ? fd[0] : fd[1]);
		return zc_why_errno(why, "socket in our namespace");
	}
	if (bind(fd[1], (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd[1], (struct sockaddr *)&a, &len) ||
	    connect(fd[0], (struct sockaddr *)&a, sizeof(a)))
		return zc_why_errno(why, "loopback pair");
	return 0;
}

/*
 * The MSG_ZEROCOPY completions on fd's error queue: waits up to WAIT_S
 * while fewer than want came, then takes what else is queued. Each is a
 * range of send ids; *copied counts those with SO_EE_CODE_ZEROCOPY_COPIED.
 * Returns the sends completed, or -1 with why.
 */
static int drain_errqueue(int fd, int want, int *copied, struct zc_why *why)
{
	char control[CMSG_SPACE(sizeof(struct sock_extended_err)) + 64];
	struct msghdr msg = { .msg_control = control };
	struct sock_extended_err *ee;
	struct cmsghdr *cm;
	int n = 0, sends;

	for (;;) {
		msg.msg_controllen = sizeof(control);
		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			if (errno != EAGAIN)
				return zc_why_errno(why, "recvmsg(MSG_ERRQUEUE)");
			/* The error queue raises POLLERR whatever one asks for. */
			if (n >= want || zc_poll_one(fd, 0, WAIT_S) <= 0)
				return n;
			continue;
		}
		cm = CMSG_FIRSTHDR(&msg);
		if (!cm)
			return zc_why_set(why, "error queue entry without a cmsg");
		ee = (struct sock_extended_err *)CMSG_DATA(cm);
		if (!ZC_EXPECT_EQ(why, ee->ee_origin, SO_EE_ORIGIN_ZEROCOPY))
			return -1;
		sends = ee->ee_data - ee->ee_info + 1;
		n += sends;
		if (ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
			*copied += sends;
	}
}

/* What only run time knows: does this kernel take SO_ZEROCOPY? */
static enum zc_pre need_so_zerocopy(const struct zc_case *c, const struct row *r,
				    struct ctx *x, struct zc_why *why)
{
	int fd, one = 1, ret;

	if (!(sends[r->send].flags & MSG_ZEROCOPY))
		return ZC_RUN;
	fd = zc_socket_in(x->nsfd, AF_INET, SOCK_DGRAM, 0);
	ret = fd < 0 ? -1 : setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY,
				       &one, sizeof(one));

	/* what this kernel lacks: a regression when it went missing */
	if (ret) {
		zc_why_errno(why, "SO_ZEROCOPY on a UDP socket");
		zc_why_as(why, ZC_CLASS_KERNEL);
	}
	if (fd >= 0)
		close(fd);
	return ret ? ZC_SKIP : ZC_RUN;
}

/* ---- setup ---- */

static int probe(void *ctx, struct zc_why *why)
{
	static const cap_value_t caps[] = { CAP_SYS_ADMIN };

	return zc_require_caps(why, caps, 1);
}

static int setup(void *ctx, struct zc_why *why)
{
	struct ctx *x = ctx;

	x->nsfd = zc_netns_new();
	if (x->nsfd < 0) {
		errno = -x->nsfd;
		return zc_why_errno(why, "new network namespace");
	}
	return 0;
}

static void teardown(void *ctx)
{
	struct ctx *x = ctx;

	if (x->nsfd >= 0)
		close(x->nsfd);
}

static const struct zc_test_desc desc = {
	.name = "example_test",
	.summary = "The shape of a test: MSG_ZEROCOPY completions of a send on UDP loopback.",
	.size_default = 1024, .size_max = 65507,
};

static struct zc_test test = {
	.desc = &desc, .probe = probe, .setup = setup, .teardown = teardown,
};

int main(int argc, char **argv)
{
	struct ctx ctx = { .nsfd = -1 };

	struct zc_matrix ms[] = { row_matrix(&cases) };

	return zc_matrix_main(&test, ms, 1, argc, argv, &ctx.o, &ctx);
}
