// SPDX-License-Identifier: GPL-2.0
/*
 * example_test: the shape every test has, small enough to read at once
 * (doc/adding-a-test.md walks through it; make check builds it).
 *
 * Path: a send on UDP loopback in a namespace of our own. The kernel
 * cannot leave user pages with a local receiver, so a MSG_ZEROCOPY send
 * is copied (skb_orphan_frags_rx) and its completion says so
 * (SO_EE_CODE_ZEROCOPY_COPIED); a plain send(2) always copies.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "net/netns.h"
#include "core/probe.h"
#include "core/runner.h"
#include "core/util.h"
#include "send/zcsend.h"

struct ctx {
	struct zc_opts o;
	int nsfd;		/* our namespace, lo up */
};

/* A row's data: what the case does and what it expects. */
struct row {
	enum zc_send_mode mode;
	int verdict;		/* ZC_VERDICT_COPIED / ZC_VERDICT_ZEROCOPY */
};

static void case_verdict(const struct zc_case *c, void *ctx);
static enum zc_pre need_so_zerocopy(const struct zc_case *c, void *ctx,
				    struct zc_why *why);

/* ---- the case table ---- */

static const struct zc_case cases[] = {
	{ .name = "udp4.send.loopback", .fn = case_verdict,
	  .arg = &(const struct row){ ZC_MODE_SEND, ZC_VERDICT_COPIED } },
	{ .name = "udp4.msg_zerocopy.loopback", .fn = case_verdict,
	  .arg = &(const struct row){ ZC_MODE_MSG_ZEROCOPY, ZC_VERDICT_COPIED },
	  .pre = need_so_zerocopy, .timeout = 10 },
};

/* ---- the case bodies ---- */

/* A connected UDP pair on 127.0.0.1 in nsfd: tx sends to rx. */
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

static void case_verdict(const struct zc_case *c, void *ctx)
{
	const struct row *r = c->arg;
	struct ctx *x = ctx;
	struct zc_sender_cfg cfg = { .mode = r->mode, .size = x->o.size,
				     .depth = 1, .exact = true };
	struct zc_why why = { "" };
	struct zc_sender *s = NULL;
	int fd[2] = { -1, -1 }, v = -EINVAL, err, i;
	bool ok;

	if (!udp_pair(x->nsfd, fd, &why)) {
		cfg.fd = fd[0];
		s = zc_sender_open(&cfg, &err);
		v = s ? zc_sender_verdict(s, 1.0) : err;
		if (v < 0)
			zc_why_set(&why, "verdict: %s", strerror(-v));
	}
	zc_sender_close(s);
	for (i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	ok = v >= 0 && ZC_CHECK_EQ(&why, "verdict (0 zerocopy, 1 copied)",
				   v, r->verdict);
	ktap_result(c->name, ok, "%s", why.msg);
}

/* What only run time knows: does this kernel take SO_ZEROCOPY? */
static enum zc_pre need_so_zerocopy(const struct zc_case *c, void *ctx,
				    struct zc_why *why)
{
	struct ctx *x = ctx;
	int fd = zc_socket_in(x->nsfd, AF_INET, SOCK_DGRAM, 0), one = 1;
	int ret = fd < 0 ? -1 : setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY,
					   &one, sizeof(one));

	if (ret)
		zc_why_errno(why, "SO_ZEROCOPY on a UDP socket");
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
	.summary = "The shape of a test: copy verdicts of a send on UDP loopback.",
	.size_default = 1024, .size_max = 65507,
};

static const struct zc_test test = {
	.desc = &desc, .cases = cases, .ncases = ZC_ARRAY_SIZE(cases),
	.probe = probe, .setup = setup, .teardown = teardown,
};

int main(int argc, char **argv)
{
	struct ctx ctx = { .nsfd = -1 };

	return zc_main(&test, argc, argv, &ctx.o, &ctx);
}
