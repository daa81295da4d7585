// SPDX-License-Identifier: GPL-2.0
/* Host tests of the storm analysis on constructed runs with known answers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis.h"
#include "fleet.h"
#include "../../fleet/tests/tap.h"

static void add(struct fnblk_events *e, unsigned int job, unsigned int cycle,
		uint64_t start, uint64_t end)
{
	struct fnblk_event ev = { job, cycle, start, end, 4096 };

	fnblk_events_add(e, &ev);
}

static void test_concurrency(void)
{
	struct fnblk_events e;
	struct concurrency c;

	/* Duty cycles 1/2, 1/4, 1/2 over [0, 20); two write on [0, 5). */
	fnblk_events_init(&e);
	add(&e, 0, 0, 0, 10);
	add(&e, 1, 0, 0, 5);
	add(&e, 2, 0, 10, 20);
	TAP_OK(!concurrency_compute(&e, 3, 0, 0, &c), "concurrency of a three-job run");
	TAP_NEAR(c.baseline[0], 0.1875, 1e-15, "independent P(0) = 1/2 * 3/4 * 1/2");
	TAP_NEAR(c.baseline[3], 0.0625, 1e-15, "independent P(3) = 1/2 * 1/4 * 1/2");
	TAP_NEAR(c.baseline_tail[2], 0.375, 1e-15, "independent P(n >= 2) = 5/16 + 1/16");
	TAP_NEAR(c.measured_tail[2], 0.25, 1e-15, "measured P(n >= 2) = 5/20");
	concurrency_free(&c);
	fnblk_events_free(&e);
}

/*
 * Two jobs, period 100, for `cycles` cycles; job 1 writes 80..100 after
 * job 0's 0..20 except in the cycles marked in `burst`, where it writes
 * with job 0 (0..10). Without bursts every period is the same.
 */
static void burst_run(struct fnblk_events *e, unsigned int cycles,
		      const int *burst)
{
	unsigned int c;

	fnblk_events_init(e);
	for (c = 0; c < cycles; c++) {
		uint64_t t = 100 * c;

		add(e, 0, c, t, t + 20);
		if (burst[c])
			add(e, 1, c, t, t + 10);
		else
			add(e, 1, c, t + 80, t + 100);
	}
}

static void test_bootstrap(void)
{
	const int never[6] = { 0 }, some[6] = { 1, 0, 0, 1, 0, 1 };
	struct fnblk_events e;
	struct concurrency c;
	struct tail_ci ci, again;

	/* Identical blocks: every resample is the run itself. */
	burst_run(&e, 6, never);
	concurrency_compute(&e, 2, 0, 100, &c);
	TAP_EQ_U(c.sweep.nr_blocks, 6, "six blocks of one period");
	TAP_OK(!tail_ratio_bootstrap(&c, 200, 7, 0.95, &ci), "bootstrap of a periodic run");
	TAP_NEAR(ci.lo[1], c.measured_tail[1] / c.baseline_tail[1], 1e-12,
		 "identical blocks: the interval is the point, low end");
	TAP_NEAR(ci.hi[1], ci.lo[1], 1e-12, "identical blocks: zero width");
	TAP_OK(ci.lo[2] == 0 && ci.hi[2] == 0,
	       "n >= 2 never seen: ratio 0 in every resample");
	tail_ci_free(&ci);
	concurrency_free(&c);
	fnblk_events_free(&e);

	burst_run(&e, 6, some);
	concurrency_compute(&e, 2, 0, 100, &c);
	tail_ratio_bootstrap(&c, 400, 7, 0.95, &ci);
	tail_ratio_bootstrap(&c, 400, 7, 0.95, &again);
	TAP_OK(ci.lo[2] == again.lo[2] && ci.hi[2] == again.hi[2],
	       "one seed, one interval");
	TAP_OK(ci.lo[2] < ci.hi[2], "blocks that differ give an interval of some width");
	TAP_OK(ci.lo[2] <= c.measured_tail[2] / c.baseline_tail[2] &&
	       ci.hi[2] >= c.measured_tail[2] / c.baseline_tail[2],
	       "and it holds the point estimate");
	tail_ci_free(&ci);
	tail_ci_free(&again);
	TAP_OK(tail_ratio_bootstrap(&c, 0, 7, 0.95, &ci), "no resamples: refused");
	concurrency_free(&c);
	concurrency_compute(&e, 2, 0, 0, &c);
	TAP_OK(tail_ratio_bootstrap(&c, 10, 7, 0.95, &ci), "no blocks: refused");
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
	TAP_OK(!pair_maps_compute(&t, PAIRS_ALL, &m, &nr) && nr == 1, "one pair of two jobs");
	TAP_OK(m[0].points == 3 && m[0].mean_step == 0 && m[0].rms_step == 0 &&
	       m[0].max_step == 0, "constant gap: the return map is the identity");
	TAP_OK(isnan(m[0].slope), "constant gap: slope undetermined, not invented");
	pair_maps_free(m, nr);
	cycle_table_free(&t);
	fnblk_events_free(&e);

	pair_run(&e, drift, 4);
	cycle_table_build(&e, 2, 0, &t);
	pair_maps_compute(&t, PAIRS_ALL, &m, &nr);
	TAP_OK(m[0].mean_step == 5 && m[0].rms_step == 5 && m[0].max_step == 5,
	       "drifting gap: step 5 each cycle");
	TAP_NEAR(m[0].slope, 1, 1e-12, "drifting gap: slope 1");
	TAP_NEAR(m[0].intercept, 5, 1e-9, "drifting gap: intercept 5");
	pair_maps_free(m, nr);
	cycle_table_free(&t);
	fnblk_events_free(&e);

	pair_run(&e, doubling, 5);
	cycle_table_build(&e, 2, 0, &t);
	pair_maps_compute(&t, PAIRS_ALL, &m, &nr);
	TAP_NEAR(m[0].slope, 2, 1e-12, "doubling gap: slope 2");
	TAP_NEAR(m[0].intercept, 0, 1e-9, "doubling gap: intercept 0");
	{
		struct fnblk_linfit fit;
		struct fnblk_linfit_result res;

		/* Steps 1, 2, 4, 8 at gaps 1, 2, 4, 8: step = gap exactly. */
		fnblk_linfit_init(&fit);
		pair_maps_pool(m, nr, &fit);
		fnblk_linfit_solve(&fit, &res);
		TAP_OK(res.n == 4 && fabs(res.b - 1) < 1e-12 && fabs(res.a) < 1e-9 &&
		       res.se_b < 1e-9, "pooled step on gap: slope 1, intercept 0, s.e. 0");
		/* The same pair twice (as two runs) leaves the line where it is. */
		pair_maps_pool(m, nr, &fit);
		fnblk_linfit_solve(&fit, &res);
		TAP_OK(res.n == 8 && fabs(res.b - 1) < 1e-12, "pooling two runs: 8 points, slope 1");
	}
	pair_maps_free(m, nr);
	cycle_table_free(&t);
	fnblk_events_free(&e);
}

