// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the scheduler core (module/fnblk_sched.c): small
 * cases whose answers are computed by hand. Times are exact up to the
 * core's clock, which rounds a service end up to the next ns, so a result
 * may be at most 1 ns late per rate change it went through.
 */
#include <stdlib.h>
#include <string.h>

#include "module/fnblk_sched.h"
#include "tap.h"

#define MS	1000000ULL
#define MAX_EVENTS	64

struct host_req {
	struct fnblk_req rq;
	uint64_t done_ns;	/* FNBLK_NEVER until completed */
};

struct activity {
	uint64_t t;
	uint64_t key;
	bool active;
	unsigned int n;
};

struct host {
	struct fnblk_sched s;
	struct activity act[MAX_EVENTS];
	unsigned int nr_act;
	unsigned int completions;
};

static void host_complete(struct fnblk_sched *s, struct fnblk_req *rq)
{
	struct host *h = s->priv;
	struct host_req *r = (struct host_req *)rq;

	r->done_ns = rq->done_ns;
	h->completions++;
}

static void host_activity(struct fnblk_sched *s, struct fnblk_user *u,
			  bool active, u64 t)
{
	struct host *h = s->priv;

	if (h->nr_act < MAX_EVENTS)
		h->act[h->nr_act++] = (struct activity){ t, u->key, active,
							 s->nr_active };
}

static const struct fnblk_sched_ops host_ops = {
	.complete = host_complete,
	.activity = host_activity,
};

static struct fnblk_params params(uint64_t bw, const char *fn)
{
	struct fnblk_params p = { .bw = bw, .policy = FNBLK_POLICY_ANON };
	const char *why;

	if (fnblk_fn_parse(fn, &p.fn, &why)) {
		diag("bad fn %s in a test: %s", fn, why);
		exit(2);
	}
	return p;
}

static void host_init(struct host *h, const struct fnblk_params *p)
{
	memset(h, 0, sizeof(*h));
	fnblk_sched_init(&h->s, p, &host_ops, h, 0);
}

static void submit(struct host *h, struct fnblk_user *u, struct host_req *r,
		   uint64_t bytes, uint64_t now)
{
	memset(r, 0, sizeof(*r));
	r->rq.bytes = bytes;
	r->rq.write = true;
	r->done_ns = FNBLK_NEVER;
	fnblk_sched_submit(&h->s, u, &r->rq, now);
}

/* Run every event, or up to limit. */
static void run_until(struct host *h, uint64_t limit)
{
	uint64_t t;

	while ((t = fnblk_sched_next_event(&h->s)) != FNBLK_NEVER && t <= limit)
		fnblk_sched_run(&h->s, t);
	if (limit != FNBLK_NEVER)
		fnblk_sched_run(&h->s, limit);
}

/* B = 1e8 B/s and S = 1e6 B: 10 ms alone. */
#define BW	100000000ULL
#define S	1000000ULL

static void test_alone(void)
{
	struct fnblk_params p = params(BW, "constant");
	struct host h;
	struct fnblk_user u;
	struct host_req r;

	host_init(&h, &p);
	fnblk_user_init(&u, 1);
	submit(&h, &u, &r, S, 0);
	run_until(&h, FNBLK_NEVER);
	at(r.done_ns, 10 * MS, 1, "one user alone writes S in S/(f(1)B)");

	p = params(BW, "table:0.5");
	host_init(&h, &p);
	fnblk_user_init(&u, 1);
	submit(&h, &u, &r, S, 0);
	run_until(&h, FNBLK_NEVER);
	at(r.done_ns, 20 * MS, 1, "f(1) = 0.5: one user alone takes S/(0.5B)");
}

/* Two writes of S that start together end together after 2S/(f(2)B). */
static void two_together(const char *fn, uint64_t want, const char *name)
{
	struct fnblk_params p = params(BW, fn);
	struct host h;
	struct fnblk_user u[2];
	struct host_req r[2];

	host_init(&h, &p);
	fnblk_user_init(&u[0], 1);
	fnblk_user_init(&u[1], 2);
	submit(&h, &u[0], &r[0], S, 0);
	submit(&h, &u[1], &r[1], S, 0);
	is_u64(h.s.nr_active, 2, "%s: both users are counted in n", name);
	run_until(&h, FNBLK_NEVER);
	at(r[0].done_ns, want, 1, name);
	is_u64(r[1].done_ns, r[0].done_ns, "%s: both finish at once", name);
}

