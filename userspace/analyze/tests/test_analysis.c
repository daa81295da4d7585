// SPDX-License-Identifier: GPL-2.0
/* Host tests of the storm analysis on constructed runs with known answers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis.h"
#include "../../fleet/tests/tap.h"

static void add(struct fnblk_events *e, unsigned int job, unsigned int cycle,
		uint64_t start, uint64_t end)
{
	struct fnblk_event ev = { job, cycle, start, end, 4096 };

	fnblk_events_add(e, &ev);
}

static void test_distributions(void)
{
	double pmf[17], tail[17], pb[17], p2[2] = { 0.5, 0.25 }, p10[10];
	int k, ok;

	binomial_pmf(4, 0.5, pmf);
	TAP_OK(fabs(pmf[0] - 1 / 16.0) < 1e-15 && fabs(pmf[1] - 4 / 16.0) < 1e-15 &&
	       fabs(pmf[2] - 6 / 16.0) < 1e-15 && fabs(pmf[4] - 1 / 16.0) < 1e-15,
	       "binomial(4, 1/2) = 1 4 6 4 1 over 16");
	TAP_OK(!poisson_binomial(p2, 2, pb), "poisson-binomial of 1/2, 1/4");
	TAP_OK(pb[0] == 0.375 && pb[1] == 0.5 && pb[2] == 0.125,
	       "poisson-binomial(1/2, 1/4) = 3/8 1/2 1/8");
	upper_tail(pb, 2, tail);
	TAP_OK(tail[0] == 1 && tail[1] == 0.625 && tail[2] == 0.125,
	       "upper tail P(n >= k) = 1 5/8 1/8");
	for (k = 0; k < 10; k++)
		p10[k] = 0.3;
	poisson_binomial(p10, 10, pb);
	binomial_pmf(10, 0.3, pmf);
	for (ok = 1, k = 0; k <= 10; k++)
		ok &= fabs(pb[k] - pmf[k]) < 1e-14;
	TAP_OK(ok, "poisson-binomial with equal p is the binomial");
	binomial_pmf(16, 0.1, pmf);
	upper_tail(pmf, 16, tail);
	/* References: exact rational sums, computed independently. */
	TAP_NEAR(tail[5], 0.0170039982778795, 1e-15, "binomial(16, 0.1): P(n >= 5)");
	TAP_NEAR(tail[12] / 1.2359125e-09, 1, 1e-9,
		 "binomial(16, 0.1): P(n >= 12) exact far in the tail");
	p2[1] = 1.5;
	TAP_OK(poisson_binomial(p2, 2, pb), "poisson-binomial refuses p > 1");
}

static void test_concurrency(void)
{
	struct fnblk_events e;
	struct concurrency c;

	fnblk_events_init(&e);
	add(&e, 0, 0, 0, 10);
	add(&e, 0, 1, 20, 30);
	add(&e, 1, 0, 5, 15);
	add(&e, 1, 1, 25, 40);
	TAP_OK(!concurrency_compute(&e, 2, &c), "concurrency of a two-job run");
	TAP_OK(c.from_ns == 0 && c.to_ns == 40, "window is first start to last end");
	TAP_NEAR(c.measured[0], 5 / 40.0, 1e-15, "n = 0 for 5 of 40");
	TAP_NEAR(c.measured[1], 25 / 40.0, 1e-15, "n = 1 for 25 of 40");
	TAP_NEAR(c.measured[2], 10 / 40.0, 1e-15, "n = 2 for 10 of 40");
	TAP_OK(c.duty[0] == 0.5 && c.duty[1] == 0.625, "duty cycles 1/2 and 5/8");
	TAP_NEAR(c.baseline[0], 0.1875, 1e-15, "independent P(0) = 1/2 * 3/8");
	TAP_NEAR(c.baseline[2], 0.3125, 1e-15, "independent P(2) = 1/2 * 5/8");
	TAP_NEAR(c.measured_tail[1], 0.875, 1e-15, "measured P(n >= 1)");
	TAP_NEAR(c.mean_n, 1.125, 1e-15, "mean n is the sum of duty cycles");
	concurrency_free(&c);
	fnblk_events_free(&e);

	fnblk_events_init(&e);
	add(&e, 0, 0, 0, 10);
	add(&e, 1, 0, 10, 20);
	concurrency_compute(&e, 2, &c);
	TAP_OK(c.measured[2] == 0 && c.measured[1] == 1,
	       "a write ending as another starts does not overlap it");
	concurrency_free(&c);
	fnblk_events_free(&e);
}

/* 3 jobs, cycle c at 100c + 0/10/20, except cycle 2 where job 2 overtakes. */
static void order_run(struct fnblk_events *e)
{
	unsigned int c;

	fnblk_events_init(e);
	for (c = 0; c < 4; c++) {
		add(e, 0, c, 100 * c, 100 * c + 3);
		add(e, 1, c, 100 * c + 10, 100 * c + 13);
		add(e, 2, c, 100 * c + (c == 2 ? 5 : 20), 100 * c + (c == 2 ? 8 : 23));
	}
	add(e, 0, 4, 400, 403);	/* cycle 4 is incomplete: job 1, 2 missing */
	add(e, 2, 4, 420, 423);
}

