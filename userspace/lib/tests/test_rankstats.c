// SPDX-License-Identifier: GPL-2.0
/* TAP tests of rankstats.c against values computed by hand. */
#include <math.h>
#include <stdio.h>

#include "rankstats.h"
#include "tests/sched/tap.h"

int main(void)
{
	double a[] = { 1, 2, 3, 4 }, b[] = { 3, 4, 5, 6 }, c[] = { 1, 2, 3, 4 };
	double x[] = { 1, 2, 3, 4, 5 }, y[] = { 2, 4, 6, 8, 10 };
	double yr[] = { 5, 4, 3, 2, 1 }, yt[] = { 1, 1, 2, 2, 3 };
	double g[] = { 1, 1, 1, 1 }, t[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	double tb[] = { 0, 0.1, 0.2, 0.3, 4, 4.1, 4.2, 4.3 };
	double p;

	near(fnblk_ks2(a, 4, b, 4, &p), 0.5, 1e-12,
	     "KS of {1..4} and {3..6}: the CDFs differ by 1/2 at 2");
	ok(p > 0.3, "and that is not significant with 4 and 4 (p %.3f)", p);
	near(fnblk_ks2(a, 4, c, 4, &p), 0, 1e-12, "KS of a sample with itself is 0");
	near(p, 1, 1e-9, "p 1 for identical samples");
	{
		double lo[50], hi[50];
		int i;

		for (i = 0; i < 50; i++) {
			lo[i] = i;
			hi[i] = 100 + i;
		}
		near(fnblk_ks2(lo, 50, hi, 50, &p), 1, 1e-12, "disjoint samples: KS 1");
		ok(p < 1e-10, "and very significant (p %.2g)", p);
	}
	near(fnblk_spearman(x, y, 5), 1, 1e-12, "rank correlation of a monotone pair: 1");
	near(fnblk_spearman(x, yr, 5), -1, 1e-12, "reversed: -1");
	/* ranks of yt: 1.5 1.5 3.5 3.5 5 against 1..5: r = 0.9486832981 */
	near(fnblk_spearman(x, yt, 5), 0.9486832981, 1e-9, "ties get mean ranks");
	ok(isnan(fnblk_spearman(x, g, 4)), "a constant variable: no correlation (NAN)");
	near(fnblk_cv(g, 4), 0, 1e-12, "CV of a constant: 0");
	/* 1..4: mean 2.5, sd sqrt(5/3) */
	near(fnblk_cv(a, 4), sqrt(5.0 / 3.0) / 2.5, 1e-12, "CV of 1..4");
	near(fnblk_dispersion(t, 8, 2), 0, 1e-12,
	     "evenly spaced arrivals, 2 per window: dispersion 0");
	ok(fnblk_dispersion(tb, 8, 1) > 1.5, "two bursts: dispersion above 1 (%.2f)",
	   fnblk_dispersion(tb, 8, 1));
	printf("1..%d\n", tap_count);
	return tap_failures ? 1 : 0;
}
