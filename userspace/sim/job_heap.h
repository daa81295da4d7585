/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Binary min-heap of jobs keyed by a double: the computing jobs of the
 * simulator, ordered by the amount of work done when their compute ends.
 * Ties go to the lower job index, so runs are reproducible.
 */
#ifndef FNBLK_SIM_JOB_HEAP_H
#define FNBLK_SIM_JOB_HEAP_H

#include <stdbool.h>
#include <stddef.h>

struct job_heap_entry {
	double key;
	unsigned int job;
};

struct job_heap {
	struct job_heap_entry *e;
	size_t nr;
	size_t cap;
};

/* Room for cap entries; 0, or -1 when out of memory. */
int job_heap_init(struct job_heap *h, size_t cap);
void job_heap_free(struct job_heap *h);
/* The caller never pushes more than cap entries. */
void job_heap_push(struct job_heap *h, double key, unsigned int job);
struct job_heap_entry job_heap_pop(struct job_heap *h);

static inline bool job_heap_empty(const struct job_heap *h)
{
	return !h->nr;
}

static inline const struct job_heap_entry *job_heap_min(const struct job_heap *h)
{
	return &h->e[0];
}

#endif /* FNBLK_SIM_JOB_HEAP_H */
