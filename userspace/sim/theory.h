/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The phase-blindness theory, checked in the discrete-event model.
 *
 * N identical jobs compute T and write S at f(n)*B/n while n write. When
 * all N write windows overlap, the intervals a_j between consecutive write
 * starts map, one cycle later, to
 *
 *     a_j' = lambda_j * a_j,   lambda_j = (N-j) f(j) / (j f(N-j)),
 *
 * whose product is 1 (Documentation/simulator.rst derives it). Two jobs
 * whose writes are shorter than their compute keep their phase gap.
 *
 * Every measurement here runs the scheduler core through sim_run() with
 * one request per checkpoint, no latency, overhead or grace, so the only
 * error is the core's integer-ns clock.
 */
#ifndef FNBLK_SIM_THEORY_H
#define FNBLK_SIM_THEORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "module/fnblk_sched.h"

/* Largest fleet the theory measurements take. */
#define THEORY_MAX_JOBS	64

struct theory_setup {
	struct fnblk_fn fn;
	uint64_t bw;		/* B, bytes/s */
	uint64_t size;		/* S, bytes */
	uint64_t compute_ns;	/* T */
	double power_cap;	/* 0 = none */
	uint8_t policy;		/* FNBLK_POLICY_ANON (0) unless a control */
};

/* f(n) as a real number. */
double theory_f(const struct fnblk_fn *fn, unsigned int n);
/* lambda_j = (N-j) f(j) / (j f(N-j)), 1 <= j < N. */
double theory_lambda(const struct fnblk_fn *fn, unsigned int n,
		     unsigned int j);
/* Directions with lambda_j > 1 (ceil(N/2) - 1 for constant f). */
unsigned int theory_expanding(const struct fnblk_fn *fn, unsigned int n);

/* What one cycle of the interval map did. */
struct theory_cycle {
	bool overlap;		/* the last write began before the first ended */
	bool separated;		/* cycle 1 began after cycle 0 ended */
	bool order_kept;	/* cycle 1 fired in cycle 0's order */
};

/*
 * Start job k's first write at sum(a[0..k-1]) (k = 0..n-1), let every job
 * compute T and write again, and return the intervals between the second
 * writes' starts in a_next[0..n-2] (ns, in cycle 0's job order).
 */
int theory_interval_map(const struct theory_setup *ts, unsigned int n,
			const uint64_t *a, double *a_next,
			struct theory_cycle *cyc, char *err, size_t errlen);

/*
 * The same cycle in an independent floating-point fluid model (no core, no
 * ns clock): the derivation's own arithmetic, for comparison with the
 * formula to floating-point precision. a and a_next in ns, as doubles;
 * n <= THEORY_MAX_JOBS. Returns the time the last write ended.
 */
double theory_fluid_map(const struct theory_setup *ts, unsigned int n,
			const double *a, double *a_next);
/*
 * Rounding bound of the fluid model: each a_j' is a difference of end
 * times computed in 2n long-double steps, so it is off by at most this
 * many ns (last_end is what theory_fluid_map returned).
 */
double theory_fluid_error_ns(unsigned int n, double last_end);

/*
 * Jacobian of the interval map at a, by differences: column i is
 * (map(a + delta e_i) - map(a)) / delta. jac is (n-1) x (n-1), row major.
 */
int theory_jacobian(const struct theory_setup *ts, unsigned int n,
		    const uint64_t *a, uint64_t delta, double *jac,
		    char *err, size_t errlen);

/* Determinant of the k x k matrix m (destroyed), partial pivoting. */
double theory_det(double *m, unsigned int k);

/*
 * Two jobs, job 1 starting gap ns after job 0: the gap between their
 * write starts in each of cycles 0..cycles-1 (gaps[cycles]). Cycle 0 is
 * special: before it neither job has written or computed beside the
 * other, a state the dynamics never produce again.
 */
int theory_gap_map(const struct theory_setup *ts, uint64_t gap,
		   unsigned int cycles, int64_t *gaps, char *err,
		   size_t errlen);

/* Largest |error| of the core's clock over one cycle of n jobs, in ns. */
double theory_clock_error_ns(unsigned int n);

#endif /* FNBLK_SIM_THEORY_H */
