// SPDX-License-Identifier: GPL-2.0
/*
 * Namespaces held by fd, the two-sided topology in them (veth or a real
 * pair), sockets and taps inside a namespace, tc attach through libbpf.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <bpf/libbpf.h>

#include "core/inject.h"
#include "core/util.h"
#include "core/ktap.h"
#include "net/netns.h"
#include "net/rtnl.h"

/* Per-process name suffix ("<pid>" or "<pid>x" with ZC_NAME_SUFFIX). */
static const char *zc_name_suffix(void)
{
	static char suffix[16];
	const char *extra;

	if (!suffix[0]) {
		/* Helpers and parallel runners may add a tag of their own. */
		extra = getenv("ZC_NAME_SUFFIX");
		snprintf(suffix, sizeof(suffix), "%d%.3s", (int)getpid(),
			 extra ? extra : "");
	}
	return suffix;
}

static int current_netns(void)
{
	int fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int zc_netns_enter(int nsfd)
{
	return setns(nsfd, CLONE_NEWNET) ? -errno : 0;
}

int zc_netns_run(int nsfd, int (*fn)(void *arg), void *arg)
{
	int self = current_netns(), ret;

	if (self < 0)
		return self;
	ret = zc_netns_enter(nsfd);
	if (!ret) {
		ret = fn(arg);
		if (zc_netns_enter(self)) {
			/* Staying in the wrong namespace would misdirect traffic. */
			perror("setns back");
			abort();
		}
	}
	close(self);
	return ret;
}

unsigned long zc_netns_inode(int nsfd)
{
	struct stat st;

	if (nsfd >= 0 ? fstat(nsfd, &st) : stat("/proc/thread-self/ns/net", &st))
		return 0;
	return st.st_ino;
}

int zc_netns_new(void)
{
	int self = current_netns(), fd = -1, ret;

	if (self < 0)
		return self;
	if (unshare(CLONE_NEWNET)) {
		ret = -errno;
		goto out;
	}
	fd = current_netns();
	ret = fd < 0 ? fd : zc_link_set_up(1, true);
	if (zc_netns_enter(self)) {
		perror("setns back");
		abort();
	}
	if (ret && fd >= 0) {
		close(fd);
		fd = -1;
	}
out:
	close(self);
	return fd >= 0 ? fd : ret;
}

struct sock_args {
	int domain, type, proto;
};

static int sock_in_ns(void *arg)
{
	struct sock_args *a = arg;
	int fd = socket(a->domain, a->type | SOCK_CLOEXEC, a->proto);

	return fd < 0 ? -errno : fd;
}

int zc_socket_in(int nsfd, int domain, int type, int proto)
{
	struct sock_args a = { domain, type, proto };

	return zc_netns_run(nsfd, sock_in_ns, &a);
}

int zc_open_tap(int nsfd)
{
	return zc_socket_in(nsfd, AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
}

static int read_mac(const char *ifname, unsigned char *mac)
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr))
		ret = -errno;
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
	return ret;
}

/* Runs inside one side's namespace: ifindex, mac, addresses, up. */
static int side_config(void *arg)
{
	struct zc_side *s = arg;
	int ret;

	s->ifindex = if_nametoindex(s->ifname);
	if (!s->ifindex)
		return -errno;
	ret = read_mac(s->ifname, s->mac);
	if (!ret)
		ret = zc_addr_add(s->ifindex, AF_INET, &s->addr4, 24);
	if (!ret)
		ret = zc_addr_add(s->ifindex, AF_INET6, &s->addr6, 64);
	if (!ret)
		ret = zc_link_set_up(s->ifindex, true);
	return ret;
}

struct neigh_args {
	struct zc_side *self;
	const struct zc_side *peer;
};

/* Static neighbours: no ARP/ND traffic, no first-packet delay in rates. */
static int side_neigh(void *arg)
{
	struct neigh_args *a = arg;
	int ret;

	ret = zc_neigh_add(a->self->ifindex, AF_INET, &a->peer->addr4,
			   a->peer->mac);
	if (!ret)
		ret = zc_neigh_add(a->self->ifindex, AF_INET6, &a->peer->addr6,
				   a->peer->mac);
	return ret;
}

struct mtu_args {
	int ifindex, mtu;
};

struct veth_args {
	struct zc_topo *t;
	int mtu;
};

static int make_veth(void *arg)
{
	struct veth_args *v = arg;

	return zc_veth_add(v->t->a.ifname, v->t->b.ifname, v->t->b.nsfd, v->mtu);
}

static void side_init(struct zc_side *s, char tag, const char *a4,
		      const char *a6)
{
	snprintf(s->ifname, sizeof(s->ifname), "zc%.12s%c", zc_name_suffix(), tag);
	inet_pton(AF_INET, a4, &s->addr4);
	inet_pton(AF_INET6, a6, &s->addr6);
}

/*
 * ZC_PAIR=IFA,IFB: use two existing devices cabled to each other (real
 * NICs back to back, emulated NICs in a VM) instead of veth. Only ever
 * when asked for by name; they go back to the initial namespace when
 * ours die.
 */
