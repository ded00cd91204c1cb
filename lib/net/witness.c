// SPDX-License-Identifier: GPL-2.0
/* Copy witness: loads bpf/witness.bpf.c, see witness.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf/witness_abi.h"
#include "witness.skel.h"
#include "core/ktap.h"
#include "core/probe.h"
#include "core/util.h"
#include "net/witness.h"

static struct {
	struct witness *skel;
	const char *kind;		/* "fentry", "tracepoint", NULL */
	char reason[256];
	struct zc_witness_counts base;	/* subtracted by read, set by reset */
	/* veth's XDP copy: the function counted, or why there is none */
	const char *cow_fn;
	bool cow_pages;			/* counted in pages, not calls */
	bool cow_on;			/* the loaded variant counts it */
	char cow_why[200];
} wit;

#define COPY_UBUFS_FN	"skb_copy_ubufs"
#define PP_COW_FN	"skb_pp_cow_data"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool is_clone_of(const char *sym, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(sym, name, n) && (sym[n] == '\0' || sym[n] == '.');
}

/* Text addresses of vmlinux, sorted; starts of name's clones in *starts. */
static int kallsyms_scan(const char *name, uint64_t **addrs, size_t *naddrs,
			 uint64_t *starts, int max, int *nstarts)
{
	size_t cap = 0, n = 0;
	uint64_t *a = NULL;
	bool hidden = true;
	char line[512];
	FILE *f;

	*nstarts = 0;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, sym[256], mod[64] = "";

		/* module symbols carry a "[module]" field; BPF programs "[bpf]" */
		if (sscanf(line, "%llx %c %255s %63s", &addr, &type, sym, mod) < 3)
			continue;
		if ((type != 't' && type != 'T') || !strcmp(mod, "[bpf]"))
			continue;
		if (addr)
			hidden = false;
		if (n == cap) {
			uint64_t *p;

			cap = cap ? cap * 2 : 65536;
			p = realloc(a, cap * sizeof(*a));
			if (!p) {
				free(a);
				fclose(f);
				return -ENOMEM;
			}
			a = p;
		}
		a[n++] = addr;
		if (is_clone_of(sym, name) && *nstarts < max)
			starts[(*nstarts)++] = addr;
	}
	fclose(f);
	if (hidden) {
		free(a);
		return -EPERM;
	}
	qsort(a, n, sizeof(*a), cmp_u64);
	*addrs = a;
	*naddrs = n;
	return 0;
}

/* Smallest address above x, or 0. */
static uint64_t next_addr(const uint64_t *a, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n ? a[lo] : 0;
}

/*
 * Address ranges of a kernel text symbol and its compiler clones
 * (name.cold, name.part.N, ...) from /proc/kallsyms, in vmlinux or a
 * module, for the stack check.
 * Fills up to max [lo, hi) pairs; returns how many, or -errno
 * (-ENOENT: no such symbol, -EPERM: addresses hidden by kptr_restrict).
 */
static int zc_kallsyms_ranges(const char *name, uint64_t (*ranges)[2], int max)
{
	uint64_t starts[ZC_WIT_MAX_RANGES], *addrs = NULL;
	int err, nstarts, i, got = 0;
	size_t naddrs = 0;

	if (max > ZC_WIT_MAX_RANGES)
		max = ZC_WIT_MAX_RANGES;
	err = kallsyms_scan(name, &addrs, &naddrs, starts, max, &nstarts);
	if (err)
		return err;
	for (i = 0; i < nstarts; i++) {
		uint64_t end = next_addr(addrs, naddrs, starts[i]);

		if (!end)
			continue;
		ranges[got][0] = starts[i];
		ranges[got][1] = end;
		got++;
	}
	free(addrs);
	return got ? got : -ENOENT;
}

static void set_reason(const char *fmt, const char *what, int err)
{
	size_t n = strlen(wit.reason);

	snprintf(wit.reason + n, sizeof(wit.reason) - n, fmt, n ? "; " : "",
		 what, strerror(err < 0 ? -err : err));
}

