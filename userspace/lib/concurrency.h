/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Concurrent writers of a run: n(t), the number of jobs with a checkpoint
 * write in progress, weighted by time, and each job's duty cycle. One
 * definition for fnblk-analyze and fnblk-sim compare:
 *
 *  - only jobs below `jobs` count; a job counts once however many of its
 *    writes overlap, so 0 <= n <= jobs always;
 *  - an end and a start at one instant do not overlap;
 *  - the window starts at the first start of a write of cycle >= skip
 *    (skip = 0: the first write) and ends at the last end of such a write;
 *    writes of earlier cycles still in progress inside the window count
 *    for the time they overlap it (they are concurrent writes), so skip
 *    removes the start-up *time*, not writers from the time that is kept.
 */
#ifndef FNBLK_CONCURRENCY_H
#define FNBLK_CONCURRENCY_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"

struct fnblk_concurrency {
	unsigned int jobs;
	unsigned int skip;		/* cycles left out at the start */
	uint64_t from_ns, to_ns;	/* the window */
	size_t writes;			/* writes of cycle >= skip */
	size_t skipped;			/* writes of cycle < skip */
	double *time_at;		/* share of the window at n, n = 0..jobs */
	double *duty;			/* share of the window job j writes */
	double mean_n;			/* time average of n */
	/*
	 * With block_ns > 0: the window cut into blocks of block_ns from
	 * from_ns (the last one shorter), and per block the time (ns) at
	 * each n, block_time[b * (jobs + 1) + n], and each job's writing
	 * time, block_busy[b * jobs + j]; block_len[b] is the block's length.
	 * What a block bootstrap resamples.
	 */
	uint64_t block_ns;
	size_t nr_blocks;
	double *block_len;
	double *block_time;
	double *block_busy;
};

/*
 * Compute c from e. block_ns 0: no blocks. 0, or -1 when no write of
 * cycle >= skip has a positive length window, or out of memory.
 */
int fnblk_concurrency_compute(const struct fnblk_events *e, unsigned int jobs,
			      unsigned int skip, uint64_t block_ns,
			      struct fnblk_concurrency *c);
void fnblk_concurrency_free(struct fnblk_concurrency *c);

/*
 * The walk under fnblk_concurrency_compute: the window as above into
 * *from_ns and *to_ns, then step(arg, t, job, writing, n) at every instant
 * a job starts (writing 1) or stops (0) writing, in time order, n being
 * the number writing just after. 0, or -1 (empty window, out of memory).
 */
int fnblk_concurrency_walk(const struct fnblk_events *e, unsigned int jobs,
			   unsigned int skip, uint64_t *from_ns,
			   uint64_t *to_ns,
			   void (*step)(void *arg, uint64_t t, unsigned int job,
					int writing, unsigned int n),
			   void *arg);

#endif /* FNBLK_CONCURRENCY_H */
