/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics that compare two samples without assuming their shape, for
 * judging how close a synthetic workload is to a real one: the two-sample
 * Kolmogorov-Smirnov distance, Spearman's rank correlation, and the
 * burstiness of arrivals (coefficient of variation of the gaps, index of
 * dispersion of the counts per window).
 */
#ifndef FNBLK_RANKSTATS_H
#define FNBLK_RANKSTATS_H

#include <stddef.h>

/*
 * sup |F_a - F_b| of the two empirical distributions (a and b are sorted
 * in place); *p (may be NULL) gets the asymptotic p-value of "same
 * distribution" (Kolmogorov's series with Stephens' small-sample
 * correction). 0 with p 1 when a sample is empty.
 */
double fnblk_ks2(double *a, size_t na, double *b, size_t nb, double *p);

/*
 * Spearman's rank correlation of (x[i], y[i]), ties given their mean
 * rank; NAN below 3 pairs or when a variable is constant.
 */
double fnblk_spearman(const double *x, const double *y, size_t n);

/* Standard deviation / mean of v (sample sd); NAN below 2 or mean 0. */
double fnblk_cv(const double *v, size_t n);

/*
 * Variance / mean of the number of times t[] (sorted, seconds) in windows
 * of w seconds from t[0]; 1 for a Poisson process, above 1 when bursty.
 * NAN with fewer than 2 windows.
 */
double fnblk_dispersion(const double *t, size_t n, double w);

#endif /* FNBLK_RANKSTATS_H */
