// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's pure decisions (policy.c): lazy growth from reuse
 * distances, the budget under memory pressure, stride detection, and the
 * request-size buckets.
 */
#include "policy.h"
#include "tap.h"

#define MiB (1ULL << 20)

static void test_growth(void)
{
	struct growth g;
	uint64_t cap;
	unsigned int i;

	growth_init(&g, 64);
	/* Misses of blocks never seen before: nothing to gain by growing. */
	for (i = 0; i < 63; i++)
		ok(!growth_miss(&g, 0) || 0, "cold miss %u: no decision yet", i);
	ok(growth_miss(&g, 0), "a decision after 64 misses");
	is_u64(growth_decide(&g, 16 * MiB, 256 * MiB, MiB), 16 * MiB,
	       "cold misses only: the capacity stays");

	/* Half the misses would have hit with 8 MiB more. */
	for (i = 0; i < 64; i++)
		growth_miss(&g, i % 2 ? 8 * MiB : 0);
	is_u64(growth_decide(&g, 16 * MiB, 256 * MiB, MiB), 24 * MiB,
	       "reuse at 8 MiB beyond: grow by 8 MiB");

	/* Distances 1..32 MiB: the median covers half of them. */
	for (i = 0; i < 64; i++)
		growth_miss(&g, (uint64_t)(i % 32 + 1) * MiB);
	cap = growth_decide(&g, 16 * MiB, 256 * MiB, MiB);
	is_u64(cap, 32 * MiB, "reuses at 1..32 MiB: grow by the median, 16 MiB");

	/* Too few reuses (1 in 16) is not worth memory. */
	for (i = 0; i < 64; i++)
		growth_miss(&g, i % 16 ? 0 : 4 * MiB);
	is_u64(growth_decide(&g, 16 * MiB, 256 * MiB, MiB), 16 * MiB,
	       "one reuse in 16 misses: no growth");

	/* Reuses beyond the limit's reach cannot be helped. */
	for (i = 0; i < 64; i++)
		growth_miss(&g, 100 * MiB);
	is_u64(growth_decide(&g, 16 * MiB, 64 * MiB, MiB), 16 * MiB,
	       "reuse beyond the limit: no growth");
	for (i = 0; i < 64; i++)
		growth_miss(&g, 40 * MiB);
	is_u64(growth_decide(&g, 16 * MiB, 48 * MiB, MiB), 16 * MiB,
	       "reuse 40 MiB beyond, limit 32 MiB away: no growth");
	for (i = 0; i < 64; i++)
		growth_miss(&g, 30 * MiB);
	is_u64(growth_decide(&g, 16 * MiB, 48 * MiB, MiB), 46 * MiB,
	       "reuse within reach: grow to cover it");
	for (i = 0; i < 64; i++)
		growth_miss(&g, i % 4 ? 0 : 1000);
	is_u64(growth_decide(&g, 16 * MiB, 48 * MiB, MiB), 17 * MiB,
	       "tiny distances grow by at least the step");

	/* Most misses are reuses (a cold start far below the working set):
	 * the capacity doubles, within the limit, whatever the median. */
	for (i = 0; i < 64; i++)
		growth_miss(&g, i % 4 ? 2 * MiB : 0);
	is_u64(growth_decide(&g, 16 * MiB, 256 * MiB, MiB), 32 * MiB,
	       "3 in 4 misses reuses at 2 MiB: doubles to 32 MiB");
	for (i = 0; i < 64; i++)
		growth_miss(&g, 1000);
	is_u64(growth_decide(&g, 16 * MiB, 20 * MiB, MiB), 20 * MiB,
	       "every miss a reuse: doubles, but not past the limit");
}

/* Fills waiting behind dirty evictions' write-back (a write stream on a
 * slow store, no reuse at all) grow the cache by the bytes in flight. */
