// SPDX-License-Identifier: GPL-2.0
/*
 * TAP tests of the shared statistics (stats.c), the concurrent-writer sweep
 * (concurrency.c) and write times (write_times.c), on constructed runs with
 * answers worked out by hand.
 */
#include <math.h>
#include <string.h>

#include "concurrency.h"
#include "stats.h"
#include "write_times.h"
#include "tests/sched/tap.h"

/* A run from rows of { job, cycle, start, end }. */
static void run(struct fnblk_events *e, const uint64_t (*rows)[4], size_t nr)
{
	size_t i;

	fnblk_events_init(e);
	for (i = 0; i < nr; i++) {
		struct fnblk_event ev = { rows[i][0], rows[i][1], rows[i][2],
					  rows[i][3], 4096 };

		fnblk_events_add(e, &ev);
	}
}

#define RUN(e, rows) run(e, rows, sizeof(rows) / sizeof(rows[0]))

static void test_percentiles(void)
{
	double v[] = { 5, 1, 4, 2, 3 }, w[] = { 4, 1, 3, 2 }, one[] = { 7 };

	near(fnblk_percentile(v, 5, 0.5), 3, 0, "p50 of 1..5 is 3 (rank 3)");
	near(fnblk_percentile(v, 5, 0.99), 5, 0, "p99 of 5 values is the largest");
	near(fnblk_percentile(v, 5, 0.2), 1, 0, "p20 of 5 values is rank 1");
	near(fnblk_percentile(one, 1, 0.01), 7, 0, "any percentile of one value");
	near(fnblk_median(w, 4), 2.5, 0, "median of an even count: mean of the middle two");
	near(fnblk_percentile(v, 0, 0.5), 0, 0, "no values: 0");
}

static void test_distributions(void)
{
	double pmf[17], tail[17], pb[17], p2[2] = { 0.5, 0.25 }, p10[10];
	int k, same;

	fnblk_binomial_pmf(4, 0.5, pmf);
	ok(fabs(pmf[0] - 1 / 16.0) < 1e-15 && fabs(pmf[1] - 4 / 16.0) < 1e-15 &&
	   fabs(pmf[2] - 6 / 16.0) < 1e-15 && fabs(pmf[4] - 1 / 16.0) < 1e-15,
	   "binomial(4, 1/2) = 1 4 6 4 1 over 16");
	ok(!fnblk_poisson_binomial(p2, 2, pb), "poisson-binomial of 1/2, 1/4");
	ok(pb[0] == 0.375 && pb[1] == 0.5 && pb[2] == 0.125,
	   "poisson-binomial(1/2, 1/4) = 3/8 1/2 1/8");
	fnblk_upper_tail(pb, 2, tail);
	ok(tail[0] == 1 && tail[1] == 0.625 && tail[2] == 0.125,
	   "upper tail P(n >= k) = 1 5/8 1/8");
	for (k = 0; k < 10; k++)
		p10[k] = 0.3;
	fnblk_poisson_binomial(p10, 10, pb);
	fnblk_binomial_pmf(10, 0.3, pmf);
	for (same = 1, k = 0; k <= 10; k++)
		same &= fabs(pb[k] - pmf[k]) < 1e-14;
	ok(same, "poisson-binomial with equal p is the binomial");
	fnblk_binomial_pmf(16, 0.1, pmf);
	fnblk_upper_tail(pmf, 16, tail);
	/* References: exact rational sums, computed independently. */
	near(tail[5], 0.0170039982778795, 1e-15, "binomial(16, 0.1): P(n >= 5)");
	near(tail[12] / 1.2359125e-09, 1, 1e-9,
	     "binomial(16, 0.1): P(n >= 12) exact far in the tail");
	p2[1] = 1.5;
	ok(fnblk_poisson_binomial(p2, 2, pb), "poisson-binomial refuses p > 1");
	p2[1] = NAN;
	ok(fnblk_poisson_binomial(p2, 2, pb), "poisson-binomial refuses NaN");
}