static void test_order(void)
{
	struct fnblk_events e;
	struct cycle_table t;
	struct order_changes o;
	unsigned int order[3];

	order_run(&e);
	TAP_OK(!cycle_table_build(&e, 3, 0, &t), "cycle table");
	TAP_OK(t.first == 0 && t.cycles == 4, "incomplete cycle 4 left out");
	TAP_NEAR(cycle_table_period(&t), 100, 1e-12, "mean period 100");
	firing_order(&t, 2, order);
	TAP_OK(order[0] == 0 && order[1] == 2 && order[2] == 1, "cycle 2 fires 0 2 1");
	order_changes_compute(&t, &o);
	TAP_OK(o.transitions == 3 && o.changed == 2 && o.swaps == 2 && o.max_swaps == 1,
	       "order changes into and out of cycle 2, one swap each");
	/* Jobs 1 and 2: 10 apart in cycle 1, 5 apart (other way) in cycle 2. */
	TAP_NEAR(o.max_swap_gap_ns, 10, 0, "widest gap of a swapped pair");
	cycle_table_free(&t);
	TAP_OK(!cycle_table_build(&e, 3, 3, &t) && t.first == 3 && t.cycles == 1,
	       "skip leaves cycles from 3 on");
	order_changes_compute(&t, &o);
	TAP_OK(o.transitions == 0 && o.changed == 0, "one cycle: nothing to compare");
	cycle_table_free(&t);
	TAP_OK(cycle_table_build(&e, 3, 4, &t), "no complete cycle past skip: refused");
	fnblk_events_free(&e);
}

static void pair_run(struct fnblk_events *e, const double *gaps, unsigned int n)
{
	unsigned int c;

	fnblk_events_init(e);
	for (c = 0; c < n; c++) {
		add(e, 0, c, 1000 * c, 1000 * c + 1);
		add(e, 1, c, 1000 * c + gaps[c], 1000 * c + gaps[c] + 1);
	}
}

static void test_return_maps(void)
{
	const double flat[] = { 30, 30, 30, 30 }, drift[] = { 30, 35, 40, 45 };
	const double doubling[] = { 1, 2, 4, 8, 16 };
	struct fnblk_events e;
	struct cycle_table t;
	struct pair_map *m;
	size_t nr;

	pair_run(&e, flat, 4);
	cycle_table_build(&e, 2, 0, &t);
	TAP_OK(!pair_maps_compute(&t, &m, &nr) && nr == 1, "one pair of two jobs");
	TAP_OK(m[0].points == 3 && m[0].mean_step == 0 && m[0].rms_step == 0 &&
	       m[0].max_step == 0, "constant gap: the return map is the identity");
	TAP_OK(isnan(m[0].slope), "constant gap: slope undetermined, not invented");
	pair_maps_free(m, nr);
	cycle_table_free(&t);
	fnblk_events_free(&e);

	pair_run(&e, drift, 4);
	cycle_table_build(&e, 2, 0, &t);
	pair_maps_compute(&t, &m, &nr);
	TAP_OK(m[0].mean_step == 5 && m[0].rms_step == 5 && m[0].max_step == 5,
	       "drifting gap: step 5 each cycle");
	TAP_NEAR(m[0].slope, 1, 1e-12, "drifting gap: slope 1");
	TAP_NEAR(m[0].intercept, 5, 1e-9, "drifting gap: intercept 5");
	pair_maps_free(m, nr);
	cycle_table_free(&t);
	fnblk_events_free(&e);

	pair_run(&e, doubling, 5);
	cycle_table_build(&e, 2, 0, &t);
	pair_maps_compute(&t, &m, &nr);
	TAP_NEAR(m[0].slope, 2, 1e-12, "doubling gap: slope 2");
	TAP_NEAR(m[0].intercept, 0, 1e-9, "doubling gap: intercept 0");
	pair_maps_free(m, nr);
	cycle_table_free(&t);
	fnblk_events_free(&e);
}

static double r_of(const unsigned int *offsets, unsigned int n)
{
	struct fnblk_events e;
	struct cycle_table t;
	unsigned int c, j;
	double r;

	fnblk_events_init(&e);
	for (c = 0; c < 2; c++)
		for (j = 0; j < n; j++)
			add(&e, j, c, 100 * c + offsets[j], 100 * c + offsets[j] + 1);
	cycle_table_build(&e, n, 0, &t);
	r = kuramoto_r(&t, 0);
	TAP_OK(isnan(kuramoto_r(&t, 1)), "r of the last row is undefined");
	cycle_table_free(&t);
	fnblk_events_free(&e);
	return r;
}

