// SPDX-License-Identifier: GPL-2.0
/* Binary min-heap of jobs; see job_heap.h. */
#include <stdlib.h>

#include "job_heap.h"

static bool before(const struct job_heap_entry *a,
		   const struct job_heap_entry *b)
{
	return a->key < b->key || (a->key == b->key && a->job < b->job);
}

int job_heap_init(struct job_heap *h, size_t cap)
{
	h->e = calloc(cap ? cap : 1, sizeof(*h->e));
	h->nr = 0;
	h->cap = cap;
	return h->e ? 0 : -1;
}

void job_heap_free(struct job_heap *h)
{
	free(h->e);
	h->e = NULL;
	h->nr = 0;
	h->cap = 0;
}

void job_heap_push(struct job_heap *h, double key, unsigned int job)
{
	struct job_heap_entry x = { .key = key, .job = job };
	size_t i = h->nr++, parent;

	while (i) {
		parent = (i - 1) / 2;
		if (!before(&x, &h->e[parent]))
			break;
		h->e[i] = h->e[parent];
		i = parent;
	}
	h->e[i] = x;
}

struct job_heap_entry job_heap_pop(struct job_heap *h)
{
	struct job_heap_entry top = h->e[0], last = h->e[--h->nr];
	size_t i = 0, child;

	for (;;) {
		child = 2 * i + 1;
		if (child >= h->nr)
			break;
		if (child + 1 < h->nr && before(&h->e[child + 1], &h->e[child]))
			child++;
		if (!before(&h->e[child], &last))
			break;
		h->e[i] = h->e[child];
		i = child;
	}
	if (h->nr)
		h->e[i] = last;
	return top;
}
