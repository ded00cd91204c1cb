// SPDX-License-Identifier: GPL-2.0
/*
 * zc-doctor: why does zero-copy copy on this host? A passive diagnosis
 * with the suite's own detection (lib/): packet taps and their owners,
 * XDP programs that force a copy, device offloads and XDP features,
 * limits and capabilities, and what the running kernel supports, probed
 * by BTF and behaviour rather than by version. It sends nothing on any
 * device and changes no state (the probes open sockets, a ring and a
 * two-instruction BPF program, and close them).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <liburing.h>

#include "core/compat.h"
#include "core/ktap.h"
#include "net/netdev_nl.h"
#include "net/netns.h"
#include "core/probe.h"
#include "net/taps.h"

#define NAME		"zc-doctor"
/*
 * Each MSG_ZEROCOPY notification, in flight or unread, holds an skb
 * charged to optmem. On 6.18 over lo, optmem_max 1024 let one send
 * through before ENOBUFS; 4096 let 5000 coalescing sends through.
 */
#define OPTMEM_LOW	4096
#define MEMLOCK_LOW	(1L << 20)
#define MAX_ROWS	64
#define MAX_TAPS	1024
#define VIRTIO_F_ACCESS_PLATFORM	33
#define VIRTIO_NET_F_CSUM		0

enum api { API_MSGZC = 1, API_SENDZC = 2, API_XSKZC = 4, API_SOCKMAP = 8 };
static const char *const api_names[] = {
	"MSG_ZEROCOPY", "io_uring SEND_ZC", "AF_XDP zero-copy", "sockmap splice",
};
static const char *const api_keys[] = {
	"msg_zerocopy", "send_zc", "af_xdp_zerocopy", "sockmap_splice",
};

struct row {
	char name[48];
	char state[24];
	char evidence[320];
};

struct cause {
	unsigned int apis;
	/* Only about one device: a cause when that device was asked about. */
	bool device_only;
	char kind[16];
	char what[400];
	char fix[200];
};

static struct row feats[MAX_ROWS], limits[MAX_ROWS], devs[MAX_ROWS];
static int nfeats, nlimits, ndevs;
static struct cause causes[MAX_ROWS];
static int ncauses;
static struct zc_tap *taps;
static int ntaps;
static bool opt_json;
static const char *opt_iface, *opt_netns;
/* The paths asked about (--api); default the send paths, AF_XDP with --iface. */
static unsigned int opt_apis;
static int nsfd = -1;
static unsigned long target_ns;
static int netns_taps;
static int xsk_zc_devs;

static void add_row(struct row *rows, int *n, const char *name,
		    const char *state, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void add_row(struct row *rows, int *n, const char *name,
		    const char *state, const char *fmt, ...)
{
	struct row *r;
	va_list ap;

	if (*n >= MAX_ROWS)
		return;
	r = &rows[(*n)++];
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->state, sizeof(r->state), "%s", state);
	va_start(ap, fmt);
	vsnprintf(r->evidence, sizeof(r->evidence), fmt, ap);
	va_end(ap);
}

