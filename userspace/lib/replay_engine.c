// SPDX-License-Identifier: GPL-2.0
/*
 * Discrete-event loop of the replay simulator; see replay_engine.h.
 *
 * Two timer heaps give the next event in O(log n): one of sites (each
 * site's scheduler core's next event) and one of jobs (the end of a
 * compute, an arrival or a retry). The core's callbacks only note which
 * jobs and users need attention; the loop acts on them after the core
 * returns, as the core requires. A job's rows go through the same
 * replay_builder as a file's, so the simulator's KPIs and those of its
 * event file are one computation.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_engine.h"
#include "replay_locality.h"
#include "timer_heap.h"

#define NONE	UINT32_MAX

enum rjob_state {
	RJOB_WAITING,		/* before its arrival, or backing off */
	RJOB_QUEUED,		/* at a site, waiting for a slot */
	RJOB_COMPUTING,
	RJOB_IO,
	RJOB_DONE,
};

/* A user of a site's device: one running job, until its grace is over. */
struct ruser {
	struct fnblk_user u;
	uint32_t job;
	bool released;		/* its job's attempt is over */
};

struct rreq {
	struct fnblk_req rq;
};

struct rjob {
	const struct jobrec *rec;
	enum rjob_state state;
	uint32_t attempt;
	uint32_t site;
	uint32_t next;		/* in its site's queue */
	uint64_t eligible_ns;	/* queued since */
	struct ruser *user;
	struct replay_plan plan;
	size_t op;
	int phase;		/* enum replay_phase, -1 before the first */
	bool phase_open;	/* phase has begun and will have a row */
	uint64_t op_start, phase_start, phase_io, phase_bytes, phase_remote;
	uint64_t submitted, done;	/* bytes of the current I/O */
	unsigned int inflight;
	bool pending;		/* in the follow-up list */
	struct replay_row *rows;
	size_t nr_rows, cap_rows;
};

struct rsite {
	struct fnblk_sched sched;
	const struct replay_site *cfg;
	unsigned int running;
	unsigned int queued;
	uint32_t head, tail;	/* FIFO of queued jobs */
	bool start_due;		/* a slot freed: start queued jobs */
};

/*
 * Requests and users come from free lists that grow by blocks of 256,
 * kept until the end of the run; a free object's first bytes link it.
 */
struct pool {
	void *free;
	size_t size;
};

struct engine {
	const struct replay_sim *sim;
	const struct replay_sim_sink *sink;
	struct replay_sim_stats *stats;
	struct jobrecs *t;
	struct rjob *jobs;
	uint32_t *rec_site;	/* by job: the site its record names */
	struct rsite *sites;
	struct timer_heap site_timers, job_timers;
	struct pool users, reqs;
	void **blocks;		/* what the pools were carved from */
	size_t nr_blocks;
	uint32_t *pending;	/* jobs whose requests completed */
	size_t nr_pending;
	uint32_t *start_list;	/* sites with a freed slot */
	struct replay_site_load *load;	/* for assignment */
	size_t nr_start;
	struct replay_builder builder;
	char *err;
	size_t errlen;
	bool failed;
};

#define user_of(p) ((struct ruser *)((char *)(p) - \
				     __builtin_offsetof(struct ruser, u)))
#define req_of(p) ((struct rreq *)((char *)(p) - \
				   __builtin_offsetof(struct rreq, rq)))

__attribute__((format(printf, 2, 3)))
static void fail(struct engine *e, const char *fmt, ...)
{
	va_list ap;

	if (e->failed)
		return;
	e->failed = true;
	va_start(ap, fmt);
	vsnprintf(e->err, e->errlen, fmt, ap);
	va_end(ap);
}

static void *pool_get(struct engine *e, struct pool *p)
{
	void **b, *obj = p->free;
	size_t i;

	if (!obj) {
		b = realloc(e->blocks, (e->nr_blocks + 1) * sizeof(*b));
		if (!b)
			return NULL;
		e->blocks = b;
		obj = calloc(256, p->size);
		if (!obj)
			return NULL;
		b[e->nr_blocks++] = obj;
		for (i = 255; i > 0; i--) {
			void *o = (char *)obj + i * p->size;

			*(void **)o = p->free;
			p->free = o;
		}
		return obj;
	}
	p->free = *(void **)obj;
	return obj;
}

