// SPDX-License-Identifier: GPL-2.0
/* Another AF_XDP program on a rate case's topology; see xsk_peer.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "core/util.h"
#include "net/netdev_nl.h"
#include "net/netns.h"
#include "xsk/xsk_peer.h"

#define ATTACH_WAIT_S	10.0	/* the program's XDP attach, from its start */
#define GEN_BOUND_S	3600.0	/* the generator stops when the program exits */

struct xdp_query {
	int ifindex;
	unsigned int prog_id;
};

static int query_in_ns(void *arg)
{
	struct xdp_query *q = arg;
	int mode;

	return zc_netdev_xdp(q->ifindex, &mode, &q->prog_id);
}

static void child(const struct zc_xsk_dut *d, const struct zc_xsk_peer_cfg *cfg)
{
	char num[16];

	if (zc_netns_enter(d->nsfd))
		_exit(127);
	setenv("ZC_PEER_IFACE", d->ifname, 1);
	snprintf(num, sizeof(num), "%u", d->queue);
	setenv("ZC_PEER_QUEUE", num, 1);
	snprintf(num, sizeof(num), "%u", d->frame_len);
	setenv("ZC_PEER_FRAME", num, 1);
	setenv("ZC_PEER_XDP", zc_xsk_at_name(cfg->at), 1);
	execl("/bin/sh", "sh", "-c", cfg->cmd, (char *)NULL);
	_exit(127);
}

/*
 * The program's XDP attach seen on the device (the live generator needs
 * the NAPI it brings): 1; 0 when the program exited first (reaped, its
 * status in *status); -ETIMEDOUT; another -errno.
 */
static int wait_attach(const struct zc_xsk_dut *d, pid_t pid, int *status)
{
	struct xdp_query q = { .ifindex = d->ifindex };
	double end = zc_now() + ATTACH_WAIT_S;
	int err;

	do {
		err = zc_netns_run(d->nsfd, query_in_ns, &q);
		if (err)
			return err;
		if (q.prog_id)
			return 1;
		if (waitpid(pid, status, WNOHANG) == pid)
			return 0;
	} while (zc_now() < end && !usleep(10000));
	return -ETIMEDOUT;
}

/* The generator as the rate case runs it, into the program's device. */
static int feed(struct zc_xsk_run *r, const struct zc_xsk_peer_cfg *cfg,
		struct zc_why *why)
{
	const struct zc_xsk_dut *d = r->d;
	int err;

	err = zc_xsk_gen_open_rate(&r->g, &d->topo, d->frame_len, false, d->cpu_tx,
				   cfg->at == ZC_XSK_AT_NATIVE, NULL);
	if (!err)
		err = zc_xsk_gen_start(&r->g, GEN_BOUND_S, UINT64_MAX);
	if (err)
		zc_why_set(why, "generator: %s", strerror(-err));
	return err;
}

static int side_b_counter(struct zc_xsk_run *r, struct zc_why *why)
{
	const struct zc_topo *t = &r->d->topo;
	int err;

	err = zc_xsk_prog_load(&r->b, false);
	if (!err)
		err = zc_xsk_prog_count_any(&r->b);
	if (!err)
		err = zc_xsk_prog_attach(&r->b, t->b.nsfd, t->b.ifindex, true,
					 ZC_XSK_AT_NATIVE);
	if (err)
		zc_why_set(why, "peer-side XDP counter: %s", strerror(-err));
	return err;
}

static void report(const struct zc_xsk_run *r, bool fed, double secs)
{
	if (fed)
		printf("# peer: generator %s sent %llu frames (%llu more refused by veth) in %.2f s\n",
		       zc_xsk_gen_desc(&r->g), (unsigned long long)r->g.sent,
		       (unsigned long long)r->g.dropped, r->g.t1 - r->g.t0);
	printf("# peer: %s's counter counted %llu frames in %.2f s\n",
	       r->d->topo.b.ifname,
	       (unsigned long long)zc_xsk_cnt_get(&r->b, ZC_XSK_C_COUNT), secs);
}

int zc_xsk_peer_exec(struct zc_xsk_dut *d, const struct zc_xsk_peer_cfg *cfg,
		     struct zc_why *why)
{
	bool fed = false, rx = cfg->path != ZC_XSK_TXONLY;
	int status = 0, err, on = 1;
	struct zc_xsk_run r;
	double t0;
	pid_t pid;

	memset(&r, 0, sizeof(r));
	r.d = d;
	r.x.fd = -1;
	r.a.link = r.b.link = -1;
	zc_xsk_gen_init(&r.g);
	err = side_b_counter(&r, why);
	if (err)
		goto out;
	fflush(NULL);
	t0 = zc_now();
	pid = fork();
	if (pid < 0) {
		err = zc_why_errno(why, "fork");
		goto out;
	}
	if (!pid)
		child(d, cfg);
	if (rx)
		on = wait_attach(d, pid, &status);
	if (on > 0 && rx)
		err = feed(&r, cfg, why);
	else if (on == -ETIMEDOUT)
		err = zc_why_set(why, "no XDP program on %s within %.0f s of the command's start",
				 d->ifname, ATTACH_WAIT_S);
	else if (on < 0)
		err = zc_why_set(why, "XDP query on %s: %s", d->ifname, strerror(-on));
	fed = rx && on > 0 && !err;
	/* Something of ours failed: the command's run is no measurement. */
	if (err)
		kill(pid, SIGTERM);
	if (on)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	zc_xsk_gen_stop(&r.g);
	report(&r, fed, zc_now() - t0);
	if (!err)
		err = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	zc_xsk_run_close(&r);
	return err;
}