/* power:0.5: f(2) is sqrt(2) to Q16; the time follows that value. */
static void power_together(void)
{
	struct fnblk_fn fn;
	const char *why;
	uint64_t f2, want;

	fnblk_fn_parse("power:0.5", &fn, &why);
	f2 = fnblk_fn_value(&fn, 2);
	want = (uint64_t)(2.0L * S * 1000000000ULL * FNBLK_FN_ONE /
			  ((long double)f2 * BW));
	two_together("power:0.5", want, "power:0.5: 2S/(sqrt(2)B)");
}

static void test_two_together(void)
{
	two_together("constant", 20 * MS, "constant: 2S/B");
	two_together("linear:2", 10 * MS, "linear:2: 2S/(2B)");
	two_together("table:1,1.5", 20 * MS * 2 / 3, "table:1,1.5: 2S/(1.5B)");
	two_together("table:1,0.5", 40 * MS, "decreasing table:1,0.5: 2S/(0.5B)");
	power_together();
}

/*
 * A at 0, B at 5 ms: A alone does S/2, then both at B/2 each: A ends at
 * 15 ms with B half done, and B alone ends at 20 ms.
 */
static void test_staggered(void)
{
	struct fnblk_params p = params(BW, "constant");
	struct host h;
	struct fnblk_user u[2];
	struct host_req r[2];
	uint64_t sum = 0;
	unsigned int i;

	host_init(&h, &p);
	fnblk_user_init(&u[0], 1);
	fnblk_user_init(&u[1], 2);
	submit(&h, &u[0], &r[0], S, 0);
	run_until(&h, 5 * MS);
	submit(&h, &u[1], &r[1], S, 5 * MS);
	run_until(&h, FNBLK_NEVER);
	at(r[0].done_ns, 15 * MS, 1, "staggered: first ends after S/2 alone + S/2 shared");
	at(r[1].done_ns, 20 * MS, 2, "staggered: second ends after the rest alone");

	/* n: 1 for 5 ms, 2 for 10 ms, 1 for 5 ms. */
	for (i = 0; i < FNBLK_NHIST_BINS; i++)
		sum += h.s.n_hist[i];
	is_u64(sum, h.s.now - h.s.stats_since_ns,
	       "n histogram time sums to elapsed");
	at(h.s.n_hist[2], 10 * MS, 1, "n histogram: 10 ms at n = 2");
	at(h.s.n_time_sum, 30 * MS, 3, "integral of n dt = 30 ms");
	is_u64(h.s.peak_active, 2, "peak n is 2");
}

static void test_latency(void)
{
	struct fnblk_params p = params(BW, "constant");
	struct host h;
	struct fnblk_user u;
	struct host_req r;

	p.latency_ns = 3 * MS;
	host_init(&h, &p);
	fnblk_user_init(&u, 7);
	submit(&h, &u, &r, S, 0);
	run_until(&h, FNBLK_NEVER);
	at(r.done_ns, 13 * MS, 1, "latency is added after service");
	at(r.rq.leave_ns, 10 * MS, 1, "service itself is not delayed by latency");
	ok(h.nr_act == 2 && !h.act[1].active, "the user went idle once");
	at(h.act[1].t, 13 * MS, 1,
	   "grace 0: the user leaves n when its completion is delivered");
}

static void test_overhead(void)
{
	struct fnblk_params p = params(BW, "constant");
	struct host h;
	struct fnblk_user u;
	struct host_req r[2];

	p.overhead = S / 4;
	host_init(&h, &p);
	fnblk_user_init(&u, 1);
	submit(&h, &u, &r[0], S, 0);
	run_until(&h, FNBLK_NEVER);
	at(r[0].done_ns, 12500000, 1, "overhead is added to the demand: (S+O)/B");
	submit(&h, &u, &r[1], S / 4, r[0].done_ns);
	run_until(&h, FNBLK_NEVER);
	at(r[1].done_ns - r[0].done_ns, 5 * MS, 1,
	   "a small request pays the same overhead");
}

