// SPDX-License-Identifier: GPL-2.0
/*
 * What cluster_ns.sh's exact share check (cluster_served_at in
 * selftests/fnblk/lib_cluster.sh) relies on: a request whose service
 * starts the moment the previous request of its user left, that one having
 * waited for its turn (service > 0), and that is served with n constant
 * throughout, its departure's ns included, takes exactly
 * (bytes + overhead) / (f(n) B / n) to the core's rounding (tolerance_ns).
 * Checked in the random anon scenarios of scenario.h (any f, latency,
 * overhead and grace, credit carried between requests) with the hooks the
 * module turns into its tracepoints; and that requests the rule leaves out
 * can legitimately differ, so the rule is needed.
 */
#include <math.h>

#include "scenario.h"
#include "tap.h"

#define MS		1000000ULL
#define MAX_CHANGES	(4 * MAX_REQS)

struct departure {
	unsigned int user;
	uint64_t bytes, start_ns, leave_ns;
	uint32_t n;
};

struct traced {
	struct fnblk_sched s;
	struct departure dep[MAX_REQS];
	uint64_t change[MAX_CHANGES];	/* times n changed, in order */
	unsigned int nr_dep, nr_change;
};

static void on_depart(struct fnblk_sched *s, const struct fnblk_req *rq)
{
	struct traced *t = s->priv;

	t->dep[t->nr_dep++] = (struct departure){
		.user = (unsigned int)rq->user->key,
		.bytes = rq->bytes,
		.start_ns = rq->start_ns,
		.leave_ns = rq->leave_ns,
		.n = s->nr_active,
	};
}

static void on_activity(struct fnblk_sched *s, struct fnblk_user *u,
			bool active, u64 when)
{
	struct traced *t = s->priv;

	(void)u;
	(void)active;
	if (t->nr_change < MAX_CHANGES)
		t->change[t->nr_change++] = when;
}

static void on_complete(struct fnblk_sched *s, struct fnblk_req *rq)
{
	(void)s;
	(void)rq;
}

static const struct fnblk_sched_ops traced_ops = {
	.complete = on_complete,
	.activity = on_activity,
	.depart = on_depart,
};

/*
 * n changed at some time c with a <= c <= b: a change at b may be what
 * let the request go (a user leaving releases its held share at once).
 */
static bool changed(const struct traced *t, uint64_t a, uint64_t b)
{
	unsigned int i;

	for (i = 0; i < t->nr_change; i++)
		if (t->change[i] >= a && t->change[i] <= b)
			return true;
	return false;
}

/*
 * How far the core may be from that: each step rounded up to 1 ns (the
 * request's own and its predecessor's end), and its rate, a fixed-point
 * number with 32 fraction bits of V units per ns, rounded down, so V runs
 * slow by at most one part in the rate (a 4 KiB request at 2 MiB/s: 3 ns).
 */
static long double tolerance_ns(const struct fnblk_params *p, long double ideal,
				uint32_t n)
{
	uint32_t f = p->fn.val[(n < p->fn.nr ? n : p->fn.nr) - 1];
	long double rate = floorl((long double)p->bw * f * (1 << 24) / (1e9L * n));

	return 3 + 2 * ideal / rate;
}

/* Service the model gives (bytes + overhead) at n users, in ns. */
static long double share_ns(const struct fnblk_params *p, uint64_t bytes,
			    uint32_t n)
{
	uint32_t f = p->fn.val[(n < p->fn.nr ? n : p->fn.nr) - 1];

	return (long double)(bytes + p->overhead) * n * 1e9L * FNBLK_FN_ONE /
	       ((long double)f * p->bw);
}

static void run_traced(struct traced *t, struct scenario *sc)
{
	memset(t, 0, sizeof(*t));
	run_core_ops(sc, &t->s, &traced_ops, t);
}

static void test_scenarios(void)
{
	static struct scenario sc;
	static struct traced t;
	unsigned int k, i, j, counted = 0, bad = 0, left_out_differ = 0;
	long double worst = 0, off, ideal, tol;

	for (k = 0; k < SCENARIOS; k++) {
		make_scenario(&sc, k, rnd(2) ? rnd(20 * MS) : FNBLK_DEFAULT_GRACE_NS);
		if (sc.p.policy != FNBLK_POLICY_ANON)
			continue;
		run_traced(&t, &sc);
		for (i = 0; i < t.nr_dep; i++) {
			const struct departure *r = &t.dep[i], *q = NULL;
			bool follows;

			for (j = i; j-- > 0;)
				if (t.dep[j].user == r->user) {
					q = &t.dep[j];
					break;
				}
			if (changed(&t, r->start_ns, r->leave_ns))
				continue;
			ideal = share_ns(&sc.p, r->bytes, r->n);
			off = fabsl((long double)(r->leave_ns - r->start_ns) - ideal);
			tol = tolerance_ns(&sc.p, ideal, r->n);
			follows = q && q->leave_ns == r->start_ns &&
				  q->leave_ns > q->start_ns;
			if (!follows) {
				left_out_differ += off > tol;
				continue;
			}
			counted++;
			if (off > worst)
				worst = off;
			if (off > tol && bad++ < 5)
				diag("scenario %u departure %u: %.1Lf ns off", k, i, off);
		}
	}
	diag("%u requests counted, worst %.2Lf ns off; %u left out that differ by more",
	     counted, worst, left_out_differ);
	ok(counted >= 100, "the random anon scenarios hold requests the rule counts");
	is_u64(bad, 0, "each one served in (bytes + overhead) / (f(n) B / n), to the core's rounding");
	ok(left_out_differ > 0, "some the rule leaves out are not (resumed with credit): the rule is needed");
}

int main(void)
{
	test_scenarios();
	return tap_done();
}