static void add_cause(unsigned int apis, const char *kind, const char *fix,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void add_cause(unsigned int apis, const char *kind, const char *fix,
		      const char *fmt, ...)
{
	struct cause *c;
	va_list ap;

	if (ncauses >= MAX_ROWS)
		return;
	c = &causes[ncauses++];
	c->apis = apis;
	snprintf(c->kind, sizeof(c->kind), "%s", kind);
	snprintf(c->fix, sizeof(c->fix), "%s", fix);
	va_start(ap, fmt);
	vsnprintf(c->what, sizeof(c->what), fmt, ap);
	va_end(ap);
}

/* A cause about one device's AF_XDP binds, not the namespace's sends. */
static void mark_device_only(void)
{
	if (ncauses)
		causes[ncauses - 1].device_only = true;
}

/*
 * On the path asked about: an API asked for, and not a device's AF_XDP
 * matter unless that device was asked about (--iface).
 */
static bool on_path(const struct cause *c)
{
	return (c->apis & opt_apis) && (!c->device_only || opt_iface);
}

static int path_causes(void)
{
	int i, n = 0;

	for (i = 0; i < ncauses; i++)
		n += on_path(&causes[i]);
	return n;
}

static const char *yesno(int v)
{
	return v > 0 ? "yes" : v == 0 ? "no" : "unknown";
}

/* ---- kernel support ---- */

static int netdev_family(void *arg)
{
	struct zc_netdev_info info;

	return zc_netdev_get(1, &info);
}

/* In the target namespace: the family is per kernel, lo is everywhere. */
static void kernel_netdev_genl(void)
{
	int ret = nsfd >= 0 ? zc_netns_run(nsfd, netdev_family, NULL) :
			      netdev_family(NULL);

	add_row(feats, &nfeats, "netdev genl xdp_features",
		ret == -ENOENT ? "no" : !ret ? "yes" : "unknown",
		"generic netlink family \"netdev\" answers NETDEV_CMD_DEV_GET for lo (6.3)%s%s",
		ret && ret != -ENOENT ? ": " : "",
		ret && ret != -ENOENT ? strerror(-ret) : "");
}

/* SEND_ZC with REPORT_USAGE on an unconnected socket: EINVAL means no flag. */
static int probe_report_usage(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	int fd, res = -EIO;
	char byte = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_send_zc(sqe, fd, &byte, 1, 0, 0);
	sqe->ioprio |= IORING_SEND_ZC_REPORT_USAGE;
	if (io_uring_submit(ring) == 1 && !io_uring_wait_cqe(ring, &cqe)) {
		res = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	close(fd);
	return res == -EINVAL ? 0 : res == -EIO ? -1 : 1;
}

static void kernel_uring(void)
{
	struct io_uring_probe *p = NULL;
	struct io_uring ring;
	struct zc_why w;
	char why[512];
	int sz = -1, ru = -1;

	if (zc_probe_uring(&w)) {
		snprintf(why, sizeof(why), "%s", w.msg);
		add_row(feats, &nfeats, "io_uring", "no", "%s", why);
		add_cause(API_SENDZC, "limit", "allow io_uring_setup (seccomp profile, kernel.io_uring_disabled=0)",
			  "io_uring refused: %s", why);
		return;
	}
	add_row(feats, &nfeats, "io_uring", "yes", "io_uring_setup works here");
	if (!io_uring_queue_init(4, &ring, 0)) {
		p = io_uring_get_probe_ring(&ring);
		sz = p ? io_uring_opcode_supported(p, IORING_OP_SEND_ZC) : -1;
		if (sz > 0)
			ru = probe_report_usage(&ring);
		io_uring_free_probe(p);
		io_uring_queue_exit(&ring);
	}
	add_row(feats, &nfeats, "IORING_OP_SEND_ZC", yesno(sz),
		"io_uring opcode probe (6.0)");
	add_row(feats, &nfeats, "IORING_SEND_ZC_REPORT_USAGE", yesno(ru),
		"SEND_ZC with the flag on an unconnected socket: EINVAL without it (6.2)");
	if (!sz)
		add_cause(API_SENDZC, "kernel", "a kernel with IORING_OP_SEND_ZC (6.0+)",
			  "the kernel has no IORING_OP_SEND_ZC");
}

static void kernel_features(void)
{
	int fd, one = 1, v;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	v = fd >= 0 && !setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one));
	if (fd >= 0)
		close(fd);
	add_row(feats, &nfeats, "MSG_ZEROCOPY (UDP)", yesno(v),
		"setsockopt SO_ZEROCOPY on a UDP socket (5.0)");
	kernel_uring();
	v = zc_btf_has_member("net", "ptype_all");
	add_row(feats, &nfeats, "per-namespace tap lists", yesno(v),
		"BTF: struct net has ptype_all (6.15, \"net: introduce per netns packet chains\")");
	/* Protocol 0: no hook registered, the socket sees nothing. */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	v = fd < 0 ? -1 : !setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	if (fd >= 0)
		close(fd);
	add_row(feats, &nfeats, "PACKET_IGNORE_OUTGOING", yesno(v),
		"setsockopt on an unbound packet socket with protocol 0 (4.20)");
	v = zc_btf_has_member("proto", "splice_read");
	add_row(feats, &nfeats, "sockmap splice_read", yesno(v),
		"BTF: struct proto has splice_read (bpf-next series, unmerged as of 6.18)");
	if (!v)
		add_cause(API_SOCKMAP, "kernel", "a kernel with splice_read in struct proto; read(2) works meanwhile",
			  "splice(2) from a sockmap ingress queue is not supported by this kernel (no struct proto.splice_read)");
	v = zc_btf_has_type("tcp_bpf_ioctl");
	add_row(feats, &nfeats, "tcp_bpf_ioctl", yesno(v),
		"BTF: function tcp_bpf_ioctl (FIONREAD counts the psock queue)");
	kernel_netdev_genl();
}

