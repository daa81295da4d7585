// SPDX-License-Identifier: GPL-2.0
/* Host tests of the latency histogram: percentiles within its error. */
#include <stdlib.h>

#include "hist.h"
#include "tap.h"

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Exact p-quantile: the smallest value with at least p of them at or below. */
static uint64_t exact(const uint64_t *v, size_t n, double p)
{
	size_t rank = (size_t)(p * (double)n);

	if ((double)rank < p * (double)n || !rank)
		rank++;
	return v[rank - 1];
}

int main(void)
{
	static uint64_t v[100000];
	struct mx_hist h, a, b, back;
	const double ps[] = { 0.5, 0.9, 0.99, 0.999 };
	uint64_t x = 12345;
	json_t *j;
	bool within = true;

	mx_hist_init(&h);
	mx_hist_init(&a);
	mx_hist_init(&b);
	for (size_t i = 0; i < 100000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		/* log-uniform from 1 us to 1 s */
		v[i] = (uint64_t)(1000.0 * __builtin_powi(1.0000001, (int)(x >> 41) % 140000000));
		mx_hist_add(&h, v[i]);
		mx_hist_add(i % 2 ? &a : &b, v[i]);
	}
	qsort(v, 100000, sizeof(v[0]), cmp);
	for (unsigned int k = 0; k < 4; k++) {
		double want = (double)exact(v, 100000, ps[k]);
		double got = (double)mx_hist_quantile(&h, ps[k]);

		within &= got >= want * (1 - 1.0 / MX_HIST_SUB) &&
			  got <= want * (1 + 1.0 / MX_HIST_SUB);
		if (!within)
			diag("p%g: exact %.0f, histogram %.0f", ps[k] * 100, want, got);
	}
	ok(within, "p50..p99.9 within 1/%u of the exact values", MX_HIST_SUB);
	is_u64(mx_hist_quantile(&h, 1), v[99999], "max is exact");
	is_u64(mx_hist_quantile(&h, 0), v[0], "min is exact");
	mx_hist_merge(&a, &b);
	is_u64(mx_hist_quantile(&a, 0.99), mx_hist_quantile(&h, 0.99),
	       "merging halves gives the whole's p99");
	is_u64(a.sum, h.sum, "merged sum");
	j = mx_hist_json(&h);
	ok(!mx_hist_from_json(&back, j), "JSON reads back");
	is_u64(mx_hist_quantile(&back, 0.999), mx_hist_quantile(&h, 0.999),
	       "p99.9 survives the JSON round trip");
	json_decref(j);
	mx_hist_init(&h);
	is_u64(mx_hist_quantile(&h, 0.5), 0, "an empty histogram says 0");
	mx_hist_add(&h, 7);
	is_u64(mx_hist_quantile(&h, 0.5), 7, "small values are exact");
	return tap_done();
}
