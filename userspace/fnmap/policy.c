// SPDX-License-Identifier: GPL-2.0
/* Pure policy functions; see policy.h. */
#include <stdlib.h>
#include <string.h>

#include "policy.h"

void growth_init(struct growth *g, unsigned int window)
{
	memset(g, 0, sizeof(*g));
	if (window < 8)
		window = 8;
	if (window > GROWTH_WINDOW_MAX)
		window = GROWTH_WINDOW_MAX;
	g->window = window;
}

bool growth_miss(struct growth *g, uint64_t beyond)
{
	g->misses++;
	if (beyond && g->nreuse < GROWTH_WINDOW_MAX)
		g->reuse[g->nreuse++] = beyond;
	return g->misses >= g->window;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void growth_held(struct growth *g, uint64_t held_ns, uint64_t span_ns,
		 uint64_t bytes)
{
	g->held_ns = held_ns < span_ns ? held_ns : span_ns;
	g->span_ns = span_ns;
	g->held_bytes = bytes;
}

/* The growth fills waiting behind write-back ask for: any room shortens
 * the waits, so within the limit's reach whatever the bytes. */
static uint64_t held_want(const struct growth *g, uint64_t capacity,
			  uint64_t limit, uint64_t step)
{
	uint64_t more = g->held_bytes > step ? g->held_bytes : step;

	if (limit <= capacity || !g->span_ns || g->held_ns * 8 < g->span_ns)
		return capacity;
	if (g->held_ns * 2 > g->span_ns && more < capacity)
		more = capacity;
	return more < limit - capacity ? capacity + more : limit;
}

uint64_t growth_decide(struct growth *g, uint64_t capacity, uint64_t limit,
		       uint64_t step)
{
	uint64_t want = capacity, median, held;
	unsigned int within = 0, i;

	/* Only distances the limit lets us cover can be turned into hits. */
	for (i = 0; i < g->nreuse; i++)
		if (limit > capacity && g->reuse[i] <= limit - capacity)
			g->reuse[within++] = g->reuse[i];
	if (within && within * 8 >= g->misses) {
		qsort(g->reuse, within, sizeof(g->reuse[0]), cmp_u64);
		median = g->reuse[(within - 1) / 2];
		if (median < step)
			median = step;
		/* Most misses were reuses: the capacity is far too small
		 * (a cold start), double it rather than creep up by one
		 * median a window while each window re-reads. */
		if (within * 2 > g->misses && median < capacity)
			median = capacity;
		want = capacity + median;
		if (want > limit)
			want = limit;
	}
	held = held_want(g, capacity, limit, step);
	if (held > want)
		want = held;
	g->misses = 0;
	g->nreuse = 0;
	g->held_ns = g->span_ns = g->held_bytes = 0;
	return want;
}

void budget_init(struct budget_ctl *b, uint64_t max, uint64_t floor)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
	b->floor = floor < max ? floor : max;
	b->now = max;
	b->cut_gap_ns = 250000000ULL;
	b->calm_ns = 1000000000ULL;
}

uint64_t budget_step(struct budget_ctl *b, const struct pressure_sample *s,
		     uint64_t resident, uint64_t now_ns)
{
	uint64_t allowed = b->max;
	bool signal = s->signal;

	if (s->limit) {
		uint64_t others = s->usage > resident ? s->usage - resident : 0;
		uint64_t ceiling = s->limit / 10 * 9;

		allowed = ceiling > others ? ceiling - others : 0;
		if (s->usage > s->limit / 20 * 19)
			signal = true;
	}
	if (signal) {
		b->last_pressure_ns = now_ns;
		if (!b->last_cut_ns || now_ns - b->last_cut_ns >= b->cut_gap_ns) {
			uint64_t base = resident < b->now ? resident : b->now;

			b->now = base / 4 * 3;
			b->last_cut_ns = now_ns;
		}
	} else if (b->now < b->max &&
		   now_ns - b->last_pressure_ns >= b->calm_ns) {
		uint64_t step = b->max / 16 ? b->max / 16 : 1;

		b->now = b->max - b->now > step ? b->now + step : b->max;
	}
	if (b->now > allowed)
		b->now = allowed;
	if (b->now < b->floor)
		b->now = b->floor;
	return b->now;
}

