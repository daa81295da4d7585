// SPDX-License-Identifier: GPL-2.0
/* Per-job write-time summary (see summary.h). */
#include <math.h>
#include <stdlib.h>

#include "summary.h"

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

double percentile_ns(uint64_t *v, size_t n, double q)
{
	size_t rank;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	rank = (size_t)ceil(q * n);
	if (rank < 1)
		rank = 1;
	return (double)v[rank - 1];
}

int job_summary_compute(const struct fnblk_events *e, unsigned int job,
			double solo_ns, struct job_summary *s)
{
	uint64_t *t = malloc((e->nr ? e->nr : 1) * sizeof(*t));
	double sum = 0;
	size_t i, n = 0;

	if (!t)
		return -1;
	for (i = 0; i < e->nr; i++) {
		if (e->ev[i].job != job)
			continue;
		t[n] = e->ev[i].end_ns - e->ev[i].start_ns;
		sum += t[n++];
	}
	s->writes = n;
	s->mean_ns = n ? sum / n : 0;
	s->p50_ns = percentile_ns(t, n, 0.5);
	s->p99_ns = percentile_ns(t, n, 0.99);
	s->solo_ns = solo_ns;
	s->slowdown = solo_ns > 0 && n ? s->mean_ns / solo_ns : 0;
	free(t);
	return 0;
}

void job_summary_print(FILE *f, unsigned int jobs, const struct job_summary *s)
{
	unsigned int j;

	fprintf(f, "%4s %7s %10s %10s %10s %10s %8s\n", "job", "writes",
		"mean_ms", "p50_ms", "p99_ms", "solo_ms", "slowdown");
	for (j = 0; j < jobs; j++) {
		fprintf(f, "%4u %7llu %10.3f %10.3f %10.3f", j,
			(unsigned long long)s[j].writes, s[j].mean_ns / 1e6,
			s[j].p50_ns / 1e6, s[j].p99_ns / 1e6);
		if (s[j].solo_ns > 0)
			fprintf(f, " %10.3f %8.3f\n", s[j].solo_ns / 1e6,
				s[j].slowdown);
		else
			fprintf(f, " %10s %8s\n", "-", "-");
	}
}
