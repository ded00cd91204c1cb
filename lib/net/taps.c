// SPDX-License-Identifier: GPL-2.0
/* Packet taps of a namespace and their owners, see taps.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "core/compat.h"
#include "core/ktap.h"
#include "net/netns.h"
#include "core/probe.h"
#include "net/taps.h"
#include "core/util.h"

#define ZC_TAPS_MAX	256
#define ZC_TAPS_ALL_MAX	1024

int zc_taps_parse_line(const char *line, struct zc_tap *t)
{
	unsigned int proto, running;
	int refcnt, type, ifindex;
	unsigned long rmem, uid, inode;
	char sk[32];

	/* sk RefCnt Type Proto Iface R Rmem User Inode */
	if (sscanf(line, "%31s %d %d %x %d %u %lu %lu %lu", sk, &refcnt, &type,
		   &proto, &ifindex, &running, &rmem, &uid, &inode) != 9)
		return -1;
	memset(t, 0, sizeof(*t));
	t->inode = inode;
	t->type = type;
	t->proto = proto;
	t->ifindex = ifindex;
	t->running = running;
	t->ignore_outgoing = -1;
	t->fd = -1;
	return 0;
}

struct list_args {
	struct zc_tap *taps;
	int max, total;
};

/* Runs in the namespace: /proc/thread-self/net is this thread's netns. */
static int read_packet_table(void *arg)
{
	struct list_args *la = arg;
	char line[256];
	FILE *f;

	f = fopen("/proc/thread-self/net/packet", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct zc_tap t;

		if (zc_taps_parse_line(line, &t))
			continue;
		if (t.ifindex && !if_indextoname(t.ifindex, t.ifname))
			t.ifname[0] = '\0';
		if (la->total < la->max)
			la->taps[la->total] = t;
		la->total++;
	}
	fclose(f);
	return 0;
}

/* The index of the tap with socket inode ino, or -1. */
static int inode_index(const struct zc_tap *taps, int n, unsigned long ino)
{
	int i;

	for (i = 0; i < n; i++)
		if (taps[i].inode == ino)
			return i;
	return -1;
}

/* The socket inode an fd link (/proc/PID/fd/N) names; 0 if none. */
static unsigned long link_inode(const char *path)
{
	char link[64];
	unsigned long ino;
	ssize_t l;

	l = readlink(path, link, sizeof(link) - 1);
	if (l <= 0)
		return 0;
	link[l] = '\0';
	return sscanf(link, "socket:[%lu]", &ino) == 1 ? ino : 0;
}

/* Duplicate the owner's fd and ask the socket itself. */
static int read_ignore_outgoing(int pid, int fd)
{
	socklen_t len = sizeof(int);
	int dup, val = 0;

	dup = zc_pidfd_getfd(pid, fd);
	if (dup < 0)
		return -1;
	if (getsockopt(dup, SOL_PACKET, PACKET_IGNORE_OUTGOING, &val, &len))
		val = -1;
	close(dup);
	return val < 0 ? -1 : !!val;
}

static void read_comm(int pid, char *comm, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	comm[0] = '\0';
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(comm, len, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

int zc_tap_cmdline(const struct zc_tap *t, char *buf, size_t len)
{
	char path[64];
	size_t n, i;
	FILE *f;

	buf[0] = '\0';
	if (!t->pid || len < 2)
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", t->pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	while (n && buf[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
		else if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = '?';
	buf[n] = '\0';
	return n ? 0 : -ENOENT;
}

static void scan_pid_fds(int pid, struct zc_tap *taps, int n)
{
	char path[300];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		unsigned long ino;
		struct zc_tap *t;
		int i;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, de->d_name);
		ino = link_inode(path);
		if (!ino)
			continue;
		i = inode_index(taps, n, ino);
		if (i < 0 || taps[i].pid)
			continue;
		t = &taps[i];
		t->pid = pid;
		t->fd = atoi(de->d_name);
		read_comm(pid, t->comm, sizeof(t->comm));
		t->ignore_outgoing = read_ignore_outgoing(pid, t->fd);
	}
	closedir(d);
}

/* Socket inodes are global: any process, in any namespace, may hold one. */
static void find_owners(struct zc_tap *taps, int n)
{
	struct dirent *de;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return;
	while ((de = readdir(d))) {
		int pid = atoi(de->d_name);

		if (pid > 0)
			scan_pid_fds(pid, taps, n);
	}
	closedir(d);
}

/*
 * Transmit: dev_queue_xmit_nit walks ETH_P_ALL hooks only, and skips
 * those with ignore_outgoing. Receive: ETH_P_ALL hooks run before tc
 * ingress, IP ones after it; either copies a zero-copy skb it gets.
 */
