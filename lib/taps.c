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
#include <sys/syscall.h>

#include "compat.h"
#include "ktap.h"
#include "netns.h"
#include "taps.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd	438
#endif

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

static struct zc_tap *find_inode(struct zc_tap *taps, int n, unsigned long ino)
{
	int i;

	for (i = 0; i < n; i++)
		if (taps[i].inode == ino)
			return &taps[i];
	return NULL;
}

/* Duplicate the owner's fd and ask the socket itself. */
static int read_ignore_outgoing(int pid, int fd)
{
	int pidfd, dup, val = 0;
	socklen_t len = sizeof(val);

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -1;
	dup = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
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

static void scan_pid_fds(int pid, struct zc_tap *taps, int n)
{
	char path[300], link[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		unsigned long ino;
		struct zc_tap *t;
		ssize_t l;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, de->d_name);
		l = readlink(path, link, sizeof(link) - 1);
		if (l <= 0)
			continue;
		link[l] = '\0';
		if (sscanf(link, "socket:[%lu]", &ino) != 1)
			continue;
		t = find_inode(taps, n, ino);
		if (!t || t->pid)
			continue;
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

int zc_taps_list(int nsfd, struct zc_tap *taps, int max)
{
	struct list_args la = { taps, max, 0 };
	int ret, i, n;

	if (nsfd >= 0)
		ret = zc_netns_run(nsfd, read_packet_table, &la);
	else
		ret = read_packet_table(&la);
	if (ret < 0)
		return ret;
	n = la.total < max ? la.total : max;
	find_owners(taps, n);
	for (i = 0; i < n; i++)
		classify(&taps[i]);
	return la.total;
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

#define ZC_TAPS_MAX	256

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

int zc_tap_open_on(int nsfd, int ifindex, bool ignore_outgoing)
{
	int fd = zc_open_tap(nsfd), one = 1;

	if (fd < 0)
		return fd;
	if (ifindex) {
		struct sockaddr_ll sll = {
			.sll_family = AF_PACKET,
			.sll_protocol = htons(ETH_P_ALL),
			.sll_ifindex = ifindex,
		};

		if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
			goto fail;
	}
	if (ignore_outgoing &&
	    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)))
		goto fail;
	return fd;
fail:
	one = -errno;
	close(fd);
	return one;
}
