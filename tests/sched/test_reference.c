// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler core against an independent reference: random scenarios
 * (users, arrival times, request sizes, f tables, weights, overhead)
 * replayed in a floating-point processor-sharing model written
 * from the definition in Documentation/model.rst, one event at a time.
 * Every request must leave the bandwidth stage when the reference says,
 * up to the core's clock: each departure is rounded up to the next ns, and
 * that can shift later ones by the ratio of the fastest to the slowest
 * per-user rate.
 *
 * Grace and latency are 0 here, and the model is processor sharing itself
 * (remaining bytes per request), not the core's virtual time. (A user
 * waiting out a latency stays counted in n until its completion is
 * delivered, and then releases its share retroactively: test_grace.c
 * checks those rules against a virtual-time model.)
 */
#include "scenario.h"
#include "tap.h"

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

int main(void)
{
	static struct scenario sc;
	unsigned int k, i, bad_leave = 0, bad_done = 0, worst_k = 0;
	long double err, bound, worst = 0, worst_rel = 0;

	for (k = 0; k < SCENARIOS; k++) {
		make_scenario(&sc, k, 0);
		sc.p.latency_ns = 0;
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
			bound = clock_bound(&sc, sc.r[i].leave);
			if (err / bound > worst_rel)
				worst_rel = err / bound;
			if (err > bound)
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
