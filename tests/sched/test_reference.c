// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler core against an independent reference: random scenarios
 * (users, arrival times, request sizes, f tables, weights, overhead,
 * latency) replayed in a floating-point processor-sharing model written
 * from the definition in Documentation/model.rst, one event at a time.
 * Every request must leave the bandwidth stage when the reference says,
 * up to the core's clock: each departure is rounded up to the next ns, and
 * that can shift later ones by the ratio of the fastest to the slowest
 * per-user rate.
 *
 * Grace is 0 here: with grace, a user's share accrues while it idles, which
 * the small hand-computed cases in test_sched.c cover.
 */
#include <stdlib.h>
#include <string.h>

#include "module/fnblk_sched.h"
#include "tap.h"

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

static void make_scenario(struct scenario *sc, unsigned int k)
{
	uint64_t t = 0;
	unsigned int i;

	memset(sc, 0, sizeof(*sc));
	sc->p.bw = (1 + rnd(64)) << 20;			/* 1..64 MiB/s */
	sc->p.policy = k % 3 == 2 ? FNBLK_POLICY_WEIGHTED : FNBLK_POLICY_ANON;
	sc->p.overhead = rnd(2) ? rnd(65536) : 0;
	sc->p.latency_ns = rnd(2) ? rnd(5000000) : 0;
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

/* Per-user rate (bytes/ns) of user u now, given who is active. */
static long double ref_rate(const struct scenario *sc, const bool *active,
			    unsigned int u)
{
	unsigned int i, n = 0;
	uint64_t wsum = 0;
	long double f;

	for (i = 0; i < sc->users; i++) {
		if (active[i]) {
			n++;
			wsum += sc->weight[i];
		}
	}
	f = (long double)fnblk_fn_value(&sc->p.fn, n) / FNBLK_FN_ONE;
	return f * sc->p.bw * 1e-9L * sc->weight[u] / (long double)wsum;
}

/*
 * Processor sharing by the definition: each active user's head request is
 * served at its rate; a user's requests go one after the other; a user is
 * active while it has a request queued (grace 0).
 */
static void reference(struct scenario *sc)
{
	int head[MAX_USERS];
	bool active[MAX_USERS];
	unsigned int next = 0, i, u, best;
	long double t = 0, dt, step;

	for (i = 0; i < sc->reqs; i++)
		sc->r[i].left = (long double)(sc->r[i].bytes + sc->p.overhead);
	for (;;) {
		/* Head of each user: its earliest arrived, unfinished request. */
		for (u = 0; u < sc->users; u++) {
			head[u] = -1;
			for (i = 0; i < next; i++)
				if (sc->r[i].user == u && sc->r[i].left > 0) {
					head[u] = (int)i;
					break;
				}
			active[u] = head[u] >= 0;
		}
		dt = next < sc->reqs ? (long double)sc->r[next].arrive - t : -1;
		best = MAX_USERS;
		step = 0;
		for (u = 0; u < sc->users; u++) {
			long double need;

			if (!active[u])
				continue;
			need = sc->r[head[u]].left / ref_rate(sc, active, u);
			if (best == MAX_USERS || need < step) {
				best = u;
				step = need;
			}
		}
		if (best == MAX_USERS && next >= sc->reqs)
			return;
		if (best == MAX_USERS || (dt >= 0 && dt <= step))
			step = dt;
		for (u = 0; u < sc->users; u++)
			if (active[u])
				sc->r[head[u]].left -= step * ref_rate(sc, active, u);
		t += step;
		/* Every head served to within rounding leaves now. */
		for (u = 0; u < sc->users; u++)
			if (active[u] && sc->r[head[u]].left < 1e-6L) {
				sc->r[head[u]].left = 0;
				sc->r[head[u]].leave = t;
			}
		while (next < sc->reqs && (long double)sc->r[next].arrive <= t)
			next++;
	}
}

static void core_complete(struct fnblk_sched *s, struct fnblk_req *rq)
{
	(void)s;
	((struct ref_req *)rq)->done = rq->due_ns;
}

static const struct fnblk_sched_ops core_ops = { .complete = core_complete };

static void run_core(struct scenario *sc)
{
	struct fnblk_user users[MAX_USERS];
	struct fnblk_sched s;
	unsigned int i;
	uint64_t t;

	fnblk_sched_init(&s, &sc->p, &core_ops, NULL, 0);
	for (i = 0; i < sc->users; i++) {
		fnblk_user_init(&users[i], i);
		fnblk_sched_set_weight(&s, &users[i], sc->weight[i], 0);
	}
	for (i = 0; i < sc->reqs; i++) {
		while ((t = fnblk_sched_next_event(&s)) <= sc->r[i].arrive)
			fnblk_sched_run(&s, t);
		sc->r[i].rq.bytes = sc->r[i].bytes;
		sc->r[i].rq.write = true;
		fnblk_sched_submit(&s, &users[sc->r[i].user], &sc->r[i].rq,
				   sc->r[i].arrive);
	}
	while ((t = fnblk_sched_next_event(&s)) != FNBLK_NEVER)
		fnblk_sched_run(&s, t);
}

/* Fastest over slowest per-user rate the scenario can see, times events. */
static long double clock_bound(const struct scenario *sc)
{
	uint32_t fmin = ~0U, fmax = 0, wmin = ~0U, wmax = 0;
	unsigned int i;

	for (i = 0; i < sc->p.fn.nr; i++) {
		fmin = sc->p.fn.val[i] < fmin ? sc->p.fn.val[i] : fmin;
		fmax = sc->p.fn.val[i] > fmax ? sc->p.fn.val[i] : fmax;
	}
	for (i = 0; i < sc->users; i++) {
		wmin = sc->weight[i] < wmin ? sc->weight[i] : wmin;
		wmax = sc->weight[i] > wmax ? sc->weight[i] : wmax;
	}
	return 2.0L * sc->reqs * ((long double)fmax / fmin) * sc->users *
	       ((long double)wmax * sc->users / wmin) + 2;
}

int main(void)
{
	static struct scenario sc;
	unsigned int k, i, bad_leave = 0, bad_done = 0, worst_k = 0;
	long double err, worst = 0, worst_rel = 0;

	for (k = 0; k < SCENARIOS; k++) {
		make_scenario(&sc, k);
		reference(&sc);
		run_core(&sc);
		for (i = 0; i < sc.reqs; i++) {
			err = (long double)sc.r[i].rq.leave_ns - sc.r[i].leave;
			if (err < 0)
				err = -err;
			if (err > worst) {
				worst = err;
				worst_k = k;
			}
			if (err / clock_bound(&sc) > worst_rel)
				worst_rel = err / clock_bound(&sc);
			if (err > clock_bound(&sc))
				bad_leave++;
			if (sc.r[i].done != sc.r[i].rq.leave_ns + sc.p.latency_ns)
				bad_done++;
		}
	}
	ok(bad_leave == 0,
	   "%d random scenarios (anon and weighted, f tables, overhead): every departure as in the reference (worst %.1Lf ns, scenario %u; %.2Lf of the clock bound)",
	   SCENARIOS, worst, worst_k, worst_rel);
	ok(bad_done == 0,
	   "every completion is its departure plus the latency (%u not)",
	   bad_done);
	return tap_done();
}