static int move_pair(struct zc_topo *t, const char *pair)
{
	char a[IF_NAMESIZE], b[IF_NAMESIZE];
	int ia, ib, ret;

	if (sscanf(pair, "%15[^,],%15s", a, b) != 2)
		return -EINVAL;
	ia = if_nametoindex(a);
	ib = if_nametoindex(b);
	if (!ia || !ib || ia == ib)
		return -ENODEV;
	snprintf(t->a.ifname, sizeof(t->a.ifname), "%s", a);
	snprintf(t->b.ifname, sizeof(t->b.ifname), "%s", b);
	t->real_pair = true;
	ret = zc_link_move(ia, t->a.nsfd);
	if (!ret)
		t->a.ifindex = ia;
	if (!ret)
		ret = zc_link_move(ib, t->b.nsfd);
	if (!ret)
		t->b.ifindex = ib;
	return ret;
}

/* Real devices have a maximum MTU; fall back to what they already have. */
static int pair_mtu(void *arg)
{
	struct mtu_args *m = arg;
	int fd, ret;
	struct ifreq ifr = {};

	if (m->mtu > 0 && !zc_link_set_mtu(m->ifindex, m->mtu))
		return m->mtu;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if_indextoname(m->ifindex, ifr.ifr_name);
	ret = ioctl(fd, SIOCGIFMTU, &ifr) ? -errno : ifr.ifr_mtu;
	close(fd);
	return ret;
}

static int pair_set_mtu(struct zc_topo *t, int mtu)
{
	struct mtu_args ma = { t->a.ifindex, mtu }, mb;
	int ret = zc_netns_run(t->a.nsfd, pair_mtu, &ma);

	if (ret < 0)
		return ret;
	mb = (struct mtu_args){ t->b.ifindex, ret };
	ret = zc_netns_run(t->b.nsfd, pair_mtu, &mb);
	if (ret < 0)
		return ret;
	if (ret != mb.mtu) {
		/* Both ends must agree, or big frames vanish on one side. */
		ma.mtu = ret;
		ret = zc_netns_run(t->a.nsfd, pair_mtu, &ma);
	}
	if (ret > 0)
		t->mtu = ret;
	return ret < 0 ? ret : 0;
}

/*
 * A real NIC reports carrier some time after it is set up (an e1000e in
 * qemu: ~1 s, after every namespace move); until then the qdisc is noop
 * and every send is dropped, which looks like a copied zero-copy send.
 */
