// SPDX-License-Identifier: GPL-2.0
/* Sample comparisons (see rankstats.h). */
#include <math.h>
#include <stdlib.h>

#include "rankstats.h"

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* Q_KS(lambda) = 2 sum (-1)^(j-1) exp(-2 j^2 lambda^2). */
static double kolmogorov_q(double lambda)
{
	double sum = 0, term;
	int j;

	if (lambda < 0.2)
		return 1;
	for (j = 1; j <= 100; j++) {
		term = 2 * ((j & 1) ? 1 : -1) * exp(-2.0 * j * j * lambda * lambda);
		sum += term;
		if (fabs(term) < 1e-12)
			break;
	}
	return sum < 0 ? 0 : sum > 1 ? 1 : sum;
}

double fnblk_ks2(double *a, size_t na, double *b, size_t nb, double *p)
{
	size_t i = 0, j = 0;
	double d = 0, ne;

	if (p)
		*p = 1;
	if (!na || !nb)
		return 0;
	qsort(a, na, sizeof(*a), cmp_double);
	qsort(b, nb, sizeof(*b), cmp_double);
	while (i < na && j < nb) {
		double x = a[i] <= b[j] ? a[i] : b[j];

		/* Step past every value equal to x in both samples. */
		while (i < na && a[i] <= x)
			i++;
		while (j < nb && b[j] <= x)
			j++;
		if (fabs((double)i / na - (double)j / nb) > d)
			d = fabs((double)i / na - (double)j / nb);
	}
	if (p) {
		ne = (double)na * nb / (na + nb);
		*p = kolmogorov_q((sqrt(ne) + 0.12 + 0.11 / sqrt(ne)) * d);
	}
	return d;
}

struct ranked {
	double v;
	size_t i;
};

static int cmp_ranked(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	return a->v < b->v ? -1 : a->v > b->v;
}

/* Mean ranks (1-based) of v into r; -1 when out of memory. */
static int ranks(const double *v, size_t n, double *r)
{
	struct ranked *s = malloc(n * sizeof(*s));
	size_t i, k;

	if (!s)
		return -1;
	for (i = 0; i < n; i++)
		s[i] = (struct ranked) { v[i], i };
	qsort(s, n, sizeof(*s), cmp_ranked);
	for (i = 0; i < n; i = k) {
		size_t m;

		for (k = i + 1; k < n && s[k].v == s[i].v; k++)
			;
		/* Positions i..k-1 tie: each gets their mean rank. */
		for (m = i; m < k; m++)
			r[s[m].i] = (double)(i + 1 + k) / 2.0;
	}
	free(s);
	return 0;
}

double fnblk_spearman(const double *x, const double *y, size_t n)
{
	double *rx, *ry, mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0, rho = NAN;
	size_t i;

	if (n < 3)
		return NAN;
	rx = malloc(n * sizeof(*rx));
	ry = malloc(n * sizeof(*ry));
	if (!rx || !ry || ranks(x, n, rx) || ranks(y, n, ry))
		goto out;
	for (i = 0; i < n; i++) {
		mx += rx[i];
		my += ry[i];
	}
	mx /= n;
	my /= n;
	for (i = 0; i < n; i++) {
		sxy += (rx[i] - mx) * (ry[i] - my);
		sxx += (rx[i] - mx) * (rx[i] - mx);
		syy += (ry[i] - my) * (ry[i] - my);
	}
	if (sxx > 0 && syy > 0)
		rho = sxy / sqrt(sxx * syy);
out:
	free(rx);
	free(ry);
	return rho;
}

double fnblk_cv(const double *v, size_t n)
{
	double m = 0, ss = 0;
	size_t i;

	if (n < 2)
		return NAN;
	for (i = 0; i < n; i++)
		m += v[i];
	m /= n;
	if (m == 0)
		return NAN;
	for (i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	return sqrt(ss / (n - 1)) / m;
}

double fnblk_dispersion(const double *t, size_t n, double w)
{
	size_t windows, i, k = 0;
	double m, ss = 0;

	if (!n || !(w > 0))
		return NAN;
	windows = (size_t)((t[n - 1] - t[0]) / w) + 1;
	if (windows < 2)
		return NAN;
	m = (double)n / windows;
	for (i = 0; i < windows; i++) {
		size_t c = 0;

		while (k < n && t[k] < t[0] + (i + 1) * w) {
			c++;
			k++;
		}
		ss += ((double)c - m) * ((double)c - m);
	}
	return ss / (windows - 1) / m;
}