/*
 * Grace: an idle user stays counted in n for grace_ns after its last
 * request left the bandwidth stage, and its share keeps accruing: a request
 * it submits within grace resumes where the previous one ended in virtual
 * time, so the idle time inside grace counts as service (a job's own
 * turnaround between requests costs it nothing). After grace it starts
 * afresh.
 */
static void test_grace(void)
{
	struct fnblk_params p = params(BW, "constant");
	struct host h;
	struct fnblk_user u;
	struct host_req r[3];

	p.grace_ns = 4 * MS;
	host_init(&h, &p);
	fnblk_user_init(&u, 1);
	submit(&h, &u, &r[0], S, 0);
	/* Completed at 10 ms; still counted until 14 ms. */
	run_until(&h, 12 * MS);
	ok(u.active && h.s.nr_active == 1,
	   "grace keeps an idle user active");
	submit(&h, &u, &r[1], S, 12 * MS);
	run_until(&h, FNBLK_NEVER);
	is_u64(u.activations, 1,
	       "a request within grace continues the same active period");
	at(r[1].rq.leave_ns, 20 * MS, 1,
	   "within grace the 2 ms idle count as service: S more by 20 ms");
	ok(h.nr_act == 2 && !h.act[1].active, "one idle event in all");
	is_u64(h.act[1].t, r[1].rq.leave_ns + 4 * MS,
	       "grace expires exactly at leave + grace");
	at(fnblk_user_active_ns(&u, h.s.now), 24 * MS, 1,
	   "active time runs from first submit to last leave + grace");

	submit(&h, &u, &r[2], S, 30 * MS);
	run_until(&h, FNBLK_NEVER);
	at(r[2].rq.leave_ns, 40 * MS, 1,
	   "after grace expired a request starts afresh: S/B from submission");
	is_u64(u.activations, 2, "and it opens a second active period");
}

/*
 * The latency a remote file system charges every request is not credited
 * back on resume: a queue-depth-1 writer pays S/B + latency per request,
 * while its turnaround after the completion is credited.
 */
static void test_latency_not_credited(void)
{
	struct fnblk_params p = params(BW, "constant");
	struct host h;
	struct fnblk_user u;
	struct host_req r[2];

	p.grace_ns = 10 * MS;
	p.latency_ns = 3 * MS;
	host_init(&h, &p);
	fnblk_user_init(&u, 1);
	submit(&h, &u, &r[0], S, 0);
	run_until(&h, 13 * MS);		/* leaves at 10 ms, completes at 13 */
	/* Resubmitted 1 ms after the completion, within grace. */
	submit(&h, &u, &r[1], S, 14 * MS);
	run_until(&h, FNBLK_NEVER);
	at(r[0].rq.due_ns, 13 * MS, 1, "the first request completes at S/B + latency");
	at(r[1].rq.leave_ns, 23 * MS, 1,
	   "the second is served from its user's last completion: 13 + S/B");
	at(r[1].rq.due_ns, 26 * MS, 1, "and completes latency later");
}

/*
 * A user that does not come back within its grace is deemed to have left
 * when it left: the others get back the share it held, so its grace does
 * not slow them (no coupling through the grace).
 */
static void test_grace_released(void)
{
	struct fnblk_params p = params(BW, "constant");
	struct host h;
	struct fnblk_user u[2];
	struct host_req r[2];

	p.grace_ns = 4 * MS;
	host_init(&h, &p);
	fnblk_user_init(&u[0], 1);
	fnblk_user_init(&u[1], 2);
	submit(&h, &u[0], &r[0], S, 0);
	submit(&h, &u[1], &r[1], 2 * S, 0);
	run_until(&h, FNBLK_NEVER);
	at(r[0].rq.leave_ns, 20 * MS, 1, "two share: the short write leaves at 2S/B");
	at(r[1].rq.leave_ns, 30 * MS, 1,
	   "the long one then runs alone from 20 ms, not from the end of the grace");
}

/*
 * The grace runs from when a completion is delivered, not from the
 * request's virtual departure: a timer that fires late (the host runs the
 * core 5 ms after the departure) must not end the user's grace before the
 * user could even see its completion. The lateness is credited: the next
 * request resumes where the first left off.
 */
/*
 * One user alone with the given grace submits S at 0 (due at 10 ms); the
 * host runs the core next at late_ns, as a timer that fires late does.
 */
