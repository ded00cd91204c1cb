// SPDX-License-Identifier: GPL-2.0
/* The XDP programs of an AF_XDP test; see xsk_prog.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/meter.h"
#include "net/netns.h"
#include "xsk/xsk_prog.h"
#include "xsk.skel.h"

const char *const zc_xsk_at_names[] = {
	[ZC_XSK_AT_SKB] = "skb", [ZC_XSK_AT_NATIVE] = "native",
};

const char *zc_xsk_at_name(enum zc_xsk_attach at)
{
	return zc_xsk_at_names[at];
}

struct link_args {
	int prog_fd, ifindex;
	__u32 flags;
};

static int link_in_ns(void *arg)
{
	struct link_args *a = arg;
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = a->flags);
	int fd;

	/* A link, not a netlink attach: it goes with the process, even on SIGKILL. */
	fd = bpf_link_create(a->prog_fd, a->ifindex, BPF_XDP, &opts);
	return fd < 0 ? -errno : fd;
}

static int silent_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* Open and load, with (wit) or without the witnessing redirect. */
static int load_variant(struct zc_xsk_prog *p, bool wit)
{
	int err;

	p->skel = xsk__open();
	if (!p->skel)
		return errno ? -errno : -EINVAL;
	bpf_program__set_autoload(p->skel->progs.zc_xsk_redirect_wit, wit);
	err = xsk__load(p->skel);
	if (!err)
		return 0;
	xsk__destroy(p->skel);
	p->skel = NULL;
	return err < 0 ? err : -err;
}

int zc_xsk_prog_load(struct zc_xsk_prog *p, bool verify)
{
	const char *lie = getenv("ZC_INJECT_XSK_WITNESS_LIE");
	struct zc_xsk_cfg_val cfg = { .verify = verify, .lie = lie && *lie == '1' };
	libbpf_print_fn_t old;
	__u32 key = 0;
	int err;

	p->link = -1;
	p->nowit[0] = '\0';
	/* The kfunc is not there before 6.2: that refusal is expected, keep it quiet. */
	old = libbpf_set_print(silent_print);
	err = load_variant(p, true);
	libbpf_set_print(old);
	p->wit = !err;
	if (err) {
		snprintf(p->nowit, sizeof(p->nowit),
			 "XDP program with bpf_cast_to_kern_ctx (6.2+) did not load: %s",
			 strerror(-err));
		err = load_variant(p, false);
		if (err)
			return err;
	}
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.zc_xsk_cfg), &key, &cfg, 0))
		return -errno;
	return 0;
}

int zc_xsk_prog_count_any(struct zc_xsk_prog *p)
{
	int fd = bpf_map__fd(p->skel->maps.zc_xsk_cfg);
	struct zc_xsk_cfg_val cfg;
	__u32 key = 0;

	if (bpf_map_lookup_elem(fd, &key, &cfg))
		return -errno;
	cfg.count_any = 1;
	return bpf_map_update_elem(fd, &key, &cfg, 0) ? -errno : 0;
}

int zc_xsk_prog_attach(struct zc_xsk_prog *p, int nsfd, int ifindex,
		       bool count, enum zc_xsk_attach at)
{
	struct bpf_program *prog = count ? p->skel->progs.zc_xdp_count :
				   p->wit ? p->skel->progs.zc_xsk_redirect_wit :
				   p->skel->progs.zc_xsk_redirect;
	struct link_args a = {
		bpf_program__fd(prog), ifindex,
		at == ZC_XSK_AT_SKB ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE,
	};
	int fd = zc_netns_run(nsfd, link_in_ns, &a);

	if (fd < 0)
		return fd;
	p->link = fd;
	return 0;
}

int zc_xsk_prog_map_add(struct zc_xsk_prog *p, const struct zc_xsk *x)
{
	__u32 key = x->queue;
	__u32 fd = x->fd;

	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.zc_xsk_map), &key, &fd, 0))
		return -errno;
	return 0;
}

void zc_xsk_prog_close(struct zc_xsk_prog *p)
{
	if (p->link >= 0)
		close(p->link);
	p->link = -1;
	xsk__destroy(p->skel);
	p->skel = NULL;
}

int zc_xsk_cnt_read(const struct zc_xsk_prog *p, uint64_t out[ZC_XSK_C_NSLOTS])
{
	int ncpu = libbpf_num_possible_cpus(), c;
	uint64_t *v;
	__u32 key;

	memset(out, 0, sizeof(uint64_t) * ZC_XSK_C_NSLOTS);
	if (ncpu <= 0)
		return -EINVAL;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (key = 0; key < ZC_XSK_C_NSLOTS; key++) {
		if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.zc_xsk_cnt), &key, v))
			continue;
		for (c = 0; c < ncpu; c++)
			out[key] += v[c];
	}
	free(v);
	return 0;
}

uint64_t zc_xsk_cnt_get(const struct zc_xsk_prog *p, int slot)
{
	uint64_t c[ZC_XSK_C_NSLOTS];

	zc_xsk_cnt_read(p, c);
	return c[slot];
}

uint64_t zc_xsk_cnt_settle(const struct zc_xsk_prog *p, int slot, uint64_t want,
			   double timeout)
{
	double end = zc_now() + timeout;
	uint64_t v;

	while ((v = zc_xsk_cnt_get(p, slot)) < want && zc_now() < end)
		usleep(1000);
	return v;
}