static void pool_put(struct pool *p, void *obj)
{
	*(void **)obj = p->free;
	p->free = obj;
}

static void note_pending(struct engine *e, uint32_t j)
{
	if (e->jobs[j].pending)
		return;
	e->jobs[j].pending = true;
	e->pending[e->nr_pending++] = j;
}

static void on_complete(struct fnblk_sched *s, struct fnblk_req *rq)
{
	struct engine *e = s->priv;
	struct ruser *u = user_of(rq->user);
	struct rjob *job = &e->jobs[u->job];
	struct rreq *r = req_of(rq);

	job->done += rq->bytes;
	job->inflight--;
	pool_put(&e->reqs, r);
	e->stats->requests++;
	e->stats->events++;
	note_pending(e, u->job);
}

/* A user whose job has moved on leaves the pool when it goes idle. */
static void on_activity(struct fnblk_sched *s, struct fnblk_user *fu,
			bool active, u64 t)
{
	struct engine *e = s->priv;
	struct ruser *u = user_of(fu);

	(void)t;
	if (!active && u->released)
		pool_put(&e->users, u);
}

static const struct fnblk_sched_ops replay_ops = {
	.complete = on_complete,
	.activity = on_activity,
};

static void site_timer(struct engine *e, uint32_t s)
{
	u64 next = fnblk_sched_next_event(&e->sites[s].sched);

	timer_heap_set(&e->site_timers, s, next == FNBLK_NEVER ? TIMER_NONE : next);
}

static int add_row(struct engine *e, struct rjob *job, enum replay_what what,
		   uint64_t start, uint64_t end, bool ok)
{
	struct replay_row *r;

	if (job->nr_rows == job->cap_rows) {
		size_t cap = job->cap_rows ? 2 * job->cap_rows : 8;

		r = realloc(job->rows, cap * sizeof(*r));
		if (!r) {
			fail(e, "out of memory");
			return -1;
		}
		job->rows = r;
		job->cap_rows = cap;
	}
	r = &job->rows[job->nr_rows++];
	memset(r, 0, sizeof(*r));
	r->id = job->rec->id;
	snprintf(r->category, sizeof(r->category), "%s", job->rec->category);
	r->attempt = job->attempt;
	if (what != REPLAY_WHAT_JOB)
		snprintf(r->site, sizeof(r->site), "%s",
			 e->sites[job->site].cfg->name);
	r->what = (uint8_t)what;
	r->start_ns = start;
	r->end_ns = end;
	r->ok = ok;
	return 0;
}

/* Hand a finished job's rows to the sink and to the KPI builder. */
static void job_end(struct engine *e, struct rjob *job, uint64_t t, bool ok)
{
	char msg[160];

	if (add_row(e, job, REPLAY_WHAT_JOB, job->rows[0].start_ns, t, ok))
		return;
	job->rows[job->nr_rows - 1].bytes = job->plan.in_bytes;
	job->state = RJOB_DONE;
	if (replay_job_done(&e->builder, job->rows, job->nr_rows, e->sink->rows,
			    e->sink->result, e->sink->ctx, msg, sizeof(msg)))
		fail(e, "job %" PRIu64 ": %s", job->rec->id, msg);
	free(job->rows);
	job->rows = NULL;
	job->nr_rows = job->cap_rows = 0;
	replay_plan_free(&job->plan);
	if (t > e->stats->end_ns)
		e->stats->end_ns = t;
}

static void release_user(struct engine *e, struct rjob *job)
{
	struct ruser *u = job->user;

	job->user = NULL;
	if (!u)
		return;
	if (u->u.active)
		u->released = true;	/* freed by on_activity */
	else
		pool_put(&e->users, u);
}

/* The attempt is over; a failed one is retried while attempts remain. */
static void end_attempt(struct engine *e, uint32_t j, uint64_t t, bool ok)
{
	struct rjob *job = &e->jobs[j];
	struct rsite *site = &e->sites[job->site];
	const struct replay_config *rc = e->sim->rc;

	release_user(e, job);
	site->running--;
	if (!site->start_due) {
		site->start_due = true;
		e->start_list[e->nr_start++] = job->site;
	}
	if (ok || job->attempt >= rc->max_attempts) {
		job_end(e, job, t, ok);
		return;
	}
	job->state = RJOB_WAITING;
	job->eligible_ns = t + replay_backoff_ns(rc, job->attempt);
	job->attempt++;
	timer_heap_set(&e->job_timers, j, job->eligible_ns);
}

