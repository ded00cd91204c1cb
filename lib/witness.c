// SPDX-License-Identifier: GPL-2.0
/* Copy witness: loads bpf/witness.bpf.c, see witness.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "../bpf/witness_abi.h"
#include "witness.skel.h"
#include "probe.h"
#include "witness.h"

static struct {
	struct witness *skel;
	const char *kind;		/* "fentry", "tracepoint", NULL */
	char reason[256];
	struct zc_witness_counts base;	/* subtracted by read, set by reset */
} wit;

static const char *const wit_funcs[ZC_WIT_NKINDS] = {
	[ZC_WIT_COPY_UBUFS] = "skb_copy_ubufs",
	[ZC_WIT_PP_COW] = "skb_pp_cow_data",
};

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
		char type, sym[256], mod[2];

		/* module symbols carry a "[module]" field: not ours */
		if (sscanf(line, "%llx %c %255s %1s", &addr, &type, sym, mod) != 3)
			continue;
		if (type != 't' && type != 'T')
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

int zc_kallsyms_ranges(const char *name, uint64_t (*ranges)[2], int max)
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

/* Stack-check ranges for the tracepoint witness. */
static int fill_ranges(struct witness *skel)
{
	uint64_t r[ZC_WIT_MAX_RANGES][2];
	unsigned int k, nr = 0;
	int i, n;

	for (k = 0; k < ZC_WIT_NKINDS; k++) {
		n = zc_kallsyms_ranges(wit_funcs[k], r,
				       ZC_WIT_MAX_RANGES - nr);
		if (n == -EPERM)
			return n;
		if (n < 0 && k == ZC_WIT_COPY_UBUFS)
			return n;
		for (i = 0; i < n; i++) {
			skel->bss->ranges[nr].lo = r[i][0];
			skel->bss->ranges[nr].hi = r[i][1];
			skel->bss->ranges[nr].kind = k;
			nr++;
		}
	}
	skel->bss->nr_ranges = nr;
	return 0;
}

enum wit_variant { VAR_FENTRY, VAR_TP_BTF, VAR_RAW_TP };

static void only_autoload(struct witness *s, enum wit_variant v)
{
	bpf_program__set_autoload(s->progs.zc_wit_copy_fentry, v == VAR_FENTRY);
	bpf_program__set_autoload(s->progs.zc_wit_cow_fentry, v == VAR_FENTRY);
	bpf_program__set_autoload(s->progs.zc_wit_page_btf, v == VAR_TP_BTF);
	bpf_program__set_autoload(s->progs.zc_wit_consume_btf, v == VAR_TP_BTF);
	bpf_program__set_autoload(s->progs.zc_wit_page_raw, v == VAR_RAW_TP);
	bpf_program__set_autoload(s->progs.zc_wit_consume_raw, v == VAR_RAW_TP);
}

static int silent_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	return 0;
}

static int try_variant(enum wit_variant v, const char *what)
{
	struct witness *s;
	int err;

	s = witness__open();
	if (!s) {
		set_reason("%s%s: open: %s", what, errno);
		return -errno;
	}
	only_autoload(s, v);
	/* skb_pp_cow_data is 6.8+: without it, witness skb_copy_ubufs only */
	if (v == VAR_FENTRY && zc_btf_has_type(wit_funcs[ZC_WIT_PP_COW]) != 1)
		bpf_program__set_autoload(s->progs.zc_wit_cow_fentry, false);
	err = witness__load(s);
	if (err) {
		set_reason("%s%s: load: %s", what, err);
		goto fail;
	}
	s->bss->target_tgid = getpid();
	s->bss->enabled = 1;
	if (v != VAR_FENTRY) {
		err = fill_ranges(s);
		if (err) {
			set_reason("%s%s: kallsyms: %s", what, err);
			goto fail;
		}
	}
	err = witness__attach(s);
	if (err) {
		set_reason("%s%s: attach: %s", what, err);
		goto fail;
	}
	wit.skel = s;
	wit.kind = v == VAR_FENTRY ? "fentry" : "tracepoint";
	return 0;
fail:
	witness__destroy(s);
	return err < 0 ? err : -err;
}

int zc_witness_open(char *reason, size_t len)
{
	libbpf_print_fn_t old;
	int err;

	if (wit.skel)
		return 0;
	wit.reason[0] = '\0';
	memset(&wit.base, 0, sizeof(wit.base));
	old = libbpf_set_print(silent_print);
	err = try_variant(VAR_FENTRY, "fentry");
	if (err)
		err = try_variant(VAR_TP_BTF, "tp_btf");
	if (err)
		err = try_variant(VAR_RAW_TP, "raw_tp");
	libbpf_set_print(old);
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

const char *zc_witness_unit(void)
{
	if (!wit.kind)
		return NULL;
	return wit.skel->bss->nr_ranges ? "pages" : "calls";
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

void zc_witness_reset(void)
{
	if (wit.skel)
		read_raw(&wit.base);
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
			"witness=%s skb_copy_ubufs=%llu%s skb_pp_cow_data=%llu ksoftirqd=%llu/%llu foreign=%llu",
			wit.kind, (unsigned long long)c->copy_ubufs,
			strcmp(zc_witness_unit(), "pages") ? "" : "pg",
			(unsigned long long)c->pp_cow,
			(unsigned long long)c->softirqd_copy_ubufs,
			(unsigned long long)c->softirqd_pp_cow,
			(unsigned long long)c->foreign);
}
