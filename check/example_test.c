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

#include "core/matrix.h"
#include "core/probe.h"
#include "core/util.h"
#include "net/netns.h"
#include "send/zcsend.h"

struct ctx {
	struct zc_opts o;
	int nsfd;		/* our namespace, lo up */
};

/* A row: the runner's hooks, what the case does, what it expects. */
struct row {
	ZC_ROW_HOOKS(struct row, struct ctx);
	enum zc_send_mode mode;
	int verdict;		/* ZC_VERDICT_COPIED / ZC_VERDICT_ZEROCOPY */
};
ZC_MATRIX_TYPE(row, struct row, struct ctx)

static void case_verdict(const struct zc_case *c, const struct row *r,
			 struct ctx *x);
static int udp_pair(int nsfd, int fd[2], struct zc_why *why);
static enum zc_pre need_so_zerocopy(const struct zc_case *c, const struct row *r,
				    struct ctx *x, struct zc_why *why);

/* ---- the cases: rows from their axes, names from the rows ---- */

static const char *const modes[] = {
	[ZC_MODE_SEND] = "send", [ZC_MODE_MSG_ZEROCOPY] = "msg_zerocopy",
};

/* Local delivery copies: both sends are expected copied. */
static const struct row_matrix cases = {
	.base = &(const struct row){
		.zc = { .fn = case_verdict, .pre = need_so_zerocopy },
		.verdict = ZC_VERDICT_COPIED,
	},
	.axes = {
		ZC_AXIS(struct row, mode, modes, ZC_MODE_SEND, ZC_MODE_MSG_ZEROCOPY),
	},
};

/* ---- the case bodies ---- */

static void case_verdict(const struct zc_case *c, const struct row *r,
			 struct ctx *x)
{
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
	ktap_result_why(c->name, ok, &why);
}

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

/* What only run time knows: does this kernel take SO_ZEROCOPY? */
static enum zc_pre need_so_zerocopy(const struct zc_case *c, const struct row *r,
				    struct ctx *x, struct zc_why *why)
{
	int fd, one = 1, ret;

	if (r->mode != ZC_MODE_MSG_ZEROCOPY)
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
	.summary = "The shape of a test: copy verdicts of a send on UDP loopback.",
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