static uint64_t held_window(struct growth *g, uint64_t held_ms,
			    uint64_t bytes, uint64_t cap, uint64_t limit)
{
	unsigned int i;

	for (i = 0; i < 64; i++)
		growth_miss(g, 0);
	growth_held(g, held_ms * 1000000, 100 * 1000000ULL, bytes);
	return growth_decide(g, cap, limit, MiB);
}

static void test_growth_held(void)
{
	struct growth g;
	unsigned int i;

	growth_init(&g, 64);
	is_u64(held_window(&g, 20, 6 * MiB, 16 * MiB, 256 * MiB), 22 * MiB,
	       "fills held 20 of 100 ms behind 6 MiB of write-back: grow by "
	       "6 MiB");
	is_u64(held_window(&g, 10, 6 * MiB, 16 * MiB, 256 * MiB), 16 * MiB,
	       "held 10 of 100 ms: no growth");
	is_u64(held_window(&g, 12, 0, 16 * MiB, 256 * MiB), 16 * MiB,
	       "held 12 of 100 ms: under an eighth, no growth");
	is_u64(held_window(&g, 60, 2 * MiB, 16 * MiB, 256 * MiB), 32 * MiB,
	       "held most of the window: doubles");
	is_u64(held_window(&g, 90, 2 * MiB, 200 * MiB, 256 * MiB), 256 * MiB,
	       "held most of the window: doubles, but not past the limit");
	is_u64(held_window(&g, 20, 100 * MiB, 16 * MiB, 48 * MiB), 48 * MiB,
	       "write-back beyond the limit's reach: grows to the limit (any "
	       "room shortens the waits)");
	is_u64(held_window(&g, 200, 100 * MiB, 16 * MiB, 48 * MiB), 48 * MiB,
	       "held longer than the span (a hold from the window before): "
	       "as held throughout");
	is_u64(held_window(&g, 20, 6 * MiB, 48 * MiB, 48 * MiB), 48 * MiB,
	       "at the limit: stays");
	/* Reuse and write-back together: the larger growth wins; a window
	 * forgets the one before. */
	for (i = 0; i < 64; i++)
		growth_miss(&g, i % 4 ? 0 : 8 * MiB);
	growth_held(&g, 20 * 1000000ULL, 100 * 1000000ULL, 3 * MiB);
	is_u64(growth_decide(&g, 16 * MiB, 256 * MiB, MiB), 24 * MiB,
	       "reuse at 8 MiB and 3 MiB of write-back: grow by 8 MiB");
	for (i = 0; i < 64; i++)
		growth_miss(&g, i % 4 ? 0 : 2 * MiB);
	growth_held(&g, 20 * 1000000ULL, 100 * 1000000ULL, 5 * MiB);
	is_u64(growth_decide(&g, 16 * MiB, 256 * MiB, MiB), 21 * MiB,
	       "reuse at 2 MiB and 5 MiB of write-back: grow by 5 MiB");
	for (i = 0; i < 64; i++)
		growth_miss(&g, 0);
	is_u64(growth_decide(&g, 16 * MiB, 256 * MiB, MiB), 16 * MiB,
	       "a window with neither after them: no growth");
}

/*
 * A store for the depth controller: channels x depth requests in flight
 * (or what the program asks for, if less), each served after the
 * latency, or after its turn at the store's rate once more are in flight
 * than the rate covers in a latency. Completions one at a time at the
 * rate of the depth of the moment; requests wait for a slot whenever the
 * program asks for more than the depth. sim_run() returns the depth the
 * controller spent most of the run at, and the largest it came to.
 */
struct sim_store {
	double latency_s, rate_max, demand;
	unsigned int channels;
	uint64_t now_ns;
};

