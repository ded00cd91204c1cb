/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Splats: WARNING, BUG, Oops, KASAN/UBSAN/KFENCE reports, lockdep splats
 * and hung tasks parsed out of kernel log records, who they belong to,
 * and the known kernel bugs they may match.
 */
#ifndef ZC_SPLAT_H
#define ZC_SPLAT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/why.h"

#define ZC_SPLAT_TRACE	3

struct zc_splat {
	char first[192];	/* the splat's first line, as logged */
	char trace[ZC_SPLAT_TRACE][64];	/* top call-trace functions, no offsets */
	int ntrace;
	int pid;		/* task the splat names; 0 none or idle */
	char comm[32];
	char workqueue[64];	/* "events sk_psock_destroy", or "" */
	unsigned long long seq;	/* of the first line's record */
	bool ended;		/* its end marker was seen */
};

typedef void (*zc_splat_fn)(const struct zc_splat *s, void *arg);

struct zc_kmsg_parser {
	struct zc_splat cur;
	bool open;		/* collecting cur */
	bool in_trace;		/* after "Call Trace:" */
	int lines;		/* records since cur began */
	zc_splat_fn emit;
	void *arg;
};

void zc_splat_parser_init(struct zc_kmsg_parser *p, zc_splat_fn emit, void *arg);
/*
 * One /dev/kmsg record, "PRI,SEQ,USEC,FLAGS;TEXT" (dictionary lines that
 * start with a space are ignored). Records of user space facilities
 * (PRI >= 8: anyone may write to /dev/kmsg) are never splats.
 */
void zc_splat_feed(struct zc_kmsg_parser *p, const char *record);
/* Emit a splat still being collected (the window is over). */
void zc_splat_flush(struct zc_kmsg_parser *p);

/* "FIRST (trace: a < b < c; task comm pid P; workqueue W)" */
void zc_splat_summary(const struct zc_splat *s, char *buf, size_t len);

/* A report that a CPU or task got no time (the splats classes stall, hung). */
bool zc_splat_starve(const struct zc_splat *s);

/* Who a splat belongs to. */
enum zc_splat_owner {
	ZC_SPLAT_OURS,		/* names one of this process's threads */
	ZC_SPLAT_KERNEL,	/* a kernel thread, workqueue, irq or idle */
	ZC_SPLAT_OTHER,		/* names a task of another process */
};

/*
 * Attribution by task. self_comm is this process's comm; whose(pid) says
 * 1 for one of our threads, 0 for a live task of another process, -1 for
 * a task that is gone (NULL: look in /proc).
 */
enum zc_splat_owner zc_splat_owner(const struct zc_splat *s,
				   const char *self_comm,
				   int (*whose)(int pid));

/* Known kernel bugs, as data: a matching splat is an XFAIL naming it. */
struct zc_known_bug {
	const char *name;	/* short, stable: used in XFAIL reasons */
	const char *first;	/* fnmatch(3) pattern on the splat's first line */
	const char *where;	/* in the trace top or workqueue, or NULL */
	/*
	 * Does the running kernel carry it? 1 yes, 0 no (fixed), -1 cannot
	 * tell; why says how it was decided. NULL: no probe exists.
	 */
	int (*probe)(struct zc_why *why);
	const char *fix;	/* the fix, where one is known, else NULL */
};

/* The table entry a splat matches, or NULL. */
const struct zc_known_bug *zc_known_bug_match(const struct zc_splat *s);

#endif
