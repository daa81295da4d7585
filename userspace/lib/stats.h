/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics every analysis of a run needs, defined once: nearest-rank
 * percentiles, the exact Poisson-binomial distribution (the independent-
 * phase baseline of concurrent writers), upper tails, and least squares
 * with standard errors. Used by fnblk-analyze, fnblk-fleet's summary and
 * fnblk-sim compare, so the three cannot disagree on a definition.
 */
#ifndef FNBLK_STATS_H
#define FNBLK_STATS_H

#include <stddef.h>

/*
 * Nearest-rank percentile, 0 < q <= 1: the value at rank ceil(q n) of v
 * sorted (v is sorted in place). 0 when n is 0.
 */
double fnblk_percentile(double *v, size_t n, double q);
/* Median of v (sorted in place): the mean of the two middle values for
 * even n. 0 when n is 0. */
double fnblk_median(double *v, size_t n);

/* P(n = k), k = 0..n, for n independent Bernoulli(p[i]): exact DP.
 * -1 if some p is outside [0, 1]. */
int fnblk_poisson_binomial(const double *p, unsigned int n, double *pmf);
/* Binomial(n, p) pmf, k = 0..n (the equal-p case of the above). */
void fnblk_binomial_pmf(unsigned int n, double p, double *pmf);
/* tail[k] = P(n >= k), k = 0..n, summed from the top so tails stay exact. */
void fnblk_upper_tail(const double *pmf, unsigned int n, double *tail);

/*
 * Ordinary least squares y = a + b x, accumulated point by point (sums of
 * deviations from the first point, so large offsets such as gaps in ns
 * keep their digits). Standard errors assume independent residuals of one
 * variance: se_b = sqrt(s^2 / Sxx), se_a = sqrt(s^2 (1/n + mx^2 / Sxx)),
 * s^2 = RSS / (n - 2).
 */
struct fnblk_linfit {
	size_t n;
	double x0, y0;			/* shift: the first point */
	double sx, sy, sxx, sxy, syy;	/* sums of the shifted values */
};

struct fnblk_linfit_result {
	size_t n;
	double a, b;			/* intercept, slope; NAN if undefined */
	double se_a, se_b;		/* NAN below 3 points */
	double resid_rms;		/* sqrt(RSS / n) */
};

void fnblk_linfit_init(struct fnblk_linfit *f);
void fnblk_linfit_add(struct fnblk_linfit *f, double x, double y);
/*
 * The fit. a and b are NAN with fewer than 2 points or when x barely varies
 * (the slope is then undetermined, not invented). 0, or -1 if undefined.
 */
int fnblk_linfit_solve(const struct fnblk_linfit *f,
		       struct fnblk_linfit_result *r);

#endif /* FNBLK_STATS_H */