static void test_linfit(void)
{
	/* Worked by hand: mx 2, my 3, Sxx 10, Sxy 8, RSS 3.6. */
	const double x[] = { 0, 1, 2, 3, 4 }, y[] = { 1, 3, 2, 5, 4 };
	struct fnblk_linfit f, g;
	struct fnblk_linfit_result r, s;
	int i;

	fnblk_linfit_init(&f);
	fnblk_linfit_init(&g);
	for (i = 0; i < 5; i++) {
		fnblk_linfit_add(&f, x[i], y[i]);
		/* The same points 10^12 away (gaps in ns): the slope keeps its digits. */
		fnblk_linfit_add(&g, x[i] + 1e12, y[i]);
	}
	ok(!fnblk_linfit_solve(&f, &r), "least squares of five points");
	near(r.b, 0.8, 1e-15, "slope 8/10");
	near(r.a, 1.4, 1e-15, "intercept 3 - 0.8 * 2");
	near(r.se_b, sqrt(0.12), 1e-15, "slope s.e. sqrt(RSS/(n-2)/Sxx) = sqrt(0.12)");
	near(r.se_a, sqrt(0.72), 1e-15, "intercept s.e. sqrt(s^2 (1/n + mx^2/Sxx)) = sqrt(0.72)");
	near(r.resid_rms, sqrt(0.72), 1e-15, "residual rms sqrt(RSS/n)");
	fnblk_linfit_solve(&g, &s);
	near(s.b, 0.8, 1e-9, "slope unchanged 10^12 away");
	near(s.se_b, sqrt(0.12), 1e-9, "slope s.e. unchanged 10^12 away");

	fnblk_linfit_init(&f);
	fnblk_linfit_add(&f, 30, 0);
	fnblk_linfit_add(&f, 30, 1);
	fnblk_linfit_add(&f, 30, -1);
	ok(fnblk_linfit_solve(&f, &r) && isnan(r.b) && isnan(r.se_b),
	   "x that does not vary: slope undetermined, not invented");
	fnblk_linfit_init(&f);
	fnblk_linfit_add(&f, 1, 1);
	fnblk_linfit_add(&f, 2, 3);
	ok(!fnblk_linfit_solve(&f, &r) && r.b == 2 && isnan(r.se_b),
	   "two points: a line, but no standard error");
}

static void test_concurrency(void)
{
	static const uint64_t two[][4] = {
		{ 0, 0, 0, 10 }, { 0, 1, 20, 30 }, { 1, 0, 5, 15 }, { 1, 1, 25, 40 },
	}, touching[][4] = { { 0, 0, 0, 10 }, { 1, 0, 10, 20 } };
	/*
	 * Job 0's two writes overlap (50..100): it is one writer there, not
	 * two. (fnblk-analyze refused this run and fnblk-sim compare dropped
	 * the time at n = 3 when each had its own sweep.)
	 */
	static const uint64_t self[][4] = {
		{ 0, 0, 0, 100 }, { 0, 1, 50, 150 }, { 1, 0, 0, 200 },
	};
	struct fnblk_events e;
	struct fnblk_concurrency c;
	double sum = 0;
	unsigned int k;

	RUN(&e, two);
	ok(!fnblk_concurrency_compute(&e, 2, 0, 0, &c), "concurrency of a two-job run");
	ok(c.from_ns == 0 && c.to_ns == 40, "window is first start to last end");
	near(c.time_at[0], 5 / 40.0, 1e-15, "n = 0 for 5 of 40");
	near(c.time_at[1], 25 / 40.0, 1e-15, "n = 1 for 25 of 40");
	near(c.time_at[2], 10 / 40.0, 1e-15, "n = 2 for 10 of 40");
	ok(c.duty[0] == 0.5 && c.duty[1] == 0.625, "duty cycles 1/2 and 5/8");
	near(c.mean_n, 1.125, 1e-15, "mean n is the sum of duty cycles");
	fnblk_concurrency_free(&c);
	fnblk_events_free(&e);

	RUN(&e, touching);
	fnblk_concurrency_compute(&e, 2, 0, 0, &c);
	ok(c.time_at[2] == 0 && c.time_at[1] == 1,
	   "a write ending as another starts does not overlap it");
	fnblk_concurrency_free(&c);
	fnblk_events_free(&e);

	RUN(&e, self);
	ok(!fnblk_concurrency_compute(&e, 2, 0, 0, &c),
	   "overlapping writes of one job are accepted");
	for (k = 0; k <= 2; k++)
		sum += c.time_at[k];
	near(sum, 1, 1e-15, "the shares of time add up to 1");
	ok(c.time_at[2] == 0.75 && c.time_at[1] == 0.25,
	   "n = 2 (jobs, not writes) for 150 of 200, 1 for 50");
	ok(c.duty[0] == 0.75 && c.duty[1] == 1, "duty is the union of a job's writes");
	near(c.mean_n, 1.75, 1e-15, "mean n 1.75");
	fnblk_concurrency_free(&c);
	ok(!fnblk_concurrency_compute(&e, 1, 0, 0, &c) && c.time_at[1] == 1 &&
	   c.to_ns == 150, "jobs 1: job 1's writes are left out, window included");
	fnblk_concurrency_free(&c);
	fnblk_events_free(&e);
}