/* Does veth's struct veth_rq have a page_pool (6.5+)? 1, 0, or -errno. */
static int veth_rq_has_page_pool(void)
{
	struct btf *vml, *mod, *btf;
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i, ret = 0;

	vml = btf__load_vmlinux_btf();
	if (!vml)
		return -ENOENT;
	/* veth as a module has its own BTF; built in, it is in vmlinux */
	mod = btf__load_module_btf("veth", vml);
	btf = mod ? mod : vml;
	id = btf__find_by_name_kind(btf, "veth_rq", BTF_KIND_STRUCT);
	if (id < 0) {
		ret = -ENOENT;
		goto out;
	}
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "page_pool"))
			ret = 1;
out:
	btf__free(mod);
	btf__free(vml);
	return ret;
}

/*
 * Where veth's XDP copy can be counted on this kernel: skb_pp_cow_data
 * (6.8+, calls through consume_skb or fentry), or before it the veth
 * module's own copy (veth_convert_skb_to_xdp_buff, inlined into
 * veth_xdp_rcv_skb in most builds), counted by the pages it allocates
 * with alloc_page; from 6.5 to 6.7 those come from a page_pool that
 * recycles them, and nothing can be counted.
 */
static void cow_plan(void)
{
	static const char *const veth_fns[] = {
		"veth_convert_skb_to_xdp_buff", "veth_xdp_rcv_skb",
	};
	uint64_t r[ZC_WIT_MAX_RANGES][2];
	unsigned int i;
	int n = -ENOENT;

	wit.cow_fn = NULL;
	wit.cow_pages = false;
	wit.cow_on = false;
	wit.cow_why[0] = '\0';
	if (zc_kallsyms_ranges(PP_COW_FN, r, 1) > 0) {
		wit.cow_fn = PP_COW_FN;
		return;
	}
	for (i = 0; i < ZC_ARRAY_SIZE(veth_fns) && n <= 0; i++)
		n = zc_kallsyms_ranges(veth_fns[i], r, 1);
	if (n <= 0) {
		snprintf(wit.cow_why, sizeof(wit.cow_why),
			 "no %s (6.8+) nor veth_xdp_rcv_skb in /proc/kallsyms (%s)",
			 PP_COW_FN, n == -EPERM ? "addresses hidden" : "veth not loaded");
		return;
	}
	if (veth_rq_has_page_pool() == 1) {
		snprintf(wit.cow_why, sizeof(wit.cow_why),
			 "no %s (6.8+); %s copies into page_pool pages that are recycled, no allocation to count",
			 PP_COW_FN, veth_fns[i - 1]);
		return;
	}
	wit.cow_fn = veth_fns[i - 1];
	wit.cow_pages = true;
}

/* [lo, hi) ranges of fn as kind into skel's table; count or -errno */
int zc_witness_add_ranges(struct witness *skel, const char *fn, unsigned int kind)
{
	uint64_t r[ZC_WIT_MAX_RANGES][2];
	unsigned int nr = skel->bss->nr_ranges;
	int i, n;

	n = zc_kallsyms_ranges(fn, r, ZC_WIT_MAX_RANGES - nr);
	for (i = 0; i < n; i++) {
		skel->bss->ranges[nr].lo = r[i][0];
		skel->bss->ranges[nr].hi = r[i][1];
		skel->bss->ranges[nr].kind = kind;
		nr++;
	}
	skel->bss->nr_ranges = nr;
	return n;
}

enum wit_variant { VAR_FENTRY, VAR_TP_BTF, VAR_RAW_TP };

/*
 * Stack-check ranges: skb_copy_ubufs for the tracepoint variants, and
 * veth's copy function whenever it is counted by pages (fentry too).
 */
static int fill_ranges(struct witness *skel, enum wit_variant v, bool cow)
{
	int n;

	skel->bss->nr_ranges = 0;
	skel->bss->cow_pages = cow && wit.cow_pages;
	if (v != VAR_FENTRY) {
		n = zc_witness_add_ranges(skel, COPY_UBUFS_FN, ZC_WIT_COPY_UBUFS);
		if (n < 0)
			return n;
	}
	if (cow && (wit.cow_pages || v != VAR_FENTRY)) {
		n = zc_witness_add_ranges(skel, wit.cow_fn, ZC_WIT_PP_COW);
		if (n < 0)
			return n;
	}
	return 0;
}