static void late_completion(struct host *h, struct fnblk_user *u,
			    struct host_req *r, uint64_t grace_ns,
			    uint64_t late_ns)
{
	struct fnblk_params p = params(BW, "constant");

	p.grace_ns = grace_ns;
	host_init(h, &p);
	fnblk_user_init(u, 1);
	submit(h, u, r, S, 0);
	fnblk_sched_run(&h->s, late_ns);
}

static void test_grace_from_delivery(void)
{
	struct host h;
	struct fnblk_user u;
	struct host_req r[2];

	late_completion(&h, &u, &r[0], 2 * MS, 15 * MS);	/* 5 ms late */
	ok(u.active && h.s.nr_active == 1,
	   "a completion delivered 5 ms late leaves its user active (grace 2 ms)");
	submit(&h, &u, &r[1], S, 15 * MS + MS / 10);
	run_until(&h, FNBLK_NEVER);
	is_u64(u.activations, 1,
	       "the writer's next request continues its active period");
	at(r[1].rq.leave_ns, 20 * MS, 1,
	   "and resumes from the first one's departure: the lateness is credited");
}

/*
 * A latency longer than the grace: the user waits for its completion and
 * stays counted in n all along, so a synchronous writer is one activity
 * period whatever the latency.
 */
static void test_latency_longer_than_grace(void)
{
	struct fnblk_params p = params(BW, "constant");
	struct host h;
	struct fnblk_user u;
	struct host_req r[2];

	p.grace_ns = 2 * MS;
	p.latency_ns = 5 * MS;
	host_init(&h, &p);
	fnblk_user_init(&u, 1);
	submit(&h, &u, &r[0], S, 0);
	run_until(&h, 15 * MS + 1);
	at(r[0].done_ns, 15 * MS, 1, "S/B + latency");
	submit(&h, &u, &r[1], S, r[0].done_ns);
	run_until(&h, FNBLK_NEVER);
	is_u64(u.activations, 1,
	       "a user waiting out its latency is still active (one period)");
	at(r[1].rq.leave_ns, 25 * MS, 2,
	   "the latency is not credited: the next request is served from its completion");
	at(h.act[h.nr_act - 1].t, 30 * MS + 2 * MS, 2,
	   "the user leaves grace after its last delivery");
}

/*
 * The host moves a request's data while the core serves it: the request
 * is delivered when both are done. A copy that outlasts the service delays
 * the delivery, keeps the user active, and the user's grace runs from the
 * delivery; a copy done early changes nothing.
 */
static void test_data_join(void)
{
	struct fnblk_params p = params(BW, "constant");
	struct host h;
	struct fnblk_user u;
	struct host_req r[3];

	p.grace_ns = 2 * MS;
	host_init(&h, &p);
	fnblk_user_init(&u, 1);
	memset(&r[0], 0, sizeof(r[0]));
	r[0].rq.bytes = S;
	r[0].rq.write = true;
	r[0].rq.data_pending = true;
	r[0].done_ns = FNBLK_NEVER;
	fnblk_sched_submit(&h.s, &u, &r[0].rq, 0);
	fnblk_sched_data_done(&h.s, &r[0].rq, 3 * MS);
	is_u64(r[0].done_ns, FNBLK_NEVER, "data moved at 3 ms: not delivered before its service");
	run_until(&h, 11 * MS);
	at(r[0].done_ns, 10 * MS, 1, "a copy done early: delivered when served, S/B");

	memset(&r[1], 0, sizeof(r[1]));
	r[1].rq.bytes = S;
	r[1].rq.write = true;
	r[1].rq.data_pending = true;
	r[1].done_ns = FNBLK_NEVER;
	fnblk_sched_submit(&h.s, &u, &r[1].rq, 11 * MS);
	run_until(&h, 25 * MS);		/* served at 20 ms, grace would end at 22 */
	is_u64(r[1].done_ns, FNBLK_NEVER, "served but its data still moving: not delivered");
	ok(u.active, "and its user stays active past the grace");
	fnblk_sched_data_done(&h.s, &r[1].rq, 25 * MS);
	is_u64(r[1].done_ns, 25 * MS, "delivered when its data are done");
	submit(&h, &u, &r[2], S, 26 * MS);
	run_until(&h, FNBLK_NEVER);
	is_u64(u.activations, 1, "the next request, 1 ms later, is in the same period");
	at(r[2].rq.leave_ns, 30 * MS, 2,
	   "and resumes from its predecessor's service end (the copy's overrun is credited)");
	is_u64(h.s.nr_inflight, 0, "nothing left in flight");

	/* Unthrottled: the service is instant, the copy sets the delivery. */
	p.bw = 0;
	host_init(&h, &p);
	fnblk_user_init(&u, 1);
	memset(&r[0], 0, sizeof(r[0]));
	r[0].rq.bytes = S;
	r[0].rq.write = true;
	r[0].rq.data_pending = true;
	fnblk_sched_submit(&h.s, &u, &r[0].rq, 0);
	fnblk_sched_data_done(&h.s, &r[0].rq, 3 * MS);
	is_u64(r[0].done_ns, 3 * MS, "unthrottled: delivered when the copy ends");
	submit(&h, &u, &r[1], S, 4 * MS);
	run_until(&h, FNBLK_NEVER);
	is_u64(u.activations, 1,
	       "a copy longer than the grace does not split the user's activity");
	is_u64(h.act[h.nr_act - 1].t, 6 * MS, "it leaves a grace after its last delivery");
}

