// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler core against a second, independent reference, with grace:
 * the virtual-time definition of Documentation/model.rst evaluated in long
 * double, event by event, for random scenarios (scenario.h) with a grace of
 * 1 to 20 ms. Definition, as the reference implements it:
 *
 *  - a user is active from a submission while inactive until grace after
 *    its last completion (service, then latency) with nothing in flight;
 *  - V grows at f(n)*B/W per unit weight while anyone is active (W = n,
 *    or the sum of the active users' weights under weighted), and restarts
 *    at 0 when nobody is;
 *  - a request's finish tag is demand/w past the previous tag of its user
 *    if the user is backlogged; past the later of that tag and V at the
 *    user's last completion (at most V) if the user is active with nothing
 *    in the bandwidth stage (waiting out a latency, or in its grace); else
 *    past V. It leaves when V reaches its tag and completes latency later;
 *    a request that leaves with V already past its tag (it resumed with
 *    more credit than its demand) counts its completion that much earlier
 *    in V, up to a grace of the user's share and up to its own demand;
 *  - when a grace expires and the others' rate rises, V gains what they
 *    would have had since that user's last request left the bandwidth
 *    stage: (V - V at that departure) times the relative rise.
 *
 * A submission that falls within the core's clock error of a grace expiry
 * could go either way, so such scenarios are counted and skipped.
 */
#include "scenario.h"
#include "tap.h"

struct ref_user {
	bool active;
	bool idle;		/* active, nothing in flight: in grace */
	unsigned int queued;	/* requests in the bandwidth stage */
	unsigned int pending;	/* requests not yet completed */
	long double idle_since;	/* when the last completion came */
	long double tail;	/* finish tag of its last request */
	long double done_v;	/* V at its last completion */
	long double leave_v;	/* V when it started idling */
	uint32_t weight;
};

/* V per ns: f(n) * B / W bytes per unit weight. */
static long double v_rate(const struct scenario *sc, const struct ref_user *u)
{
	unsigned int i, n = 0;
	uint64_t wsum = 0;
	long double f;

	for (i = 0; i < sc->users; i++) {
		if (u[i].active) {
			n++;
			wsum += u[i].weight;
		}
	}
	if (!n)
		return 0;
	f = (long double)fnblk_fn_value(&sc->p.fn, n) / FNBLK_FN_ONE;
	return f * sc->p.bw * 1e-9L / (long double)wsum;
}

/* Returns false when an arrival is too close to a grace expiry to judge. */
static bool reference_grace(struct scenario *sc, long double margin)
{
	struct ref_user u[MAX_USERS];
	long double tag[MAX_REQS], due[MAX_REQS], late[MAX_REQS], dem[MAX_REQS];
	long double t = 0, v = 0, rate, next_t, tg;
	bool queued[MAX_REQS] = { false }, pending[MAX_REQS] = { false };
	long double latency = (long double)sc->p.latency_ns;
	long double grace = (long double)sc->p.grace_ns;
	unsigned int next = 0, i, k, best;
	bool judged = true;

	for (i = 0; i < sc->users; i++)
		u[i] = (struct ref_user){ .weight = sc->weight[i] };
	for (;;) {
		rate = v_rate(sc, u);
		/* Next departure: the smallest tag among queued heads. */
		best = MAX_REQS;
		for (i = 0; i < next; i++)
			if (queued[i] && (best == MAX_REQS || tag[i] < tag[best]))
				best = i;
		next_t = INFINITY;
		if (best < MAX_REQS)	/* a resumed request may be due already */
			next_t = tag[best] <= v ? t : t + (tag[best] - v) / rate;
		/* Next grace expiry. */
		for (k = 0; k < sc->users; k++) {
			tg = u[k].idle_since + grace;
			if (u[k].idle && tg < next_t)
				next_t = tg;
		}
		/* Next completion. */
		for (i = 0; i < next; i++)
			if (pending[i] && due[i] < next_t)
				next_t = due[i];
		if (next < sc->reqs && (long double)sc->r[next].arrive < next_t)
			next_t = (long double)sc->r[next].arrive;
		if (next_t == INFINITY)
			return judged;
		v += (next_t - t) * rate;
		t = next_t;
		/* Departures first, then grace expiries, then arrivals. */
		for (i = 0; i < next; i++) {
			if (!queued[i] || tag[i] > v + 1e-6L)
				continue;
			queued[i] = false;
			sc->r[i].leave = t;
			pending[i] = true;
			due[i] = t + latency;
			/* V past its tag (a resumed request), up to a grace
			 * of share and up to its own demand. */
			late[i] = v - tag[i] > 1e-6L ? v - tag[i] : 0;
			if (late[i] > grace * rate)
				late[i] = grace * rate;
			if (late[i] > dem[i])
				late[i] = dem[i];
			if (!--u[sc->r[i].user].queued)
				u[sc->r[i].user].leave_v = v;
		}
		/* Completions, after the departures they may follow at once. */
		for (i = 0; i < next; i++) {
			struct ref_user *ru = &u[sc->r[i].user];

			if (pending[i] && due[i] <= t + 1e-6L) {
				pending[i] = false;
				ru->done_v = v - late[i];
				if (!--ru->pending) {
					ru->idle = true;
					ru->idle_since = t;
				}
			}
		}
		for (k = 0; k < sc->users; k++) {
			if (u[k].idle && u[k].idle_since + grace <= t + 1e-6L) {
				long double before = v_rate(sc, u), after;

				u[k].idle = false;
				u[k].active = false;
				after = v_rate(sc, u);
				if (after > before && before > 0)
					v += (v - u[k].leave_v) * (after / before - 1);
			}
		}
		if (v_rate(sc, u) == 0)
			v = 0;	/* nobody active: V restarts */
		while (next < sc->reqs && (long double)sc->r[next].arrive <= t) {
			struct ref_req *r = &sc->r[next];
			struct ref_user *ru = &u[r->user];
			long double demand = (long double)(r->bytes + sc->p.overhead) /
					     (sc->p.policy == FNBLK_POLICY_WEIGHTED ?
					      ru->weight : 1);
			long double base = v;

			if (ru->idle && fabsl(ru->idle_since + grace - t) < margin)
				judged = false;
			if (ru->queued) {
				base = ru->tail;		/* backlogged */
			} else if (ru->active) {		/* resumes */
				base = ru->tail > ru->done_v ? ru->tail :
							       ru->done_v;
				if (base > v)
					base = v;
			} else {
				ru->done_v = 0;			/* a new period */
			}
			ru->active = true;
			ru->idle = false;
			ru->queued++;
			ru->pending++;
			tag[next] = base + demand;
			dem[next] = demand;
			ru->tail = tag[next];
			queued[next] = true;
			next++;
		}
	}
}

int main(void)
{
	static struct scenario sc;
	unsigned int k, i, bad = 0, checked = 0, worst_k = 0;
	long double err, bound, worst = 0, worst_rel = 0;

	for (k = 0; k < SCENARIOS; k++) {
		make_scenario(&sc, k, 1000000 + rnd(19000000));
		bound = clock_bound(&sc, 4e11L);
		if (!reference_grace(&sc, 4 * bound))
			continue;
		run_core(&sc);
		checked++;
		for (i = 0; i < sc.reqs; i++) {
			err = fabsl((long double)sc.r[i].rq.leave_ns - sc.r[i].leave);
			bound = clock_bound(&sc, sc.r[i].leave);
			if (err > worst) {
				worst = err;
				worst_k = k;
			}
			if (err / bound > worst_rel)
				worst_rel = err / bound;
			if (err > bound)
				bad++;
		}
	}
	ok(checked >= SCENARIOS * 9 / 10,
	   "%u of %d random scenarios with grace were unambiguous", checked,
	   SCENARIOS);
	ok(bad == 0,
	   "with grace (resume within grace, V restarts): every departure as in the reference (worst %.1Lf ns, scenario %u; %.2Lf of the clock bound; %u off)",
	   worst, worst_k, worst_rel, bad);
	return tap_done();
}
