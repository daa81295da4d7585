// SPDX-License-Identifier: GPL-2.0
/* Per-job write-time summary (see summary.h). */
#include "../lib/print.h"
#include "summary.h"

void job_summary_print(const struct fnblk_write_times *w)
{
	unsigned int j;

	pr_open_array("jobs");
	pr_text("%4s %7s %10s %10s %10s %10s %8s\n", "job", "writes",
		"mean_ms", "p50_ms", "p99_ms", "solo_ms", "slowdown");
	for (j = 0; j < w->jobs; j++) {
		const struct fnblk_write_stats *s = &w->job[j];

		pr_open_object(NULL);
		pr_u64("job", "%4llu", j);
		pr_u64("writes", " %7llu", s->writes);
		/* Text in ms, JSON in ns. */
		pr_text(" %10.3f %10.3f %10.3f", s->mean_ns / 1e6,
			s->p50_ns / 1e6, s->p99_ns / 1e6);
		pr_double("mean_ns", NULL, s->mean_ns);
		pr_double("p50_ns", NULL, s->p50_ns);
		pr_double("p99_ns", NULL, s->p99_ns);
		if (s->solo_ns > 0 && s->writes) {
			pr_text(" %10.3f", s->solo_ns / 1e6);
			pr_double("solo_ns", NULL, s->solo_ns);
			pr_double("slowdown", " %8.3f\n", s->slowdown);
		} else {
			pr_text(" %10s %8s\n", "-", "-");
			pr_str("solo_ns", NULL, NULL);
			pr_str("slowdown", NULL, NULL);
		}
		pr_close_object();
	}
	pr_close_array();
}
