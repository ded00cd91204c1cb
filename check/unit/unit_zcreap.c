// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the io_uring slot machine's reaping (lib/send/zcsend_uring.c):
 * completions written by hand into a ring in memory, each stream reaped
 * twice, once by the fast loop the rates use and once the full way (a
 * listener wants events), and both must end in the same books: the same
 * counts, the same breaches named, the same slots free. The streams are
 * clean ones and every breach the contract knows, alone and in the middle
 * of a batch. No kernel ring: the module's static functions are built
 * into this binary.
 */
#include "../../lib/send/zcsend_uring.c"

#include <inttypes.h>
#include <string.h>

#include "unit_tap.h"

#define DEPTH	8
#define RING	64
#define SIZE	100
#define COPIED	((int)IORING_NOTIF_USAGE_ZC_COPIED)

struct fake {
	struct zc_sender s;
	unsigned int sq_head, cq_head, cq_tail;
	struct io_uring_sqe sqes[RING];
	struct io_uring_cqe cqes[RING];
	uint64_t events;
};

static void count_event(void *ctx, const struct zc_event *ev)
{
	((struct fake *)ctx)->events++;
}

static int fake_open(struct fake *f, enum zc_send_mode mode, bool slow)
{
	memset(f, 0, sizeof(*f));
	f->s.cfg = (struct zc_sender_cfg){ .mode = mode, .size = SIZE,
					   .depth = DEPTH, .report_usage = true,
					   .fd = -1 };
	if (slow) {
		f->s.cfg.on_event = count_event;
		f->s.cfg.ctx = f;
	}
	if (zc_slot_alloc(&f->s))
		return -1;
	f->s.zc = zc_slot_uring_zc(&f->s);
	f->s.ring.sq.khead = &f->sq_head;
	f->s.ring.sq.sqes = f->sqes;
	f->s.ring.sq.ring_mask = RING - 1;
	f->s.ring.sq.ring_entries = RING;
	f->s.ring.cq.khead = &f->cq_head;
	f->s.ring.cq.ktail = &f->cq_tail;
	f->s.ring.cq.cqes = f->cqes;
	f->s.ring.cq.ring_mask = RING - 1;
	return 0;
}

/* Queue n sends; the kernel "takes" them at once. */
static void submit(struct fake *f, unsigned int n)
{
	prep_free(&f->s, n);
	f->sq_head = f->s.ring.sq.sqe_tail;
}

/* The user_data of the k-th send (its SQE), for the CQEs written by hand. */
static uint64_t ud_of(struct fake *f, unsigned int k)
{
	return f->sqes[k & (RING - 1)].user_data;
}

static void post(struct fake *f, uint64_t ud, int res, unsigned int flags)
{
	f->cqes[f->cq_tail++ & (RING - 1)] = (struct io_uring_cqe){
		.user_data = ud, .res = res, .flags = flags };
}

/*
 * One stream: c[] holds { send number (or ~0 for raw user_data), res,
 * flags }; sends are submitted `first` up front, then reaped after each
 * `batch` posts.
 */
struct cqe_spec {
	uint64_t send;
	int res;
	unsigned int flags;
};

#define RAW(ud)	((uint64_t)(ud) | 1ULL << 63)

static void run(struct fake *f, unsigned int first, const struct cqe_spec *c,
		unsigned int n, unsigned int batch)
{
	unsigned int k;

	submit(f, first);
	for (k = 0; k < n; k++) {
		uint64_t ud = c[k].send >> 63 ? c[k].send & ~(1ULL << 63) :
						ud_of(f, c[k].send);

		post(f, ud, c[k].res, c[k].flags);
		if ((k + 1) % batch == 0 || k + 1 == n)
			reap(&f->s);
	}
}

static bool same_books(const struct fake *a, const struct fake *b, char *why,
		       size_t len)
{
	const struct zc_send_stats *x = &a->s.st, *y = &b->s.st;
	unsigned int i;

#define CMP(field, fmt) do { \
	if (x->field != y->field) { \
		snprintf(why, len, #field ": fast " fmt ", full " fmt, \
			 x->field, y->field); \
		return false; } } while (0)
	CMP(completed, "%" PRIu64);
	CMP(bytes, "%" PRIu64);
	CMP(failed, "%" PRIu64);
	CMP(first_err, "%d");
	CMP(more, "%" PRIu64);
	CMP(notifs, "%" PRIu64);
	CMP(zerocopy, "%" PRIu64);
	CMP(copied, "%" PRIu64);
	CMP(violations, "%" PRIu64);