/* Close the phase in progress; false when it failed (attempt over). */
static bool close_phase(struct engine *e, uint32_t j, uint64_t t)
{
	struct rjob *job = &e->jobs[j];
	enum replay_phase ph = (enum replay_phase)job->phase;
	bool ok = !replay_fails(e->sim->rc, e->sites[job->site].cfg->fail,
				job->rec, job->attempt, ph);
	struct replay_row *r;

	if (add_row(e, job, (enum replay_what)(REPLAY_WHAT_STAGEIN + ph),
		    job->phase_start, t, ok))
		return false;
	r = &job->rows[job->nr_rows - 1];
	r->io_ns = job->phase_io;
	r->bytes = job->phase_bytes;
	r->remote_bytes = job->phase_remote;
	if (!ok)
		end_attempt(e, j, t, false);
	return ok;
}

static void open_phase(struct rjob *job, uint64_t t)
{
	job->phase_open = true;
	job->phase_start = t;
	job->phase_io = job->phase_bytes = job->phase_remote = 0;
}

/*
 * Move to phase next (REPLAY_NR_PHASES: the end), closing the phase in
 * progress. A phase without operations has no row, but for the payload,
 * which always happens (in no time if it has nothing to do).
 */
static bool enter_phase(struct engine *e, uint32_t j, int next, uint64_t t)
{
	struct rjob *job = &e->jobs[j];

	while (job->phase < next) {
		if (job->phase_open && !close_phase(e, j, t))
			return false;
		job->phase_open = false;
		job->phase++;
		if (job->phase == next || job->phase == REPLAY_PAYLOAD)
			open_phase(job, t);
	}
	return true;
}

static void submit_more(struct engine *e, uint32_t j, uint64_t t)
{
	struct rjob *job = &e->jobs[j];
	const struct replay_op *op = &job->plan.ops[job->op];
	struct rsite *site = &e->sites[job->site];
	struct rreq *r;

	while (job->inflight < e->sim->qd && job->submitted < op->amount) {
		r = pool_get(e, &e->reqs);
		if (!r) {
			fail(e, "out of memory");
			return;
		}
		memset(&r->rq, 0, sizeof(r->rq));
		r->rq.bytes = op->amount - job->submitted < e->sim->bs ?
			      op->amount - job->submitted : e->sim->bs;
		r->rq.write = op->kind == REPLAY_WRITE;
		job->submitted += r->rq.bytes;
		job->inflight++;
		fnblk_sched_submit(&site->sched, &job->user->u, &r->rq, t);
	}
}

/* Begin operation job->op (or end the attempt after the last). */
static void start_op(struct engine *e, uint32_t j, uint64_t t)
{
	struct rjob *job = &e->jobs[j];
	const struct replay_op *op;

	if (job->op == job->plan.nr) {
		if (enter_phase(e, j, REPLAY_NR_PHASES, t))
			end_attempt(e, j, t, true);
		return;
	}
	op = &job->plan.ops[job->op];
	if (op->phase != job->phase && !enter_phase(e, j, op->phase, t))
		return;
	job->op_start = t;
	if (op->kind == REPLAY_COMPUTE) {
		job->state = RJOB_COMPUTING;
		timer_heap_set(&e->job_timers, j, t + op->amount);
		return;
	}
	job->state = RJOB_IO;
	job->submitted = job->done = 0;
	submit_more(e, j, t);
	site_timer(e, job->site);
}

static void op_done(struct engine *e, uint32_t j, uint64_t t)
{
	struct rjob *job = &e->jobs[j];
	const struct replay_op *op = &job->plan.ops[job->op];

	if (op->kind != REPLAY_COMPUTE) {
		job->phase_io += t - job->op_start;
		job->phase_bytes += op->amount;
		if (op->remote)
			job->phase_remote += op->amount;
	}
	job->op++;
	start_op(e, j, t);
}

