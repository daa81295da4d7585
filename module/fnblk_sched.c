// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk scheduler core: anonymous f(n) processor sharing in virtual time.
 * See fnblk_sched.h for the interface and Documentation/model.rst for the
 * model this file implements.
 */
#include "fnblk_sched.h"

#define NSEC_PER_SECOND	1000000000ULL
#define VSHIFT		8	/* virtual time units per byte: 256 */
#define RSHIFT		32	/* fraction bits of the rate */
/* Largest tag distance the exact due-time computation takes in one step. */
#define VSTEP_MAX	0x80000000ULL

/*
 * V wraps (at the policy maxima after about a minute), so virtual times
 * are compared by their difference: every live tag and V lie within 2^63
 * units of one another (a request's demand is below 2^41 units, and V
 * moves at most 2^62 units in the 20 s a user can stay active without a
 * request in the bandwidth stage). Event times, in ns, never wrap; the
 * same comparison holds for them.
 */
static bool before(u64 a, u64 b)
{
	return (long long)(a - b) < 0;
}

#define link_entry(ptr, type, member) \
	((type *)((char *)(ptr) - __builtin_offsetof(type, member)))

static void link_init(struct fnblk_link *h)
{
	h->next = h;
	h->prev = h;
}

static bool link_empty(const struct fnblk_link *h)
{
	return h->next == h;
}

