// SPDX-License-Identifier: GPL-2.0
/* In-kernel frame generator over BPF_PROG_RUN live frames (see xdpgen.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/meter.h"
#include "net/netns.h"
#include "xsk/xdpgen.h"
#include "xdpgen.skel.h"

#ifndef BPF_F_TEST_XDP_LIVE_FRAMES
#define BPF_F_TEST_XDP_LIVE_FRAMES	(1U << 1)
#endif

/*
 * Each BPF_PROG_RUN sets up and tears down its own page pool, which costs
 * milliseconds whatever the frame count: size runs to about RUN_SECONDS
 * (a stop waits that long at most), starting from RUN_FRAMES_MIN.
 */
#define RUN_SECONDS	0.1
#define RUN_FRAMES_MIN	4096
#define RUN_FRAMES_MAX	(1U << 24)
/* Frames per redirect flush (the kernel's default, NAPI_POLL_WEIGHT). */
#define RUN_BATCH	64

static int run_once(const struct zc_xdpgen *g, uint32_t repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = g->frame,
		.data_size_in = g->len,
		.repeat = repeat,
		.flags = BPF_F_TEST_XDP_LIVE_FRAMES,
		.batch_size = RUN_BATCH,
	);

	if (bpf_prog_test_run_opts(bpf_program__fd(g->skel->progs.zc_xdp_gen),
				   &opts))
		return -errno;
	return 0;
}

/*
 * Sum of the device's ethtool statistics whose name ends in suffix: veth
 * keeps one per queue ("tx_queue_0_xdp_xmit_errors").
 */
static int ethtool_sum(int fd, const char *ifname, const char *suffix,
		       uint64_t *sum)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t n;
	} ss = { .hdr = { .cmd = ETHTOOL_GSSET_INFO,
			  .sset_mask = 1ULL << ETH_SS_STATS } };
	struct ethtool_gstrings *str = NULL;
	struct ethtool_stats *st = NULL;
	struct ifreq ifr = { 0 };
	size_t slen = strlen(suffix);
	uint32_t i, n;
	int ret = 0;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&ss;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		return -errno;
	n = ss.n;
	str = calloc(1, sizeof(*str) + (size_t)n * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + (size_t)n * sizeof(uint64_t));
	if (!str || !st) {
		ret = -ENOMEM;
		goto out;
	}
	str->cmd = ETHTOOL_GSTRINGS;
	str->string_set = ETH_SS_STATS;
	str->len = n;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = n;
	ifr.ifr_data = (void *)str;
	if (ioctl(fd, SIOCETHTOOL, &ifr)) {
		ret = -errno;
		goto out;
	}
	ifr.ifr_data = (void *)st;
	if (ioctl(fd, SIOCETHTOOL, &ifr)) {
		ret = -errno;
		goto out;
	}
	*sum = 0;
	ret = -ENOENT;
	for (i = 0; i < n; i++) {
		const char *name = (const char *)str->data + (size_t)i * ETH_GSTRING_LEN;
		size_t len = strnlen(name, ETH_GSTRING_LEN);

		if (len >= slen && !strcmp(name + len - slen, suffix)) {
			*sum += st->data[i];
			ret = 0;
		}
	}
out:
	free(str);
	free(st);
	return ret;
}