static int wait_running(const struct zc_side *s, int timeout_ms)
{
	struct ifreq ifr = {};
	int fd, waited = 0, ret = -ENOLINK;

	fd = zc_socket_in(s->nsfd, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", s->ifname);
	for (;;) {
		if (ioctl(fd, SIOCGIFFLAGS, &ifr)) {
			ret = -errno;
			break;
		}
		if (ifr.ifr_flags & IFF_RUNNING) {
			ret = 0;
			break;
		}
		if (waited >= timeout_ms)
			break;
		usleep(20000);
		waited += 20;
	}
	close(fd);
	return ret;
}

static int topo_build(struct zc_topo *t, int mtu, const char **step)
{
	struct veth_args v = { t, mtu };
	struct neigh_args na = { &t->a, &t->b }, nb = { &t->b, &t->a };
	const char *pair = getenv("ZC_PAIR");
	int ret;

	*step = "create namespace";
	t->a.nsfd = zc_netns_new();
	if (t->a.nsfd < 0)
		return t->a.nsfd;
	t->b.nsfd = zc_netns_new();
	if (t->b.nsfd < 0)
		return t->b.nsfd;
	if (pair && *pair) {
		*step = "move ZC_PAIR devices";
		ret = move_pair(t, pair);
	} else {
		*step = "create veth";
		ret = zc_netns_run(t->a.nsfd, make_veth, &v);
	}
	if (ret)
		return ret;
	*step = "configure veth";
	ret = zc_netns_run(t->a.nsfd, side_config, &t->a);
	if (!ret)
		ret = zc_netns_run(t->b.nsfd, side_config, &t->b);
	if (ret)
		return ret;
	if (t->real_pair) {
		*step = "set MTU on ZC_PAIR devices";
		ret = pair_set_mtu(t, mtu);
		if (ret)
			return ret;
	}
	*step = "add neighbours";
	ret = zc_netns_run(t->a.nsfd, side_neigh, &na);
	if (!ret)
		ret = zc_netns_run(t->b.nsfd, side_neigh, &nb);
	if (!ret && t->real_pair) {
		*step = "wait for carrier on ZC_PAIR devices";
		ret = wait_running(&t->a, 10000);
		if (!ret)
			ret = wait_running(&t->b, 10000);
	}
	return ret;
}

static void inject_tap(struct zc_topo *t)
{
	const char *env = getenv("ZC_INJECT_TAP");

	if (!env || strcmp(env, "1"))
		return;
	t->inject_tap_fd = zc_open_tap(t->a.nsfd);
	ktap_print_msg("ZC_INJECT_TAP=1: packet tap open in the sender namespace (%s)",
		       t->inject_tap_fd >= 0 ? "ok" : strerror(-t->inject_tap_fd));
}

int zc_topo_setup(struct zc_topo *t, int mtu, struct zc_why *w)
{
	char *err = w->msg;
	size_t errlen = sizeof(w->msg);
	const char *step = "";
	int ret;

	memset(t, 0, sizeof(*t));
	t->a.nsfd = t->b.nsfd = t->inject_tap_fd = -1;
	t->origin_nsfd = current_netns();
	t->mtu = mtu;
	side_init(&t->a, 'a', ZC_ADDR4_A, ZC_ADDR6_A);
	side_init(&t->b, 'b', ZC_ADDR4_B, ZC_ADDR6_B);
	ret = topo_build(t, mtu, &step);
	if (!ret && t->real_pair)
		ktap_print_msg("ZC_PAIR: %s <-> %s, MTU %d", t->a.ifname,
			       t->b.ifname, t->mtu);
	if (ret) {
		snprintf(err, errlen, "topology: %s: %s", step, strerror(-ret));
		/* as a skip: namespaces, devices, their options: this machine's */
		w->cls = ZC_CLASS_ENV;
		zc_topo_teardown(t);
		return ret;
	}
	inject_tap(t);
	zc_inject_slow();
	return 0;
}

struct home_args {
	int ifindex, nsfd;
};

static int move_home(void *arg)
{
	struct home_args *h = arg;

	return zc_link_move(h->ifindex, h->nsfd);
}

/*
 * ZC_PAIR devices go back to the namespace they came from before ours
 * close: a dying namespace returns a real NIC on its own, but deletes a
 * veth (or any device with rtnl_link_ops) outright. What the move took
 * (addresses, routes, up, MTU) is put back by run_tests.sh --pair, which
 * recorded it; a SIGKILL that skips this still loses a veth pair there
 * too, and the runner makes it again.
 */
static void pair_home(struct zc_topo *t)
{
	struct zc_side *sides[] = { &t->a, &t->b };
	struct home_args h;
	size_t i;
	int ret;

	if (!t->real_pair || t->origin_nsfd < 0)
		return;
	for (i = 0; i < ZC_ARRAY_SIZE(sides); i++) {
		if (sides[i]->nsfd < 0 || !sides[i]->ifindex)
			continue;
		h = (struct home_args){ sides[i]->ifindex, t->origin_nsfd };
		ret = zc_netns_run(sides[i]->nsfd, move_home, &h);
		if (ret)
			ktap_print_msg("ZC_PAIR: %s not moved back: %s",
				       sides[i]->ifname, strerror(-ret));
	}
}

void zc_topo_teardown(struct zc_topo *t)
{
	/* The veth pair and all in the namespaces go with their last fd. */
	if (zc_inject_slow_pkts())
		ktap_print_msg("ZC_INJECT_SLOW: %llu packets slowed so far",
			       zc_inject_slow_pkts());
	if (t->inject_tap_fd >= 0)
		close(t->inject_tap_fd);
	pair_home(t);
	if (t->a.nsfd >= 0)
		close(t->a.nsfd);
	if (t->b.nsfd >= 0)
		close(t->b.nsfd);
	if (t->origin_nsfd >= 0)
		close(t->origin_nsfd);
	t->a.nsfd = t->b.nsfd = t->inject_tap_fd = t->origin_nsfd = -1;
}

static int set_mtu_in(void *arg)
{
	struct mtu_args *m = arg;

	return zc_link_set_mtu(m->ifindex, m->mtu);
}

int zc_topo_set_mtu(struct zc_topo *t, int mtu)
{
	struct mtu_args ma = { t->a.ifindex, mtu }, mb = { t->b.ifindex, mtu };
	int ret;

	ret = zc_netns_run(t->a.nsfd, set_mtu_in, &ma);
	if (!ret)
		ret = zc_netns_run(t->b.nsfd, set_mtu_in, &mb);
	if (!ret)
		t->mtu = mtu;
	/* A real NIC resets its link on an MTU change. */
	if (!ret && t->real_pair)
		ret = wait_running(&t->a, 10000);
	if (!ret && t->real_pair)
		ret = wait_running(&t->b, 10000);
	return ret;
}

struct tc_args {
	int ifindex, prog_fd;
	bool ingress;
};

static int tc_in_ns(void *arg)
{
	struct tc_args *a = arg;
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = a->ifindex,
			    .attach_point = a->ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1,
			    .prog_fd = a->prog_fd);
	int ret;

	ret = bpf_tc_hook_create(&hook);
	if (ret && ret != -EEXIST)
		return ret;
	opts.flags = BPF_TC_F_REPLACE;
	return bpf_tc_attach(&hook, &opts);
}

int zc_tc_attach(int nsfd, int ifindex, int prog_fd, bool ingress)
{
	struct tc_args a = { ifindex, prog_fd, ingress };

	return zc_netns_run(nsfd, tc_in_ns, &a);
}