static void classify(struct zc_tap *t)
{
	bool ip = t->proto == ETH_P_IP || t->proto == ETH_P_IPV6;

	t->copies_tx = t->running && t->proto == ETH_P_ALL &&
		       t->ignore_outgoing != 1;
	t->copies_rx = t->running && (t->proto == ETH_P_ALL || ip);
}

static int list_one(int nsfd, struct list_args *la)
{
	unsigned long ino = zc_netns_inode(nsfd);
	int first = la->total, ret, i;

	if (nsfd >= 0)
		ret = zc_netns_run(nsfd, read_packet_table, la);
	else
		ret = read_packet_table(la);
	for (i = first; i < la->total && i < la->max; i++)
		la->taps[i].netns = ino;
	return ret;
}

static int finish_list(struct list_args *la)
{
	int i, n = la->total < la->max ? la->total : la->max;

	find_owners(la->taps, n);
	for (i = 0; i < n; i++)
		classify(&la->taps[i]);
	return la->total;
}

int zc_taps_list(int nsfd, struct zc_tap *taps, int max)
{
	struct list_args la = { taps, max, 0 };
	int ret = list_one(nsfd, &la);

	return ret < 0 ? ret : finish_list(&la);
}

#define ZC_NETNS_MAX	512

/* Add the namespace at path once (by inode), listing its taps. */
static void list_ns_path(const char *path, unsigned long *seen, int *nseen,
			 struct list_args *la)
{
	struct stat st;
	int i, fd;

	if (stat(path, &st) || *nseen >= ZC_NETNS_MAX)
		return;
	for (i = 0; i < *nseen; i++)
		if (seen[i] == st.st_ino)
			return;
	seen[(*nseen)++] = st.st_ino;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	list_one(fd, la);
	close(fd);
}

int zc_taps_all(struct zc_tap *taps, int max)
{
	struct list_args la = { taps, max, 0 };
	unsigned long *seen;
	char path[300];
	struct dirent *de;
	int nseen = 0;
	DIR *d;

	seen = calloc(ZC_NETNS_MAX, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	list_ns_path("/proc/thread-self/ns/net", seen, &nseen, &la);
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		if (atoi(de->d_name) <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", de->d_name);
		list_ns_path(path, seen, &nseen, &la);
	}
	if (d)
		closedir(d);
	d = opendir("/run/netns");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", de->d_name);
		list_ns_path(path, seen, &nseen, &la);
	}
	if (d)
		closedir(d);
	free(seen);
	return finish_list(&la);
}

static const char *proto_name(unsigned int proto);

static bool in_list(unsigned long ino, const unsigned long *own, int nown)
{
	int i;

	for (i = 0; i < nown; i++)
		if (own[i] == ino)
			return true;
	return false;
}

const char *zc_tap_applies(const struct zc_tap *t, int netns_taps,
			   const unsigned long *own, int nown)
{
	bool unbound_all = t->running && t->proto == ETH_P_ALL && !t->ifindex;

	if (in_list(t->netns, own, nown))
		return t->copies_tx || t->copies_rx ?
		       "it is in the test's own namespace" : NULL;
	if (!unbound_all)
		return NULL;
	if (netns_taps == 0)
		return "this kernel keeps one global list of unbound taps (no struct net.ptype_all in BTF, per-namespace lists came in 6.15): it sees every device in every namespace, PACKET_IGNORE_OUTGOING or not (veth's receive)";
	if (netns_taps < 0)
		return "the kernel's tap scope is unknown (no vmlinux BTF): before 6.15 an unbound tap sees every namespace";
	return NULL;
}

int zc_taps_foreign(const int *nsfds, int nown, struct zc_why *w)
{
	char *why = w->msg;
	size_t len = sizeof(w->msg);
	struct zc_tap *taps = calloc(ZC_TAPS_ALL_MAX, sizeof(*taps));
	int netns_taps = zc_btf_has_member("net", "ptype_all");
	unsigned long own[8];
	int n, i, hits = 0;
	const char *how;

	if (!taps)
		return -ENOMEM;
	if (nown > (int)ZC_ARRAY_SIZE(own))
		nown = ZC_ARRAY_SIZE(own);
	for (i = 0; i < nown; i++)
		own[i] = zc_netns_inode(nsfds[i]);
	n = zc_taps_all(taps, ZC_TAPS_ALL_MAX);
	for (i = 0; i < n && i < ZC_TAPS_ALL_MAX; i++) {
		const struct zc_tap *t = &taps[i];

		if (t->pid == getpid())
			continue;
		how = zc_tap_applies(t, netns_taps, own, nown);
		if (!how)
			continue;
		if (!hits++)
			snprintf(why, len,
				 "environment: packet tap of pid %d (%s) fd %d, %s %s in netns net:[%lu], copies zero-copy sends: %s",
				 t->pid, t->pid ? t->comm : "owner unknown", t->fd,
				 proto_name(t->proto), t->ifindex ? "bound" : "unbound",
				 t->netns, how);
	}
	if (hits > 1) {
		size_t l = strlen(why);

		snprintf(why + l, len - l, " (and %d more taps)", hits - 1);
	}
	free(taps);
	return n < 0 ? n : hits;
}