/*
 * A synchronous writer whose completions come 7 ms late and who takes
 * 5 ms to resubmit: its second request has more credit than demand and
 * leaves at once, 2 ms of share to spare. The third request starts from
 * where the second finished in V, not from when it was looked at, so over
 * the three the writer moved 3 S in 30 ms: its whole share.
 */
static void test_excess_credit_kept(void)
{
	struct host h;
	struct fnblk_user u;
	struct host_req r[3];

	late_completion(&h, &u, &r[0], 20 * MS, 17 * MS);	/* 7 ms late */
	submit(&h, &u, &r[1], S, 22 * MS);
	at(r[1].rq.leave_ns, 22 * MS, 0, "12 ms of credit: the second leaves at once");
	submit(&h, &u, &r[2], S, 27 * MS);
	run_until(&h, FNBLK_NEVER);
	at(r[2].rq.leave_ns, 30 * MS, 2,
	   "the third keeps the 2 ms the second did not use: 3 S by 30 ms");
	is_u64(u.activations, 1, "one activity period");
}

/*
 * A writer back from a pause within its (long) grace, or a guest the host
 * stopped for 190 ms: its first request resumes from where it left off and
 * leaves at once, and it keeps at most one request's worth beyond that,
 * not the 190 ms of share it did not use: the next requests go at its
 * share again, no burst above f(n)*B.
 */
static void test_pause_no_burst(void)
{
	struct host h;
	struct fnblk_user u;
	struct host_req r[4];

	late_completion(&h, &u, &r[0], 250 * MS, 200 * MS);	/* due at 10 ms */
	submit(&h, &u, &r[1], S, 200 * MS);
	at(r[1].rq.leave_ns, 200 * MS, 0, "after the pause the first request leaves at once");
	submit(&h, &u, &r[2], S, 200 * MS);
	at(r[2].rq.leave_ns, 200 * MS, 0, "the one request of credit it kept: the second too");
	submit(&h, &u, &r[3], S, 200 * MS);
	run_until(&h, FNBLK_NEVER);
	at(r[3].rq.leave_ns, 210 * MS, 1, "the third waits for its share: no burst of 190 ms of it");
	is_u64(u.activations, 1, "one activity period");
}

static void test_fifo(void)
{
	struct fnblk_params p = params(BW, "linear:4");
	struct host h;
	struct fnblk_user u[2];
	struct host_req r[2];

	p.policy = FNBLK_POLICY_FIFO;
	host_init(&h, &p);
	fnblk_user_init(&u[0], 1);
	fnblk_user_init(&u[1], 2);
	submit(&h, &u[0], &r[0], S, 0);
	submit(&h, &u[1], &r[1], S, 0);
	run_until(&h, FNBLK_NEVER);
	at(r[0].done_ns, 10 * MS, 1, "fifo: the first arrival is served alone at f(1)B");
	at(r[1].done_ns, 20 * MS, 1, "fifo: the second waits for it (no f(2) gain)");
}