static unsigned int sim_run(struct depth_ctl *d, struct sim_store *st,
			    double seconds, unsigned int *largest)
{
	uint64_t end = st->now_ns + (uint64_t)(seconds * 1e9);
	uint64_t at[257] = { 0 };
	unsigned int most = 0, k;

	*largest = 0;
	while (st->now_ns < end) {
		double inflight = (double)st->channels * d->now, rate;
		bool waited = !st->demand || st->demand > inflight;
		uint64_t dt;

		if (!waited)
			inflight = st->demand;
		rate = inflight / st->latency_s;
		if (rate > st->rate_max)
			rate = st->rate_max;
		dt = (uint64_t)(1e9 / rate);
		at[d->now] += dt;
		if (d->now > *largest)
			*largest = d->now;
		st->now_ns += dt;
		depth_complete(d, (uint64_t)(inflight / rate * 1e9), st->now_ns,
			       waited);
	}
	for (k = 1; k <= 256; k++)
		if (at[k] > at[most])
			most = k;
	return most;
}

static void test_depth(void)
{
	struct sim_store st = { 0.064, 2000, 0, 4, 1000000000ULL };
	struct depth_ctl d;
	unsigned int largest, i, changed;
	uint64_t t;

	/* 64 ms, 2000 requests/s: 128 in flight keep it busy, 32 a
	 * channel; at 64 a channel each request waits two round trips. */
	depth_init(&d, 8, 256, 100000000ULL, st.now_ns);
	is_u64(d.now, 8, "depth starts at its least");
	for (t = 0; d.now < 32; t++)
		sim_run(&d, &st, 0.1, &largest);
	ok(t <= 10, "64 ms store: 32 a channel within a second (%.1f s)",
	   t * 0.1);
	i = sim_run(&d, &st, 20, &largest);
	ok(i == 32 || i == 64, "64 ms store at 2000 requests/s: 32 or 64 a "
	   "channel (4 channels) for the most part, what keeps it busy (%u)", i);
	ok(largest <= 64, "never past 64: 128 would queue ours for four round "
	   "trips (%u)", largest);

	/* 256 ms at 8000 requests/s: 512 a channel would keep it busy,
	 * so the depth climbs to the most allowed, and fast: a doubling a
	 * round trip. */
	st = (struct sim_store){ 0.256, 8000, 0, 4, 1000000000ULL };
	depth_init(&d, 8, 256, 100000000ULL, st.now_ns);
	for (t = 0; d.now < 256 && t < 100; t++)
		sim_run(&d, &st, 0.1, &largest);
	ok(t <= 25, "256 ms store: 256 a channel, the most allowed, within "
	   "2.5 s (%.1f s)", t * 0.1);
	is_u64(sim_run(&d, &st, 20, &largest), 256, "and it stays there");

	/* A fast store that is busy (200 us, 1000 requests/s): more depth
	 * gains nothing. The first request finds it idle. */
	st = (struct sim_store){ 0.0002, 1000, 0, 4, 1000000000ULL };
	depth_init(&d, 8, 64, 100000000ULL, st.now_ns);
	depth_complete(&d, 200000, st.now_ns + 200000, false);
	is_u64(sim_run(&d, &st, 20, &largest), 8,
	       "a fast busy store: the least depth");
	is_u64(largest, 8, "never more");

	/* A slow store but a program with 20 requests out: nothing waits
	 * for a slot, so the depth has no reason to change. */
	st = (struct sim_store){ 0.064, 2000, 20, 4, 1000000000ULL };
	depth_init(&d, 8, 64, 100000000ULL, st.now_ns);
	is_u64(sim_run(&d, &st, 20, &largest), 8,
	       "a program asking little: the least depth");
	is_u64(largest, 8, "never more");

	/* Verdicts count only requests submitted under the depth of the
	 * moment: after a change, completions of older ones change nothing
	 * however many. 1 ms requests, one a millisecond, a wait each. */
	depth_init(&d, 8, 64, 100000000ULL, 0);
	for (i = 1, changed = 0; i <= 4000; i++) {
		unsigned int before = d.now;

		if (depth_complete(&d, 1000000, (uint64_t)i * 1000000,
				   true) != before)
			changed++;
	}
	is_u64(changed, 3, "4 s of 100 ms epochs, an idle store: 8 to 64 "
	       "in three doublings, then the most");
	is_u64(d.now, 64, "at the most allowed");
	depth_init(&d, 8, 64, 100000000ULL, 0);
	depth_complete(&d, 1000000, 1000000, true);	/* the least: 1 ms */
	for (i = 0; i < 1000; i++)	/* submitted before the start: old */
		depth_complete(&d, 200000000, 150000000, true);
	is_u64(d.now, 8, "completions from before the depth's start count "
	       "for nothing");

	/* The least and the most are kept. */
	depth_init(&d, 0, 0, 100000000ULL, 0);
	ok(d.min == 1 && d.max == 1 && d.now == 1, "depth 0..0: 1..1");
}