/* ---- limits ---- */

static int read_optmem(void *arg)
{
	return zc_sysctl_read("net.core.optmem_max", arg);
}

static void host_limits(void)
{
	long optmem = -1, dis = 0;
	struct rlimit rl = { 0 };
	struct zc_why w;
	char why[512];
	int init = zc_userns_initial();

	if (nsfd >= 0)
		zc_netns_run(nsfd, read_optmem, &optmem);
	else
		read_optmem(&optmem);
	add_row(limits, &nlimits, "net.core.optmem_max", optmem < 0 ? "unknown" : "",
		"%ld bytes in the namespace: every MSG_ZEROCOPY notification (in flight or unread) is charged to it",
		optmem);
	if (optmem >= 0 && optmem < OPTMEM_LOW)
		add_cause(API_MSGZC, "limit", "raise net.core.optmem_max (per namespace) in the sender's namespace",
			  "net.core.optmem_max=%ld (< %d): MSG_ZEROCOPY sends fail ENOBUFS after the first notifications",
			  optmem, OPTMEM_LOW);
	getrlimit(RLIMIT_MEMLOCK, &rl);
	if (rl.rlim_cur == RLIM_INFINITY)
		snprintf(why, sizeof(why), "unlimited");
	else
		snprintf(why, sizeof(why), "%llu bytes", (unsigned long long)rl.rlim_cur);
	add_row(limits, &nlimits, "RLIMIT_MEMLOCK", zc_have_cap_init(CAP_IPC_LOCK) ? "CAP_IPC_LOCK" : "",
		"%s (io_uring fixed buffers, AF_XDP UMEM count against it without CAP_IPC_LOCK)",
		why);
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < MEMLOCK_LOW &&
	    !zc_have_cap_init(CAP_IPC_LOCK))
		add_cause(API_SENDZC | API_XSKZC, "limit", "raise the memlock limit (ulimit -l)",
			  "memlock %llu bytes: fixed buffers and UMEM beyond it fail (ENOMEM/ENOBUFS)",
			  (unsigned long long)rl.rlim_cur);
	if (zc_sysctl_read("kernel.io_uring_disabled", &dis))
		add_row(limits, &nlimits, "kernel.io_uring_disabled", "absent", "before 6.6");
	else
		add_row(limits, &nlimits, "kernel.io_uring_disabled", dis ? "set" : "0", "%ld", dis);
	add_row(limits, &nlimits, "user namespace", init == 1 ? "initial" : init == 0 ? "child" : "unknown",
		"/proc/self/uid_map; CAP_BPF, CAP_PERFMON, CAP_IPC_LOCK count only in the initial one");
	add_row(limits, &nlimits, "CAP_NET_ADMIN", zc_have_cap(CAP_NET_ADMIN) ? "yes" : "no",
		"effective (counts in the namespace's owner user namespace)");
	add_row(limits, &nlimits, "CAP_IPC_LOCK", zc_have_cap_init(CAP_IPC_LOCK) ? "yes" : "no",
		"effective in the initial user namespace");
	if (zc_probe_bpf(&w)) {
		snprintf(why, sizeof(why), "%s", w.msg);
		add_row(limits, &nlimits, "BPF", "no", "%s", why);
		add_cause(API_XSKZC | API_SOCKMAP, "limit", "run with CAP_BPF+CAP_NET_ADMIN in the initial user namespace",
			  "BPF programs cannot be loaded: %s", why);
	} else {
		add_row(limits, &nlimits, "BPF", "yes", "a two-instruction tc program loads");
	}
}

/* ---- packet taps ---- */

static const char *tap_scope(const struct zc_tap *t)
{
	if (t->ifindex)
		return "its device only";
	if (t->proto != ETH_P_ALL)
		return "received packets of its protocol in its namespace";
	if (netns_taps > 0)
		return "every device of its namespace (per-namespace lists)";
	if (!netns_taps)
		return "every device in every namespace (this kernel keeps one global list)";
	return "its namespace, or every namespace before 6.15 (scope unknown: no BTF)";
}

/* Does tap t see the target's (namespace, device) zero-copy traffic? */
static bool tap_applies(const struct zc_tap *t, int ifindex)
{
	if (!zc_tap_applies(t, netns_taps, &target_ns, 1))
		return false;
	return !t->ifindex || !ifindex || t->ifindex == ifindex;
}

