/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two network namespaces joined by a veth pair. The namespaces have no
 * name in /run/netns: they are held by file descriptors only, so they and
 * everything in them (veth, qdiscs, filters, XDP programs, sysctls)
 * disappear with the process, even on SIGKILL.
 */
#ifndef ZC_NETNS_H
#define ZC_NETNS_H

#include <stdbool.h>
#include <netinet/in.h>

#include "net/rtnl.h"
#include "core/why.h"

struct zc_side {
	int nsfd;			/* namespace fd */
	int ifindex;			/* veth end's ifindex inside nsfd */
	char ifname[16];		/* "zc<suffix>a" / "zc<suffix>b" */
	struct in_addr addr4;		/* 198.18.x.1 / .2 */
	struct in6_addr addr6;		/* 2001:db8:x::1 / ::2 */
	unsigned char mac[6];
};

struct zc_topo {
	struct zc_side a, b;		/* a sends, b receives, by convention */
	int mtu;
	int origin_nsfd;		/* namespace the process started in */
	int inject_tap_fd;		/* ZC_INJECT_TAP=1: packet tap in a's ns */
	bool real_pair;			/* ZC_PAIR devices instead of veth */
};

/* Fixed addresses: every topology lives in its own namespaces. */
#define ZC_ADDR4_A	"198.18.0.1"
#define ZC_ADDR4_B	"198.18.0.2"
#define ZC_ADDR6_A	"2001:db8::1"
#define ZC_ADDR6_B	"2001:db8::2"


/* New unnamed namespace with lo up; returns fd or -errno. */
int zc_netns_new(void);
/* Enter nsfd in the calling thread; returns 0 or -errno. */
int zc_netns_enter(int nsfd);
/* Inode of the network namespace nsfd (-1: the caller's), 0 unknown. */
unsigned long zc_netns_inode(int nsfd);
/* Run fn(arg) inside nsfd and come back; returns fn's value or -errno. */
int zc_netns_run(int nsfd, int (*fn)(void *arg), void *arg);

/*
 * Create both namespaces, the veth pair, addresses (IPv4 /24 and IPv6 /64,
 * nodad), static neighbour entries both ways, MTU, links up. On failure
 * everything made so far is gone and a one-line reason is in err.
 * With ZC_PAIR=IFA,IFB in the environment, two existing devices cabled
 * to each other are moved into the namespaces instead of a veth pair
 * (they return to the initial namespace with ours); t->mtu is then what
 * the devices accept, which may be less than asked for.
 */
int zc_topo_setup(struct zc_topo *t, int mtu, struct zc_why *why);
void zc_topo_teardown(struct zc_topo *t);
int zc_topo_set_mtu(struct zc_topo *t, int mtu);

/* Socket in a namespace (socket() inside nsfd). Returns fd or -errno. */
int zc_socket_in(int nsfd, int domain, int type, int proto);

/*
 * Open a packet tap (AF_PACKET, ETH_P_ALL, unbound) in nsfd, as the
 * ZC_INJECT_TAP=1 switch does for every topology. Returns fd or -errno.
 */
int zc_open_tap(int nsfd);

/*
 * Attach a sched_cls program at clsact ingress (or egress) of ifindex in
 * nsfd, through libbpf's TC API. The qdisc goes with the namespace.
 */
int zc_tc_attach(int nsfd, int ifindex, int prog_fd, bool ingress);

#endif