static const char *proto_name(unsigned int proto)
{
	switch (proto) {
	case 0:
		return "none";
	case ETH_P_ALL:
		return "ETH_P_ALL";
	case ETH_P_IP:
		return "ETH_P_IP";
	case ETH_P_IPV6:
		return "ETH_P_IPV6";
	case ETH_P_ARP:
		return "ETH_P_ARP";
	default:
		return "other";
	}
}

static const char *copies_str(const struct zc_tap *t)
{
	if (t->copies_tx && t->copies_rx)
		return "tx+rx";
	if (t->copies_tx)
		return "tx";
	if (t->copies_rx)
		return "rx";
	return "no";
}

int zc_tap_format(const struct zc_tap *t, char *buf, size_t len)
{
	char ign[16];

	if (t->ignore_outgoing < 0)
		snprintf(ign, sizeof(ign), "unknown");
	else
		snprintf(ign, sizeof(ign), "%d", t->ignore_outgoing);
	return snprintf(buf, len,
			"tap inode=%lu pid=%d comm=%s fd=%d ifindex=%d(%s) proto=0x%04x(%s) type=%s running=%d ignore_outgoing=%s forces_copy=%s",
			t->inode, t->pid, t->pid ? t->comm : "?", t->fd,
			t->ifindex, t->ifindex ? (t->ifname[0] ? t->ifname : "?") : "any",
			t->proto, proto_name(t->proto),
			t->type == SOCK_DGRAM ? "dgram" : "raw", t->running,
			ign, copies_str(t));
}


int zc_taps_report(int nsfd, const char *where)
{
	struct zc_tap *taps;
	int n, i, tx = 0, rx = 0;
	char line[320];

	taps = calloc(ZC_TAPS_MAX, sizeof(*taps));
	if (!taps)
		return -ENOMEM;
	n = zc_taps_list(nsfd, taps, ZC_TAPS_MAX);
	if (n < 0) {
		ktap_print_msg("taps in %s: cannot read /proc/net/packet: %s",
			       where, strerror(-n));
		free(taps);
		return n;
	}
	for (i = 0; i < n && i < ZC_TAPS_MAX; i++) {
		tx += taps[i].copies_tx;
		rx += taps[i].copies_rx;
	}
	ktap_print_msg("taps in %s: %d packet socket%s, %d copy zero-copy sends on transmit, %d on receive",
		       where, n, n == 1 ? "" : "s", tx, rx);
	for (i = 0; i < n && i < ZC_TAPS_MAX; i++) {
		zc_tap_format(&taps[i], line, sizeof(line));
		ktap_print_msg("%s", line);
	}
	if (n > ZC_TAPS_MAX)
		ktap_print_msg("... %d more not shown", n - ZC_TAPS_MAX);
	free(taps);
	return tx;
}

static int noop(void *arg)
{
	return 0;
}

int zc_taps_report_path(const char *path, struct zc_why *why)
{
	int nsfd = -1, ret = 0;

	if (path) {
		nsfd = open(path, O_RDONLY | O_CLOEXEC);
		ret = nsfd < 0 ? -errno : zc_netns_run(nsfd, noop, NULL);
		if (ret) {
			if (nsfd >= 0)
				close(nsfd);
			return zc_why_set(why, "%s", ret == -EINVAL ?
					  "not a network namespace" :
					  strerror(-ret));
		}
	}
	ret = zc_taps_report(nsfd, path ? path : "this network namespace");
	if (nsfd >= 0)
		close(nsfd);
	return ret;
}

const struct zc_tap *zc_tap_find(const struct zc_tap *taps, int n, int fd)
{
	char path[64];
	unsigned long ino;
	int i;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ino = link_inode(path);
	i = ino ? inode_index(taps, n, ino) : -1;
	return i < 0 ? NULL : &taps[i];
}
