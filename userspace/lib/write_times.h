/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How long a run's checkpoint writes took (end - start), per job and over
 * every job: count, mean, nearest-rank p50 and p99, maximum, and the
 * slowdown against a write alone. One definition for fnblk-fleet's summary,
 * fnblk-analyze's write cost and fnblk-sim compare's key figures.
 */
#ifndef FNBLK_WRITE_TIMES_H
#define FNBLK_WRITE_TIMES_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"

struct fnblk_write_stats {
	size_t writes;
	double mean_ns, p50_ns, p99_ns, max_ns;	/* 0 without writes */
	double solo_ns;		/* a write alone; 0 = unknown */
	double slowdown;	/* mean / solo; 0 when either is unknown */
};

struct fnblk_write_times {
	unsigned int jobs;
	unsigned int skip;		/* writes of cycles below it left out */
	struct fnblk_write_stats all;	/* every job's writes together */
	struct fnblk_write_stats *job;	/* [jobs] */
};

/*
 * Write times of e's writes of jobs below `jobs` and cycles >= skip.
 * solo_ns[j] (NULL: unknown for all) gives each job's solo write time;
 * the overall slowdown is left 0. 0, or -1 when out of memory.
 */
int fnblk_write_times_compute(const struct fnblk_events *e, unsigned int jobs,
			      unsigned int skip, const double *solo_ns,
			      struct fnblk_write_times *w);
void fnblk_write_times_free(struct fnblk_write_times *w);

#endif /* FNBLK_WRITE_TIMES_H */