#undef CMP
	if (strcmp(x->violation, y->violation)) {
		snprintf(why, len, "breach: fast '%s', full '%s'", x->violation,
			 y->violation);
		return false;
	}
	if (a->s.nfree != b->s.nfree || a->s.pending != b->s.pending ||
	    a->s.last_req_res != b->s.last_req_res ||
	    a->s.last_notif_res != b->s.last_notif_res) {
		snprintf(why, len, "nfree %u/%u pending %u/%u last res %d/%d notif %d/%d",
			 a->s.nfree, b->s.nfree, a->s.pending, b->s.pending,
			 a->s.last_req_res, b->s.last_req_res,
			 a->s.last_notif_res, b->s.last_notif_res);
		return false;
	}
	for (i = 0; i < DEPTH; i++) {
		if (a->s.slots[i].state != b->s.slots[i].state ||
		    a->s.slots[i].early_notif != b->s.slots[i].early_notif) {
			snprintf(why, len, "slot %u: state %d/%d early %d/%d", i,
				 a->s.slots[i].state, b->s.slots[i].state,
				 a->s.slots[i].early_notif, b->s.slots[i].early_notif);
			return false;
		}
	}
	for (i = 0; i < a->s.nfree; i++) {
		if (a->s.free_stack[i] != b->s.free_stack[i]) {
			snprintf(why, len, "free stack differs at %u", i);
			return false;
		}
	}
	if (*a->s.ring.cq.khead != *b->s.ring.cq.khead) {
		snprintf(why, len, "cq head %u/%u", *a->s.ring.cq.khead,
			 *b->s.ring.cq.khead);
		return false;
	}
	return true;
}

/*
 * Reap the stream both ways; they must agree, and the full way must have
 * seen every CQE. Returns the fast one's breaches (-1: no setup).
 */
static long both_ways(const char *name, enum zc_send_mode mode,
		      unsigned int first, const struct cqe_spec *c,
		      unsigned int n, unsigned int batch, struct fake *out)
{
	static struct fake fast, full;
	char why[400] = "", tname[160];
	bool ok;

	if (fake_open(&fast, mode, false) || fake_open(&full, mode, true)) {
		unit_check(0, name, "zc_slot_alloc failed");
		return -1;
	}
	run(&fast, first, c, n, batch);
	run(&full, first, c, n, batch);
	ok = same_books(&fast, &full, why, sizeof(why));
	/* the listener sees the CQEs of known requests only */
	if (ok && (fast.cq_head != n || !full.events)) {
		snprintf(why, sizeof(why), "reaped %u of %u CQEs, listener saw %" PRIu64,
			 fast.cq_head, n, full.events);
		ok = false;
	}
	snprintf(tname, sizeof(tname), "%s.fast_equals_full", name);
	unit_check(ok, tname, why);
	*out = fast;
	zc_slot_release(&full.s);
	return fast.s.st.violations;
}

static void expect(const char *name, const char *what, bool ok,
		   const struct fake *f)
{
	char tname[160], why[400];

	snprintf(tname, sizeof(tname), "%s.%s", name, what);
	snprintf(why, sizeof(why), "completed %" PRIu64 " notifs %" PRIu64
		 " copied %" PRIu64 " violations %" PRIu64 " (%s) nfree %u",
		 f->s.st.completed, f->s.st.notifs, f->s.st.copied,
		 f->s.st.violations, f->s.st.violation, f->s.nfree);
	unit_check(ok, tname, why);
}

#define M	IORING_CQE_F_MORE
#define NO	IORING_CQE_F_NOTIF

static void zc_clean(void)
{
	static const struct cqe_spec c[] = {
		{ 0, SIZE, M }, { 1, SIZE, M }, { 0, 0, NO }, { 2, SIZE, M },
		{ 1, COPIED, NO }, { 3, SIZE, M }, { 2, 0, NO }, { 3, COPIED, NO },
	};
	struct fake f;

	both_ways("zc_clean", ZC_MODE_SEND_ZC, 4, c, 8, 3, &f);
	expect("zc_clean", "books", !f.s.st.violations && f.s.st.completed == 4 &&
	       f.s.st.more == 4 && f.s.st.notifs == 4 && f.s.st.copied == 2 &&
	       f.s.st.zerocopy == 2 && f.s.st.bytes == 4 * SIZE &&
	       f.s.nfree == DEPTH && !f.s.pending, &f);
	zc_slot_release(&f.s);
}

