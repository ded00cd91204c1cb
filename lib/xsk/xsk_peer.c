// SPDX-License-Identifier: GPL-2.0
/* Another AF_XDP program on a rate case's topology; see xsk_peer.h. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "core/util.h"
#include "net/netdev_nl.h"
#include "net/netns.h"
#include "net/rtnl.h"
#include "xsk/xsk_peer.h"

#define ATTACH_WAIT_S	10.0	/* the program's XDP attach, from its start */
/* Beyond the case's time: the attach, the program's own start and exit. */
#define MARGIN_S	(ATTACH_WAIT_S + 10.0)
#define TERM_GRACE_S	2.0	/* from SIGTERM to SIGKILL */
#define SOCK_WAIT_S	5.0	/* its AF_XDP socket, once XDP is attached */

/* The peer program's rx ring, mapped read-only: its consumer index. */
struct peer_ring {
	int fd;			/* our duplicate of its socket */
	int pid, pfd;		/* its owner and fd number there */
	void *map;
	size_t len;
	const uint32_t *cons;
};

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

	/* Its own group, so a bound can end it with every descendant. */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
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
		const struct peer_ring *ring, struct zc_why *why)
{
	const struct zc_xsk_dut *d = r->d;
	int err;

	err = zc_xsk_gen_open_rate(&r->g, &d->topo, d->frame_len, false, d->cpu_tx,
				   cfg->at == ZC_XSK_AT_NATIVE, ring->cons, ring->fd);
	if (!err)
		err = zc_xsk_gen_start(&r->g, cfg->bound + MARGIN_S, UINT64_MAX);
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

/* The parent of pid (/proc/PID/stat), or -1. */
static int parent_of(int pid)
{
	char path[64], buf[512], *p;
	int ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	/* comm may hold anything but its closing parenthesis is the last */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

static bool descends(int pid, int root)
{
	int depth;

	for (depth = 0; pid > 1 && depth < 32; depth++) {
		if (pid == root)
			return true;
		pid = parent_of(pid);
	}
	return false;
}

/* An AF_XDP socket of pid's, duplicated here: our fd, or -1. */
static int xdp_fd_of(int pid, int *their_fd)
{
	char path[300], link[64];
	struct dirent *de;
	int fd = -1;
	DIR *dp;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dp = opendir(path);
	if (!dp)
		return -1;
	while (fd < 0 && (de = readdir(dp))) {
		int dom = 0;
		socklen_t len = sizeof(dom);
		ssize_t l;

		snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, de->d_name);
		l = readlink(path, link, sizeof(link) - 1);
		if (l <= 0 || strncmp(link, "socket:", 7))
			continue;
		fd = zc_pidfd_getfd(pid, atoi(de->d_name));
		if (fd >= 0 && (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) ||
				dom != AF_XDP)) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0)
			*their_fd = atoi(de->d_name);
	}
	closedir(dp);
	return fd;
}

/* The first AF_XDP socket among root and its descendants. */
static int find_xdp_socket(int root, struct peer_ring *ring)
{
	struct dirent *de;
	DIR *dp = opendir("/proc");

	if (!dp)
		return -errno;
	while ((de = readdir(dp))) {
		int pid = atoi(de->d_name);

		if (pid <= 0 || !descends(pid, root))
			continue;
		ring->fd = xdp_fd_of(pid, &ring->pfd);
		if (ring->fd >= 0) {
			ring->pid = pid;
			break;
		}
	}
	closedir(dp);
	return ring->fd >= 0 ? 0 : -ENOENT;
}

/* Map the rx ring's first page, where its indexes live. */
static int map_indexes(struct peer_ring *ring)
{
	struct xdp_mmap_offsets off;
	socklen_t len = sizeof(off);
	long page = sysconf(_SC_PAGESIZE);

	if (getsockopt(ring->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &len))
		return -errno;
	if (off.rx.consumer + sizeof(uint32_t) > (uint64_t)page)
		return -ERANGE;
	ring->map = mmap(NULL, page, PROT_READ, MAP_SHARED, ring->fd,
			 XDP_PGOFF_RX_RING);
	if (ring->map == MAP_FAILED) {
		ring->map = NULL;
		return -errno;
	}
	ring->len = page;
	ring->cons = (const uint32_t *)((const char *)ring->map + off.rx.consumer);
	return 0;
}

/*
 * A real pair's generator is held to a window over the frames the
 * receiver took out of its rx ring (lib/xsk/xsk_gen.h); the suite's rate
 * cases read their own ring's consumer index, so the program's is read
 * the same way: its AF_XDP socket duplicated from its process
 * (pidfd_getfd, 5.6) and its rx ring's first page mapped read-only,
 * nothing added to its data path.
 */
static int peer_ring_open(struct peer_ring *ring, int root, struct zc_why *why)
{
	double end = zc_now() + SOCK_WAIT_S;
	int err;

	do {
		err = find_xdp_socket(root, ring);
	} while (err == -ENOENT && zc_now() < end && !usleep(10000));
	if (err)
		return zc_why_set(why, "no AF_XDP socket among the command's processes within %.0f s of its XDP attach: %s",
				  SOCK_WAIT_S, strerror(-err));
	err = map_indexes(ring);
	if (err)
		return zc_why_set(why, "map the rx ring of pid %d's AF_XDP socket (fd %d): %s",
				  ring->pid, ring->pfd, strerror(-err));
	printf("# peer: generator held to %d frames beyond the rx ring of pid %d's AF_XDP socket (fd %d)\n",
	       ZC_XSK_PAIR_WINDOW, ring->pid, ring->pfd);
	return 0;
}