static void test_budget(void)
{
	struct budget_ctl b;
	struct pressure_sample calm = { 0 }, sig = { .signal = true };
	struct pressure_sample lim = { .usage = 0, .limit = 1000 * MiB };
	uint64_t t = 1000000000ULL, now;

	budget_init(&b, 512 * MiB, 8 * MiB);
	is_u64(budget_step(&b, &calm, 100 * MiB, t), 512 * MiB,
	       "no pressure: the configured budget");
	now = budget_step(&b, &sig, 400 * MiB, t += 1000000);
	is_u64(now, 300 * MiB, "pressure: 3/4 of what is resident");
	is_u64(budget_step(&b, &sig, 300 * MiB, t += 100000000), 300 * MiB,
	       "another signal within 250 ms: no second cut");
	is_u64(budget_step(&b, &sig, 300 * MiB, t += 200000000), 225 * MiB,
	       "after 250 ms: cut again");
	is_u64(budget_step(&b, &calm, 200 * MiB, t += 500000000), 225 * MiB,
	       "calm for 0.5 s: no growth yet");
	is_u64(budget_step(&b, &calm, 200 * MiB, t += 600000000), 257 * MiB,
	       "calm for 1.1 s: grows by 1/16 of the budget");
	for (int i = 0; i < 20; i++)
		now = budget_step(&b, &calm, 200 * MiB, t += 100000000);
	is_u64(now, 512 * MiB, "grows back to the configured budget, no more");

	budget_init(&b, 512 * MiB, 8 * MiB);
	lim.usage = 950 * MiB;
	now = budget_step(&b, &lim, 100 * MiB, t += 1);
	ok(now <= 50 * MiB, "others use 850 of a 1000 MiB limit: at most "
	   "the 90 %% headroom, 50 MiB (got %llu MiB)",
	   (unsigned long long)(now / MiB));
	lim.usage = 990 * MiB;
	now = budget_step(&b, &lim, 400 * MiB, t += 300000000);
	ok(now <= 310 * MiB, "usage at 99 %% of the limit counts as "
	   "pressure (got %llu MiB)", (unsigned long long)(now / MiB));
	lim.usage = 2000 * MiB;
	is_u64(budget_step(&b, &lim, 0, t += 300000000), 8 * MiB,
	       "never below the floor");
}