static void copy_clean(void)
{
	static const struct cqe_spec c[] = {
		{ 0, SIZE, 0 }, { 1, SIZE, 0 }, { 2, SIZE, 0 }, { 3, 7, 0 },
	};
	struct fake f;

	both_ways("copy_clean", ZC_MODE_URING_SEND, 4, c, 4, 2, &f);
	expect("copy_clean", "books", !f.s.st.violations && f.s.st.completed == 4 &&
	       !f.s.st.more && f.s.st.bytes == 3 * SIZE + 7 &&
	       f.s.last_req_res == 7 && f.s.nfree == DEPTH, &f);
	zc_slot_release(&f.s);
}

/*
 * One odd completion between clean ones: a breach named (needle), or with
 * needle NULL none; the clean ones are counted either way.
 */
static void breach(const char *name, enum zc_send_mode mode,
		   const struct cqe_spec *bad, const char *needle)
{
	bool zc = mode != ZC_MODE_URING_SEND;
	struct cqe_spec c[8];
	unsigned int n = 0;
	struct fake f;

	c[n++] = (struct cqe_spec){ 0, SIZE, zc ? M : 0 };
	if (zc)
		c[n++] = (struct cqe_spec){ 0, 0, NO };
	c[n++] = *bad;
	c[n++] = (struct cqe_spec){ 2, SIZE, zc ? M : 0 };
	if (zc)
		c[n++] = (struct cqe_spec){ 2, 0, NO };
	if (both_ways(name, mode, 3, c, n, n, &f) < 0)
		return;
	if (needle)
		expect(name, "named", f.s.st.violations >= 1 &&
		       unit_has(f.s.st.violation, needle), &f);
	else
		expect(name, "no_breach", !f.s.st.violations, &f);
	expect(name, "clean_ones_counted", f.s.st.completed >= 2, &f);
	zc_slot_release(&f.s);
}

static void breaches(void)
{
	static const struct {
		const char *name;
		enum zc_send_mode mode;
		struct cqe_spec bad;
		const char *needle;
	} t[] = {
		{ "extra_notif", ZC_MODE_SEND_ZC, { 0, 0, NO }, "unknown user_data" },
		{ "notif_before_cqe", ZC_MODE_SEND_ZC, { 1, 0, NO }, "before its request CQE" },
		/* a request that got no notification attached: no breach */
		{ "zc_cqe_without_more", ZC_MODE_SEND_ZC, { 1, SIZE, 0 }, NULL },
		{ "more_on_copy", ZC_MODE_URING_SEND, { 1, SIZE, M }, "F_MORE on a non-zero-copy" },
		{ "duplicate_cqe", ZC_MODE_SEND_ZC_FIXED, { 0, SIZE, M }, "unknown user_data" },
		{ "stale_seq", ZC_MODE_SEND_ZC, { RAW(5ULL << SLOT_BITS | 1), SIZE, M }, "unknown user_data" },
		{ "slot_beyond_depth", ZC_MODE_SEND_ZC, { RAW(200), SIZE, M }, "unknown user_data" },
		{ "slot_beyond_depth_copy", ZC_MODE_URING_SEND, { RAW(DEPTH), SIZE, 0 }, "unknown user_data" },
	};
	unsigned int i;

	for (i = 0; i < ZC_ARRAY_SIZE(t); i++)
		breach(t[i].name, t[i].mode, &t[i].bad, t[i].needle);
}

/* A failed send is no breach: counted as failed, its error kept. */
static void failed_send(void)
{
	static const struct cqe_spec c[] = {
		{ 0, SIZE, M }, { 1, -ENOBUFS, 0 }, { 0, 0, NO }, { 2, SIZE, M },
		{ 2, 0, NO },
	};
	struct fake f;

	both_ways("failed_send", ZC_MODE_SEND_ZC, 3, c, 5, 5, &f);
	expect("failed_send", "books", !f.s.st.violations && f.s.st.failed == 1 &&
	       f.s.st.first_err == -ENOBUFS && f.s.st.completed == 3 &&
	       f.s.nfree == DEPTH, &f);
	zc_slot_release(&f.s);
}

