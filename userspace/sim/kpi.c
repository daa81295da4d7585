// SPDX-License-Identifier: GPL-2.0
/* Key figures of a fleet run; see kpi.h. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kpi.h"

struct edge {
	uint64_t t;
	int delta;	/* +1 a write starts, -1 one ends */
};

static int by_time(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->delta - y->delta;	/* ends before starts at one instant */
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sweep the write windows: time at each number of writers. */
static void concurrency(struct edge *edges, size_t nr, struct kpi *k)
{
	uint64_t span, prev;
	size_t i;
	int n = 0;
	double sum = 0;

	if (!nr)
		return;
	qsort(edges, nr, sizeof(*edges), by_time);
	prev = edges[0].t;
	span = edges[nr - 1].t - edges[0].t;
	for (i = 0; i < nr; i++) {
		if (span && n >= 0 && (unsigned int)n <= k->jobs)
			k->conc[n] += (double)(edges[i].t - prev) / span;
		prev = edges[i].t;
		n += edges[i].delta;
	}
	for (i = 0; i <= k->jobs; i++)
		sum += k->conc[i] * i;
	k->mean_writers = sum;
}

int kpi_compute(const struct fnblk_events *e, unsigned int jobs,
		struct kpi *k)
{
	struct edge *edges = NULL;
	double *times = NULL, sum = 0;
	size_t i, nr = 0, rank;
	int ret = -1;

	memset(k, 0, sizeof(*k));
	k->jobs = jobs;
	k->conc = calloc(jobs + 1, sizeof(*k->conc));
	k->job_mean_write_s = calloc(jobs, sizeof(*k->job_mean_write_s));
	k->job_writes = calloc(jobs, sizeof(*k->job_writes));
	times = malloc((e->nr ? e->nr : 1) * sizeof(*times));
	edges = malloc((e->nr ? 2 * e->nr : 1) * sizeof(*edges));
	if (!k->conc || !k->job_mean_write_s || !k->job_writes || !times ||
	    !edges)
		goto out;

	for (i = 0; i < e->nr; i++) {
		const struct fnblk_event *ev = &e->ev[i];
		double w = (double)(ev->end_ns - ev->start_ns) * 1e-9;

		if (ev->job >= jobs)
			continue;
		times[nr] = w;
		sum += w;
		k->job_mean_write_s[ev->job] += w;
		k->job_writes[ev->job]++;
		edges[2 * nr] = (struct edge){ ev->start_ns, 1 };
		edges[2 * nr + 1] = (struct edge){ ev->end_ns, -1 };
		nr++;
	}
	k->writes = nr;
	for (i = 0; i < jobs; i++)
		if (k->job_writes[i])
			k->job_mean_write_s[i] /= k->job_writes[i];
	if (nr) {
		k->mean_write_s = sum / nr;
		qsort(times, nr, sizeof(*times), by_value);
		rank = (size_t)ceil(0.99 * nr);
		k->p99_write_s = times[rank ? rank - 1 : 0];
	}
	concurrency(edges, 2 * nr, k);
	ret = 0;
out:
	free(times);
	free(edges);
	if (ret)
		kpi_free(k);
	return ret;
}

void kpi_free(struct kpi *k)
{
	free(k->conc);
	free(k->job_mean_write_s);
	free(k->job_writes);
	memset(k, 0, sizeof(*k));
}

double kpi_rel_error(double predicted, double measured)
{
	if (measured == 0)
		return predicted == 0 ? 0 : INFINITY;
	return (predicted - measured) / measured;
}
