// SPDX-License-Identifier: GPL-2.0
/* Indexed min-heap of timers; see timer_heap.h. */
#include <stdlib.h>

#include "timer_heap.h"

#define NOT_QUEUED	UINT32_MAX

int timer_heap_init(struct timer_heap *h, size_t cap)
{
	size_t i;

	h->id = calloc(cap ? cap : 1, sizeof(*h->id));
	h->due = calloc(cap ? cap : 1, sizeof(*h->due));
	h->pos = calloc(cap ? cap : 1, sizeof(*h->pos));
	h->nr = 0;
	h->cap = cap;
	if (!h->id || !h->due || !h->pos) {
		timer_heap_free(h);
		return -1;
	}
	for (i = 0; i < cap; i++) {
		h->pos[i] = NOT_QUEUED;
		h->due[i] = TIMER_NONE;
	}
	return 0;
}

void timer_heap_free(struct timer_heap *h)
{
	free(h->id);
	free(h->due);
	free(h->pos);
	h->id = h->pos = NULL;
	h->due = NULL;
	h->nr = h->cap = 0;
}

static bool before(const struct timer_heap *h, uint32_t a, uint32_t b)
{
	return h->due[a] < h->due[b] || (h->due[a] == h->due[b] && a < b);
}

static void place(struct timer_heap *h, size_t i, uint32_t id)
{
	h->id[i] = id;
	h->pos[id] = (uint32_t)i;
}

static void sift_up(struct timer_heap *h, size_t i)
{
	uint32_t x = h->id[i];

	while (i) {
		size_t parent = (i - 1) / 2;

		if (!before(h, x, h->id[parent]))
			break;
		place(h, i, h->id[parent]);
		i = parent;
	}
	place(h, i, x);
}

static void sift_down(struct timer_heap *h, size_t i)
{
	uint32_t x = h->id[i];

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= h->nr)
			break;
		if (child + 1 < h->nr && before(h, h->id[child + 1], h->id[child]))
			child++;
		if (!before(h, h->id[child], x))
			break;
		place(h, i, h->id[child]);
		i = child;
	}
	place(h, i, x);
}

void timer_heap_set(struct timer_heap *h, uint32_t id, uint64_t due)
{
	size_t i = h->pos[id];

	if (due == TIMER_NONE) {
		if (i == NOT_QUEUED)
			return;
		h->due[id] = TIMER_NONE;
		h->pos[id] = NOT_QUEUED;
		if (i != --h->nr) {
			uint32_t moved = h->id[h->nr];

			place(h, i, moved);
			sift_up(h, i);
			sift_down(h, h->pos[moved]);
		}
		return;
	}
	h->due[id] = due;
	if (i == NOT_QUEUED) {
		i = h->nr++;
		place(h, i, id);
	}
	sift_up(h, i);
	sift_down(h, h->pos[id]);
}
