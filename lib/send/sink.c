// SPDX-License-Identifier: GPL-2.0
/*
 * The tc drop sink on a two-namespace topology, and the one helper every
 * UDP rate to it goes through.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>

#include "send/sink.h"
#include "send/sock.h"
#include "send/uring.h"
#include "send/zcsend.h"
#include "tc_drop.skel.h"

#define SINK_SETTLE	2.0	/* for the last packets to reach the sink */
#define SINK_FLUSH	5.0	/* for a rate's last sends to complete */

int zc_sink_probe(const cap_value_t *caps, int ncaps, struct zc_sink_feat *f,
		  struct zc_why *why)
{
	if (zc_require_caps(why, caps, ncaps) || zc_require_bpf_caps(why))
		return -1;
	zc_probe_send_zc(&f->sendmsg_zc, &f->uring);
	zc_probe_bpf(&f->bpf);
	return 0;
}

int zc_sink_feat_need(const struct zc_sink_feat *f, const struct zc_sink_need *n,
		      struct zc_why *why)
{
	if (n->uring && f->uring.msg[0])
		return zc_why_skip(why, f->uring.cls, "%s", f->uring.msg);
	if (n->sink && f->bpf.msg[0])
		return zc_why_skip(why, f->bpf.cls, "needs the tc drop sink%s: %s",
				   n->what ? n->what : "", f->bpf.msg);
	return 0;
}

int zc_sink_setup(struct zc_sink *k, int mtu, int port, bool bpf,
		  struct zc_why *why)
{
	int ret;

	k->skel = NULL;
	k->port = port;
	ret = zc_topo_setup(&k->t, mtu, why);
	if (ret || !bpf)
		return ret;
	k->skel = tc_drop__open_and_load();
	if (!k->skel) {
		ret = errno ? -errno : -EINVAL;
		return zc_why_set(why, "load bpf/tc_drop: %s", strerror(-ret)), ret;
	}
	k->skel->bss->drop_port = port;
	ret = zc_tc_attach(k->t.b.nsfd, k->t.b.ifindex,
			   bpf_program__fd(k->skel->progs.zc_tc_drop), true);
	if (ret)
		zc_why_set(why, "attach tc drop at %s clsact ingress: %s",
			   k->t.b.ifname, strerror(-ret));
	return ret;
}

void zc_sink_teardown(struct zc_sink *k)
{
	tc_drop__destroy(k->skel);
	k->skel = NULL;
	zc_topo_teardown(&k->t);
}

uint64_t zc_sink_pkts(const struct zc_sink *k)
{
	return k->skel ? k->skel->bss->pkts : 0;
}

void zc_sink_set_port(struct zc_sink *k, int port)
{
	if (k->skel)
		k->skel->bss->drop_port = port;
}

uint64_t zc_sink_settle(const struct zc_sink *k, uint64_t pk0, uint64_t want)
{
	double end = zc_now() + SINK_SETTLE;

	while (zc_sink_pkts(k) - pk0 < want && zc_now() < end)
		usleep(1000);
	return zc_sink_pkts(k) - pk0;
}

static int sink_socket(const struct zc_sink *k)
{
	return zc_socket_to(k->t.a.nsfd, AF_INET, SOCK_DGRAM, &k->t.b.addr4,
			    k->port);
}

int zc_sink_wait_path(const struct zc_sink *k, double timeout,
		      struct zc_why *why)
{
	double end = zc_now() + timeout;
	uint64_t pk0 = zc_sink_pkts(k);
	int fd = sink_socket(k);

	if (fd < 0)
		return zc_why_set(why, "socket to the sink: %s", strerror(-fd));
	while (zc_now() < end && zc_sink_pkts(k) == pk0) {
		send(fd, "", 1, MSG_DONTWAIT);
		usleep(20000);
	}
	close(fd);
	if (zc_sink_pkts(k) != pk0)
		return 0;
	return zc_why_set(why, "no datagram from %s reached the tc sink on %s in %g s",
			  k->t.a.ifname, k->t.b.ifname, timeout);
}