/* Advice for the tap as it is: bound or not, ignoring outgoing or not. */
static const char *tap_fix(const struct zc_tap *t)
{
	if (t->ifindex)
		return "it is bound to its device already and copies only sends through that device: stop it while measuring, or send through another device";
	if (t->ignore_outgoing == 1)
		return "it already ignores outgoing packets (PACKET_IGNORE_OUTGOING): before 6.15 veth's receive side still copies; stop it, or bind it to one device";
	if (netns_taps == 0)
		return "stop it, or bind it to one device (PACKET_IGNORE_OUTGOING spares the transmit path only): this kernel keeps one tap list for every namespace, 6.15+ keeps unbound taps to their own";
	return "stop it, or bind it to one device; PACKET_IGNORE_OUTGOING spares the transmit path only";
}

static void host_taps(int ifindex)
{
	char line[320], cmd[160];
	int i;

	taps = calloc(MAX_TAPS, sizeof(*taps));
	ntaps = taps ? zc_taps_all(taps, MAX_TAPS) : -ENOMEM;
	if (ntaps > MAX_TAPS)
		ntaps = MAX_TAPS;
	for (i = 0; i < ntaps; i++) {
		const struct zc_tap *t = &taps[i];

		if (!tap_applies(t, ifindex))
			continue;
		zc_tap_format(t, line, sizeof(line));
		if (zc_tap_cmdline(t, cmd, sizeof(cmd)))
			snprintf(cmd, sizeof(cmd), "%s", t->pid ? t->comm : "owner unknown");
		add_cause(API_MSGZC | API_SENDZC, "tap", tap_fix(t),
			  "packet tap of pid %d (%s) in netns net:[%lu] sees %s: zero-copy sends are copied (skb_copy_ubufs)%s; %s",
			  t->pid, cmd, t->netns,
			  tap_scope(t), t->netns != target_ns ? ", although it is in another namespace" : "",
			  line);
	}
}

/* ---- devices ---- */

/* Virtio feature bits as sysfs prints them ("0101..."): bit, or -1. */
static int virtio_bit(const char *ifname, int bit)
{
	char path[128], bits[160];
	FILE *f;
	int v = -1;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device/features", ifname);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(bits, sizeof(bits), f) && (int)strcspn(bits, "\n") > bit)
		v = bits[bit] == '1';
	fclose(f);
	return v;
}

static const char *xdp_mode(int mode)
{
	switch (mode) {
	case XDP_ATTACHED_DRV:
		return "native";
	case XDP_ATTACHED_SKB:
		return "generic";
	case XDP_ATTACHED_HW:
		return "offloaded";
	case XDP_ATTACHED_MULTI:
		return "multi";
	default:
		return "none";
	}
}

struct dev_args {
	int ifindex;
	char name[IF_NAMESIZE];
};