static void start_attempt(struct engine *e, uint32_t j, uint64_t t)
{
	struct rjob *job = &e->jobs[j];
	struct rsite *site = &e->sites[job->site];
	const char *why;

	site->running++;
	if (add_row(e, job, REPLAY_WHAT_QUEUE, job->eligible_ns, t, true))
		return;
	/* Each attempt's own plan: where it runs decides what is remote. */
	if (replay_plan_build(e->sim->rc, job->rec,
			      replay_locality_holds(e->sim->locality,
						    job->rec->category, job->site),
			      &job->plan, &why)) {
		fail(e, "job %" PRIu64 ": %s", job->rec->id, why);
		return;
	}
	job->user = pool_get(e, &e->users);
	if (!job->user) {
		fail(e, "out of memory");
		return;
	}
	fnblk_user_init(&job->user->u, j);
	job->user->job = j;
	job->user->released = false;
	job->op = 0;
	job->phase = -1;
	job->phase_open = false;
	start_op(e, j, t);
}

/* Start queued jobs at site s while it has free slots. */
static void start_queued(struct engine *e, uint32_t s, uint64_t t)
{
	struct rsite *site = &e->sites[s];

	site->start_due = false;
	while (!e->failed && site->running < site->cfg->slots &&
	       site->head != NONE) {
		uint32_t j = site->head;

		site->head = e->jobs[j].next;
		if (site->head == NONE)
			site->tail = NONE;
		site->queued--;
		start_attempt(e, j, t);
	}
}

static uint32_t assign_site(struct engine *e, uint32_t j)
{
	uint32_t s;

	for (s = 0; s < e->sim->nr_sites; s++) {
		e->load[s].running = e->sites[s].running;
		e->load[s].queued = e->sites[s].queued;
		e->load[s].slots = e->sites[s].cfg->slots;
	}
	return replay_assign_site(e->sim->assign, e->sim->rc, e->jobs[j].rec,
				  e->jobs[j].attempt, e->load,
				  e->sim->nr_sites, e->rec_site[j],
				  e->sim->locality);
}

static void arrive(struct engine *e, uint32_t j, uint64_t t)
{
	struct rjob *job = &e->jobs[j];
	uint32_t s = assign_site(e, j);
	struct rsite *site = &e->sites[s];

	job->site = s;
	job->state = RJOB_QUEUED;
	job->eligible_ns = t;
	job->next = NONE;
	if (site->tail == NONE)
		site->head = j;
	else
		e->jobs[site->tail].next = j;
	site->tail = j;
	site->queued++;
	start_queued(e, s, t);
}

/* Jobs whose requests completed move on; freed slots take queued jobs. */
static void follow_up(struct engine *e, uint64_t t)
{
	size_t i;

	for (i = 0; i < e->nr_pending && !e->failed; i++) {
		uint32_t j = e->pending[i];
		struct rjob *job = &e->jobs[j];
		const struct replay_op *op = &job->plan.ops[job->op];

		job->pending = false;
		if (job->done == op->amount)
			op_done(e, j, t);
		else
			submit_more(e, j, t);
		site_timer(e, job->site);
	}
	e->nr_pending = 0;
	/* Starting a job can free a slot again (a job with nothing to do). */
	while (e->nr_start && !e->failed)
		start_queued(e, e->start_list[--e->nr_start], t);
}

static int map_recorded_sites(struct engine *e)
{
	size_t j;
	uint32_t s;

	for (j = 0; j < e->t->nr; j++) {
		for (s = 0; s < e->sim->nr_sites; s++)
			if (!strcmp(e->t->r[j].site, e->sim->sites[s].name))
				break;
		if (s == e->sim->nr_sites &&
		    e->sim->assign == REPLAY_ASSIGN_RECORDED) {
			fail(e, "job %" PRIu64 " ran at site '%s', which no --site names (or choose --assign random|least-loaded)",
			     e->t->r[j].id, e->t->r[j].site);
			return -1;
		}
		e->rec_site[j] = s;
	}
	return 0;
}

