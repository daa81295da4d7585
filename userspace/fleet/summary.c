// SPDX-License-Identifier: GPL-2.0
/* Per-job write-time summary (see summary.h). */
#include "summary.h"

void job_summary_print(FILE *f, const struct fnblk_write_times *w)
{
	unsigned int j;

	fprintf(f, "%4s %7s %10s %10s %10s %10s %8s\n", "job", "writes",
		"mean_ms", "p50_ms", "p99_ms", "solo_ms", "slowdown");
	for (j = 0; j < w->jobs; j++) {
		const struct fnblk_write_stats *s = &w->job[j];

		fprintf(f, "%4u %7zu %10.3f %10.3f %10.3f", j, s->writes,
			s->mean_ns / 1e6, s->p50_ns / 1e6, s->p99_ns / 1e6);
		if (s->solo_ns > 0 && s->writes)
			fprintf(f, " %10.3f %8.3f\n", s->solo_ns / 1e6,
				s->slowdown);
		else
			fprintf(f, " %10s %8s\n", "-", "-");
	}
}