static void peer_ring_close(struct peer_ring *ring)
{
	if (ring->map)
		munmap(ring->map, ring->len);
	if (ring->fd >= 0)
		close(ring->fd);
	ring->map = NULL;
	ring->fd = -1;
}

/* Reaped by end: true (status set). */
static bool reaped_by(int pid, double end, int *status)
{
	do {
		int w = waitpid(pid, status, WNOHANG);

		if (w == pid || (w < 0 && errno != EINTR))
			return true;
	} while (zc_now() < end && !usleep(20000));
	return false;
}

/*
 * The command within its bound, else SIGTERM to its group, then
 * SIGKILL: 0 reaped, -ETIME ended by us (reaped too).
 */
static int reap(int pid, double end, int *status)
{
	if (reaped_by(pid, end, status))
		return 0;
	kill(-pid, SIGTERM);
	if (reaped_by(pid, zc_now() + TERM_GRACE_S, status))
		return -ETIME;
	kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return -ETIME;
}

struct promisc {
	int ifindex;
	bool on;
};

static int promisc_in_ns(void *arg)
{
	const struct promisc *p = arg;

	return zc_link_set_promisc(p->ifindex, p->on);
}

/*
 * xdpsock's tx-only frames go to a fixed MAC (samples/bpf's pkt_data),
 * not side b's: a real NIC's filter would drop them before its driver
 * (and side b's counter) ever saw them, while the suite's frames are
 * received there. Side b takes every frame for the command's run, so
 * both send to a receiver that does the same work.
 */
static int side_b_promisc(const struct zc_xsk_dut *d, bool on, struct zc_why *why)
{
	struct promisc p = { d->topo.b.ifindex, on };
	int err = zc_netns_run(d->topo.b.nsfd, promisc_in_ns, &p);

	if (err)
		return zc_why_set(why, "promiscuous mode %s on %s: %s", on ? "on" : "off",
				  d->topo.b.ifname, strerror(-err));
	if (on)
		printf("# peer: %s promiscuous for the run (the command's frames may not be addressed to it)\n",
		       d->topo.b.ifname);
	return 0;
}

static void report(const struct zc_xsk_run *r, bool fed, double secs)
{
	if (fed)
		printf("# peer: generator %s sent %llu frames (%llu more refused by veth) in %.2f s, held back by the window %llu times\n",
		       zc_xsk_gen_desc(&r->g), (unsigned long long)r->g.sent,
		       (unsigned long long)r->g.dropped, r->g.t1 - r->g.t0,
		       (unsigned long long)r->g.waits);
	printf("# peer: %s's counter counted %llu frames in %.2f s\n",
	       r->d->topo.b.ifname,
	       (unsigned long long)zc_xsk_cnt_get(&r->b, ZC_XSK_C_COUNT), secs);
}

/*
 * XDP attached; on a real pair the program's rx ring found; fed: 1.
 * 0: the command exited first, reaped, *status set. -1 with why.
 */
static int start_feed(struct zc_xsk_run *r, const struct zc_xsk_peer_cfg *cfg,
		      int pid, int *status, struct peer_ring *ring,
		      struct zc_why *why)
{
	const struct zc_xsk_dut *d = r->d;
	int on;

	on = wait_attach(d, pid, status);
	if (on == 0)
		return 0;	/* it exited first (reaped): its status says why */
	if (on == -ETIMEDOUT)
		return zc_why_set(why, "no XDP program on %s within %.0f s of the command's start",
				  d->ifname, ATTACH_WAIT_S);
	if (on < 0)
		return zc_why_set(why, "XDP query on %s: %s", d->ifname, strerror(-on));
	if (d->topo.real_pair && peer_ring_open(ring, pid, why))
		return -1;
	return feed(r, cfg, ring, why) ? -1 : 1;
}

int zc_xsk_peer_exec(struct zc_xsk_dut *d, const struct zc_xsk_peer_cfg *cfg,
		     struct zc_why *why)
{
	struct peer_ring ring = { .fd = -1 };
	bool rx = cfg->path != ZC_XSK_TXONLY;
	struct zc_why off = { "" };
	int status = 0, err, fed = 0;
	struct zc_xsk_run r;
	double t0;
	pid_t pid;

	memset(&r, 0, sizeof(r));
	r.d = d;
	r.x.fd = -1;
	r.a.link = r.b.link = -1;
	zc_xsk_gen_init(&r.g);
	err = side_b_counter(&r, why);
	if (!err && d->topo.real_pair && !rx)
		err = side_b_promisc(d, true, why);
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
	setpgid(pid, pid);
	if (rx)
		fed = start_feed(&r, cfg, pid, &status, &ring, why);
	/* Something of ours failed: the command's run is no measurement. */
	err = fed < 0 ? -1 : 0;
	if (err)
		kill(-pid, SIGTERM);
	if ((!rx || fed) && reap(pid, t0 + cfg->bound + MARGIN_S, &status) && !err)
		err = zc_why_set(why, "harness: the command ran past its bound (%.0f s: the case's time and %.0f s): SIGTERM%s, not the kernel's",
				 cfg->bound + MARGIN_S, MARGIN_S,
				 WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ?
				 " then SIGKILL" : "");
	zc_xsk_gen_stop(&r.g);
	report(&r, fed > 0, zc_now() - t0);
	if (!err)
		err = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (d->topo.real_pair && !rx && side_b_promisc(d, false, &off) && !err)
		err = zc_why_set(why, "%s", off.msg);
out:
	peer_ring_close(&ring);
	zc_xsk_run_close(&r);
	return err;
}