/* Programs of variant v; cow: count veth's XDP copy too. */
static void only_autoload(struct witness *s, enum wit_variant v, bool cow)
{
	bool calls = cow && !wit.cow_pages, pages = cow && wit.cow_pages;

	bpf_program__set_autoload(s->progs.zc_wit_copy_fentry, v == VAR_FENTRY);
	bpf_program__set_autoload(s->progs.zc_wit_cow_fentry,
				  v == VAR_FENTRY && calls);
	bpf_program__set_autoload(s->progs.zc_wit_page_btf,
				  v == VAR_TP_BTF || (v == VAR_FENTRY && pages));
	bpf_program__set_autoload(s->progs.zc_wit_consume_btf,
				  v == VAR_TP_BTF && calls);
	bpf_program__set_autoload(s->progs.zc_wit_page_raw, v == VAR_RAW_TP);
	bpf_program__set_autoload(s->progs.zc_wit_consume_raw,
				  v == VAR_RAW_TP && calls);
}

int zc_witness_silent_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

void zc_witness_autoload_none(struct bpf_object *obj)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, false);
}

static int try_variant(enum wit_variant v, bool cow, const char *what)
{
	struct witness *s;
	int err;

	s = witness__open();
	if (!s) {
		set_reason("%s%s: open: %s", what, errno);
		return -errno;
	}
	zc_witness_autoload_none(s->obj);
	only_autoload(s, v, cow);
	err = witness__load(s);
	if (err) {
		set_reason("%s%s: load: %s", what, err);
		goto fail;
	}
	s->bss->target_tgid = getpid();
	s->bss->enabled = 1;
	err = fill_ranges(s, v, cow);
	if (err) {
		set_reason("%s%s: kallsyms: %s", what, err);
		goto fail;
	}
	err = witness__attach(s);
	if (err) {
		set_reason("%s%s: attach: %s", what, err);
		goto fail;
	}
	wit.skel = s;
	wit.kind = v == VAR_FENTRY ? "fentry" : "tracepoint";
	wit.cow_on = cow;
	return 0;
fail:
	witness__destroy(s);
	return err < 0 ? err : -err;
}

int zc_witness_open(struct zc_why *w)
{
	char *reason = w->msg;
	size_t len = sizeof(w->msg);
	libbpf_print_fn_t old;
	bool cow;
	int err;

	if (wit.skel)
		return 0;
	wit.reason[0] = '\0';
	memset(&wit.base, 0, sizeof(wit.base));
	old = libbpf_set_print(zc_witness_silent_print);
	cow_plan();
	/* fentry needs skb_pp_cow_data's BTF; older veth copies are pages */
	cow = wit.cow_fn && (wit.cow_pages || zc_btf_has_type(PP_COW_FN) == 1);
	err = try_variant(VAR_FENTRY, cow, "fentry");
	if (err)
		err = try_variant(VAR_TP_BTF, !!wit.cow_fn, "tp_btf");
	if (err)
		err = try_variant(VAR_RAW_TP, !!wit.cow_fn, "raw_tp");
	/* Last resort: skb_copy_ubufs alone, without veth's XDP copy. */
	if (err && wit.cow_fn)
		err = try_variant(VAR_FENTRY, false, "fentry without the XDP copy");
	libbpf_set_print(old);
	if (!err && wit.cow_fn && !wit.cow_on)
		snprintf(wit.cow_why, sizeof(wit.cow_why),
			 "%s not counted by the %s witness (%s)", wit.cow_fn,
			 wit.kind, wit.reason[0] ? wit.reason : "no BTF for fentry");
	if (reason && len)
		snprintf(reason, len, "%s", wit.reason);
	return err;
}

void zc_witness_close(void)
{
	if (wit.skel)
		witness__destroy(wit.skel);
	wit.skel = NULL;
	wit.kind = NULL;
}

const char *zc_witness_kind(const char **reason)
{
	if (reason)
		*reason = wit.reason[0] ? wit.reason : "witness not opened";
	return wit.kind;
}

/* What copy_ubufs counts: "calls" or "pages" (NULL when not loaded). */
static const char *witness_unit(void)
{
	if (!wit.kind)
		return NULL;
	return strcmp(wit.kind, "fentry") ? "pages" : "calls";
}

const char *zc_witness_xdp_copy(const char **unit, const char **why)
{
	if (!wit.kind) {
		zc_witness_kind(why);
		return NULL;
	}
	if (!wit.cow_fn || !wit.cow_on) {
		if (why)
			*why = wit.cow_why;
		return NULL;
	}
	if (unit)
		*unit = wit.cow_pages ? "pages" : "calls";
	return wit.cow_fn;
}

