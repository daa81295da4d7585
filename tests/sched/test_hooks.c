// SPDX-License-Identifier: GPL-2.0
/*
 * The core's tracing hooks (fnblk_sched_ops.start and .depart, which the
 * module turns into the fnblk_service_start and fnblk_depart tracepoints):
 * every request reports its start once and its departure once, in order,
 * at the times it records, in hand-computed cases and in the random
 * scenarios of scenario.h; and hooks change nothing the core computes.
 */
#include "scenario.h"
#include "tap.h"

#define MS	1000000ULL
#define BW	100000000ULL	/* 1e8 B/s: S = 1e6 B takes 10 ms alone */
#define S	1000000ULL

/* What the hooks saw of one request, in the order they were called. */
struct seen {
	unsigned int starts, departs, completes;
	unsigned int start_seq, depart_seq, complete_seq;
	bool start_now, depart_now;	/* reported at the time they record */
	uint64_t start_ns, leave_ns, done_ns;
};

struct hooked {
	struct fnblk_sched s;
	struct ref_req *reqs;		/* the scenario's requests, or NULL */
	struct seen seen[MAX_REQS];
	struct fnblk_req *rq[MAX_REQS];
	unsigned int nr, seq;
};

static struct seen *seen_of(struct hooked *h, const struct fnblk_req *rq)
{
	unsigned int i;

	for (i = 0; i < h->nr; i++)
		if (h->rq[i] == rq)
			return &h->seen[i];
	diag("a hook reported a request that was never submitted");
	exit(1);
}

static void on_start(struct fnblk_sched *s, const struct fnblk_req *rq)
{
	struct hooked *h = s->priv;
	struct seen *w = seen_of(h, rq);

	w->starts++;
	w->start_seq = ++h->seq;
	w->start_ns = rq->start_ns;
	w->start_now = rq->start_ns == s->now;
}

static void on_depart(struct fnblk_sched *s, const struct fnblk_req *rq)
{
	struct hooked *h = s->priv;
	struct seen *w = seen_of(h, rq);

	w->departs++;
	w->depart_seq = ++h->seq;
	w->leave_ns = rq->leave_ns;
	/* Outside the pool the departure is decided ahead, at submission. */
	w->depart_now = rq->shared ? rq->leave_ns == s->now :
				     rq->start_ns == s->now;
}

static void on_complete(struct fnblk_sched *s, struct fnblk_req *rq)
{
	struct hooked *h = s->priv;
	struct seen *w = seen_of(h, rq);

	w->completes++;
	w->complete_seq = ++h->seq;
	w->done_ns = rq->done_ns;
	if (h->reqs)
		((struct ref_req *)rq)->done = rq->due_ns;
}

static const struct fnblk_sched_ops hooked_ops = {
	.complete = on_complete,
	.start = on_start,
	.depart = on_depart,
};

static void hooked_init(struct hooked *h, const struct fnblk_params *p)
{
	memset(h, 0, sizeof(*h));
	fnblk_sched_init(&h->s, p, &hooked_ops, h, 0);
}

static void hooked_submit(struct hooked *h, struct fnblk_user *u,
			  struct fnblk_req *rq, uint64_t bytes, bool write,
			  uint64_t now)
{
	memset(rq, 0, sizeof(*rq));
	rq->bytes = bytes;
	rq->write = write;
	h->rq[h->nr++] = rq;
	fnblk_sched_submit(&h->s, u, rq, now);
}

static void run_all(struct fnblk_sched *s)
{
	uint64_t t;

	while ((t = fnblk_sched_next_event(s)) != FNBLK_NEVER)
		fnblk_sched_run(s, t);
}

static struct fnblk_params params(uint64_t bw)
{
	struct fnblk_params p;

	fnblk_params_default(&p);
	p.bw = bw;
	p.grace_ns = 0;
	return p;
}

/* Two users, one request each, then a second request queued behind. */
static void test_two_users(void)
{
	struct fnblk_params p = params(BW);
	struct fnblk_user u[2];
	struct fnblk_req rq[3];
	struct hooked h;

	p.latency_ns = 1 * MS;
	hooked_init(&h, &p);
	fnblk_user_init(&u[0], 1);
	fnblk_user_init(&u[1], 2);
	hooked_submit(&h, &u[0], &rq[0], S, true, 0);
	hooked_submit(&h, &u[0], &rq[1], S, true, 0);
	hooked_submit(&h, &u[1], &rq[2], S, true, 0);
	ok(h.seen[0].starts == 1 && h.seen[2].starts == 1 && !h.seen[1].starts,
	   "each user's head starts at submission; the request behind waits");
	run_all(&h.s);
	is_u64(h.seen[0].start_ns, 0, "head of user 1 starts at 0");
	at(h.seen[0].leave_ns, 20 * MS, 1, "and departs at 2S/B (n = 2)");
	at(h.seen[1].start_ns, 20 * MS, 1,
	   "the request behind starts when its predecessor departs");
	is_u64(h.seen[1].start_ns, h.seen[0].leave_ns,
	       "exactly at that departure");
	at(h.seen[1].leave_ns, 30 * MS, 1, "and departs S/B later, alone");
	at(h.seen[1].done_ns, 31 * MS, 1, "completing a latency after that");
}