static void test_stride(void)
{
	struct stride s = { 0 };
	const unsigned int L = STRIDE_DEPTH_LIMIT;
	unsigned int depth;
	int64_t st;

	ok(!stride_observe(&s, 1, 100, false, L, &depth), "first miss: no stride");
	ok(!stride_observe(&s, 1, 108, false, L, &depth), "one step: not yet");
	st = stride_observe(&s, 1, 116, false, L, &depth);
	ok(st == 8 && depth == 2, "two steps of 8: stride 8, 2 ahead");
	st = stride_observe(&s, 1, 124, false, L, &depth);
	ok(st == 8 && depth == 4, "three: 4 ahead");
	st = stride_observe(&s, 1, 132, false, L, &depth);
	ok(st == 8 && depth == STRIDE_MAX_DEPTH, "four: the maximum ahead");
	st = stride_observe(&s, 1, 132 + 9 * 8, false, L, &depth);
	ok(st == 8, "a jump of 9 strides (fetched ahead) keeps the run");
	ok(!stride_observe(&s, 1, 50, false, L, &depth), "a step back breaks it");
	ok(!stride_observe(&s, 2, 58, false, L, &depth), "another mapping starts over");
	ok(!stride_observe(&s, 2, 58, false, L, &depth) && !depth,
	   "the same block again: nothing");
	st = stride_observe(&s, 2, 57, false, L, &depth);
	ok(!st, "then -1: one step");
	st = stride_observe(&s, 2, 56, false, L, &depth);
	ok(st == -1 && depth == 2, "backwards strides work too");

	/* Late: the thread caught up with blocks fetched ahead that have
	 * not arrived (a store slower than the prefetch covers). */
	s = (struct stride){ 0 };
	for (st = 0; st < 4; st++)
		stride_observe(&s, 1, st * 8, true, L, &depth);
	ok(depth == 4, "late before the run holds: 4 ahead, as on time");
	stride_observe(&s, 1, 4 * 8, true, L, &depth);
	is_u64(depth, 2 * STRIDE_MAX_DEPTH, "late once the run holds: twice "
	       "as far ahead");
	stride_observe(&s, 1, 5 * 8, false, L, &depth);
	is_u64(depth, 2 * STRIDE_MAX_DEPTH, "on time: stays");
	for (st = 6; st < 12; st++)
		stride_observe(&s, 1, st * 8, true, L, &depth);
	is_u64(depth, STRIDE_DEPTH_LIMIT, "late again and again: at most "
	       "the limit");
	st = stride_observe(&s, 1, 11 * 8 + (2 * STRIDE_DEPTH_LIMIT + 1) * 8,
			    false, L, &depth);
	ok(st == 8, "a jump of twice the deeper run (fetched ahead) keeps it");
	for (st = 1; st <= 6; st++)	/* a break, then steps of 5 */
		stride_observe(&s, 1, st * 5, false, L, &depth);
	is_u64(depth, STRIDE_MAX_DEPTH, "a new run starts from the usual "
	       "depth");

	/* The limit follows the channels' depth: a busy store keeps them
	 * at their least, and late misses there go no further ahead. */
	is_u64(stride_limit(8, 8), STRIDE_MAX_DEPTH, "depth at its least: "
	       "the usual depth ahead");
	is_u64(stride_limit(32, 8), 4 * STRIDE_MAX_DEPTH, "four times the "
	       "depth: four times as far");
	is_u64(stride_limit(256, 8), STRIDE_DEPTH_LIMIT, "at most the limit");
	is_u64(stride_limit(1, 8), STRIDE_MAX_DEPTH, "never below the usual");
	is_u64(stride_limit(4, 0), 4 * STRIDE_MAX_DEPTH, "a least of 0: 1");
	s = (struct stride){ 0 };
	for (st = 0; st < 12; st++)
		stride_observe(&s, 1, st * 8, true, STRIDE_MAX_DEPTH, &depth);
	is_u64(depth, STRIDE_MAX_DEPTH, "late on a busy store (limit 8): "
	       "no deeper");
	for (st = 12; st < 16; st++)
		stride_observe(&s, 1, st * 8, true, 32, &depth);
	is_u64(depth, 32, "the channels deepen: late misses follow, to 32");
	stride_observe(&s, 1, 16 * 8, false, 16, &depth);
	is_u64(depth, 16, "the channels go back: so does the run");
}

static void test_buckets(void)
{
	is_u64(size_bucket(4096, 16), 0, "4 KiB: bucket 0");
	is_u64(size_bucket(8191, 16), 0, "8 KiB - 1: bucket 0");
	is_u64(size_bucket(8192, 16), 1, "8 KiB: bucket 1");
	is_u64(size_bucket(64 << 10, 16), 4, "64 KiB: bucket 4");
	is_u64(size_bucket(1 << 20, 16), 8, "1 MiB: bucket 8");
	is_u64(size_bucket(1ULL << 40, 16), 15, "huge: the last bucket");
	is_u64(size_bucket(100, 16), 0, "tiny: bucket 0");
}

int main(void)
{
	test_growth();
	test_growth_held();
	test_depth();
	test_budget();
	test_stride();
	test_buckets();
	return tap_done();
}
