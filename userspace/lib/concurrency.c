// SPDX-License-Identifier: GPL-2.0
/* Time-weighted concurrent writers (see concurrency.h). */
#include <stdlib.h>
#include <string.h>

#include "concurrency.h"

struct edge {
	uint64_t t;
	uint32_t job;
	int delta;	/* +1 a write starts, -1 one ends */
};

static int by_time(const void *pa, const void *pb)
{
	const struct edge *a = pa, *b = pb;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	/* An end and a start at one instant do not overlap. */
	return a->delta - b->delta;
}

/* The window: the first start and last end of writes of cycle >= skip. */
static int find_window(const struct fnblk_events *e, unsigned int jobs,
		       unsigned int skip, uint64_t *from, uint64_t *to,
		       size_t *kept, size_t *skipped)
{
	size_t i;

	*from = UINT64_MAX;
	*to = 0;
	*kept = *skipped = 0;
	for (i = 0; i < e->nr; i++) {
		const struct fnblk_event *ev = &e->ev[i];

		if (ev->job >= jobs)
			continue;
		if (ev->cycle < skip) {
			(*skipped)++;
			continue;
		}
		(*kept)++;
		*from = ev->start_ns < *from ? ev->start_ns : *from;
		*to = ev->end_ns > *to ? ev->end_ns : *to;
	}
	return *kept && *to > *from ? 0 : -1;
}

int fnblk_concurrency_walk(const struct fnblk_events *e, unsigned int jobs,
			   unsigned int skip, uint64_t *from_ns,
			   uint64_t *to_ns,
			   void (*step)(void *arg, uint64_t t, unsigned int job,
					int writing, unsigned int n),
			   void *arg)
{
	struct edge *edges;
	unsigned int *depth, n = 0;
	size_t i, nr = 0, kept, skipped;

	if (!jobs || find_window(e, jobs, skip, from_ns, to_ns, &kept, &skipped))
		return -1;
	edges = malloc((2 * e->nr + 1) * sizeof(*edges));
	depth = calloc(jobs, sizeof(*depth));
	if (!edges || !depth) {
		free(edges);
		free(depth);
		return -1;
	}
	for (i = 0; i < e->nr; i++) {
		const struct fnblk_event *ev = &e->ev[i];
		uint64_t s = ev->start_ns > *from_ns ? ev->start_ns : *from_ns;
		uint64_t t = ev->end_ns < *to_ns ? ev->end_ns : *to_ns;

		/* Every write, clipped to the window (start-up ones too). */
		if (ev->job >= jobs || t <= s)
			continue;
		edges[nr++] = (struct edge){ s, ev->job, +1 };
		edges[nr++] = (struct edge){ t, ev->job, -1 };
	}
	qsort(edges, nr, sizeof(*edges), by_time);
	/* A job's overlapping writes make it one writer, not several. */
	for (i = 0; i < nr; i++) {
		const struct edge *x = &edges[i];

		if (x->delta > 0 && depth[x->job]++ == 0)
			step(arg, x->t, x->job, 1, ++n);
		else if (x->delta < 0 && --depth[x->job] == 0)
			step(arg, x->t, x->job, 0, --n);
	}
	free(edges);
	free(depth);
	return 0;
}

void fnblk_concurrency_free(struct fnblk_concurrency *c)
{
	free(c->time_at);
	free(c->duty);
	free(c->block_len);
	free(c->block_time);
	free(c->block_busy);
	memset(c, 0, sizeof(*c));
}

/* Spread [t0, t1) over the blocks: add its length in each to v[b * stride + i]. */
static void add_blocks(const struct fnblk_concurrency *c, double *v,
		       size_t stride, size_t i, uint64_t t0, uint64_t t1)
{
	size_t b;

	if (!c->block_ns || t1 <= t0)
		return;
	for (b = (t0 - c->from_ns) / c->block_ns; b < c->nr_blocks; b++) {
		uint64_t lo = c->from_ns + b * c->block_ns, hi = lo + c->block_ns;

		if (lo >= t1)
			break;
		lo = lo > t0 ? lo : t0;
		hi = hi < t1 ? hi : t1;
		v[b * stride + i] += (double)(hi - lo);
	}
}

static int alloc_blocks(struct fnblk_concurrency *c, uint64_t block_ns)
{
	size_t b;

	c->block_ns = block_ns;
	c->nr_blocks = (c->to_ns - c->from_ns + block_ns - 1) / block_ns;
	c->block_len = calloc(c->nr_blocks, sizeof(double));
	c->block_time = calloc(c->nr_blocks * (c->jobs + 1), sizeof(double));
	c->block_busy = calloc(c->nr_blocks * c->jobs, sizeof(double));
	if (!c->block_len || !c->block_time || !c->block_busy)
		return -1;
	for (b = 0; b < c->nr_blocks; b++) {
		uint64_t lo = c->from_ns + b * block_ns;

		c->block_len[b] = (double)((c->to_ns - lo < block_ns) ?
					   c->to_ns - lo : block_ns);
	}
	return 0;
}

/* The sweep's running state: n since prev, each writing job's start. */
struct tally {
	struct fnblk_concurrency *c;
	uint64_t prev;
	unsigned int n;
	uint64_t *since;
};

static void tally_step(void *arg, uint64_t t, unsigned int job, int writing,
		       unsigned int n)
{
	struct tally *y = arg;
	struct fnblk_concurrency *c = y->c;

	c->time_at[y->n] += (double)(t - y->prev);
	add_blocks(c, c->block_time, c->jobs + 1, y->n, y->prev, t);
	if (writing) {
		y->since[job] = t;
	} else {
		c->duty[job] += (double)(t - y->since[job]);
		add_blocks(c, c->block_busy, c->jobs, job, y->since[job], t);
	}
	y->prev = t;
	y->n = n;
}

int fnblk_concurrency_compute(const struct fnblk_events *e, unsigned int jobs,
			      unsigned int skip, uint64_t block_ns,
			      struct fnblk_concurrency *c)
{
	struct tally y = { .c = c };
	double window;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->jobs = jobs;
	c->skip = skip;
	if (!jobs || find_window(e, jobs, skip, &c->from_ns, &c->to_ns,
				 &c->writes, &c->skipped))
		goto fail;
	c->time_at = calloc(jobs + 1, sizeof(double));
	c->duty = calloc(jobs, sizeof(double));
	y.since = calloc(jobs, sizeof(*y.since));
	if (!c->time_at || !c->duty || !y.since ||
	    (block_ns && alloc_blocks(c, block_ns)))
		goto fail;
	y.prev = c->from_ns;
	if (fnblk_concurrency_walk(e, jobs, skip, &c->from_ns, &c->to_ns,
				   tally_step, &y))
		goto fail;
	/* The rest of the window, at the last n (0: the last write ended). */
	c->time_at[y.n] += (double)(c->to_ns - y.prev);
	add_blocks(c, c->block_time, jobs + 1, y.n, y.prev, c->to_ns);
	window = (double)(c->to_ns - c->from_ns);
	for (i = 0; i <= jobs; i++) {
		c->time_at[i] /= window;
		c->mean_n += i * c->time_at[i];
	}
	for (i = 0; i < jobs; i++)
		c->duty[i] /= window;
	free(y.since);
	return 0;
fail:
	free(y.since);
	fnblk_concurrency_free(c);
	return -1;
}
