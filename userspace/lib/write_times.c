// SPDX-License-Identifier: GPL-2.0
/* Write-time summaries (see write_times.h). */
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "write_times.h"

/* Summarise v[0..n-1] (sorted in place). */
static void summarise(double *v, size_t n, double solo_ns,
		      struct fnblk_write_stats *s)
{
	double sum = 0;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->writes = n;
	s->solo_ns = solo_ns;
	if (!n)
		return;
	for (i = 0; i < n; i++)
		sum += v[i];
	s->mean_ns = sum / n;
	s->p50_ns = fnblk_percentile(v, n, 0.5);
	s->p99_ns = fnblk_percentile(v, n, 0.99);
	s->max_ns = v[n - 1];
	if (solo_ns > 0)
		s->slowdown = s->mean_ns / solo_ns;
}

void fnblk_write_times_free(struct fnblk_write_times *w)
{
	free(w->job);
	memset(w, 0, sizeof(*w));
}

static int by_job(const void *pa, const void *pb)
{
	const double *a = pa, *b = pb;

	/* Pairs (job, time): job order, then time. */
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return a[1] < b[1] ? -1 : a[1] > b[1];
}

int fnblk_write_times_compute(const struct fnblk_events *e, unsigned int jobs,
			      unsigned int skip, const double *solo_ns,
			      struct fnblk_write_times *w)
{
	double *pairs = NULL, *t = NULL;
	size_t i, n = 0, from;
	unsigned int j;

	memset(w, 0, sizeof(*w));
	w->jobs = jobs;
	w->skip = skip;
	w->job = calloc(jobs ? jobs : 1, sizeof(*w->job));
	pairs = malloc((e->nr ? e->nr : 1) * 2 * sizeof(double));
	t = malloc((e->nr ? e->nr : 1) * sizeof(double));
	if (!w->job || !pairs || !t)
		goto fail;
	for (i = 0; i < e->nr; i++) {
		const struct fnblk_event *ev = &e->ev[i];

		if (ev->job >= jobs || ev->cycle < skip)
			continue;
		pairs[2 * n] = ev->job;
		pairs[2 * n + 1] = (double)(ev->end_ns - ev->start_ns);
		n++;
	}
	/* One sort groups the jobs; each job's times are then sorted too. */
	qsort(pairs, n, 2 * sizeof(double), by_job);
	for (i = 0; i < n; i++)
		t[i] = pairs[2 * i + 1];
	for (from = 0, j = 0; j < jobs; j++) {
		size_t to = from;

		while (to < n && pairs[2 * to] == j)
			to++;
		summarise(t + from, to - from, solo_ns ? solo_ns[j] : 0,
			  &w->job[j]);
		from = to;
	}
	summarise(t, n, 0, &w->all);
	free(pairs);
	free(t);
	return 0;
fail:
	free(pairs);
	free(t);
	fnblk_write_times_free(w);
	return -1;
}
