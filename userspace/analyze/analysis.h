/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The storm analysis of a fleet's checkpoint writes: how many jobs write
 * at once against what independent phases would give (with bootstrap
 * confidence intervals), whether the firing order or the phase gaps move
 * from cycle to cycle, how synchronised the fleet is, and how overlapping
 * writes spread. The statistics themselves (percentiles, Poisson-binomial,
 * least squares, the n(t) sweep, write times) are libfnblk's.
 *
 * Everything here is pure computation on a struct fnblk_events, so the
 * unit tests can feed it constructed runs with known answers.
 */
#ifndef ANALYZE_ANALYSIS_H
#define ANALYZE_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "concurrency.h"
#include "events.h"
#include "stats.h"

/* ---- concurrent writers ---- */

struct concurrency {
	struct fnblk_concurrency sweep;	/* n(t), duty cycles, the window */
	double *baseline;		/* Poisson-binomial(duty) pmf, 0..N */
	double *measured_tail;		/* P(n >= k) */
	double *baseline_tail;
};

/*
 * n(t) over the writes of e (see fnblk_concurrency_compute for the window
 * and skip) and its independent-phase baseline; block_ns > 0 keeps the
 * per-block sums a bootstrap needs. 0, or -1 if empty / out of memory.
 */
int concurrency_compute(const struct fnblk_events *e, unsigned int jobs,
			unsigned int skip, uint64_t block_ns,
			struct concurrency *c);
void concurrency_free(struct concurrency *c);

/*
 * Block bootstrap of the tail ratios P(n >= k) measured / independent:
 * `resamples` times, draw as many blocks as the window has, with
 * replacement (xoshiro256** seeded with seed), recompute the time at each
 * n, the duty cycles, the Poisson-binomial baseline and the ratio; lo[k]
 * and hi[k] are the (1 - level)/2 and (1 + level)/2 nearest-rank
 * percentiles (NAN where fewer than half the resamples define the ratio).
 * Needs c computed with block_ns > 0. 0, or -1 (no blocks, out of memory).
 */
struct tail_ci {
	unsigned int resamples;
	uint64_t seed;
	double level;
	double *lo, *hi;		/* per k = 0..N */
};

int tail_ratio_bootstrap(const struct concurrency *c, unsigned int resamples,
			 uint64_t seed, double level, struct tail_ci *ci);
void tail_ci_free(struct tail_ci *ci);

/* ---- per-cycle structure ---- */

/*
 * start/end of job j's write in cycle c at [c * jobs + j], for the cycles
 * first..first+cycles-1 that every job completed.
 */
struct cycle_table {
	unsigned int jobs;
	unsigned int first;		/* cycle number of row 0 */
	unsigned int cycles;
	uint64_t *start;
	uint64_t *end;
};

/* Build from e, dropping cycles below skip. 0, or -1 (no full cycle). */
int cycle_table_build(const struct fnblk_events *e, unsigned int jobs,
		      unsigned int skip, struct cycle_table *t);
void cycle_table_free(struct cycle_table *t);
/* Mean over jobs and cycles of start(c+1) - start(c); 0 if one cycle. */
double cycle_table_period(const struct cycle_table *t);

/* Jobs of row c in firing (start) order, ties by job id, into order[jobs]. */
void firing_order(const struct cycle_table *t, unsigned int row,
		  unsigned int *order);

struct order_changes {
	unsigned int transitions;	/* consecutive row pairs compared */
	unsigned int changed;		/* of which the order differed */
	uint64_t swaps;			/* summed Kendall distances */
	uint64_t max_swaps;		/* largest in one transition */
	/*
	 * Largest |start_i(c) - start_j(c)| of a pair that swapped between c
	 * and c+1: swaps of near-coincident jobs are timing noise, swaps of
	 * well-separated ones are not.
	 */
	double max_swap_gap_ns;
};

/* O(N log N) per transition (merge-sort inversion count). 0 or -1. */
int order_changes_compute(const struct cycle_table *t, struct order_changes *o);

/* The return map of one pair's phase gap g(c) = start_j(c) - start_i(c). */
struct pair_map {
	unsigned int i, j;
	unsigned int points;		/* (g(c), g(c+1)) pairs */
	double *gap;			/* g per row, ns (rows = points + 1) */
	double mean_step;		/* mean of g(c+1) - g(c), ns */
	double rms_step;		/* root mean square of the same */
	double max_step;		/* largest |g(c+1) - g(c)| */
	double slope, intercept;	/* least squares g(c+1) ~ g(c); NAN if
					 * the gaps do not vary */
};

/*
 * Which pairs get a return map. All pairs of N jobs are N(N-1)/2 maps of
 * C points each, too many for large fleets; neighbours are the N-1 pairs
 * of jobs adjacent in the first row's firing order (i fires just before
 * j). Auto: all up to PAIRS_ALL_MAX_JOBS jobs, neighbours beyond.
 */
enum pair_set { PAIRS_AUTO, PAIRS_ALL, PAIRS_NEIGHBOURS, PAIRS_NONE };
#define PAIRS_ALL_MAX_JOBS	64

/* The set auto resolves to for t (never PAIRS_AUTO). */
enum pair_set pair_set_resolve(enum pair_set set, const struct cycle_table *t);
const char *pair_set_name(enum pair_set set);

/* The maps of set (resolved) into *maps, *nr of them. 0 or -1. */
int pair_maps_compute(const struct cycle_table *t, enum pair_set set,
		      struct pair_map **maps, size_t *nr);
void pair_maps_free(struct pair_map *maps, size_t nr);

/*
 * Pooled regression of the step g(c+1) - g(c) on the gap g(c) over every
 * point of the maps: the identity map has slope 0 and intercept 0; a
 * coupling toward synchrony a negative slope. Adds to fit.
 */
void pair_maps_pool(const struct pair_map *maps, size_t nr,
		    struct fnblk_linfit *fit);

/*
 * Kuramoto order parameter of row c (rows 0..cycles-2): phases
 * 2*pi*(start_j(c) - start_0(c)) / P_c, P_c the mean period from row c to
 * c+1. r is 1 for synchrony and about 1/sqrt(N) for random phases.
 */
double kuramoto_r(const struct cycle_table *t, unsigned int row);

/*
 * Intervals a_k between the k-th and (k+1)-th write start of a row (start
 * order, k = 1..N-1) and their ratios a_k(c+1)/a_k(c) over transitions
 * whose row c has all N writes overlapping (last start before first end)
 * and overlapping no write of the rows before and after it.
 */
struct interval_ratios {
	unsigned int jobs;
	unsigned int transitions;	/* overlapping rows used */
	double *expected;		/* (N-k)f(k)/(k f(N-k)), index k-1 */
	double *median;			/* of the measured ratios */
	double *mean;
	double *log_mean;		/* mean of log ratio (log of geometric mean) */
	unsigned int *row;		/* per transition: its row c (c -> c+1) */
	double *ratio;			/* [t * (jobs - 1) + k - 1]: a_k(c+1)/a_k(c) */
};

/*
 * f[n] for n = 0..jobs is the device's throughput shape f(n) (NULL: f = 1,
 * "constant"); the expected ratio is then (N-k) f(k) / (k f(N-k)).
 */
int interval_ratios_compute(const struct cycle_table *t, const double *f,
			    struct interval_ratios *r);
void interval_ratios_free(struct interval_ratios *r);
/* True when all writes of row c overlap in time. */
int row_overlaps(const struct cycle_table *t, unsigned int row);

#endif /* ANALYZE_ANALYSIS_H */