static int xmit_errors(const struct zc_xdpgen *g, uint64_t *v)
{
	struct ifreq ifr = { .ifr_ifindex = g->ifindex };
	int fd, ret;

	/* The socket's namespace is where both ioctls look the device up. */
	fd = zc_socket_in(g->nsfd, AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return fd;
	if (ioctl(fd, SIOCGIFNAME, &ifr))
		ret = -errno;
	else
		ret = ethtool_sum(fd, ifr.ifr_name, "_xdp_xmit_errors", v);
	close(fd);
	return ret;
}

int zc_xdpgen_open(struct zc_xdpgen *g, int nsfd, int ifindex, int cpu,
		   const void *frame, uint32_t len, bool payload,
		   struct zc_why *why)
{
	uint64_t v;
	int ret;

	memset(g, 0, sizeof(*g));
	/* BPF_PROG_RUN takes at least an Ethernet header. */
	if (len > sizeof(g->frame) || len < 14) {
		zc_why_set(why, "frame of %u bytes", len);
		return -EINVAL;
	}
	g->nsfd = nsfd;
	g->ifindex = ifindex;
	g->cpu = cpu;
	g->len = len;
	memcpy(g->frame, frame, len);
	g->skel = xdpgen__open_and_load();
	if (!g->skel) {
		ret = errno ? -errno : -EINVAL;
		zc_why_set(why, "load bpf/xdpgen: %s", strerror(-ret));
		return ret;
	}
	g->skel->bss->zc_gen_payload = payload;
	/* Redirect to ifindex 0 goes nowhere: the trial frame reaches no one. */
	ret = run_once(g, 1);
	if (ret) {
		zc_why_set(why, "BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES: %s%s",
			   strerror(-ret), ret == -EINVAL ? " (kernel before 5.18?)" : "");
		return ret;
	}
	ret = xmit_errors(g, &v);
	if (ret) {
		zc_why_set(why, "ethtool xdp_xmit_errors of ifindex %d: %s",
			   ifindex, strerror(-ret));
		return ret;
	}
	g->skel->bss->zc_gen_ifindex = ifindex;
	return 0;
}

static uint32_t clamp_frames(double n)
{
	if (n < RUN_FRAMES_MIN)
		return RUN_FRAMES_MIN;
	return n > RUN_FRAMES_MAX ? RUN_FRAMES_MAX : (uint32_t)n;
}

static void *runner(void *arg)
{
	struct zc_xdpgen *g = arg;
	uint32_t per_run = RUN_FRAMES_MIN;
	uint64_t done = 0;
	int ret;

	/* setns is per thread: only the runner moves to the device's side. */
	ret = zc_netns_enter(g->nsfd);
	if (ret) {
		g->err = ret;
		return NULL;
	}
	zc_pin_cpu(g->cpu);
	g->t0 = zc_now();
	while (done < g->max &&
	       !__atomic_load_n(&g->stop, __ATOMIC_RELAXED) &&
	       zc_now() < g->deadline) {
		uint32_t n = g->max - done < per_run ? g->max - done : per_run;
		double t = zc_now(), dt;

		ret = run_once(g, n);
		if (ret) {
			g->err = ret;
			break;
		}
		done += n;
		dt = zc_now() - t;
		if (dt > 0)
			per_run = clamp_frames(n * (RUN_SECONDS / dt));
	}
	g->t1 = zc_now();
	__atomic_store_n(&g->ended, 1, __ATOMIC_RELEASE);
	return NULL;
}

int zc_xdpgen_start(struct zc_xdpgen *g, double seconds, uint64_t max)
{
	int ret;

	ret = xmit_errors(g, &g->xmit_err0);
	if (ret)
		return ret;
	g->seq0 = g->skel->bss->zc_gen_seq;
	g->deadline = zc_now() + seconds;
	g->max = max;
	g->stop = 0;
	g->ended = 0;
	g->t0 = g->t1 = 0;
	ret = pthread_create(&g->thr, NULL, runner, g);
	if (ret)
		return -ret;
	g->running = true;
	return 0;
}

void zc_xdpgen_stop(struct zc_xdpgen *g)
{
	__atomic_store_n(&g->stop, 1, __ATOMIC_RELAXED);
	if (g->running)
		pthread_join(g->thr, NULL);
	g->running = false;
}

uint64_t zc_xdpgen_generated(const struct zc_xdpgen *g)
{
	return g->skel ? g->skel->bss->zc_gen_seq - g->seq0 : 0;
}

int zc_xdpgen_refused(const struct zc_xdpgen *g, uint64_t *refused)
{
	uint64_t v;
	int ret = xmit_errors(g, &v);

	if (!ret)
		*refused = v - g->xmit_err0;
	return ret;
}

void zc_xdpgen_close(struct zc_xdpgen *g)
{
	zc_xdpgen_stop(g);
	xdpgen__destroy(g->skel);
	g->skel = NULL;
}