static int setup(struct engine *e)
{
	const struct replay_sim *sim = e->sim;
	size_t nr = e->t->nr, j;
	const char *why;
	uint32_t s;

	if (replay_config_check(sim->rc, &why)) {
		fail(e, "%s", why);
		return -1;
	}
	if (!sim->nr_sites || !sim->qd || !sim->bs || sim->bs % REPLAY_BLOCK) {
		fail(e, "a site, a queue depth and a request size (a multiple of 4KiB) are needed");
		return -1;
	}
	if (nr >= NONE) {
		fail(e, "too many jobs");
		return -1;
	}
	e->jobs = calloc(nr ? nr : 1, sizeof(*e->jobs));
	e->rec_site = calloc(nr ? nr : 1, sizeof(*e->rec_site));
	e->pending = calloc(nr ? nr : 1, sizeof(*e->pending));
	e->sites = calloc(sim->nr_sites, sizeof(*e->sites));
	e->start_list = calloc(sim->nr_sites, sizeof(*e->start_list));
	e->load = calloc(sim->nr_sites, sizeof(*e->load));
	if (!e->load || !e->start_list || !e->jobs || !e->rec_site || !e->pending || !e->sites ||
	    timer_heap_init(&e->site_timers, sim->nr_sites) ||
	    timer_heap_init(&e->job_timers, nr)) {
		fail(e, "out of memory");
		return -1;
	}
	for (s = 0; s < sim->nr_sites; s++) {
		if (fnblk_params_check(&sim->sites[s].dev, &why)) {
			fail(e, "site %s: %s", sim->sites[s].name, why);
			return -1;
		}
		if (!sim->sites[s].slots) {
			fail(e, "site %s: at least one slot", sim->sites[s].name);
			return -1;
		}
		e->sites[s].cfg = &sim->sites[s];
		e->sites[s].head = e->sites[s].tail = NONE;
		fnblk_sched_init(&e->sites[s].sched, &sim->sites[s].dev,
				 &replay_ops, e, 0);
	}
	if (map_recorded_sites(e))
		return -1;
	for (j = 0; j < nr; j++) {
		struct rjob *job = &e->jobs[j];
		double at = (double)(e->t->r[j].created_s - e->t->first_created_s);

		job->rec = &e->t->r[j];
		job->attempt = 1;
		job->phase = -1;
		timer_heap_set(&e->job_timers, (uint32_t)j,
			       replay_ns(sim->rc, at));
	}
	return 0;
}

static void teardown(struct engine *e)
{
	size_t i;

	for (i = 0; e->jobs && i < e->t->nr; i++) {
		free(e->jobs[i].rows);
		replay_plan_free(&e->jobs[i].plan);
	}
	for (i = 0; i < e->nr_blocks; i++)
		free(e->blocks[i]);
	free(e->blocks);
	free(e->jobs);
	free(e->rec_site);
	free(e->pending);
	free(e->sites);
	free(e->start_list);
	free(e->load);
	timer_heap_free(&e->site_timers);
	timer_heap_free(&e->job_timers);
}

int replay_sim_run(const struct replay_sim *sim, struct jobrecs *t,
		   const struct replay_sim_sink *sink,
		   struct replay_sim_stats *stats, char *err, size_t errlen)
{
	struct engine e = {
		.sim = sim, .sink = sink, .stats = stats, .t = t,
		.err = err, .errlen = errlen,
		.users.size = sizeof(struct ruser),
		.reqs.size = sizeof(struct rreq),
	};

	memset(stats, 0, sizeof(*stats));
	jobrecs_sort(t);
	if (setup(&e))
		goto out;
	while (!e.failed) {
		uint64_t ts = timer_heap_next(&e.site_timers);
		uint64_t tj = timer_heap_next(&e.job_timers);

		if (ts == TIMER_NONE && tj == TIMER_NONE)
			break;
		if (ts <= tj) {
			uint32_t s = timer_heap_first(&e.site_timers);

			fnblk_sched_run(&e.sites[s].sched, ts);
			site_timer(&e, s);
			follow_up(&e, ts);
		} else {
			uint32_t j = timer_heap_first(&e.job_timers);

			timer_heap_set(&e.job_timers, j, TIMER_NONE);
			stats->events++;
			if (e.jobs[j].state == RJOB_WAITING)
				arrive(&e, j, tj);
			else
				op_done(&e, j, tj);
			follow_up(&e, tj);
		}
	}
	if (!e.failed) {
		size_t j;

		for (j = 0; j < t->nr; j++) {
			if (e.jobs[j].state != RJOB_DONE) {
				fail(&e, "internal: job %" PRIu64 " did not end",
				     t->r[j].id);
				break;
			}
		}
	}
out:
	teardown(&e);
	return e.failed ? -1 : 0;
}
