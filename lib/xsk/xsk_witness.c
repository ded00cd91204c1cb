// SPDX-License-Identifier: GPL-2.0
/* What happened to an AF_XDP socket's frames; see xsk_witness.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>

#include "core/ktap.h"
#include "xsk/xsk_prog.h"
#include "xsk/xsk_witness.h"
#include "bpf/witness_abi.h"
#include "witness.skel.h"

/*
 * The kernel functions' witness: the copy witness's BPF object
 * (bpf/witness.bpf.c, lib/net/witness), its own instance with only the
 * AF_XDP programs, counting for one device (ifindex in the namespace
 * whose inode is netns). Where fentry loads, every ZC_WIT_XSK_* count;
 * where only tracepoints do, ZC_WIT_XSK_TX_COPY alone (the copy-mode
 * transmit's skb allocations, found by their stack, in this process).
 */
/* The AF_XDP programs: the fentry set, the tracepoint one, or none. */
enum { XSK_FENTRY = 1, XSK_TP = 2 };


static void xsk_autoload(struct witness *s, int which)
{
	bool f = which & XSK_FENTRY;

	bpf_program__set_autoload(s->progs.zc_wit_xsk_redirect, f);
	bpf_program__set_autoload(s->progs.zc_wit_xsk_rcv, f);
	bpf_program__set_autoload(s->progs.zc_wit_xsk_generic, f);
	bpf_program__set_autoload(s->progs.zc_wit_xsk_tx_batch, f);
	bpf_program__set_autoload(s->progs.zc_wit_xsk_tx_desc, f);
	bpf_program__set_autoload(s->progs.zc_wit_xsk_destruct, f);
	bpf_program__set_autoload(s->progs.zc_wit_xsk_tx_alloc, which & XSK_TP);
}

/*
 * AF_XDP: the same object, its own instance, only the AF_XDP programs;
 * see zc_witness_xsk_open().
 */
static struct {
	struct witness *skel;
	const char *kind;
	char reason[256];
	bool live[ZC_WIT_XSK_N];
} xw;


static int xsk_try(int which, int ifindex, unsigned int netns, const char *what)
{
	struct witness *s;
	int err;

	s = witness__open();
	if (!s) {
		err = -errno;
		goto fail;
	}
	zc_witness_autoload_none(s->obj);
	xsk_autoload(s, which);
	err = witness__load(s);
	if (err)
		goto fail;
	s->bss->target_tgid = getpid();
	s->bss->xsk_ifindex = ifindex;
	s->bss->xsk_netns = netns;
	s->bss->nr_ranges = 0;
	if (which & XSK_TP) {
		err = zc_witness_add_ranges(s, "__xsk_generic_xmit", ZC_WIT_XSK_XMIT);
		if (err <= 0) {
			err = err ? err : -ENOENT;
			goto fail;
		}
	}
	s->bss->enabled = 1;
	err = witness__attach(s);
	if (err)
		goto fail;
	xw.skel = s;
	return 0;
fail:
	{
		size_t n = strlen(xw.reason);

		snprintf(xw.reason + n, sizeof(xw.reason) - n, "%s%s: %s",
			 n ? "; " : "", what, strerror(err < 0 ? -err : err));
	}
	witness__destroy(s);
	return err < 0 ? err : -err;
}

static int fnw_open(int ifindex, unsigned int netns, struct zc_why *why)
{
	libbpf_print_fn_t old;
	int err, k;

	if (xw.skel)
		return 0;
	xw.reason[0] = '\0';
	memset(xw.live, 0, sizeof(xw.live));
	old = libbpf_set_print(zc_witness_silent_print);
	err = xsk_try(XSK_FENTRY, ifindex, netns, "fentry");
	if (!err) {
		xw.kind = "fentry";
		for (k = 0; k < ZC_WIT_XSK_N; k++)
			xw.live[k] = true;
	} else {
		err = xsk_try(XSK_TP, ifindex, netns, "tp_btf kmem_cache_alloc");
		if (!err) {
			xw.kind = "tracepoint";
			xw.live[ZC_WIT_XSK_TX_COPY] = true;
		}
	}
	libbpf_set_print(old);
	if (why)
		zc_why_set(why, "%s", xw.reason);
	return err;
}

static void fnw_close(void)
{
	if (xw.skel)
		witness__destroy(xw.skel);
	xw.skel = NULL;
	xw.kind = NULL;
}

static const char *fnw_kind(const char **reason)
{
	if (reason)
		*reason = xw.reason[0] ? xw.reason : "not opened";
	return xw.kind;
}

static bool fnw_live(int kind)
{
	return kind >= 0 && kind < ZC_WIT_XSK_N && xw.live[kind];
}

static void fnw_enable(bool on)
{
	if (xw.skel)
		xw.skel->bss->enabled = on;
}

