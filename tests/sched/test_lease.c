// SPDX-License-Identifier: GPL-2.0
/*
 * The core's grace_end hook, as the module's fast path uses it (model.rst,
 * "Requests past the core"): on an unthrottled device without latency, a
 * request of a user in its grace, at most a grace after its last one, is
 * not shown to the core; the host moves the user's lease (the delivery
 * time of its last request) forward instead, and the core asks for it when
 * the grace it knows of is due. Random histories of instant requests of
 * up to 8 users, the timer firing at the core's next event or later, are
 * replayed twice: every request through fnblk_sched_submit(), and with the
 * fast path. The activations and idle ends (user, time), n's histogram and
 * integral, the activation count and each user's active time must agree
 * exactly, and the fast path must take most requests.
 */
#include <stdlib.h>
#include <string.h>

#include "module/fnblk_sched.h"
#include "tap.h"

#define MS		1000000ULL
#define MAX_USERS	8
#define MAX_EVENTS	4096

struct event {
	unsigned int user;
	bool active;
	uint64_t t;
};

struct run {
	struct fnblk_sched s;
	struct fnblk_user u[MAX_USERS];
	uint64_t lease[MAX_USERS];	/* 0: closed */
	struct event ev[MAX_EVENTS];
	unsigned int nr_ev, fast, locked;
	bool use_fast;
};

static struct run runs[2];

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct run *run_of(struct fnblk_sched *s)
{
	return s->priv;
}

static void on_complete(struct fnblk_sched *s, struct fnblk_req *rq)
{
	struct run *r = run_of(s);
	unsigned int i = rq->user - r->u;

	/* As the module's fnblk_complete: the grace begins, open the lease. */
	if (r->use_fast && rq->user->in_grace && r->lease[i] < rq->user->idle_ns)
		r->lease[i] = rq->user->idle_ns;
	free(rq);
}

static void on_activity(struct fnblk_sched *s, struct fnblk_user *u,
			bool active, uint64_t t)
{
	struct run *r = run_of(s);

	if (r->nr_ev < MAX_EVENTS)
		r->ev[r->nr_ev++] = (struct event){ u - r->u, active, t };
}

/* As the module's fnblk_grace_end. */
static uint64_t on_grace_end(struct fnblk_sched *s, struct fnblk_user *u)
{
	struct run *r = run_of(s);
	unsigned int i = u - r->u;

	if (r->lease[i] > u->idle_ns)
		return r->lease[i];
	r->lease[i] = 0;
	return u->idle_ns;
}

static const struct fnblk_sched_ops plain_ops = {
	.complete = on_complete,
	.activity = on_activity,
};

static const struct fnblk_sched_ops fast_ops = {
	.complete = on_complete,
	.activity = on_activity,
	.grace_end = on_grace_end,
};

static void run_init(struct run *r, const struct fnblk_params *p, bool fast)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->use_fast = fast;
	fnblk_sched_init(&r->s, p, fast ? &fast_ops : &plain_ops, r, 0);
	for (i = 0; i < MAX_USERS; i++)
		fnblk_user_init(&r->u[i], i + 1);
}

/* A request of user i at t, as the module's inline path takes it. */
static void request(struct run *r, unsigned int i, uint64_t t)
{
	struct fnblk_req *rq;

	if (r->use_fast && r->lease[i] && t - r->lease[i] < r->s.p.grace_ns) {
		if (t > r->lease[i])
			r->lease[i] = t;
		r->fast++;
		return;
	}
	rq = calloc(1, sizeof(*rq));
	if (!rq)
		exit(2);
	rq->bytes = 4096;
	rq->write = true;
	fnblk_sched_submit(&r->s, &r->u[i], rq, t);
	r->locked++;
}

/* The timer: it fires at the core's next event, or late, up to t. */
static void timers_until(struct run *r, uint64_t t, uint64_t late)
{
	uint64_t next;

	for (;;) {
		next = fnblk_sched_next_event(&r->s);
		if (next == FNBLK_NEVER || next + late > t)
			return;
		fnblk_sched_run(&r->s, next + late);
	}
}

static bool same_result(const struct run *a, const struct run *b,
			uint64_t end, char *why, size_t len)
{
	unsigned int i;

	if (a->nr_ev != b->nr_ev) {
		snprintf(why, len, "%u activity events against %u", a->nr_ev,
			 b->nr_ev);
		return false;
	}
	for (i = 0; i < a->nr_ev; i++) {
		if (memcmp(&a->ev[i], &b->ev[i], sizeof(a->ev[i]))) {
			snprintf(why, len,
				 "event %u: user %u %s at %llu against user %u %s at %llu",
				 i, a->ev[i].user,
				 a->ev[i].active ? "active" : "idle",
				 (unsigned long long)a->ev[i].t, b->ev[i].user,
				 b->ev[i].active ? "active" : "idle",
				 (unsigned long long)b->ev[i].t);
			return false;
		}
	}
	if (a->s.activations != b->s.activations ||
	    a->s.n_time_sum != b->s.n_time_sum ||
	    memcmp(a->s.n_hist, b->s.n_hist, sizeof(a->s.n_hist))) {
		snprintf(why, len, "n accounting differs");
		return false;
	}
	for (i = 0; i < MAX_USERS; i++) {
		if (fnblk_user_active_ns(&a->u[i], end) !=
		    fnblk_user_active_ns(&b->u[i], end)) {
			snprintf(why, len, "active time of user %u differs", i);
			return false;
		}
	}
	return true;
}

int main(void)
{
	unsigned int sc, k, nr_sc = 400, bad = 0, fast = 0, total = 0;
	struct fnblk_params p;
	char why[200] = "";

	fnblk_params_default(&p);
	p.bw = 0;
	for (sc = 0; sc < nr_sc; sc++) {
		unsigned int users = 1 + next_rand() % MAX_USERS;
		unsigned int reqs = 50 + next_rand() % 400;
		/* A grace of 0 to 5 ms; a timer up to 3 ms late, or never. */
		uint64_t late = next_rand() % 4 ? next_rand() % (3 * MS) : 0;
		uint64_t seed = next_rand(), t, end;

		p.grace_ns = next_rand() % 8 ? next_rand() % (5 * MS) : 0;
		for (k = 0; k < 2; k++) {
			struct run *r = &runs[k];

			run_init(r, &p, k);
			rng = seed;
			t = 1;
			for (unsigned int j = 0; j < reqs; j++) {
				/* Bursts of close requests, pauses near a grace. */
				t += next_rand() % 4 ? next_rand() % 200000 :
						       next_rand() % (8 * MS);
				timers_until(r, t, late);
				request(r, next_rand() % users, t);
			}
			end = t + 20 * MS;
			timers_until(r, end, late);
			fnblk_sched_run(&r->s, end);
		}
		if (!same_result(&runs[0], &runs[1], end, why, sizeof(why))) {
			if (!bad++)
				diag("scenario %u (grace %llu ns, timer late %llu ns): %s",
				     sc, (unsigned long long)p.grace_ns,
				     (unsigned long long)late, why);
		}
		fast += runs[1].fast;
		total += runs[1].fast + runs[1].locked;
		if (runs[1].nr_ev >= MAX_EVENTS)
			bad++;
	}
	ok(!bad, "%u random histories: the fast path's activity and n accounting equal the core's, exactly (%u differ)",
	   nr_sc, bad);
	ok(fast * 4 > total, "the fast path took %u of %u requests (at least a quarter)", fast,
	   total);
	printf("1..%d\n", tap_count);
	return tap_failures ? 1 : 0;
}