static int one_device(void *arg)
{
	struct dev_args *d = arg;
	struct zc_netdev_info info = { 0 };
	char drv[32] = "?", fs[128] = "unknown", xdp[48] = "none";
	int sg = -1, csum = -1, mode = 0, nerr, ap, vcsum;
	unsigned int prog = 0;
	bool xskzc;

	zc_netdev_driver(d->ifindex, drv, sizeof(drv));
	nerr = zc_netdev_get(d->ifindex, &info);
	if (!nerr)
		zc_xdp_features_str(info.xdp_features, fs, sizeof(fs));
	zc_netdev_offloads(d->ifindex, &sg, &csum);
	zc_netdev_xdp(d->ifindex, &mode, &prog);
	/* sysfs shows this mount's namespace: another one's names may collide. */
	ap = nsfd < 0 ? virtio_bit(d->name, VIRTIO_F_ACCESS_PLATFORM) : -1;
	vcsum = nsfd < 0 ? virtio_bit(d->name, VIRTIO_NET_F_CSUM) : -1;
	xskzc = !nerr && (info.xdp_features & NETDEV_XDP_ACT_XSK_ZEROCOPY);
	if (prog)
		snprintf(xdp, sizeof(xdp), "%s, prog %u", xdp_mode(mode), prog);
	add_row(devs, &ndevs, d->name, drv,
		"ifindex %d; sg %s, tx-csum %s; xdp_features %s, zc_max_segs %u; XDP %s%s%s%s%s",
		d->ifindex, yesno(sg), yesno(csum), fs, info.xdp_zc_max_segs,
		xdp, ap >= 0 ? "; virtio ACCESS_PLATFORM " : "",
		ap >= 0 ? yesno(ap) : "", vcsum >= 0 ? ", NET_F_CSUM " : "", vcsum >= 0 ? yesno(vcsum) : "");
	if (xskzc && ap != 0)
		xsk_zc_devs++;
	if (mode && !strcmp(drv, "veth"))
		add_cause(API_MSGZC | API_SENDZC, "xdp", "use tc (clsact) instead of XDP on veth, or accept the copy",
			  "%s (veth) runs XDP in %s mode (prog %u): veth copies every skb for it (skb_pp_cow_data), and the completion still says zero-copy",
			  d->name, xdp_mode(mode), prog);
	if (!sg || !csum)
		add_cause(API_MSGZC | API_SENDZC, "offload", "enable SG and checksum offload (ethtool -K DEV sg on tx on), or a backend that offers them (virtio: vnet_hdr)",
			  "%s (%s) has %s%s%s off: zero-copy sends through it are copied", d->name, drv,
			  !sg ? "scatter-gather" : "", !sg && !csum ? " and " : "", !csum ? "tx checksum" : "");
	if (opt_iface && !xskzc)
		add_cause(API_XSKZC, "device", "a driver with AF_XDP zero-copy",
			  "%s (%s) lacks NETDEV_XDP_ACT_XSK_ZEROCOPY: XDP_ZEROCOPY binds fail, others copy", d->name, drv);
	if (xskzc && ap == 0)
		add_cause(API_XSKZC, "device", "qemu: -device virtio-net-pci,iommu_platform=on,disable-legacy=on",
			  "%s (%s) advertises XSK zero-copy but the device lacks VIRTIO_F_ACCESS_PLATFORM: XDP_ZEROCOPY gives EINVAL",
			  d->name, drv);
	if (xskzc && ap == 0)
		mark_device_only();
	return 0;
}

static int all_devices(void *arg)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	struct dev_args d;

	if (!ifs)
		return -errno;
	for (i = ifs; i->if_index; i++) {
		if (opt_iface && strcmp(opt_iface, i->if_name))
			continue;
		d.ifindex = i->if_index;
		snprintf(d.name, sizeof(d.name), "%s", i->if_name);
		one_device(&d);
	}
	if_freenameindex(ifs);
	return 0;
}

static int iface_index(void *arg)
{
	int idx = if_nametoindex(opt_iface);

	return idx ? idx : -ENODEV;
}

/* ---- output ---- */

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_rows(const char *key, const struct row *rows, int n, const char *k2)
{
	int i;

	printf("  \"%s\": [", key);
	for (i = 0; i < n; i++) {
		printf("%s\n    {\"name\": ", i ? "," : "");
		json_str(rows[i].name);
		printf(", \"%s\": ", k2);
		json_str(rows[i].state);
		printf(", \"evidence\": ");
		json_str(rows[i].evidence);
		putchar('}');
	}
	printf("\n  ],\n");
}

static unsigned int api_causes(int a)
{
	unsigned int n = 0;
	int i;

	for (i = 0; i < ncauses; i++)
		n += !!(causes[i].apis & (1u << a)) &&
		     (!causes[i].device_only || opt_iface);
	return n;
}

static void verdict_text(int a, char *buf, size_t len)
{
	unsigned int n = api_causes(a);

	if (!(opt_apis & (1u << a)))
		snprintf(buf, len, "not asked (--api %s)%s", api_keys[a],
			 n ? "; see the findings above" : "");
	else if ((1u << a) == API_XSKZC && !opt_iface)
		snprintf(buf, len, "which device? (--iface DEV)");
	else if (n)
		snprintf(buf, len, "copies or is refused: %u cause%s above", n, n == 1 ? "" : "s");
	else if ((1u << a) == API_XSKZC && !xsk_zc_devs)
		snprintf(buf, len, "no device here offers it (NETDEV_XDP_ACT_XSK_ZEROCOPY): binds copy");
	else
		snprintf(buf, len, "zero-copy should hold");
}