static void test_weighted(void)
{
	struct fnblk_params p = params(BW, "constant");
	struct host h;
	struct fnblk_user u[2];
	struct host_req r[2];

	p.policy = FNBLK_POLICY_WEIGHTED;
	host_init(&h, &p);
	fnblk_user_init(&u[0], 1);
	fnblk_user_init(&u[1], 2);
	fnblk_sched_set_weight(&h.s, &u[1], 3, 0);
	submit(&h, &u[0], &r[0], S, 0);
	submit(&h, &u[1], &r[1], S, 0);
	run_until(&h, FNBLK_NEVER);
	/* Weight 3 of 4 gets 3B/4: S in 40/3 ms; the other then has 2S/3 left. */
	at(r[1].done_ns, 13333334, 1, "weighted: weight 3 of 4 ends after S/(3B/4)");
	at(r[0].done_ns, 20 * MS, 2, "weighted: weight 1 finishes the rest alone");
}

static void test_configure(void)
{
	struct fnblk_params p = params(BW, "constant"), q;
	struct host h;
	struct fnblk_user u;
	struct host_req r;

	host_init(&h, &p);
	fnblk_user_init(&u, 1);
	submit(&h, &u, &r, S, 0);
	run_until(&h, 5 * MS);
	q = p;
	q.bw = 2 * BW;
	ok(fnblk_sched_configure(&h.s, &q, 5 * MS) == 0,
	   "configure a new bandwidth while a request is in service");
	run_until(&h, FNBLK_NEVER);
	at(r.done_ns, 7500000, 1,
	   "live configure changes the rate from now on: S/2 at B, S/2 at 2B");

	host_init(&h, &p);
	fnblk_user_init(&u, 1);
	submit(&h, &u, &r, S, 0);
	q = p;
	q.policy = FNBLK_POLICY_FIFO;
	ok(fnblk_sched_configure(&h.s, &q, 1 * MS) == -FNBLK_EBUSY,
	   "changing the policy with requests in flight is refused (EBUSY)");
	q = p;
	if (fnblk_fn_parse("linear:2", &q.fn, &(const char *){ NULL }))
		diag("linear:2 did not parse");
	run_until(&h, 5 * MS);
	fnblk_sched_configure(&h.s, &q, 5 * MS);
	run_until(&h, FNBLK_NEVER);
	at(r.done_ns, 10 * MS, 1,
	   "a new f(n) with the same f(1) leaves a single user's rate as it was");
}

static void test_users_writes(void)
{
	struct fnblk_params p = params(BW, "constant");
	struct host h;
	struct fnblk_user u[2];
	struct host_req r[2];

	p.users = FNBLK_USERS_WRITES;
	host_init(&h, &p);
	fnblk_user_init(&u[0], 1);
	fnblk_user_init(&u[1], 2);
	submit(&h, &u[0], &r[0], S, 0);
	memset(&r[1], 0, sizeof(r[1]));
	r[1].rq.bytes = S;
	r[1].rq.write = false;
	fnblk_sched_submit(&h.s, &u[1], &r[1].rq, 0);
	is_u64(h.s.nr_active, 1, "users=writes: a reader is not counted in n");
	run_until(&h, FNBLK_NEVER);
	at(r[0].done_ns, 10 * MS, 1, "users=writes: the writer keeps f(1)B");
	at(r[1].done_ns, 10 * MS, 1, "users=writes: the read is served at B");
}

