/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The storm analysis of a fleet's checkpoint writes: how many jobs write
 * at once against what independent phases would give, whether the firing
 * order or the phase gaps move from cycle to cycle, how synchronised the
 * fleet is, how overlapping writes spread, and what contention costs.
 *
 * Everything here is pure computation on a struct fnblk_events, so the
 * unit tests can feed it constructed runs with known answers.
 */
#ifndef ANALYZE_ANALYSIS_H
#define ANALYZE_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/events.h"

/* ---- distributions ---- */

/* P(n = k), k = 0..n, for n independent Bernoulli(p[i]): exact DP. */
int poisson_binomial(const double *p, unsigned int n, double *pmf);
/* Binomial(n, p) pmf, k = 0..n (the identical-p case of the above). */
void binomial_pmf(unsigned int n, double p, double *pmf);
/* tail[k] = P(n >= k), k = 0..n, summed from the top so tails stay exact. */
void upper_tail(const double *pmf, unsigned int n, double *tail);

/* ---- concurrent writers ---- */

struct concurrency {
	unsigned int jobs;
	uint64_t from_ns, to_ns;	/* observation window */
	double *duty;			/* d_j: share of the window job j writes */
	double *measured;		/* share of time with n writing, n=0..N */
	double *baseline;		/* Poisson-binomial(d_j) pmf */
	double *measured_tail;		/* P(n >= k) */
	double *baseline_tail;
	double mean_n;			/* time average of n */
};

/*
 * Time-weighted n(t) over [first start, last end] of the writes in e,
 * and its independent-phase baseline. 0, or -1 if empty / out of memory.
 */
int concurrency_compute(const struct fnblk_events *e, unsigned int jobs,
			struct concurrency *c);
void concurrency_free(struct concurrency *c);

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
	unsigned int max_swaps;		/* largest in one transition */
	/*
	 * Largest |start_i(c) - start_j(c)| of a pair that swapped between c
	 * and c+1: swaps of near-coincident jobs are timing noise, swaps of
	 * well-separated ones are not.
	 */
	double max_swap_gap_ns;
};

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

/* Every pair i < j; *maps has jobs*(jobs-1)/2 entries. */
int pair_maps_compute(const struct cycle_table *t, struct pair_map **maps,
		      size_t *nr);
void pair_maps_free(struct pair_map *maps, size_t nr);

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

/* ---- cost ---- */

struct job_cost {
	unsigned int writes;
	double mean_ns;
	double solo_ns;		/* 0 = unknown */
	double slowdown;	/* mean / solo, 0 if unknown */
};

/*
 * Per-job write cost; solo_ns[j] 0 = unknown. costs[jobs]. 0, or -1 when
 * out of memory.
 */
int job_costs_compute(const struct fnblk_events *e, unsigned int jobs,
		      const double *solo_ns, struct job_cost *costs);

/* Median of v[0..n-1] (sorts v); 0 if n = 0. */
double median(double *v, size_t n);

#endif /* ANALYZE_ANALYSIS_H */