unsigned int stride_limit(unsigned int depth_now, unsigned int depth_min)
{
	uint64_t l = (uint64_t)STRIDE_MAX_DEPTH * depth_now /
		     (depth_min ? depth_min : 1);

	if (l < STRIDE_MAX_DEPTH)
		return STRIDE_MAX_DEPTH;
	return l > STRIDE_DEPTH_LIMIT ? STRIDE_DEPTH_LIMIT : (unsigned int)l;
}

int64_t stride_observe(struct stride *s, uint64_t map, int64_t pos, bool late,
		       unsigned int limit, unsigned int *depth)
{
	int64_t d, k;

	*depth = 0;
	if (!s->valid || s->map != map) {
		s->valid = true;
		s->map = map;
		s->last = pos;
		s->stride = 0;
		s->run = 0;
		s->ahead = STRIDE_MAX_DEPTH;
		return 0;
	}
	d = pos - s->last;
	if (!d)
		return 0;
	s->last = pos;
	/* Once prefetching, the thread faults only past what was fetched:
	 * a step of a few strides continues the run. */
	k = s->stride ? d / s->stride : 0;
	if (!s->stride || d % s->stride || k < 1 ||
	    k > (s->run >= 2 ? 2 * (int64_t)s->ahead + 1 : 1)) {
		s->stride = d;
		s->run = 1;
		s->ahead = STRIDE_MAX_DEPTH;
		return 0;
	}
	if (s->run < 16)
		s->run++;
	if (late && s->run >= 4 && s->ahead < limit)
		s->ahead *= 2;
	if (s->ahead > limit && s->ahead > STRIDE_MAX_DEPTH)
		s->ahead = limit > STRIDE_MAX_DEPTH ? limit : STRIDE_MAX_DEPTH;
	*depth = s->run >= 4 ? s->ahead : s->run == 3 ? 4 : 2;
	return s->stride;
}

void depth_init(struct depth_ctl *d, unsigned int min, unsigned int max,
		uint64_t epoch_ns, uint64_t now_ns)
{
	memset(d, 0, sizeof(*d));
	d->min = min ? min : 1;
	d->max = max > d->min ? max : d->min;
	d->now = d->min;
	d->epoch_ns = epoch_ns;
	d->t0_ns = d->since_ns = now_ns;
	d->base_ns = UINT64_MAX;
}

static void depth_set(struct depth_ctl *d, unsigned int depth,
		      uint64_t now_ns)
{
	if (depth < d->min)
		depth = d->min;
	if (depth > d->max)
		depth = d->max;
	if (depth != d->now)
		d->since_ns = now_ns;
	d->now = depth;
}

unsigned int depth_complete(struct depth_ctl *d, uint64_t service_ns,
			    uint64_t now_ns, bool waited)
{
	uint64_t mean;

	if (service_ns && service_ns < d->base_ns)
		d->base_ns = service_ns;
	if (now_ns < service_ns || now_ns - service_ns < d->since_ns)
		return d->now;		/* submitted under another depth */
	d->n++;
	d->sum_ns += service_ns;
	d->waited += waited;
	if (now_ns < d->t0_ns || now_ns - d->t0_ns < d->epoch_ns || d->n < 32)
		return d->now;
	mean = d->sum_ns / d->n;
	if (mean * 2 < d->base_ns * 3 && d->waited * 2 >= d->n)
		depth_set(d, d->now * 2, now_ns);	/* no queue at the store */
	else if (mean > d->base_ns * 3)
		depth_set(d, d->now / 2, now_ns);	/* ours queue there */
	d->n = d->waited = d->sum_ns = 0;
	d->t0_ns = now_ns;
	return d->now;
}

unsigned int size_bucket(uint64_t bytes, unsigned int nbuckets)
{
	unsigned int i = 0;

	bytes >>= 13;
	while (bytes && i + 1 < nbuckets) {
		bytes >>= 1;
		i++;
	}
	return i;
}