void zc_witness_enable(bool on)
{
	if (wit.skel)
		wit.skel->bss->enabled = on;
}

static void read_raw(struct zc_witness_counts *c)
{
	const volatile struct witness__bss *b = wit.skel->bss;

	c->copy_ubufs = b->hits[ZC_WIT_COPY_UBUFS];
	c->pp_cow = b->hits[ZC_WIT_PP_COW];
	c->copy_bytes = b->bytes[ZC_WIT_COPY_UBUFS] + b->bytes[ZC_WIT_PP_COW];
	c->softirqd_copy_ubufs = b->softirqd[ZC_WIT_COPY_UBUFS];
	c->softirqd_pp_cow = b->softirqd[ZC_WIT_PP_COW];
	c->foreign = b->foreign[ZC_WIT_COPY_UBUFS] + b->foreign[ZC_WIT_PP_COW];
}

void zc_witness_read(struct zc_witness_counts *c)
{
	struct zc_witness_counts now;

	memset(c, 0, sizeof(*c));
	if (!wit.skel)
		return;
	read_raw(&now);
	zc_witness_delta(&now, &wit.base, c);
}

void zc_witness_delta(const struct zc_witness_counts *after,
		      const struct zc_witness_counts *before,
		      struct zc_witness_counts *d)
{
	d->copy_ubufs = after->copy_ubufs - before->copy_ubufs;
	d->pp_cow = after->pp_cow - before->pp_cow;
	d->copy_bytes = after->copy_bytes - before->copy_bytes;
	d->softirqd_copy_ubufs = after->softirqd_copy_ubufs - before->softirqd_copy_ubufs;
	d->softirqd_pp_cow = after->softirqd_pp_cow - before->softirqd_pp_cow;
	d->foreign = after->foreign - before->foreign;
}

void zc_witness_add(struct zc_witness_counts *sum,
		    const struct zc_witness_counts *d)
{
	sum->copy_ubufs += d->copy_ubufs;
	sum->pp_cow += d->pp_cow;
	sum->copy_bytes += d->copy_bytes;
	sum->softirqd_copy_ubufs += d->softirqd_copy_ubufs;
	sum->softirqd_pp_cow += d->softirqd_pp_cow;
	sum->foreign += d->foreign;
}

bool zc_witness_copied(const struct zc_witness_counts *c)
{
	return c->copy_ubufs || c->pp_cow;
}

int zc_witness_format(const struct zc_witness_counts *c, char *buf, size_t len)
{
	const char *why;

	if (!zc_witness_kind(&why))
		return snprintf(buf, len, "witness=none (%s)", why);
	return snprintf(buf, len,
			"witness=%s %s=%llu%s %s=%llu%s ksoftirqd=%llu/%llu foreign=%llu",
			wit.kind, COPY_UBUFS_FN, (unsigned long long)c->copy_ubufs,
			strcmp(witness_unit(), "pages") ? "" : "pg",
			wit.cow_on ? wit.cow_fn : "xdp_copy",
			(unsigned long long)c->pp_cow,
			!wit.cow_on ? "(n/a)" : wit.cow_pages ? "pg" : "",
			(unsigned long long)c->softirqd_copy_ubufs,
			(unsigned long long)c->softirqd_pp_cow,
			(unsigned long long)c->foreign);
}

void zc_witness_report(const char *off)
{
	const char *why, *kind = zc_witness_kind(&why), *xfn;
	const char *xunit = "", *xwhy = "";

	if (!kind && off)
		why = off;
	xfn = zc_witness_xdp_copy(&xunit, &xwhy);
	if (kind)
		ktap_print_msg("copy witness: %s (counts skb_copy_ubufs %s; veth's XDP copy: %s%s%s)%s%s",
			       kind, witness_unit(),
			       xfn ? xfn : "not counted: ", xfn ? " " : "",
			       xfn ? xunit : xwhy,
			       strcmp(kind, "fentry") ? "; fentry refused: " : "",
			       strcmp(kind, "fentry") ? why : "");
	else
		ktap_print_msg("copy witness: none loaded (%s); cases assert the kernel flag only",
			       why);
}