static void test_fn(void)
{
	static const char *const good[] = {
		"constant", "linear:1", "linear:4", "power:0.5", "power:-0.25",
		"table:1,0.5,0.25", "table:1,1.5,2.25,0.75", NULL
	};
	static const char *const bad[] = {
		"linear:0", "linear:1.5", "linear:2000", "table:", "table:1,,2",
		"table:0", "table:-1", "table:1,x", "table:2000", "power:9",
		"power:", "quadratic", "Constant", NULL
	};
	struct fnblk_fn a, b;
	/* A power table formats as 1024 numbers, far past FNBLK_FN_SPEC_LEN. */
	static char buf[FNBLK_FN_MAX * 16];
	const char *why;
	unsigned int i;
	int ret;

	for (i = 0; good[i]; i++) {
		bool same;

		why = NULL;
		if (!ok(fnblk_fn_parse(good[i], &a, &why) == 0,
			"fn \"%s\" parses", good[i]))
			continue;
		fnblk_fn_format(&a, buf, sizeof(buf));
		same = fnblk_fn_parse(buf, &b, &why) == 0 && a.nr == b.nr &&
		       !memcmp(a.val, b.val, a.nr * sizeof(a.val[0]));
		ok(same, "fn \"%s\" -> \"%.40s\" -> the same table", good[i],
		   buf);
	}
	for (i = 0; bad[i]; i++) {
		why = NULL;
		ret = fnblk_fn_parse(bad[i], &a, &why);
		ok(ret == -FNBLK_EINVAL && why && *why,
		   "fn \"%s\" is rejected with a message (%s)", bad[i],
		   why ? why : "none");
	}
	fnblk_fn_parse("table:1,0.5", &a, &why);
	is_u64(fnblk_fn_value(&a, 7), FNBLK_FN_ONE / 2,
	       "f(n) past the table holds its last value");
	fnblk_fn_parse("linear:3", &a, &why);
	is_u64(fnblk_fn_value(&a, 3), 3 * FNBLK_FN_ONE, "linear:3 gives f(3) = 3");
	is_u64(fnblk_fn_value(&a, 10), 3 * FNBLK_FN_ONE, "linear:3 caps f at 3");
	fnblk_fn_parse("power:0.5", &a, &why);
	near(fnblk_fn_value(&a, 4) / (double)FNBLK_FN_ONE, 2.0,
	     1.0 / FNBLK_FN_ONE, "power:0.5 gives f(4) = 2 to fixed-point precision");
	fnblk_fn_parse("constant", &a, &why);
	fnblk_fn_format(&a, buf, sizeof(buf));
	ok(!strcmp(buf, "constant"), "constant formats as \"constant\" (got %s)",
	   buf);
}

static void test_params_check(void)
{
	struct fnblk_params p = params(BW, "constant"), q;
	const char *why = NULL;

	ok(fnblk_params_check(&p, &why) == 0, "default-like parameters pass");
	q = p;
	q.bw = 100;
	why = NULL;
	ok(fnblk_params_check(&q, &why) == -FNBLK_EINVAL && why,
	   "a bandwidth below 1 KiB/s is rejected with a message");
	q = p;
	q.policy = __FNBLK_POLICY_MAX;
	ok(fnblk_params_check(&q, &why) == -FNBLK_EINVAL, "unknown policy is rejected");
	q = p;
	q.fn.nr = 0;
	ok(fnblk_params_check(&q, &why) == -FNBLK_EINVAL, "an empty f(n) table is rejected");
}

static void test_nhist_bins(void)
{
	is_u64(fnblk_nhist_bin(0), 0, "n = 0 has its own bin");
	is_u64(fnblk_nhist_bin(63), 63, "n = 63 has its own bin");
	is_u64(fnblk_nhist_bin(64), 64, "n = 64 starts the first log bin");
	is_u64(fnblk_nhist_bin(127), 64, "n = 127 is in [64, 128)");
	is_u64(fnblk_nhist_bin(128), 65, "n = 128 is in [128, 256)");
	is_u64(fnblk_nhist_bin(~0U), FNBLK_NHIST_BINS - 1,
	       "huge n lands in the last bin");
}

/*
 * Issue 10, item 2: when the per-user rate floors to its smallest value and
 * a head is far away, the next event was now + 2^63, which the kernel's
 * ktime turns negative: the timer re-armed in the past for ever. Such a
 * configuration is refused, and the core never names a time past
 * FNBLK_TIME_MAX even when it is forced on it.
 */
static void test_rate_floor(void)
{
	struct fnblk_params p = params(1024, "table:0.00002");
	struct fnblk_user u[9];
	struct host_req r[9];
	const char *why = NULL;
	struct host h;
	unsigned int i;
	u64 next;

	p.overhead = 8 << 20;
	p.grace_ns = 2 * MS;
	ok(fnblk_params_check(&p, &why) == -FNBLK_EINVAL && why,
	   "bw 1 KiB/s with f = 0.00002: refused (%s)", why ? why : "accepted");
	host_init(&h, &p);
	for (i = 0; i < 9; i++) {
		fnblk_user_init(&u[i], i);
		submit(&h, &u[i], &r[i], 4096, 0);
	}
	next = fnblk_sched_next_event(&h.s);
	ok(next <= FNBLK_TIME_MAX,
	   "forced on the core, 9 writers: the next event is a valid time (%llu)",
	   (unsigned long long)next);
	p = params(100 << 20, "power:-2");
	why = NULL;
	ok(fnblk_params_check(&p, &why) == 0,
	   "a collapsing f at a usual bandwidth is accepted (%s)", why ? why : "ok");
}

