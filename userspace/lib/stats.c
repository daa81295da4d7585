// SPDX-License-Identifier: GPL-2.0
/* Shared statistics (see stats.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

double fnblk_percentile(double *v, size_t n, double q)
{
	size_t rank;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	rank = (size_t)ceil(q * n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

double fnblk_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int fnblk_poisson_binomial(const double *p, unsigned int n, double *pmf)
{
	unsigned int i, k;

	/* pmf over the first i trials, updated in place from the top down. */
	pmf[0] = 1;
	for (k = 1; k <= n; k++)
		pmf[k] = 0;
	for (i = 0; i < n; i++) {
		if (!(p[i] >= 0 && p[i] <= 1))
			return -1;
		for (k = i + 1; k > 0; k--)
			pmf[k] = pmf[k] * (1 - p[i]) + pmf[k - 1] * p[i];
		pmf[0] *= 1 - p[i];
	}
	return 0;
}

void fnblk_binomial_pmf(unsigned int n, double p, double *pmf)
{
	unsigned int k;

	/* log-space terms: exact to rounding for any n we meet. */
	for (k = 0; k <= n; k++) {
		double lc = lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0);

		if ((p == 0 && k > 0) || (p == 1 && k < n))
			pmf[k] = 0;
		else if (p == 0 || p == 1)
			pmf[k] = 1;
		else
			pmf[k] = exp(lc + k * log(p) + (n - k) * log1p(-p));
	}
}

void fnblk_upper_tail(const double *pmf, unsigned int n, double *tail)
{
	double s = 0;
	unsigned int k = n + 1;

	while (k-- > 0) {
		s += pmf[k];
		tail[k] = s;
	}
}

void fnblk_linfit_init(struct fnblk_linfit *f)
{
	memset(f, 0, sizeof(*f));
}

void fnblk_linfit_add(struct fnblk_linfit *f, double x, double y)
{
	double u, v;

	if (!f->n) {
		f->x0 = x;
		f->y0 = y;
	}
	u = x - f->x0;
	v = y - f->y0;
	f->n++;
	f->sx += u;
	f->sy += v;
	f->sxx += u * u;
	f->sxy += u * v;
	f->syy += v * v;
}

int fnblk_linfit_solve(const struct fnblk_linfit *f,
		       struct fnblk_linfit_result *r)
{
	double n = f->n, sxx, sxy, syy, rss, mx, s2;

	r->n = f->n;
	r->a = r->b = r->se_a = r->se_b = r->resid_rms = NAN;
	if (f->n < 2)
		return -1;
	sxx = f->sxx - f->sx * f->sx / n;
	sxy = f->sxy - f->sx * f->sy / n;
	syy = f->syy - f->sy * f->sy / n;
	/* x that barely varies leaves the slope undetermined. */
	if (!(sxx > 1e-12 * f->sxx) || sxx <= 0)
		return -1;
	r->b = sxy / sxx;
	mx = f->x0 + f->sx / n;
	r->a = f->y0 + f->sy / n - r->b * mx;
	rss = syy - r->b * sxy;
	if (rss < 0)
		rss = 0;	/* rounding on an exact fit */
	r->resid_rms = sqrt(rss / n);
	if (f->n >= 3) {
		s2 = rss / (n - 2);
		r->se_b = sqrt(s2 / sxx);
		r->se_a = sqrt(s2 * (1 / n + mx * mx / sxx));
	}
	return 0;
}
