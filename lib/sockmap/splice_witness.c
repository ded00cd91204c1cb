// SPDX-License-Identifier: GPL-2.0
/* Splice copy witness: see splice_witness.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>

#include "splice_witness.skel.h"
#include "net/witness.h"
#include "sockmap/splice_witness.h"

#define PAGE_BYTES	4096ULL

static struct {
	struct splice_witness *skel;
	uint64_t bytes, calls;	/* what the armed calls returned */
} spl;

static __thread unsigned int my_tid;

static void witness_arm(void)
{
	if (!spl.skel)
		return;
	if (!my_tid)
		my_tid = syscall(SYS_gettid);
	__atomic_store_n(&spl.skel->bss->armed_tid, my_tid, __ATOMIC_SEQ_CST);
}

static void witness_done(long ret)
{
	if (!spl.skel)
		return;
	__atomic_store_n(&spl.skel->bss->armed_tid, 0, __ATOMIC_SEQ_CST);
	if (ret > 0) {
		__atomic_add_fetch(&spl.bytes, ret, __ATOMIC_RELAXED);
		__atomic_add_fetch(&spl.calls, 1, __ATOMIC_RELAXED);
	}
}

/* One variant: the tp_btf program, or the raw_tp one for older kernels. */
static int try_variant(bool btf, struct zc_why *why)
{
	const char *what = btf ? "tp_btf" : "raw_tp";
	struct splice_witness *s = splice_witness__open();
	int err;

	if (!s) {
		err = -errno;
		zc_why_set(why, "%s: open: %s", what, strerror(-err));
		return err;
	}
	zc_witness_autoload_none(s->obj);
	bpf_program__set_autoload(btf ? s->progs.zc_spl_page_btf :
				  s->progs.zc_spl_page_raw, true);
	err = splice_witness__load(s);
	if (!err) {
		s->bss->target_tgid = getpid();
		err = splice_witness__attach(s);
	}
	if (err) {
		err = err < 0 ? err : -err;
		zc_why_set(why, "%s: %s", what, strerror(-err));
		splice_witness__destroy(s);
		return err;
	}
	spl.skel = s;
	return 0;
}

/*
 * A witness that counts nothing would call every splice "referenced":
 * armed, this thread faults in SELF_PAGES fresh pages, which it must see.
 */
#define SELF_PAGES	16

static int self_check(struct zc_why *why)
{
	size_t len = SELF_PAGES * PAGE_BYTES;
	struct zc_spl_counts c;
	void *p;

	zc_spl_witness_reset();
	witness_arm();
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	witness_done(0);
	if (p == MAP_FAILED)
		return zc_why_errno(why, "self-check: mmap");
	munmap(p, len);
	zc_spl_witness_read(&c);
	zc_spl_witness_reset();
	if (c.pages < SELF_PAGES)
		return zc_why_set(why, "self-check: %d pages faulted in while armed, %llu counted",
				  SELF_PAGES, (unsigned long long)c.pages);
	return 0;
}

int zc_spl_witness_open(struct zc_why *why)
{
	struct zc_why btf = { "" };
	libbpf_print_fn_t old;
	int err;

	if (spl.skel)
		return 0;
	old = libbpf_set_print(zc_witness_silent_print);
	err = try_variant(true, &btf);
	if (err) {
		err = try_variant(false, why);
		if (err)
			zc_why_prefix(why, "%s", btf.msg);
	}
	libbpf_set_print(old);
	if (!err && self_check(why)) {
		zc_spl_witness_close();
		err = -EIO;
	}
	zc_spl_witness_reset();
	return err;
}

void zc_spl_witness_close(void)
{
	if (spl.skel)
		splice_witness__destroy(spl.skel);
	spl.skel = NULL;
}

bool zc_spl_witness_on(void)
{
	return spl.skel;
}

ssize_t zc_spl_splice(int in, int pipe_w, size_t len, unsigned int flags)
{
	ssize_t n;

	witness_arm();
	n = splice(in, NULL, pipe_w, NULL, len, flags);
	witness_done(n);
	return n;
}

void zc_spl_witness_read(struct zc_spl_counts *c)
{
	memset(c, 0, sizeof(*c));
	if (!spl.skel)
		return;
	c->pages = __atomic_load_n(&spl.skel->bss->pages, __ATOMIC_RELAXED);
	c->allocs = __atomic_load_n(&spl.skel->bss->allocs, __ATOMIC_RELAXED);
	c->bytes = __atomic_load_n(&spl.bytes, __ATOMIC_RELAXED);
	c->calls = __atomic_load_n(&spl.calls, __ATOMIC_RELAXED);
}

void zc_spl_witness_reset(void)
{
	if (!spl.skel)
		return;
	spl.skel->bss->pages = 0;
	spl.skel->bss->allocs = 0;
	spl.bytes = 0;
	spl.calls = 0;
}

/*
 * Referencing allocates nothing per byte (a stray allocation of the
 * socket's own bookkeeping may fall in a call); copying allocates a page
 * per page of data, a little more where a piece does not fill its page.
 */
enum zc_spl_mode zc_spl_judge(const struct zc_spl_counts *c)
{
	uint64_t copied = c->pages * PAGE_BYTES;

	if (!c->bytes)
		return ZC_SPL_UNSEEN;
	if (copied * 16 <= c->bytes)
		return ZC_SPL_REFERENCED;
	if (copied * 4 >= c->bytes * 3)
		return ZC_SPL_COPIED;
	return ZC_SPL_MIXED;
}

const char *zc_spl_mode_name(enum zc_spl_mode m)
{
	static const char *const names[] = {
		[ZC_SPL_UNSEEN] = "unseen", [ZC_SPL_REFERENCED] = "referenced",
		[ZC_SPL_COPIED] = "copied", [ZC_SPL_MIXED] = "mixed",
	};

	return m <= ZC_SPL_MIXED ? names[m] : "?";
}

int zc_spl_format(const struct zc_spl_counts *c, char *buf, size_t len)
{
	return snprintf(buf, len, "%s pages=%llu allocs=%llu bytes=%llu calls=%llu",
			zc_spl_mode_name(zc_spl_judge(c)),
			(unsigned long long)c->pages,
			(unsigned long long)c->allocs,
			(unsigned long long)c->bytes,
			(unsigned long long)c->calls);
}