static void test_pair_sets(void)
{
	struct fnblk_events e;
	struct cycle_table t;
	struct pair_map *m;
	size_t nr;

	/* Firing order 2, 0, 1 in cycle 0 (order_run's jobs at 0/10/20 moved). */
	fnblk_events_init(&e);
	add(&e, 0, 0, 10, 11);
	add(&e, 1, 0, 20, 21);
	add(&e, 2, 0, 0, 1);
	add(&e, 0, 1, 110, 111);
	add(&e, 1, 1, 125, 126);
	add(&e, 2, 1, 100, 101);
	cycle_table_build(&e, 3, 0, &t);
	TAP_OK(!pair_maps_compute(&t, PAIRS_NEIGHBOURS, &m, &nr) && nr == 2 &&
	       m[0].i == 2 && m[0].j == 0 && m[1].i == 0 && m[1].j == 1,
	       "neighbours: the N-1 pairs adjacent in firing order");
	TAP_OK(m[0].gap[0] == 10 && m[1].gap[1] == 15, "neighbour gaps are positive, in order");
	pair_maps_free(m, nr);
	TAP_OK(!pair_maps_compute(&t, PAIRS_ALL, &m, &nr) && nr == 3, "all: N(N-1)/2 pairs");
	pair_maps_free(m, nr);
	TAP_OK(!pair_maps_compute(&t, PAIRS_NONE, &m, &nr) && nr == 0 && !m, "none: no maps");
	TAP_OK(pair_set_resolve(PAIRS_AUTO, &t) == PAIRS_ALL, "auto: all for 3 jobs");
	t.jobs = PAIRS_ALL_MAX_JOBS + 1;
	TAP_OK(pair_set_resolve(PAIRS_AUTO, &t) == PAIRS_NEIGHBOURS,
	       "auto: neighbours beyond 64 jobs");
	t.jobs = 3;
	cycle_table_free(&t);
	fnblk_events_free(&e);
}

/* Pairs swapped between two rows, and the widest gap of one, by brute force. */
static unsigned int brute_swaps(const struct cycle_table *t, unsigned int c,
				double *gap)
{
	const uint64_t *a = t->start + (size_t)c * t->jobs, *b = a + t->jobs;
	unsigned int i, j, d = 0;

	for (i = 0; i < t->jobs; i++) {
		for (j = i + 1; j < t->jobs; j++) {
			/* Firing order: by start, ties by job id (i < j). */
			int before_a = a[i] <= a[j], before_b = b[i] <= b[j];

			if (before_a == before_b)
				continue;
			d++;
			*gap = fmax(*gap, fabs((double)a[i] - (double)a[j]));
		}
	}
	return d;
}

static void test_order_brute(void)
{
	struct fleet_rng rng;
	struct fnblk_events e;
	struct cycle_table t;
	struct order_changes o;
	unsigned int c, j, changed = 0, most = 0;
	uint64_t swaps = 0;
	double gap = 0;

	/* 50 jobs, 20 cycles, starts jittered so that orders change often. */
	fleet_rng_seed(&rng, 3);
	fnblk_events_init(&e);
	for (c = 0; c < 20; c++)
		for (j = 0; j < 50; j++) {
			uint64_t s = 100000 * c + j * 100 + fleet_rng_u64(&rng) % 400;

			add(&e, j, c, s, s + 10);
		}
	cycle_table_build(&e, 50, 0, &t);
	for (c = 0; c + 1 < t.cycles; c++) {
		unsigned int d = brute_swaps(&t, c, &gap);

		swaps += d;
		changed += d > 0;
		most = d > most ? d : most;
	}
	order_changes_compute(&t, &o);
	TAP_OK(o.transitions == 19 && o.changed == changed && o.swaps == swaps &&
	       o.max_swaps == most && swaps > 100,
	       "merge-sort Kendall distances match the pairwise count");
	TAP_NEAR(o.max_swap_gap_ns, gap, 0, "and the widest swapped gap matches");
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

int main(void)
{
	test_concurrency();
	test_bootstrap();
	test_order();
	test_return_maps();
	test_pair_sets();
	test_kuramoto();
	test_interval_ratios();
	test_order_brute();
	return tap_done();
}
