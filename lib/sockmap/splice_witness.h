/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Splice copy witness (bpf/splice_witness.bpf.c): did splice(2) from a
 * socket put the socket's own pages into the pipe (referenced) or copies
 * of them (copied)? It counts the pages the kernel allocates in the
 * calling thread while a splice from the socket runs, against the bytes
 * those calls returned. It names no kernel function, so it judges any
 * splice_read the same way: by what it allocated, not by how it is
 * written. One per process; its links are fds, nothing outlives it.
 */
#ifndef ZC_SM_SPLICE_WITNESS_H
#define ZC_SM_SPLICE_WITNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/why.h"

struct zc_spl_counts {
	uint64_t pages;		/* 4 KiB pages allocated inside the calls */
	uint64_t allocs;	/* allocations among them */
	uint64_t bytes;		/* bytes the calls returned */
	uint64_t calls;		/* splice calls that returned bytes */
};

enum zc_spl_mode {
	ZC_SPL_UNSEEN,		/* no byte spliced while it watched */
	ZC_SPL_REFERENCED,	/* at most 1/16 of the bytes in new pages */
	ZC_SPL_COPIED,		/* at least 3/4 of them */
	ZC_SPL_MIXED,		/* in between */
};

/* Load and attach (tp_btf, else raw_tp); 0 or -errno with why. */
int zc_spl_witness_open(struct zc_why *why);
void zc_spl_witness_close(void);
bool zc_spl_witness_on(void);

/*
 * splice(2) from socket in into a pipe, watched by the witness when it
 * is open (the pages the kernel allocates in this thread during the call
 * alone); errno as splice left it.
 */
ssize_t zc_spl_splice(int in, int pipe_w, size_t len, unsigned int flags);

/* Counts since open; zeroed by reset. */
void zc_spl_witness_read(struct zc_spl_counts *c);
void zc_spl_witness_reset(void);

/* The judgment of a set of counts, and its name. */
enum zc_spl_mode zc_spl_judge(const struct zc_spl_counts *c);
const char *zc_spl_mode_name(enum zc_spl_mode m);
/* "referenced pages=0 allocs=0 bytes=N calls=K" */
int zc_spl_format(const struct zc_spl_counts *c, char *buf, size_t len);

#endif