static void fnw_read(uint64_t out[ZC_WIT_XSK_N])
{
	int k;

	for (k = 0; k < ZC_WIT_XSK_N; k++)
		out[k] = xw.skel ? xw.skel->bss->xsk_hits[k] : 0;
}

static struct {
	bool prog;		/* the XDP program witness loads */
	char noprog[160];
	const char *fn;		/* "fentry", "tracepoint", NULL */
	char nofn[256];
	bool sampled;		/* the costly witness paused after a sample */
} w;

bool zc_xsk_wit_costly(void)
{
	return w.fn && !strcmp(w.fn, "tracepoint");
}

void zc_xsk_wit_pause(bool pause)
{
	fnw_enable(!pause);
	w.sampled = pause;
}

void zc_xsk_wit_open(const struct zc_xsk_dut *d, bool prog_wit, const char *nowit)
{
	struct zc_why why = { "" };
	struct stat st;
	const char *r;

	w.prog = prog_wit;
	snprintf(w.noprog, sizeof(w.noprog), "%s", nowit ? nowit : "");
	if (fstat(d->nsfd, &st) || fnw_open(d->ifindex, st.st_ino, &why))
		w.fn = NULL;
	else
		w.fn = fnw_kind(&r);
	snprintf(w.nofn, sizeof(w.nofn), "%.*s", (int)sizeof(w.nofn) - 1,
		 why.msg[0] ? why.msg : "fstat of the namespace");
	ktap_print_msg("xsk witness: rx %s; kernel functions: %s%s%s\n",
		       w.prog ? "per frame by the redirect program (xdp->rxq->mem.type through bpf_cast_to_kern_ctx: MEM_TYPE_XSK_BUFF_POOL or a copy)" :
		       "not per frame",
		       !w.fn ? "none" : !strcmp(w.fn, "fentry") ?
		       "fentry (rx __xsk_map_redirect/__xsk_rcv/xsk_generic_rcv, tx xsk_tx_peek_* zero-copy and xsk_destruct_skb copy)" :
		       "tracepoint (tx copy only: skbs allocated under __xsk_generic_xmit; tx zero-copy not countable)",
		       !w.prog ? "; no XDP witness: " : "",
		       !w.prog ? w.noprog : "");
	if (!w.fn || strcmp(w.fn, "fentry"))
		ktap_print_msg("xsk witness: fentry refused (%s)\n", w.nofn);
}

void zc_xsk_wit_close(void)
{
	fnw_close();
}

void zc_xsk_wit_mark(const struct zc_xsk_prog *a, struct zc_xsk_wit_mark *m)
{
	uint64_t c[ZC_XSK_C_NSLOTS];

	memset(m, 0, sizeof(*m));
	if (a->skel && !zc_xsk_cnt_read(a, c)) {
		m->pool = c[ZC_XSK_C_POOL];
		m->nopool = c[ZC_XSK_C_NOPOOL];
	}
	fnw_read(m->fn);
}

static uint64_t sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

void zc_xsk_wit_seen(const struct zc_xsk_prog *a, const struct zc_xsk_wit_mark *from,
		     struct zc_xsk_seen *s)
{
	struct zc_xsk_wit_mark now;
	uint64_t fn[ZC_WIT_XSK_N];
	bool fe = fnw_live(ZC_WIT_XSK_RCV_COPY);
	int k;

	zc_xsk_wit_mark(a, &now);
	for (k = 0; k < ZC_WIT_XSK_N; k++)
		fn[k] = sub(now.fn[k], from->fn[k]);
	memset(s, 0, sizeof(*s));
	/*
	 * fentry on receive: every copy passes __xsk_rcv (native and generic);
	 * a native redirect that did not is xsk_rcv_zc's (inlined here).
	 */
	if (fe) {
		s->rx2_known = true;
		s->rx2_copy = fn[ZC_WIT_XSK_RCV_COPY];
		s->rx2_zc = sub(fn[ZC_WIT_XSK_REDIRECT],
				sub(fn[ZC_WIT_XSK_RCV_COPY], fn[ZC_WIT_XSK_GENERIC]));
	}
	if (a->wit) {
		s->rx_known = true;
		s->rx_zc = sub(now.pool, from->pool);
		s->rx_copy = sub(now.nopool, from->nopool);
		s->rx_by = "xdp_mem_type";
	} else if (fe) {
		s->rx_known = true;
		s->rx_zc = s->rx2_zc;
		s->rx_copy = s->rx2_copy;
		s->rx_by = "fentry";
		s->rx2_known = false;
	}
	if (fnw_live(ZC_WIT_XSK_TX_ZC)) {
		s->tx_known = true;
		s->tx_zc = fn[ZC_WIT_XSK_TX_ZC];
		s->tx_copy = fn[ZC_WIT_XSK_TX_COPY];
		s->tx_by = "fentry";
	} else if (fnw_live(ZC_WIT_XSK_TX_COPY)) {
		/* Copies only: a zero-copy transmit leaves no skb to see. */
		s->tx_known = true;
		s->tx_copy = fn[ZC_WIT_XSK_TX_COPY];
		s->tx_by = w.sampled ? "tracepoint_sample" : "tracepoint";
	}
}