static void print_json(void)
{
	char v[160];
	int i, first;

	printf("{\n  \"kernel\": ");
	json_str(zc_kernel_release());
	printf(",\n  \"netns\": %lu,\n  \"asked\": [", target_ns);
	for (i = 0, first = 1; i < 4; i++)
		if (opt_apis & (1u << i)) {
			printf("%s", first ? "" : ", ");
			json_str(api_keys[i]);
			first = 0;
		}
	printf("],\n");
	json_rows("features", feats, nfeats, "state");
	json_rows("limits", limits, nlimits, "value");
	json_rows("devices", devs, ndevs, "driver");
	printf("  \"taps\": [");
	for (i = 0; i < ntaps; i++) {
		const struct zc_tap *t = &taps[i];

		char cmd[160];

		printf("%s\n    {\"pid\": %d, \"comm\": ", i ? "," : "", t->pid);
		json_str(t->comm);
		printf(", \"cmdline\": ");
		json_str(zc_tap_cmdline(t, cmd, sizeof(cmd)) ? "" : cmd);
		printf(", \"netns\": %lu, \"ifindex\": %d, \"proto\": %u, \"running\": %s, \"ignore_outgoing\": %d, \"copies_tx\": %s, \"copies_rx\": %s, \"scope\": ",
		       t->netns, t->ifindex, t->proto, t->running ? "true" : "false",
		       t->ignore_outgoing, t->copies_tx ? "true" : "false",
		       t->copies_rx ? "true" : "false");
		json_str(tap_scope(t));
		putchar('}');
	}
	printf("\n  ],\n  \"causes\": [");
	for (i = 0; i < ncauses; i++) {
		printf("%s\n    {\"kind\": ", i ? "," : "");
		json_str(causes[i].kind);
		printf(", \"apis\": %u, \"on_path\": %s, \"what\": ", causes[i].apis,
		       on_path(&causes[i]) ? "true" : "false");
		json_str(causes[i].what);
		printf(", \"fix\": ");
		json_str(causes[i].fix);
		putchar('}');
	}
	printf("\n  ],\n  \"verdict\": {");
	for (i = 0; i < 4; i++) {
		verdict_text(i, v, sizeof(v));
		printf("%s\n    \"%s\": ", i ? "," : "", api_keys[i]);
		json_str(v);
	}
	printf("\n  }\n}\n");
}

static void text_rows(const char *title, const struct row *rows, int n)
{
	int i;

	printf("%s\n", title);
	for (i = 0; i < n; i++)
		printf("  %-30s %-12s %s\n", rows[i].name, rows[i].state, rows[i].evidence);
}

static void print_causes(bool path)
{
	int i, a;

	for (i = 0; i < ncauses; i++) {
		if (on_path(&causes[i]) != path)
			continue;
		printf("  - [%s] %s\n    affects:", causes[i].kind, causes[i].what);
		for (a = 0; a < 4; a++)
			if (causes[i].apis & (1u << a))
				printf(" %s;", api_names[a]);
		printf("\n    fix: %s\n", causes[i].fix);
	}
}

static void print_text(void)
{
	char line[320], v[160];
	int i, a;

	printf("zc-doctor: kernel %s, network namespace net:[%lu]%s%s\n",
	       zc_kernel_release(), target_ns, opt_iface ? ", device " : "",
	       opt_iface ? opt_iface : "");
	text_rows("kernel support (by BTF and behaviour):", feats, nfeats);
	text_rows("limits and capabilities:", limits, nlimits);
	text_rows("devices:", devs, ndevs);
	printf("packet taps (%d, every namespace):\n", ntaps < 0 ? 0 : ntaps);
	for (i = 0; i < ntaps; i++) {
		char cmd[160];

		zc_tap_format(&taps[i], line, sizeof(line));
		printf("  netns net:[%lu] %s; sees %s\n", taps[i].netns, line, tap_scope(&taps[i]));
		if (!zc_tap_cmdline(&taps[i], cmd, sizeof(cmd)))
			printf("    command: %s\n", cmd);
	}
	printf("causes on the path asked about (%d; --api", path_causes());
	for (a = 0; a < 4; a++)
		if (opt_apis & (1u << a))
			printf(" %s", api_keys[a]);
	printf("%s%s):\n", opt_iface ? ", --iface " : "", opt_iface ? opt_iface : "");
	print_causes(true);
	if (ncauses > path_causes()) {
		printf("not causes of what was asked (%d):\n", ncauses - path_causes());
		print_causes(false);
	}
	printf("verdict:\n");
	for (a = 0; a < 4; a++) {
		verdict_text(a, v, sizeof(v));
		printf("  %-18s %s\n", api_names[a], v);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " NAME " [--json] [--iface DEV] [--netns PATH] [--api API[,API...]]\n"
		"Why does zero-copy copy here? A passive diagnosis: sends nothing, changes nothing.\n"
		"  --iface DEV    one device (in the namespace of --netns, else this one)\n"
		"  --netns PATH   the network namespace to look at (/proc/PID/ns/net, /run/netns/X)\n"
		"  --api API      the paths asked about: msg_zerocopy, send_zc, af_xdp_zerocopy,\n"
		"                 sockmap_splice or all (repeatable; default msg_zerocopy,send_zc,\n"
		"                 and af_xdp_zerocopy with --iface)\n"
		"  --json         one JSON object instead of text\n"
		"  -h, --help     this text\n"
		"Reports packet taps with pid and command (and whether this kernel scopes them\n"
		"per namespace), XDP programs that force a copy, device offloads and XDP\n"
		"features, limits and capabilities (user namespace included), kernel support\n"
		"(BTF/behaviour), the causes found with their fixes, those on the path asked\n"
		"about first, and a verdict per API.\n"
		"Exit: 0 zero-copy should hold for what was asked, 1 a cause on that path found,\n"
		"2 setup error, 128 usage error (one line on stderr).\n");
}

