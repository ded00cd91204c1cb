// SPDX-License-Identifier: GPL-2.0
/* A zero-copy sender's slots and their buffers (see zcslot.h). */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/util.h"
#include "send/zcslot.h"

#define PATTERN_SEED	0x7a6373656e64ULL

int zc_slot_alloc(struct zc_sender *s)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned int i;

	s->stride = (s->cfg.size + page - 1) / page * page;
	s->area_len = s->stride * (s->cfg.one_buffer ? 1 : s->cfg.depth);
	if (s->cfg.one_buffer)
		s->stride = 0;
	s->area = mmap(NULL, s->area_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (s->area == MAP_FAILED) {
		s->area = NULL;
		return -errno;
	}
	/*
	 * A table for every index a user_data can carry: a completion with
	 * a slot beyond depth finds a free slot, which the fast reap hands
	 * on to the full checks without a bound compare of its own.
	 */
	s->slots = calloc(SLOT_MASK + 1, sizeof(*s->slots));
	s->free_stack = calloc(s->cfg.depth, sizeof(*s->free_stack));
	if (!s->slots || !s->free_stack)
		return -ENOMEM;
	/* Highest index on the bottom: slot 0 is used first. */
	for (i = s->cfg.depth; i-- > 0;)
		zc_slot_free(s, i);
	for (i = 0; i < (s->stride ? s->cfg.depth : 1); i++)
		zc_pattern_fill(zc_slot_buf(s, i), s->cfg.size, PATTERN_SEED,
				(uint64_t)i * s->cfg.size);
	return 0;
}

void zc_slot_release(struct zc_sender *s)
{
	if (s->area)
		munmap(s->area, s->area_len);
	s->area = NULL;
	free(s->slots);
	free(s->free_stack);
	s->slots = NULL;
	s->free_stack = NULL;
}