static void test_kuramoto(void)
{
	const unsigned int sync[] = { 0, 0, 0, 0 }, even[] = { 0, 25, 50, 75 };
	const unsigned int halves[] = { 0, 50, 0, 50 }, lop[] = { 0, 0, 0, 50 };

	TAP_NEAR(r_of(sync, 4), 1, 1e-12, "r = 1 in synchrony");
	TAP_NEAR(r_of(even, 4), 0, 1e-12, "r = 0 evenly spread");
	TAP_NEAR(r_of(halves, 4), 0, 1e-12, "r = 0 in two antiphase clusters");
	TAP_NEAR(r_of(lop, 4), 0.5, 1e-12, "r = 1/2 with three together, one opposite");
}

static void test_interval_ratios(void)
{
	/* Row starts with (a1, a2) = (10, 20), (20, 10), (40, 5), (80, 3). */
	const uint64_t starts[4][3] = {
		{ 0, 10, 30 }, { 2000, 2020, 2030 }, { 4000, 4040, 4045 },
		{ 6000, 6080, 6083 },
	};
	struct fnblk_events e;
	struct cycle_table t;
	struct interval_ratios r;
	unsigned int c, j;

	fnblk_events_init(&e);
	for (c = 0; c < 4; c++) {
		for (j = 0; j < 3; j++) {
			/* Row 2's writes are short: they do not all overlap. */
			uint64_t len = c == 2 ? 2 : 1000;

			/* Jobs numbered against start order, to test the sort. */
			add(&e, 2 - j, c, starts[c][j], starts[c][j] + len);
		}
	}
	cycle_table_build(&e, 3, 0, &t);
	TAP_OK(row_overlaps(&t, 0) && !row_overlaps(&t, 2), "overlap test per row");
	TAP_OK(!interval_ratios_compute(&t, NULL, &r), "interval ratios");
	TAP_EQ_U(r.transitions, 2, "the transition from a non-overlapping row is left out");
	TAP_OK(r.expected[0] == 2 && r.expected[1] == 0.5, "expected (N-k)/k = 2, 1/2 for N = 3");
	TAP_OK(r.median[0] == 2 && r.median[1] == 0.5, "measured ratios 2 and 1/2");
	TAP_NEAR(exp(r.log_mean[0]), 2, 1e-12, "geometric mean of a_1 ratios");
	TAP_OK(r.row[0] == 0 && r.row[1] == 1 && r.ratio[0] == 2 && r.ratio[1] == 0.5 &&
	       r.ratio[2] == 2 && r.ratio[3] == 0.5, "per-transition ratios and their rows");
	interval_ratios_free(&r);
	{
		/* Row 1's last write runs into row 2: 1 -> 2 is no longer clean. */
		uint64_t saved = t.end[1 * 3 + 0];

		t.end[1 * 3 + 0] = starts[2][0] + 1;
		interval_ratios_compute(&t, NULL, &r);
		TAP_EQ_U(r.transitions, 1, "a row running into the next is left out");
		interval_ratios_free(&r);
		t.end[1 * 3 + 0] = saved;
	}
	{
		/* f = linear:2: f(1) = 1, f(2) = 2, so (N-k) f(k) / (k f(N-k)). */
		const double f[] = { 0, 1, 2, 2 };

		interval_ratios_compute(&t, f, &r);
		TAP_OK(r.expected[0] == 1 && r.expected[1] == 1,
		       "expected ratios under linear:2, N = 3: 2*1/2 and 1*2/2");
		TAP_OK(r.expected[0] * r.expected[1] == 1, "their product is one");
		interval_ratios_free(&r);
	}
	cycle_table_free(&t);
	fnblk_events_free(&e);
}

static void test_costs(void)
{
	struct fnblk_events e;
	struct job_cost c[3];
	double solo[3] = { 5, 0, 2 };
	double v[4] = { 4, 1, 3, 2 };

	fnblk_events_init(&e);
	add(&e, 0, 0, 0, 10);
	add(&e, 0, 1, 100, 120);
	add(&e, 2, 0, 0, 4);
	TAP_OK(!job_costs_compute(&e, 3, solo, c), "job costs");
	TAP_OK(c[0].writes == 2 && c[0].mean_ns == 15 && c[0].slowdown == 3,
	       "job 0: mean 15 over solo 5 is 3x");
	TAP_OK(c[1].writes == 0 && c[1].slowdown == 0, "a job without writes has no slowdown");
	TAP_OK(c[2].slowdown == 2, "job 2: 4 over 2");
	TAP_NEAR(median(v, 4), 2.5, 0, "median of an even count");
	fnblk_events_free(&e);
}

int main(void)
{
	test_distributions();
	test_concurrency();
	test_order();
	test_return_maps();
	test_kuramoto();
	test_interval_ratios();
	test_costs();
	return tap_done();
}