/* --api LIST: 0, or -1 for a name none of the APIs has. */
static int parse_apis(const char *arg)
{
	char buf[128], *tok, *save = NULL;
	int a;

	if (!*arg || strlen(arg) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			opt_apis |= API_MSGZC | API_SENDZC | API_XSKZC | API_SOCKMAP;
			continue;
		}
		for (a = 0; a < 4 && strcmp(tok, api_keys[a]); a++)
			;
		if (a == 4)
			return -1;
		opt_apis |= 1u << a;
	}
	return 0;
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, NAME ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (try --help)\n");
	return -1;
}

static int parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "json", 0, NULL, 'j' }, { "iface", 1, NULL, 'i' },
		{ "netns", 1, NULL, 'n' }, { "api", 1, NULL, 'a' },
		{ "help", 0, NULL, 'h' }, { NULL },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = true;
			break;
		case 'i':
			opt_iface = optarg;
			break;
		case 'n':
			opt_netns = optarg;
			break;
		case 'a':
			if (parse_apis(optarg))
				return usage_error("--api wants msg_zerocopy, send_zc, af_xdp_zerocopy, sockmap_splice or all, got '%s'",
						   optarg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default: return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!opt_apis)
		opt_apis = API_MSGZC | API_SENDZC | (opt_iface ? API_XSKZC : 0);
	return 0;
}

static int noop(void *arg)
{
	return 0;
}

int main(int argc, char **argv)
{
	int ifindex = 0;

	if (parse(argc, argv))
		return ZC_EXIT_USAGE;
	/* lib diagnostics (ktap_print_msg) go out as they come, no TAP. */
	ktap_no_header();
	if (opt_netns) {
		int err;

		/* Entering it is the test: setns refuses what is not a netns. */
		nsfd = open(opt_netns, O_RDONLY | O_CLOEXEC);
		err = nsfd < 0 ? -errno : zc_netns_run(nsfd, noop, NULL);
		if (err || zc_netns_inode(nsfd) == 0) {
			fprintf(stderr, NAME ": --netns %s: %s (try --help)\n", opt_netns,
				err == -EINVAL || !err ? "not a network namespace" : strerror(-err));
			return ZC_EXIT_USAGE;
		}
	}
	target_ns = zc_netns_inode(nsfd);
	if (opt_iface) {
		ifindex = nsfd >= 0 ? zc_netns_run(nsfd, iface_index, NULL) : iface_index(NULL);
		if (ifindex < 0) {
			fprintf(stderr, NAME ": --iface %s: no such device%s (try --help)\n", opt_iface,
				opt_netns ? " in that namespace" : "");
			return ZC_EXIT_USAGE;
		}
	}
	netns_taps = zc_btf_has_member("net", "ptype_all");
	kernel_features();
	host_limits();
	host_taps(ifindex);
	if (nsfd >= 0)
		zc_netns_run(nsfd, all_devices, NULL);
	else
		all_devices(NULL);
	if (opt_json)
		print_json();
	else
		print_text();
	free(taps);
	return path_causes() ? 1 : 0;
}