static void test_skip_and_blocks(void)
{
	/* Job 1's cycle-0 write runs on into the kept window (100..120). */
	static const uint64_t rows[][4] = {
		{ 0, 0, 0, 10 }, { 0, 1, 100, 110 }, { 1, 0, 5, 120 }, { 1, 1, 130, 140 },
	};
	struct fnblk_events e;
	struct fnblk_concurrency c;

	RUN(&e, rows);
	ok(!fnblk_concurrency_compute(&e, 2, 1, 15, &c), "skip 1, blocks of 15");
	ok(c.from_ns == 100 && c.to_ns == 140, "window from the first cycle-1 start");
	ok(c.writes == 2 && c.skipped == 2, "2 writes kept, 2 of cycle 0 left out");
	near(c.time_at[0], 10 / 40.0, 0, "n = 0 for 10 of 40");
	near(c.time_at[1], 20 / 40.0, 0, "n = 1 for 20 of 40");
	near(c.time_at[2], 10 / 40.0, 0,
	     "n = 2 for 10: a start-up write still running counts where it overlaps");
	ok(c.duty[0] == 0.25 && c.duty[1] == 0.75, "duty 10/40 and 30/40 in the window");
	ok(c.nr_blocks == 3 && c.block_len[0] == 15 && c.block_len[1] == 15 &&
	   c.block_len[2] == 10, "three blocks, the last one short");
	ok(c.block_time[0 * 3 + 2] == 10 && c.block_time[0 * 3 + 1] == 5 &&
	   c.block_time[1 * 3 + 1] == 5 && c.block_time[1 * 3 + 0] == 10 &&
	   c.block_time[2 * 3 + 1] == 10, "time at n per block");
	ok(c.block_busy[0 * 2 + 0] == 10 && c.block_busy[0 * 2 + 1] == 15 &&
	   c.block_busy[1 * 2 + 1] == 5 && c.block_busy[2 * 2 + 1] == 10 &&
	   c.block_busy[1 * 2 + 0] == 0, "writing time per job per block");
	fnblk_concurrency_free(&c);
	ok(fnblk_concurrency_compute(&e, 2, 2, 0, &c),
	   "no write at or past the skip: refused");
	fnblk_events_free(&e);
}

static void test_write_times(void)
{
	/* Job 5 of 3 is not counted. */
	static const uint64_t rows[][4] = {
		{ 0, 0, 0, 10 }, { 0, 1, 100, 120 }, { 2, 0, 0, 4 }, { 5, 0, 0, 1000 },
	};
	struct fnblk_events e;
	struct fnblk_write_times w;
	const double solo[3] = { 5, 0, 2 };

	RUN(&e, rows);
	ok(!fnblk_write_times_compute(&e, 3, 0, solo, &w), "write times");
	ok(w.job[0].writes == 2 && w.job[0].mean_ns == 15 && w.job[0].slowdown == 3,
	   "job 0: mean 15 over solo 5 is 3x");
	ok(w.job[0].p50_ns == 10 && w.job[0].p99_ns == 20 && w.job[0].max_ns == 20,
	   "job 0: p50 10, p99 and max 20 (nearest rank)");
	ok(w.job[1].writes == 0 && w.job[1].slowdown == 0,
	   "a job without writes has no slowdown");
	ok(w.job[2].slowdown == 2, "job 2: 4 over 2");
	ok(w.all.writes == 3 && w.all.max_ns == 20 && fabs(w.all.mean_ns - 34 / 3.0) < 1e-12,
	   "every job together: 3 writes, mean 34/3, max 20");
	fnblk_write_times_free(&w);
	fnblk_write_times_compute(&e, 3, 1, NULL, &w);
	ok(w.all.writes == 1 && w.job[0].mean_ns == 20 && w.job[0].slowdown == 0,
	   "skip 1 leaves cycle 0 out; no solo time, no slowdown");
	fnblk_write_times_free(&w);
	fnblk_events_free(&e);
}

int main(void)
{
	test_percentiles();
	test_distributions();
	test_linfit();
	test_concurrency();
	test_skip_and_blocks();
	test_write_times();
	return tap_done();
}
