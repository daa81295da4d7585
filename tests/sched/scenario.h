/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Random scenarios for the scheduler core and a way to replay them in it:
 * shared by the reference tests (test_reference.c, test_grace.c), which
 * each replay the same scenario in their own floating-point model.
 */
#ifndef FNBLK_TEST_SCENARIO_H
#define FNBLK_TEST_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "module/fnblk_sched.h"

#define MAX_USERS	12
#define MAX_REQS	64
#define SCENARIOS	300

struct ref_req {
	struct fnblk_req rq;
	unsigned int user;
	uint64_t arrive;	/* ns */
	uint64_t bytes;
	uint64_t done;		/* completion reported by the core */
	long double left;	/* reference: demand still to serve */
	long double leave;	/* reference: left the bandwidth stage */
};

struct scenario {
	struct fnblk_params p;
	unsigned int users, reqs;
	uint32_t weight[MAX_USERS];
	struct ref_req r[MAX_REQS];	/* in arrival order */
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(uint64_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state % n;
}

/* Scenario k: policy anon, or weighted for every third; grace as given. */
static void make_scenario(struct scenario *sc, unsigned int k, uint64_t grace_ns)
{
	uint64_t t = 0;
	unsigned int i;

	memset(sc, 0, sizeof(*sc));
	sc->p.bw = (1 + rnd(64)) << 20;			/* 1..64 MiB/s */
	sc->p.policy = k % 3 == 2 ? FNBLK_POLICY_WEIGHTED : FNBLK_POLICY_ANON;
	sc->p.overhead = rnd(2) ? rnd(65536) : 0;
	sc->p.latency_ns = rnd(2) ? rnd(5000000) : 0;
	sc->p.grace_ns = grace_ns;
	sc->p.fn.nr = 1 + (uint32_t)rnd(8);
	for (i = 0; i < sc->p.fn.nr; i++)	/* 0.25 .. 4, any shape */
		sc->p.fn.val[i] = FNBLK_FN_ONE / 4 + (uint32_t)rnd(15 * FNBLK_FN_ONE / 4);
	sc->users = 1 + (unsigned int)rnd(MAX_USERS);
	for (i = 0; i < sc->users; i++)
		sc->weight[i] = sc->p.policy == FNBLK_POLICY_WEIGHTED ?
				1 + (uint32_t)rnd(8) : 1;
	sc->reqs = 1 + (unsigned int)rnd(MAX_REQS);
	for (i = 0; i < sc->reqs; i++) {
		t += rnd(4) ? rnd(20000000) : 0;	/* some arrive together */
		sc->r[i].arrive = t;
		sc->r[i].user = (unsigned int)rnd(sc->users);
		sc->r[i].bytes = 1 + rnd(4 << 20);
	}
}

static void core_complete(struct fnblk_sched *s, struct fnblk_req *rq)
{
	(void)s;
	((struct ref_req *)rq)->done = rq->due_ns;
}

static const struct fnblk_sched_ops core_ops = { .complete = core_complete };

/* Replay sc in the core s, with the host's hooks ops and priv. */
static inline void run_core_ops(struct scenario *sc, struct fnblk_sched *s,
				const struct fnblk_sched_ops *ops, void *priv)
{
	struct fnblk_user users[MAX_USERS];
	unsigned int i;
	uint64_t t;

	fnblk_sched_init(s, &sc->p, ops, priv, 0);
	for (i = 0; i < sc->users; i++) {
		fnblk_user_init(&users[i], i);
		fnblk_sched_set_weight(s, &users[i], sc->weight[i], 0);
	}
	for (i = 0; i < sc->reqs; i++) {
		while ((t = fnblk_sched_next_event(s)) <= sc->r[i].arrive)
			fnblk_sched_run(s, t);
		sc->r[i].rq.bytes = sc->r[i].bytes;
		sc->r[i].rq.write = true;
		fnblk_sched_submit(s, &users[sc->r[i].user], &sc->r[i].rq,
				   sc->r[i].arrive);
	}
	while ((t = fnblk_sched_next_event(s)) != FNBLK_NEVER)
		fnblk_sched_run(s, t);
}

static inline void run_core(struct scenario *sc)
{
	struct fnblk_sched s;

	run_core_ops(sc, &s, &core_ops, NULL);
}

/*
 * How late the core may be on a departure at time t (ns), from its two
 * roundings: each event is rounded up to the next ns, which can delay a
 * later departure by the ratio of the fastest to the slowest per-user rate;
 * and the rate itself is a fixed-point number (32 fraction bits of V units
 * per ns) rounded down, so V runs slow by at most one unit in the rate.
 */
static inline long double clock_bound(const struct scenario *sc, long double t)
{
	uint32_t fmin = ~0U, fmax = 0, wmin = ~0U;
	uint64_t wsum = 0;
	long double ratio, rate_min;
	unsigned int i;

	for (i = 0; i < sc->p.fn.nr; i++) {
		fmin = sc->p.fn.val[i] < fmin ? sc->p.fn.val[i] : fmin;
		fmax = sc->p.fn.val[i] > fmax ? sc->p.fn.val[i] : fmax;
	}
	for (i = 0; i < sc->users; i++) {
		wmin = sc->weight[i] < wmin ? sc->weight[i] : wmin;
		wsum += sc->weight[i];
	}
	ratio = (long double)fmax / fmin * ((long double)wsum / wmin);
	/* Smallest rate the core computes: f_min * B / sum of all weights. */
	rate_min = (long double)sc->p.bw * fmin * (1 << 24) / (1e9L * wsum);
	return 2.0L * sc->reqs * ratio + 1 + t / rate_min;
}

#endif /* FNBLK_TEST_SCENARIO_H */