static void link_add_tail(struct fnblk_link *n, struct fnblk_link *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

/*
 * Put u on the grace list, which is kept in the order of idle_ns: a user
 * whose grace starts now belongs at the tail, unless the host moved a
 * grace on past now (grace_end), so look from the tail.
 */
static void grace_add(struct fnblk_sched *s, struct fnblk_user *u)
{
	struct fnblk_link *pos = s->grace.prev;

	while (pos != &s->grace &&
	       before(u->idle_ns,
		      link_entry(pos, struct fnblk_user, grace)->idle_ns))
		pos = pos->prev;
	link_add_tail(&u->grace, pos->next);
}

static void link_del(struct fnblk_link *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	link_init(n);
}

/*
 * Pairing heap: O(1) insert, O(log n) amortised delete-min, and nodes live
 * inside the objects they order, so the core never allocates.
 */
static struct fnblk_hnode *heap_meld(struct fnblk_hnode *a,
				     struct fnblk_hnode *b)
{
	struct fnblk_hnode *t;

	if (!a)
		return b;
	if (!b)
		return a;
	if (before(b->key, a->key)) {
		t = a;
		a = b;
		b = t;
	}
	b->sibling = a->child;
	a->child = b;
	return a;
}

static void heap_insert(struct fnblk_hnode **root, struct fnblk_hnode *n,
			u64 key)
{
	n->key = key;
	n->child = NULL;
	n->sibling = NULL;
	*root = heap_meld(*root, n);
}

static struct fnblk_hnode *heap_pop(struct fnblk_hnode **root)
{
	struct fnblk_hnode *min = *root, *list, *pairs = NULL, *a, *b, *res;

	if (!min)
		return NULL;
	/* First pass: meld children in pairs, left to right, onto a stack. */
	list = min->child;
	while (list) {
		a = list;
		b = a->sibling;
		if (!b) {
			a->sibling = pairs;
			pairs = a;
			break;
		}
		list = b->sibling;
		a->sibling = NULL;
		b->sibling = NULL;
		a = heap_meld(a, b);
		a->sibling = pairs;
		pairs = a;
	}
	/* Second pass: meld the pairs right to left. */
	res = NULL;
	while (pairs) {
		a = pairs;
		pairs = a->sibling;
		a->sibling = NULL;
		res = heap_meld(a, res);
	}
	*root = res;
	min->child = NULL;
	return min;
}

/*
 * The 128-bit products the core needs, exactly, with the compiler's
 * 128-bit integers where it has them and from 32-bit halves where it does
 * not (32-bit hosts; -DFNBLK_NO_INT128 tests that path on any host).
 */
#if defined(__SIZEOF_INT128__) && !defined(FNBLK_NO_INT128)
#define FNBLK_INT128 1
#endif

/* a * b as hi:lo. */
static void mul_64x64(u64 a, u64 b, u64 *hi, u64 *lo)
{
#ifdef FNBLK_INT128
	__uint128_t prod = (__uint128_t)a * b;

	*hi = (u64)(prod >> 64);
	*lo = (u64)prod;
#else
	u64 a0 = (u32)a, a1 = a >> 32, b0 = (u32)b, b1 = b >> 32;
	u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0;
	u64 mid = (p00 >> 32) + (u32)p01 + (u32)p10;

	*lo = (mid << 32) | (u32)p00;
	*hi = a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

/* floor(a * b / c) for c > 0, saturating at ~0. */
static u64 mul_div(u64 a, u64 b, u64 c)
{
	u64 hi, lo, q = 0, rem;
	bool carry;
	int i;

	mul_64x64(a, b, &hi, &lo);
	if (!hi)
		return lo / c;
	if (hi >= c)
		return FNBLK_NEVER;
#if defined(FNBLK_INT128) && !defined(__KERNEL__)
	/* Hosts with a 128-bit division routine get the same result faster. */
	return (u64)((((__uint128_t)hi << 64) | lo) / c);
#endif
	rem = hi;
	for (i = 63; i >= 0; i--) {
		carry = rem >> 63;
		rem = (rem << 1) | ((lo >> i) & 1);
		q <<= 1;
		if (carry || rem >= c) {
			rem -= c;
			q |= 1;
		}
	}
	return q;
}

static unsigned int fls32(u32 x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

unsigned int fnblk_nhist_bin(u32 n)
{
	unsigned int bin;

	if (n < FNBLK_NHIST_EXACT)
		return n;
	bin = FNBLK_NHIST_EXACT + fls32(n) - 7;	/* fls(64) == 7 */
	return bin < FNBLK_NHIST_BINS ? bin : FNBLK_NHIST_BINS - 1;
}

u32 fnblk_fn_value(const struct fnblk_fn *fn, u32 n)
{
	if (!n)
		n = 1;
	return n <= fn->nr ? fn->val[n - 1] : fn->val[fn->nr - 1];
}

/* Weight sum that f(n)*B is divided by. */
static u64 sched_divisor(const struct fnblk_sched *s)
{
	switch (s->p.policy) {
	case FNBLK_POLICY_FIFO:
		return 1;
	case FNBLK_POLICY_WEIGHTED:
		return s->wsum ? s->wsum : 1;
	default:
		return s->nr_active ? s->nr_active : 1;
	}
}

/*
 * dV/dt = f(n) * B / w bytes per second, as V units per ns << RSHIFT;
 * 0 when it is below the core's resolution.
 */
static u64 rate_of(const struct fnblk_params *p, u32 n, u64 w)
{
	u64 f = fnblk_fn_value(&p->fn, n);
	u64 shift = VSHIFT + RSHIFT - FNBLK_FN_SHIFT;

	if (w <= FNBLK_NEVER / NSEC_PER_SECOND)
		return mul_div(p->bw, f << shift, NSEC_PER_SECOND * w);
	return mul_div(p->bw, f << shift, NSEC_PER_SECOND) / w;
}

static void update_rate(struct fnblk_sched *s)
{
	u32 n = s->p.policy == FNBLK_POLICY_FIFO ? 1 : s->nr_active;
	u64 rate = rate_of(&s->p, n, sched_divisor(s));

	/*
	 * fnblk_params_check() refuses settings whose rate would fall below
	 * the resolution for n up to FNBLK_FN_MAX equal users; beyond that,
	 * or with extreme weights, the rate is held at its smallest value.
	 */
	s->rate = rate ? rate : 1;
}

/*
 * Move the clock to t. V grows while anyone is active, whether or not it
 * has a request queued: an active user's share accrues for its whole
 * active period (see enqueue). n is accounted.
 */
static void advance(struct fnblk_sched *s, u64 t)
{
	u64 dt, hi, lo;

	if (t <= s->now)
		return;
	dt = t - s->now;
	if (s->nr_active && s->p.bw) {
		/* V += (rate * dt + vfrac) >> RSHIFT, keeping the fraction. */
		mul_64x64(s->rate, dt, &hi, &lo);
		lo += s->vfrac;
		hi += lo < s->vfrac;
		s->vtime += (hi << (64 - RSHIFT)) | (lo >> RSHIFT);
		s->vfrac = lo & ((1ULL << RSHIFT) - 1);
	}
	s->n_hist[fnblk_nhist_bin(s->nr_active)] += dt;
	s->n_time_sum += (u64)s->nr_active * dt;
	s->now = t;
}

/* The head with the smallest tag has been served. */
static bool head_served(const struct fnblk_sched *s)
{
	return !s->p.bw || !before(s->vtime, s->flows->key);
}

/*
 * When the head with the smallest tag finishes at the current rate, at
 * most FNBLK_TIME_MAX (a time the kernel's ktime can hold).
 */
static u64 service_due(const struct fnblk_sched *s)
{
	u64 d, step;

	if (!s->flows)
		return FNBLK_NEVER;
	if (head_served(s))
		return s->now;
	d = s->flows->key - s->vtime;
	if (d >= VSTEP_MAX)	/* wake early and look again */
		step = (VSTEP_MAX << RSHIFT) / s->rate;
	else
		step = ((d << RSHIFT) - s->vfrac + s->rate - 1) / s->rate;
	if (s->now >= FNBLK_TIME_MAX || step > FNBLK_TIME_MAX - s->now)
		return FNBLK_TIME_MAX;
	return s->now + step;
}

static u64 grace_due(const struct fnblk_sched *s)
{
	const struct fnblk_user *u;

	if (link_empty(&s->grace))
		return FNBLK_NEVER;
	u = link_entry(s->grace.next, struct fnblk_user, grace);
	return u->idle_ns + s->p.grace_ns;
}

static u64 delay_due(const struct fnblk_sched *s)
{
	return s->delay ? s->delay->key : FNBLK_NEVER;
}

u64 fnblk_sched_next_event(const struct fnblk_sched *s)
{
	u64 t = service_due(s), g = grace_due(s), d = delay_due(s);

	if (g < t)
		t = g;
	return d < t ? d : t;
}

static void activate(struct fnblk_sched *s, struct fnblk_user *u)
{
	if (u->in_grace) {
		link_del(&u->grace);
		u->in_grace = false;
		return;
	}
	if (u->active)
		return;
	u->active = true;
	u->active_since_ns = s->now;
	u->done_vtime = 0;	/* nothing of this period has completed */
	u->activations++;
	s->activations++;
	s->nr_active++;
	if (s->nr_active > s->peak_active)
		s->peak_active = s->nr_active;
	s->wsum += u->weight;
	update_rate(s);
	if (s->ops->activity)
		s->ops->activity(s, u, true, s->now);
}

static void deactivate(struct fnblk_sched *s, struct fnblk_user *u)
{
	u->active = false;
	u->active_ns += s->now - u->active_since_ns;
	s->nr_active--;
	s->wsum -= u->weight;
	/* Nobody active holds a tag: restart V so it never nears overflow. */
	if (!s->nr_active) {
		s->vtime = 0;
		s->vfrac = 0;
	}
	update_rate(s);
	if (s->ops->activity)
		s->ops->activity(s, u, false, s->now);
}

/*
 * Hand rq to the host, at the time of the host's current call: that is
 * when the submitter sees its completion, so a user's grace starts then
 * and a timer that fires late cannot eat it.
 */
static void deliver(struct fnblk_sched *s, struct fnblk_req *rq)
{
	struct fnblk_user *u = rq->user;

	rq->done_ns = s->deliver_ns;
	s->nr_inflight--;
	if (rq->shared && !--u->nr_pending) {
		u->idle_ns = rq->done_ns;
		u->in_grace = true;
		grace_add(s, u);
	}
	s->ops->complete(s, rq);
}

/* rq's service and latency are over; it is delivered once its data are. */
static void complete(struct fnblk_sched *s, struct fnblk_req *rq)
{
	/* Less the credit it passes on (see leave_bw_stage). */
	if (rq->shared)
		rq->user->done_vtime = s->vtime - rq->late_v;
	if (rq->data_pending)
		rq->served = true;
	else
		deliver(s, rq);
}

/* rq's turn in the bandwidth stage begins now. */
static void start_service(struct fnblk_sched *s, struct fnblk_req *rq)
{
	rq->start_ns = s->now;
	if (s->ops->start)
		s->ops->start(s, rq);
}

static void departed(struct fnblk_sched *s, struct fnblk_req *rq)
{
	if (s->ops->depart)
		s->ops->depart(s, rq);
}

static void to_delay_stage(struct fnblk_sched *s, struct fnblk_req *rq,
			   u64 due)
{
	rq->due_ns = due;
	if (due <= s->now) {	/* no latency: done at once */
		complete(s, rq);
		return;
	}
	heap_insert(&s->delay, &rq->hnode, due);
}

/* rq's service demand in V units (weighted: per unit of its user's weight). */
static u64 request_demand(const struct fnblk_sched *s,
			  const struct fnblk_req *rq)
{
	u64 demand = (rq->bytes + s->p.overhead) << VSHIFT;

	/* Rounded up: a heavy user's small request still costs service. */
	if (s->p.policy == FNBLK_POLICY_WEIGHTED)
		demand = (demand + rq->user->weight - 1) / rq->user->weight;
	return demand;
}

/* rq has had all its service; latency follows. */
static void leave_bw_stage(struct fnblk_sched *s, struct fnblk_req *rq)
{
	struct fnblk_user *u = rq->user;

	rq->leave_ns = s->now;
	/*
	 * A request resumed with more credit than its demand left as soon as
	 * it was looked at, V past its tag: its user keeps that excess for
	 * its next request, at most one grace of its share and at most this
	 * request's own demand. So a writer that is sometimes slower and
	 * sometimes faster than its share gets it on average, while a user
	 * back from a long pause (or a guest the host stopped) is at most one
	 * request ahead: never a burst above f(n)*B.
	 */
	rq->late_v = 0;
	if (s->p.bw && before(rq->tag, s->vtime)) {
		u64 hi, lo, cap, demand = request_demand(s, rq);

		mul_64x64(s->rate, s->p.grace_ns, &hi, &lo);
		cap = hi >> RSHIFT ? FNBLK_NEVER :
		      (hi << (64 - RSHIFT)) | (lo >> RSHIFT);
		cap = cap < demand ? cap : demand;
		rq->late_v = s->vtime - rq->tag < cap ? s->vtime - rq->tag : cap;
	}
	if (!--u->nr_queued)
		u->leave_vtime = s->vtime;	/* where its held share starts */
	departed(s, rq);
	to_delay_stage(s, rq, s->now + s->p.latency_ns);
}

static void finish_heads(struct fnblk_sched *s)
{
	struct fnblk_flow *flow;
	struct fnblk_req *rq, *next;

	while (s->flows && head_served(s)) {
		flow = link_entry(heap_pop(&s->flows), struct fnblk_flow, hnode);
		rq = link_entry(flow->queue.next, struct fnblk_req, link);
		link_del(&rq->link);
		flow->nr_queued--;
		if (flow->nr_queued) {
			next = link_entry(flow->queue.next, struct fnblk_req,
					  link);
			start_service(s, next);
			heap_insert(&s->flows, &flow->hnode, next->tag);
		} else {
			s->nr_backlogged--;
		}
		leave_bw_stage(s, rq);
	}
}

static void complete_due(struct fnblk_sched *s)
{
	struct fnblk_req *rq;

	while (s->delay && s->delay->key <= s->now) {
		rq = link_entry(heap_pop(&s->delay), struct fnblk_req, hnode);
		complete(s, rq);
	}
}

/*
 * A user idling in its grace held its share for a return that did not come.
 * Give the others, retroactively, what they would have had without it since
 * it left: the V of the window, scaled by how much their rate rises now
 * (exact while n did not change within the window). Without this, every
 * user leaving would slow the others by its grace, a coupling between jobs
 * that the model does not have. A rate that does not rise is left alone.
 */
static void release_share(struct fnblk_sched *s, u64 held, u64 rate_before)
{
	if (!s->nr_active || !s->p.bw || s->rate <= rate_before)
		return;
	s->vtime += mul_div(held, s->rate - rate_before, rate_before);
}

static void expire_grace(struct fnblk_sched *s)
{
	struct fnblk_user *u;
	u64 held, rate_before;

	while (grace_due(s) <= s->now) {
		u = link_entry(s->grace.next, struct fnblk_user, grace);
		link_del(&u->grace);
		if (s->ops->grace_end) {
			u64 t = s->ops->grace_end(s, u);

			/* A later request the core did not see: start again. */
			if (before(u->idle_ns, t)) {
				u->idle_ns = t;
				grace_add(s, u);
				continue;
			}
		}
		u->in_grace = false;
		held = s->vtime - u->leave_vtime;
		rate_before = s->rate;
		deactivate(s, u);
		release_share(s, held, rate_before);
	}
}

void fnblk_sched_run(struct fnblk_sched *s, u64 now)
{
	u64 ts, tg, td;

	/* What completes in this call is delivered when the call is made. */
	s->deliver_ns = now > s->now ? now : s->now;
	for (;;) {
		ts = service_due(s);
		tg = grace_due(s);
		td = delay_due(s);
		/* Service first, so a zero-latency request completes now. */
		if (ts <= now && ts <= tg && ts <= td) {
			advance(s, ts);
			finish_heads(s);
		} else if (td <= now && td <= tg) {
			advance(s, td);
			complete_due(s);
		} else if (tg <= now) {
			advance(s, tg);
			expire_grace(s);
		} else {
			break;
		}
	}
	advance(s, now);
}

/*
 * A request of a user that is still active but has nothing in the
 * bandwidth stage (waiting for a completion, or idling in its grace)
 * starts where that user's service left off: at the later of its previous
 * finish tag and V when its last request completed (less what V had run
 * past that request's tag before it left, up to a grace of share and up to
 * that request's demand). So the share that accrued while it could not
 * submit (its own turnaround, a late timer, a copy that outlasted the
 * service) is not lost, and no more than one request's worth of it
 * carries over from one request to the next, while the configured
 * latency, which a remote file system charges every request, is not
 * credited back. Otherwise the request starts now.
 */
static void enqueue(struct fnblk_sched *s, struct fnblk_req *rq, bool resume)
{
	struct fnblk_user *u = rq->user;
	struct fnblk_flow *flow;
	u64 demand = request_demand(s, rq);

	flow = s->p.policy == FNBLK_POLICY_FIFO ? &s->fifo : &u->flow;
	rq->flow = flow;
	u->nr_queued++;
	if (!flow->nr_queued) {
		u64 start = s->vtime;

		if (resume) {
			/*
			 * Both lie behind V (nothing of u is in the bandwidth
			 * stage): start from the one closer to V.
			 */
			u64 since_tail = s->vtime - flow->tail_tag;
			u64 since_done = s->vtime - u->done_vtime;

			start = s->vtime - (since_tail < since_done ?
					    since_tail : since_done);
		}
		rq->tag = start + demand;
		start_service(s, rq);
	} else {
		rq->tag = flow->tail_tag + demand;
	}
	flow->tail_tag = rq->tag;
	link_add_tail(&rq->link, &flow->queue);
	if (!flow->nr_queued++) {
		heap_insert(&s->flows, &flow->hnode, rq->tag);
		s->nr_backlogged++;
	}
}

void fnblk_sched_submit(struct fnblk_sched *s, struct fnblk_user *u,
			struct fnblk_req *rq, u64 now)
{
	fnblk_sched_run(s, now);
	rq->user = u;
	rq->flow = NULL;
	rq->submit_ns = s->now;
	rq->start_ns = s->now;
	rq->done_ns = FNBLK_NEVER;
	rq->served = false;
	rq->shared = rq->write || s->p.users == FNBLK_USERS_ALL;
	s->nr_inflight++;
	if (!rq->shared) {
		/* Outside the pool: latency plus service at the full rate. */
		u64 svc = s->p.bw ? mul_div(rq->bytes + s->p.overhead,
					    NSEC_PER_SECOND, s->p.bw) : 0;

		start_service(s, rq);
		rq->leave_ns = s->now + svc;
		departed(s, rq);
		to_delay_stage(s, rq, rq->leave_ns + s->p.latency_ns);
	} else {
		bool resume = u->active && !u->nr_queued &&
			      s->p.policy != FNBLK_POLICY_FIFO;

		activate(s, u);
		u->nr_pending++;
		if (s->p.bw) {
			enqueue(s, rq, resume);
		} else {
			u->nr_queued++;
			start_service(s, rq);
			leave_bw_stage(s, rq);
		}
	}
	fnblk_sched_run(s, now);
}

void fnblk_sched_data_done(struct fnblk_sched *s, struct fnblk_req *rq,
			   u64 now)
{
	fnblk_sched_run(s, now);
	rq->data_pending = false;
	if (rq->served)
		deliver(s, rq);
	fnblk_sched_run(s, now);	/* a zero grace ends at once */
}

int fnblk_sched_configure(struct fnblk_sched *s, const struct fnblk_params *p,
			  u64 now)
{
	fnblk_sched_run(s, now);
	if ((p->policy != s->p.policy || p->users != s->p.users) &&
	    s->nr_inflight)
		return -FNBLK_EBUSY;
	s->p = *p;
	update_rate(s);
	fnblk_sched_run(s, now);
	return 0;
}

void fnblk_sched_set_weight(struct fnblk_sched *s, struct fnblk_user *u,
			    u32 weight, u64 now)
{
	fnblk_sched_run(s, now);
	if (u->active) {
		s->wsum -= u->weight;
		s->wsum += weight;
	}
	u->weight = weight;
	update_rate(s);
}

static void flow_init(struct fnblk_flow *flow)
{
	link_init(&flow->queue);
	flow->hnode.child = NULL;
	flow->hnode.sibling = NULL;
	flow->tail_tag = 0;
	flow->nr_queued = 0;
}

void fnblk_user_init(struct fnblk_user *u, u64 key)
{
	*u = (struct fnblk_user){ .key = key, .weight = 1 };
	flow_init(&u->flow);
	link_init(&u->grace);
}

void fnblk_sched_init(struct fnblk_sched *s, const struct fnblk_params *p,
		      const struct fnblk_sched_ops *ops, void *priv, u64 now)
{
	unsigned int i;

	s->p = *p;
	s->ops = ops;
	s->priv = priv;
	s->flows = NULL;
	s->delay = NULL;
	link_init(&s->grace);
	flow_init(&s->fifo);
	s->now = now;
	s->vtime = 0;
	s->vfrac = 0;
	s->wsum = 0;
	s->nr_active = 0;
	s->nr_backlogged = 0;
	s->nr_inflight = 0;
	s->stats_since_ns = now;
	s->peak_active = 0;
	s->activations = 0;
	s->n_time_sum = 0;
	for (i = 0; i < FNBLK_NHIST_BINS; i++)
		s->n_hist[i] = 0;
	update_rate(s);
}

void fnblk_sched_reset_stats(struct fnblk_sched *s, u64 now)
{
	unsigned int i;

	fnblk_sched_run(s, now);
	s->stats_since_ns = s->now;
	s->peak_active = s->nr_active;
	s->activations = 0;
	s->n_time_sum = 0;
	for (i = 0; i < FNBLK_NHIST_BINS; i++)
		s->n_hist[i] = 0;
}

void fnblk_user_reset_stats(struct fnblk_user *u, u64 now)
{
	u->active_ns = 0;
	u->activations = 0;
	if (u->active)
		u->active_since_ns = now;
}

u64 fnblk_user_active_ns(const struct fnblk_user *u, u64 now)
{
	return u->active_ns + (u->active && now > u->active_since_ns ?
			       now - u->active_since_ns : 0);
}

const char *const fnblk_key_names[__FNBLK_KEY_MAX] = {
	[FNBLK_KEY_TGID] = "tgid",
	[FNBLK_KEY_PID] = "pid",
	[FNBLK_KEY_CGROUP] = "cgroup",
	[FNBLK_KEY_SINGLE] = "single",
};

const char *const fnblk_policy_names[__FNBLK_POLICY_MAX] = {
	[FNBLK_POLICY_ANON] = "anon",
	[FNBLK_POLICY_FIFO] = "fifo",
	[FNBLK_POLICY_WEIGHTED] = "weighted",
};

const char *const fnblk_users_names[__FNBLK_USERS_MAX] = {
	[FNBLK_USERS_ALL] = "all",
	[FNBLK_USERS_WRITES] = "writes",
};

const char *const fnblk_store_names[__FNBLK_STORE_MAX] = {
	[FNBLK_STORE_MEMORY] = "memory",
	[FNBLK_STORE_NONE] = "none",
};

const char *const fnblk_cache_names[__FNBLK_CACHE_MAX] = {
	[FNBLK_CACHE_DURABLE] = "durable",
	[FNBLK_CACHE_VOLATILE] = "volatile",
};

void fnblk_params_default(struct fnblk_params *p)
{
	/* Field by field: the 4 KiB table must not pass through the stack. */
	__builtin_memset(p, 0, sizeof(*p));
	p->bw = FNBLK_DEFAULT_BW;
	p->grace_ns = FNBLK_DEFAULT_GRACE_NS;
	p->policy = FNBLK_POLICY_ANON;
	p->users = FNBLK_USERS_ALL;
	p->fn.nr = 1;
	p->fn.val[0] = FNBLK_FN_ONE;
}

int fnblk_params_check(const struct fnblk_params *p, const char **err)
{
	u32 i;

	if (p->bw && (p->bw < FNBLK_BW_MIN || p->bw > FNBLK_BW_MAX)) {
		*err = "bandwidth must be 0 (unthrottled) or 1 KiB/s to 1 TiB/s";
		return -FNBLK_EINVAL;
	}
	if (p->latency_ns > FNBLK_LATENCY_MAX_NS) {
		*err = "latency must be at most 10 s";
		return -FNBLK_EINVAL;
	}
	if (p->overhead > FNBLK_OVERHEAD_MAX) {
		*err = "overhead must be at most 1 GiB";
		return -FNBLK_EINVAL;
	}
	if (p->grace_ns > FNBLK_GRACE_MAX_NS) {
		*err = "grace must be at most 10 s";
		return -FNBLK_EINVAL;
	}
	if (p->policy >= __FNBLK_POLICY_MAX) {
		*err = "unknown policy";
		return -FNBLK_EINVAL;
	}
	if (p->users >= __FNBLK_USERS_MAX) {
		*err = "unknown users mode";
		return -FNBLK_EINVAL;
	}
	if (!p->fn.nr || p->fn.nr > FNBLK_FN_MAX) {
		*err = "f(n) table must have 1 to 1024 entries";
		return -FNBLK_EINVAL;
	}
	for (i = 0; i < p->fn.nr; i++) {
		if (!p->fn.val[i] || p->fn.val[i] > FNBLK_FN_VAL_MAX) {
			*err = "f(n) values must be in (0, 1024]";
			return -FNBLK_EINVAL;
		}
	}
	/*
	 * The per-user rate f(n)B/n must stay above the core's resolution
	 * (about 0.001 byte/s) for every n up to FNBLK_FN_MAX: below it,
	 * service times lose all precision (and once ran the timer into the
	 * past).
	 */
	for (i = 1; p->bw && i <= FNBLK_FN_MAX; i++) {
		if (!rate_of(p, i, p->policy == FNBLK_POLICY_FIFO ? 1 : i)) {
			*err =
			"bw x f(n) / n < 0.001 B/s per user for an n <= 1024: raise bw or f(n)";
			return -FNBLK_EINVAL;
		}
	}
	return 0;
}