/* Outside the pool (users=writes: a read) and unthrottled. */
static void test_unshared_and_unthrottled(void)
{
	struct fnblk_params p = params(BW);
	struct fnblk_user u;
	struct fnblk_req rq;
	struct hooked h;

	p.users = FNBLK_USERS_WRITES;
	hooked_init(&h, &p);
	fnblk_user_init(&u, 1);
	hooked_submit(&h, &u, &rq, S, false, 5 * MS);
	ok(h.seen[0].starts == 1 && h.seen[0].departs == 1,
	   "a read outside the pool reports start and departure at submission");
	is_u64(h.seen[0].start_ns, 5 * MS, "its start is its submission");
	is_u64(h.seen[0].leave_ns, 15 * MS,
	       "its departure is S/B ahead (served at the full rate)");
	run_all(&h.s);
	is_u64(h.seen[0].completes, 1, "and it completes once");

	p = params(0);
	hooked_init(&h, &p);
	fnblk_user_init(&u, 1);
	hooked_submit(&h, &u, &rq, S, true, 7 * MS);
	ok(h.seen[0].starts == 1 && h.seen[0].departs == 1 &&
	   h.seen[0].completes == 1,
	   "unthrottled: start, departure and completion within the submission");
	ok(h.seen[0].start_ns == 7 * MS && h.seen[0].leave_ns == 7 * MS,
	   "unthrottled: no service time");
}

/* What is wrong with what the hooks saw of request i, or NULL. */
static const char *request_fault(const struct seen *w,
				 const struct scenario *sc, unsigned int i)
{
	if (w->starts != 1 || w->departs != 1 || w->completes != 1)
		return "not one start, one departure and one completion";
	if (!(w->start_seq < w->depart_seq && w->depart_seq <= w->complete_seq))
		return "hooks out of order";
	if (!w->start_now || !w->depart_now)
		return "a hook ran at another time than it reports";
	if (w->start_ns < sc->r[i].arrive || w->leave_ns < w->start_ns ||
	    w->leave_ns + sc->p.latency_ns > w->done_ns)
		return "times not in the order submit, start, leave, done";
	return NULL;
}

/* Every request of scenario k as it should be; describe a miss if verbose. */
static bool check_scenario(const struct hooked *h, const struct scenario *sc,
			   unsigned int k, bool verbose)
{
	const char *why;
	unsigned int i;

	for (i = 0; i < sc->reqs; i++) {
		why = request_fault(&h->seen[i], sc, i);
		if (!why)
			continue;
		if (verbose)
			diag("scenario %u request %u: %s", k, i, why);
		return false;
	}
	return true;
}

static void test_scenarios(void)
{
	static struct scenario sc, plain;
	struct fnblk_user users[MAX_USERS];
	static struct hooked h;
	unsigned int k, i, bad = 0, differ = 0;
	uint64_t t;

	for (k = 0; k < SCENARIOS; k++) {
		make_scenario(&sc, k, rnd(2) ? rnd(20 * MS) : 0);
		plain = sc;
		run_core(&plain);		/* the same scenario without hooks */

		hooked_init(&h, &sc.p);
		h.reqs = sc.r;
		for (i = 0; i < sc.users; i++) {
			fnblk_user_init(&users[i], i);
			fnblk_sched_set_weight(&h.s, &users[i], sc.weight[i], 0);
		}
		for (i = 0; i < sc.reqs; i++) {
			while ((t = fnblk_sched_next_event(&h.s)) <= sc.r[i].arrive)
				fnblk_sched_run(&h.s, t);
			h.rq[h.nr++] = &sc.r[i].rq;
			sc.r[i].rq.bytes = sc.r[i].bytes;
			sc.r[i].rq.write = true;
			fnblk_sched_submit(&h.s, &users[sc.r[i].user],
					   &sc.r[i].rq, sc.r[i].arrive);
		}
		run_all(&h.s);
		/* Diagnostics for the first few failures only. */
		if (!check_scenario(&h, &sc, k, bad < 5))
			bad++;
		for (i = 0; i < sc.reqs; i++)
			if (sc.r[i].done != plain.r[i].done)
				differ++;
	}
	is_u64(bad, 0, "%d random scenarios: one start and one departure per request, in order, at the times reported",
	       SCENARIOS);
	is_u64(differ, 0, "the same scenarios without hooks complete every request at the same time");
}

int main(void)
{
	test_two_users();
	test_unshared_and_unthrottled();
	test_scenarios();
	return tap_done();
}