/* The same in copy mode, and a zero-copy send failing after its notif. */
static void failed_more(void)
{
	static const struct cqe_spec cc[] = {
		{ 0, SIZE, 0 }, { 1, -ENOBUFS, 0 }, { 2, SIZE, 0 },
	};
	static const struct cqe_spec cz[] = {
		{ 0, -EFAULT, M }, { 0, 0, NO }, { 1, SIZE, M }, { 1, 0, NO },
	};
	struct fake f;

	both_ways("failed_copy", ZC_MODE_URING_SEND, 3, cc, 3, 3, &f);
	expect("failed_copy", "books", !f.s.st.violations && f.s.st.failed == 1 &&
	       f.s.st.first_err == -ENOBUFS && f.s.st.bytes == 2 * SIZE, &f);
	zc_slot_release(&f.s);
	both_ways("failed_zc", ZC_MODE_SEND_ZC, 2, cz, 4, 4, &f);
	expect("failed_zc", "books", !f.s.st.violations && f.s.st.failed == 1 &&
	       f.s.st.first_err == -EFAULT && f.s.st.bytes == SIZE &&
	       f.s.nfree == DEPTH, &f);
	zc_slot_release(&f.s);
}

/* The notification first, then its CQE: the slot is freed on the CQE. */
static void early_notif(void)
{
	static const struct cqe_spec c[] = {
		{ 0, 0, NO }, { 0, SIZE, M }, { 1, SIZE, M }, { 1, 0, NO },
	};
	struct fake f;

	both_ways("early_notif", ZC_MODE_SEND_ZC, 2, c, 4, 1, &f);
	expect("early_notif", "books", f.s.st.violations == 1 &&
	       f.s.st.notifs == 2 && f.s.nfree == DEPTH, &f);
	zc_slot_release(&f.s);
}

/* A notification that says more is coming: named, the slot still freed. */
static void notif_with_more(void)
{
	static const struct cqe_spec c[] = {
		{ 0, SIZE, M }, { 0, 0, NO | M }, { 1, SIZE, M }, { 1, 0, NO },
	};
	struct fake f;

	both_ways("notif_with_more", ZC_MODE_SEND_ZC, 2, c, 4, 4, &f);
	expect("notif_with_more", "named", f.s.st.violations == 1 &&
	       unit_has(f.s.st.violation, "carries IORING_CQE_F_MORE") &&
	       f.s.nfree == DEPTH, &f);
	zc_slot_release(&f.s);
}

/* A full ring's worth: the slots recycle, seqs grow, books stay exact. */
static void many(void)
{
	struct cqe_spec c[RING];
	unsigned int k, round;
	static struct fake fast, full;
	char why[400] = "";
	bool ok = true;

	if (fake_open(&fast, ZC_MODE_SEND_ZC, false) ||
	    fake_open(&full, ZC_MODE_SEND_ZC, true)) {
		unit_check(0, "many", "zc_slot_alloc failed");
		return;
	}
	for (round = 0; round < 50 && ok; round++) {
		struct fake *f[2] = { &fast, &full };
		unsigned int w;

		for (w = 0; w < 2; w++) {
			unsigned int base = f[w]->s.ring.sq.sqe_tail;

			submit(f[w], DEPTH);
			for (k = 0; k < DEPTH; k++)
				c[k] = (struct cqe_spec){ base + k, SIZE, M };
			for (k = 0; k < DEPTH; k++)
				c[DEPTH + k] = (struct cqe_spec){
					base + k, round & 1 ? COPIED : 0, NO };
			for (k = 0; k < 2 * DEPTH; k++)
				post(f[w], ud_of(f[w], c[k].send), c[k].res,
				     c[k].flags);
			reap(&f[w]->s);
		}
		ok = same_books(&fast, &full, why, sizeof(why));
	}
	unit_check(ok && fast.s.st.completed == 50 * DEPTH &&
		   fast.s.st.copied == 25 * DEPTH && !fast.s.st.violations,
		   "many.recycled_slots", why);
	zc_slot_release(&fast.s);
	zc_slot_release(&full.s);
}

int main(void)
{
	zc_clean();
	copy_clean();
	breaches();
	failed_send();
	failed_more();
	early_notif();
	notif_with_more();
	many();
	return unit_done();
}