static const char *dir_word(bool known, uint64_t zc, uint64_t copy)
{
	return known ? ktap_zcmode_word(zc, copy) : "unwitnessed";
}

int zc_xsk_wit_words(const struct zc_xsk_seen *s, bool rx, bool tx, char *buf, size_t len)
{
	return snprintf(buf, len, "rx=%s tx=%s",
			rx ? dir_word(s->rx_known, s->rx_zc, s->rx_copy) : "-",
			tx ? dir_word(s->tx_known, s->tx_zc, s->tx_copy) : "-");
}

/* Does a witnessed direction agree with what it should be? */
static bool dir_ok(bool known, uint64_t zc, uint64_t copy, enum zc_xsk_want want)
{
	if (!known)
		return true;
	return want == ZC_XSK_WANT_ZC ? zc && !copy : copy && !zc;
}

static const char *want_word(enum zc_xsk_want want)
{
	return want == ZC_XSK_WANT_ZC ? "zerocopy" : "copied";
}

bool zc_xsk_wit_judge(const char *name, const struct zc_xsk_seen *s, bool rx, bool tx,
		      bool sock_zc, const struct zc_xsk_expect *e, struct zc_why *why)
{
	char note[768], dirs[64], rxs[224] = "rx=-", txs[160] = "tx=-", rx2[96] = "";
	uint64_t zc = 0, copy = 0;
	bool ok = true, rx2_ok = true;

	if (rx && s->rx_known) {
		zc += s->rx_zc;
		copy += s->rx_copy;
		snprintf(rxs, sizeof(rxs), "rx=%s(%s:zerocopy=%llu,copied=%llu)",
			 dir_word(true, s->rx_zc, s->rx_copy), s->rx_by,
			 (unsigned long long)s->rx_zc, (unsigned long long)s->rx_copy);
		ok = dir_ok(true, s->rx_zc, s->rx_copy, e->rx);
	} else if (rx) {
		snprintf(rxs, sizeof(rxs), "rx=unwitnessed(%s)", w.prog ? "?" : w.noprog);
	}
	if (rx && s->rx2_known) {
		snprintf(rx2, sizeof(rx2), " rx2=%s(fentry:zerocopy=%llu,copied=%llu)",
			 dir_word(true, s->rx2_zc, s->rx2_copy),
			 (unsigned long long)s->rx2_zc, (unsigned long long)s->rx2_copy);
		rx2_ok = !strcmp(dir_word(true, s->rx2_zc, s->rx2_copy),
				 dir_word(s->rx_known, s->rx_zc, s->rx_copy));
	}
	if (tx && s->tx_known) {
		zc += s->tx_zc;
		copy += s->tx_copy;
		if (strcmp(s->tx_by, "fentry"))
			snprintf(txs, sizeof(txs), "tx=%s(%s:zerocopy=n/a,copied=%llu)",
				 s->tx_copy ? "copied" : "nocopy", s->tx_by,
				 (unsigned long long)s->tx_copy);
		else
			snprintf(txs, sizeof(txs), "tx=%s(%s:zerocopy=%llu,copied=%llu)",
				 dir_word(true, s->tx_zc, s->tx_copy), s->tx_by,
				 (unsigned long long)s->tx_zc, (unsigned long long)s->tx_copy);
		/* A tracepoint sees copies only: no copy is all it can say of zero-copy. */
		if (strcmp(s->tx_by, "fentry") && e->tx == ZC_XSK_WANT_ZC)
			ok = ok && !s->tx_copy;
		else
			ok = ok && dir_ok(true, s->tx_zc, s->tx_copy, e->tx);
	} else if (tx) {
		snprintf(txs, sizeof(txs), "tx=unwitnessed(%s)",
			 w.fn ? "no AF_XDP transmit witness loaded" : "fentry and tracepoint refused");
	}
	snprintf(dirs, sizeof(dirs), "rx:%s,tx:%s", rx ? want_word(e->rx) : "-",
		 tx ? want_word(e->tx) : "-");
	snprintf(note, sizeof(note), "%s %s%s xdp_options=%s expect=%s (%s)", rxs, txs, rx2,
		 sock_zc ? "zerocopy" : "copy", dirs, e->why);
	ktap_zcmode_note(name, zc, copy, note);
	if (ok && rx2_ok)
		return true;
	zc_why_set(why, "witness: %s %s%s, but XDP_OPTIONS says %s and the row expects %s (%s)",
		   rxs, txs, rx2, sock_zc ? "zero-copy" : "copy", dirs, e->why);
	return false;
}
