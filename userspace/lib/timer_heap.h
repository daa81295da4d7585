/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Indexed binary min-heap of timers: ids 0..cap-1, each with at most one
 * due time, which can be set, moved or cleared in O(log n). The replay
 * simulator keeps one for its sites (each site's next scheduler event) and
 * one for its jobs (the end of a compute, an arrival); fnblk-replay one of
 * jobs waiting to arrive. Ties go to the lower id, so runs are
 * reproducible.
 */
#ifndef FNBLK_TIMER_HEAP_H
#define FNBLK_TIMER_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIMER_NONE	UINT64_MAX

struct timer_heap {
	uint32_t *id;		/* heap order */
	uint64_t *due;		/* by id */
	uint32_t *pos;		/* by id: index in id[], or UINT32_MAX */
	size_t nr;
	size_t cap;
};

/* 0, or -1 when out of memory. */
int timer_heap_init(struct timer_heap *h, size_t cap);
void timer_heap_free(struct timer_heap *h);
/* Set id's due time; TIMER_NONE clears it. */
void timer_heap_set(struct timer_heap *h, uint32_t id, uint64_t due);

static inline bool timer_heap_empty(const struct timer_heap *h)
{
	return !h->nr;
}

/* Earliest due time, or TIMER_NONE. */
static inline uint64_t timer_heap_next(const struct timer_heap *h)
{
	return h->nr ? h->due[h->id[0]] : TIMER_NONE;
}

/* The id due first (the heap must not be empty). */
static inline uint32_t timer_heap_first(const struct timer_heap *h)
{
	return h->id[0];
}

#endif /* FNBLK_TIMER_HEAP_H */
