/* SPDX-License-Identifier: GPL-2.0 */
/* Per-job write-time summary printed at the end of a fleet run. */
#ifndef FLEET_SUMMARY_H
#define FLEET_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "../lib/events.h"

struct job_summary {
	uint64_t writes;
	double mean_ns;
	double p50_ns;
	double p99_ns;
	double solo_ns;		/* 0 = unknown */
	double slowdown;	/* mean / solo, 0 when solo is unknown */
};

/* Nearest-rank percentile (0 < q <= 1) of v[0..n-1]; sorts v. */
double percentile_ns(uint64_t *v, size_t n, double q);

/*
 * Summarise job's writes in e; solo_ns is its write time alone (0 if not
 * known). Returns 0, or -1 when out of memory.
 */
int job_summary_compute(const struct fnblk_events *e, unsigned int job,
			double solo_ns, struct job_summary *s);
void job_summary_print(FILE *f, unsigned int jobs,
		       const struct job_summary *s);

#endif /* FLEET_SUMMARY_H */