bool zc_sink_cmd_ok(const char *cmd)
{
	char word[PATH_MAX], path[PATH_MAX * 2];
	const char *env = getenv("PATH");
	size_t n = strcspn(cmd, " \t");
	char *dirs, *dir, *save = NULL;
	bool ok = false;

	if (!n || n >= sizeof(word))
		return false;
	memcpy(word, cmd, n);
	word[n] = '\0';
	if (strchr(word, '/'))
		return !access(word, X_OK);
	dirs = strdup(env ? env : "/usr/bin:/bin");
	for (dir = dirs ? strtok_r(dirs, ":", &save) : NULL; dir && !ok;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s/%s", dir, word);
		ok = !access(path, X_OK);
	}
	free(dirs);
	return ok;
}

int zc_sink_exec(const struct zc_sink *k, const char *cmd)
{
	char mtu[16], port[16];
	uint64_t pk0 = zc_sink_pkts(k);
	int status = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		snprintf(mtu, sizeof(mtu), "%d", k->t.mtu);
		snprintf(port, sizeof(port), "%d", k->port);
		if (zc_netns_enter(k->t.a.nsfd))
			_exit(127);
		setenv("ZC_PEER_ADDR", ZC_ADDR4_B, 1);
		setenv("ZC_PEER_PORT", port, 1);
		setenv("ZC_PEER_MTU", mtu, 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	printf("# peer: tc sink counted %llu datagrams\n",
	       (unsigned long long)(zc_sink_pkts(k) - pk0));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int zc_sink_tx_open(const struct zc_sink *k, struct zc_sink_tx *tx,
		    struct zc_sender_cfg *cfg, int sndbuf)
{
	int ret = 0;

	tx->s = NULL;
	tx->fd = cfg->fd = sink_socket(k);
	if (tx->fd < 0)
		return tx->fd;
	if (sndbuf > 0 && setsockopt(tx->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf,
				     sizeof(sndbuf)))
		return -errno;
	tx->s = zc_sender_open(cfg, &ret);
	return tx->s ? 0 : ret;
}

void zc_sink_tx_close(struct zc_sink_tx *tx)
{
	zc_sender_close(tx->s);
	tx->s = NULL;
	if (tx->fd >= 0)
		close(tx->fd);
	tx->fd = -1;
}

static int arm_step(void *arg, uint64_t *bytes, uint64_t *pkts)
{
	struct zc_sink_arm *a = arg;

	return zc_sender_step(a->tx.s, bytes, pkts);
}

static int arm_begin(void *arg)
{
	struct zc_sink_arm *a = arg;

	return a->begin ? a->begin(a->arg) : 0;
}

static int arm_end(void *arg)
{
	struct zc_sink_arm *a = arg;

	return a->end ? a->end(a->arg) : 0;
}

static int sink_measure(const struct zc_meter_cfg *mc, struct zc_sink_arm *arm,
			int narm, struct zc_stats *ratio)
{
	struct zc_arm pair[2];
	struct zc_rate out[2];
	bool hooks;
	int i, ret;

	if (narm == 1)
		return zc_measure(mc, arm_step, &arm[0], &arm[0].rate);
	for (i = 0; i < 2; i++) {
		hooks = arm[i].begin || arm[i].end;
		pair[i] = (struct zc_arm){ arm_step, &arm[i],
					   hooks ? arm_begin : NULL,
					   hooks ? arm_end : NULL };
	}
	ret = zc_measure_pair(mc, pair, out, ratio, false);
	arm[0].rate = out[0];
	arm[1].rate = out[1];
	return ret;
}

int zc_sink_rate(const struct zc_sink *k, const struct zc_meter_cfg *mc,
		 struct zc_sink_arm *arm, int narm, struct zc_stats *ratio,
		 uint64_t *sunk, struct zc_why *why)
{
	uint64_t pk0 = zc_sink_pkts(k), done = 0;
	const struct zc_send_stats *st;
	const char *violation = "";
	int ret, fl = 0, i;

	ret = sink_measure(mc, arm, narm, ratio);
	for (i = 0; i < narm; i++) {
		fl = fl ?: zc_sender_flush(arm[i].tx.s, SINK_FLUSH, 0);
		st = zc_sender_stats(arm[i].tx.s);
		done += st->completed;
		if (st->violations && !violation[0])
			violation = st->violation;
	}
	*sunk = zc_sink_settle(k, pk0, done);
	if (!ret && !fl)
		return 0;
	zc_why_set(why, "measure: %s, flush: %s%s%s", strerror(-ret),
		   strerror(-fl), violation[0] ? ", " : "", violation);
	return ret ?: fl;
}