/*
 * Issue 10, item 5: under weighted a request's demand per unit weight was
 * truncated, to 0 for weights above 256 * (bytes + overhead): such a user
 * was served for free. Rounded up, a request is never served faster than
 * the device's whole rate.
 */
static void test_weighted_rounds_up(void)
{
	struct fnblk_params p = params(BW, "constant");
	struct fnblk_user u;
	struct host_req r;
	struct host h;

	p.policy = FNBLK_POLICY_WEIGHTED;
	host_init(&h, &p);
	fnblk_user_init(&u, 1);
	fnblk_sched_set_weight(&h.s, &u, 1000000, 0);
	submit(&h, &u, &r, 512, MS);
	run_until(&h, FNBLK_NEVER);
	ok(r.rq.leave_ns - MS >= 512 * 1000000000ULL / BW,
	   "weight 10^6, 512 bytes: served no faster than B (%llu ns, want >= %llu)",
	   (unsigned long long)(r.rq.leave_ns - MS),
	   (unsigned long long)(512 * 1000000000ULL / BW));
	ok(r.rq.leave_ns - MS <= 100000,
	   "and within one V unit of it (%llu ns)",
	   (unsigned long long)(r.rq.leave_ns - MS));
}

/*
 * Issue 10, item 9: at the policy maxima (1 TiB/s, f = 1024) V grows by
 * 2^58 units per second and wraps after 64 s. A user kept active by small
 * writes within its grace carries V there; a large request whose tag lands
 * past the wrap must still be served for its whole demand.
 */
static void test_vtime_wrap(void)
{
	struct fnblk_params p = params(FNBLK_BW_MAX, "table:1024");
	struct fnblk_user keep, big;
	struct host_req ka, r;
	long double rate, demand, left;
	struct host h;
	u64 t = 0, want;

	p.grace_ns = 10000 * MS;
	p.overhead = 1 << 30;
	host_init(&h, &p);
	fnblk_user_init(&keep, 1);
	fnblk_user_init(&big, 2);
	/* Demand of the big request, in V units, at n = 2. */
	demand = (4096.0L + p.overhead) * 256;
	for (;;) {
		submit(&h, &keep, &ka, 1, t);
		run_until(&h, t + MS);
		rate = (long double)h.s.rate / 4294967296.0L;	/* V per ns */
		left = 18446744073709551616.0L - (long double)h.s.vtime;
		if (left / rate < 5000.0L * MS)
			break;
		t += 5000 * MS;
	}
	/* Submit when V is half the big request's demand short of the wrap. */
	t = h.s.now + (u64)((left - demand / 4) / rate);
	run_until(&h, t);
	ok(keep.activations == 1 && h.s.vtime > ~0ULL - (u64)demand,
	   "V ran %.1f s at 2^58 units/s up to just short of its wrap",
	   h.s.now / 1e9);
	submit(&h, &big, &r, 4096, t);
	run_until(&h, FNBLK_NEVER);
	/* Two users share f(2)B = 1024 TiB/s: the big one gets half. */
	want = (u64)((4096.0L + p.overhead) * 2 * 1e9L / (1024.0L * FNBLK_BW_MAX));
	at(r.rq.leave_ns - t, want, 3,
	   "a tag past the wrap is served for its whole demand");
}

int main(void)
{
	test_alone();
	test_two_together();
	test_staggered();
	test_latency();
	test_overhead();
	test_grace();
	test_latency_not_credited();
	test_grace_released();
	test_grace_from_delivery();
	test_latency_longer_than_grace();
	test_data_join();
	test_excess_credit_kept();
	test_pause_no_burst();
	test_fifo();
	test_weighted();
	test_configure();
	test_users_writes();
	test_fn();
	test_params_check();
	test_nhist_bins();
	test_rate_floor();
	test_weighted_rounds_up();
	test_vtime_wrap();
	return tap_done();
}
