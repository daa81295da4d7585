// SPDX-License-Identifier: GPL-2.0
/*
 * Discrete-event loop of fnblk-sim; see engine.h.
 *
 * Four sources of events, each O(log N) per event:
 *  - the scheduler core (request completions, grace expiries), asked with
 *    fnblk_sched_next_event();
 *  - the path in front of the device, when there is one: requests in a
 *    heap keyed by the path's virtual time at which they leave it
 *    (processor sharing: every request in it gets 1/k, so that time is one
 *    clock for all and an arrival or departure never reorders the heap);
 *  - computing jobs, in a heap keyed by the amount of work W at which their
 *    compute ends: every computing job progresses at the same rate, so W is
 *    one shared clock and a change of m never reorders the heap;
 *  - first starts, a list sorted once.
 * The core's callbacks only note which jobs need attention; the loop acts on
 * them after fnblk_sched_run() returns, as the core requires.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"
#include "job_heap.h"

enum job_state {
	JOB_WAITING,		/* before its start time */
	JOB_COMPUTING,
	JOB_WRITING,
	JOB_DONE,
};

struct sim_job {
	struct fnblk_user user;	/* who the core counts in n */
	uint64_t cycle;
	uint64_t cycle_start;	/* its compute began */
	uint64_t write_start;
	uint64_t size;		/* of the checkpoint being written */
	uint64_t submitted;	/* bytes handed to the core */
	uint64_t done;		/* bytes completed */
	unsigned int inflight;
	bool pending;		/* in the follow-up ring */
	enum job_state state;
};

struct sim_req {
	struct fnblk_req rq;
	struct sim_job *job;	/* whose, while it crosses the path */
	struct sim_req *next_free;
	struct sim_req *next_held;	/* drain: next served, not delivered */
};

struct job_start {
	uint64_t t;
	unsigned int job;
};

struct sim {
	struct fnblk_sched sched;
	const struct sim_workload *w;
	const struct sim_io *io;
	const struct sim_sink *sink;
	struct sim_result *res;

	struct sim_job *jobs;
	struct sim_req *reqs;
	struct sim_req *free_reqs;

	/* Jobs whose requests completed, to act on after the core returns. */
	unsigned int *ring;
	unsigned int ring_head, ring_nr;

	struct job_heap computing;	/* key: W when the compute ends */
	double work;			/* W, progress of any computing job */
	uint64_t work_t;		/* time W was last brought up to */
	double work_rate;		/* dW/dt now: min(1, P/m) */
	unsigned int nr_computing;	/* m */

	/* The path: processor sharing among the k requests in it. */
	bool path;			/* there is one */
	struct job_heap in_path;	/* key: V_p when it leaves; job: req */
	double path_v;			/* V_p: path time each request got */
	uint64_t path_t;		/* time V_p was last brought up to */

	/* io->drain: served requests held until the device is empty. */
	struct sim_req *held_head, *held_tail;
	uint64_t at_device;		/* requests submitted, not served */

	struct job_start *start_order;	/* jobs by start time */
	unsigned int next_start;
	bool timeless;			/* a cycle took no time: would not end */
};

#define job_of(u) ((struct sim_job *)((char *)(u) - \
				      __builtin_offsetof(struct sim_job, user)))
#define req_of(r) ((struct sim_req *)((char *)(r) - \
				      __builtin_offsetof(struct sim_req, rq)))

/*
 * A compute due within this many ns has ended: W is a double, whose
 * rounding (an ulp is 0.002 ns at 10^13 ns) must not cost a whole ns.
 */
#define DUE_EPSILON_NS	0.01

static void note_pending(struct sim *sim, unsigned int j)
{
	struct sim_job *job = &sim->jobs[j];
	unsigned int n = sim->w->jobs;

	if (job->pending)
		return;
	job->pending = true;
	sim->ring[(sim->ring_head + sim->ring_nr++) % n] = j;
}

/* A request's completion reaches its job. */
static void deliver(struct sim *sim, struct sim_req *r)
{
	struct sim_job *job = job_of(r->rq.user);

	job->done += r->rq.bytes;
	job->inflight--;
	r->next_free = sim->free_reqs;
	sim->free_reqs = r;
	sim->res->requests++;
	sim->res->events++;
	note_pending(sim, (unsigned int)(job - sim->jobs));
}

static void on_complete(struct fnblk_sched *s, struct fnblk_req *rq)
{
	struct sim *sim = s->priv;
	struct sim_req *r = req_of(rq);

	sim->at_device--;
	if (!sim->io->drain) {
		deliver(sim, r);
		return;
	}
	/* Held, in the order served, until the device has nothing left. */
	r->next_held = NULL;
	if (sim->held_tail)
		sim->held_tail->next_held = r;
	else
		sim->held_head = r;
	sim->held_tail = r;
	if (sim->at_device)
		return;
	while (sim->held_head) {
		r = sim->held_head;
		sim->held_head = r->next_held;
		deliver(sim, r);
	}
	sim->held_tail = NULL;
}

/* Hand a request to the device at t. */
static void to_device(struct sim *sim, struct sim_job *job, struct sim_req *r,
		      uint64_t t)
{
	sim->at_device++;
	fnblk_sched_submit(&sim->sched, &job->user, &r->rq, t);
}

static void on_activity(struct fnblk_sched *s, struct fnblk_user *u,
			bool active, u64 t)
{
	struct sim *sim = s->priv;

	(void)u;
	(void)active;
	if (sim->sink->n_change)
		sim->sink->n_change(sim->sink->ctx, t, s->nr_active);
}

static const struct fnblk_sched_ops sim_ops = {
	.complete = on_complete,
	.activity = on_activity,
};

static double power_rate(const struct sim *sim)
{
	double cap = sim->w->power_cap;

	if (cap <= 0 || sim->nr_computing <= cap)
		return 1.0;
	return cap / sim->nr_computing;
}

/* Bring W up to t at the rate that held since work_t. */
static void advance_work(struct sim *sim, uint64_t t)
{
	if (sim->nr_computing)
		sim->work += (double)(t - sim->work_t) * sim->work_rate;
	sim->work_t = t;
}

static uint64_t compute_due(const struct sim *sim)
{
	double left;

	if (job_heap_empty(&sim->computing))
		return FNBLK_NEVER;
	left = (job_heap_min(&sim->computing)->key - sim->work) / sim->work_rate;
	if (left <= DUE_EPSILON_NS)
		return sim->work_t;
	return sim->work_t + (uint64_t)ceil(left);
}

static uint64_t start_due(const struct sim *sim)
{
	if (sim->next_start >= sim->w->jobs)
		return FNBLK_NEVER;
	return sim->start_order[sim->next_start].t;
}

double sim_path_work_ns(const struct sim_io *io, uint64_t bytes)
{
	double ns = 0;

	if (io->path_bw)
		ns += (double)bytes * 1e9 / (double)io->path_bw;
	if (io->path_iops)
		ns += 1e9 / (double)io->path_iops;
	return ns;
}

/* Bring V_p up to t: each of the k requests in the path got (t - t0)/k. */
static void advance_path(struct sim *sim, uint64_t t)
{
	size_t k = sim->in_path.nr;

	if (k)
		sim->path_v += (double)(t - sim->path_t) / (double)k;
	sim->path_t = t;
}

static uint64_t path_due(const struct sim *sim)
{
	double left;

	if (job_heap_empty(&sim->in_path))
		return FNBLK_NEVER;
	left = (job_heap_min(&sim->in_path)->key - sim->path_v) *
	       (double)sim->in_path.nr;
	if (left <= DUE_EPSILON_NS)
		return sim->path_t;
	return sim->path_t + (uint64_t)ceil(left);
}

/* Requests whose path work is done go on to the device at t. */
static void leave_path(struct sim *sim, uint64_t t)
{
	struct job_heap_entry e;
	struct sim_req *r;

	while (path_due(sim) <= t) {
		e = job_heap_pop(&sim->in_path);
		r = &sim->reqs[e.job];
		to_device(sim, r->job, r, t);
	}
}

static void submit_more(struct sim *sim, struct sim_job *job, uint64_t t)
{
	uint64_t bs = sim->io->bs ? sim->io->bs : job->size;
	struct sim_req *r;

	while (job->inflight < sim->io->qd && job->submitted < job->size) {
		r = sim->free_reqs;
		sim->free_reqs = r->next_free;
		r->rq.bytes = job->size - job->submitted < bs ?
			      job->size - job->submitted : bs;
		r->rq.write = true;
		job->submitted += r->rq.bytes;
		job->inflight++;
		if (!sim->path) {
			to_device(sim, job, r, t);
			continue;
		}
		r->job = job;
		job_heap_push(&sim->in_path, sim->path_v +
			      sim_path_work_ns(sim->io, r->rq.bytes),
			      (unsigned int)(r - sim->reqs));
	}
}

static void begin_write(struct sim *sim, struct sim_job *job, uint64_t t)
{
	unsigned int j = (unsigned int)(job - sim->jobs);

	job->state = JOB_WRITING;
	job->write_start = t;
	job->size = sim->w->size(sim->w->ctx, j, job->cycle);
	if (!job->size)
		job->size = 1;
	job->submitted = 0;
	job->done = 0;
	sim->res->events++;
	submit_more(sim, job, t);
}

static void begin_cycle(struct sim *sim, struct sim_job *job, uint64_t t)
{
	unsigned int j = (unsigned int)(job - sim->jobs);
	uint64_t compute = sim->w->compute_ns(sim->w->ctx, j, job->cycle);

	job->cycle_start = t;
	if (!compute) {
		begin_write(sim, job, t);
		return;
	}
	job->state = JOB_COMPUTING;
	job_heap_push(&sim->computing, sim->work + (double)compute, j);
	sim->nr_computing++;
}

static void end_write(struct sim *sim, struct sim_job *job, uint64_t t)
{
	struct fnblk_event ev = {
		.job = (uint32_t)(job - sim->jobs),
		.cycle = (uint32_t)job->cycle,
		.start_ns = job->write_start,
		.end_ns = t,
		.bytes = job->size,
	};

	sim->res->writes++;
	sim->res->events++;
	/* Unthrottled, no latency, no compute: a run by duration never ends. */
	if (job->cycle_start == t && sim->w->duration_ns)
		sim->timeless = true;
	if (sim->sink->write)
		sim->sink->write(sim->sink->ctx, &ev);
	job->cycle++;
	if (sim->w->cycles && job->cycle >= sim->w->cycles) {
		job->state = JOB_DONE;
		return;
	}
	begin_cycle(sim, job, t);
}

/* Act on every job the core told about, including ones added meanwhile. */
static void drain_pending(struct sim *sim, uint64_t t)
{
	unsigned int n = sim->w->jobs;
	struct sim_job *job;

	while (sim->ring_nr && !sim->timeless) {
		job = &sim->jobs[sim->ring[sim->ring_head]];
		sim->ring_head = (sim->ring_head + 1) % n;
		sim->ring_nr--;
		job->pending = false;
		if (job->done == job->size)
			end_write(sim, job, t);
		else
			submit_more(sim, job, t);
	}
}

static void end_computes(struct sim *sim, uint64_t t)
{
	struct job_heap_entry e;

	while (compute_due(sim) <= t) {
		e = job_heap_pop(&sim->computing);
		sim->nr_computing--;
		begin_write(sim, &sim->jobs[e.job], t);
	}
}

static void first_starts(struct sim *sim, uint64_t t)
{
	while (start_due(sim) <= t)
		begin_cycle(sim,
			    &sim->jobs[sim->start_order[sim->next_start++].job],
			    t);
}

static int by_start(const void *a, const void *b)
{
	const struct job_start *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

static int sim_alloc(struct sim *sim, unsigned int n, unsigned int qd)
{
	size_t i, nr_reqs = (size_t)n * qd;

	sim->jobs = calloc(n, sizeof(*sim->jobs));
	sim->reqs = calloc(nr_reqs, sizeof(*sim->reqs));
	sim->ring = calloc(n, sizeof(*sim->ring));
	sim->start_order = calloc(n, sizeof(*sim->start_order));
	if (!sim->jobs || !sim->reqs || !sim->ring || !sim->start_order ||
	    job_heap_init(&sim->computing, n) ||
	    (sim->path && job_heap_init(&sim->in_path, nr_reqs)))
		return -1;
	for (i = 0; i < nr_reqs; i++) {
		sim->reqs[i].next_free = sim->free_reqs;
		sim->free_reqs = &sim->reqs[i];
	}
	for (i = 0; i < n; i++) {
		fnblk_user_init(&sim->jobs[i].user, i);
		sim->start_order[i].job = (unsigned int)i;
		sim->start_order[i].t = sim->w->start_ns(sim->w->ctx,
							 (unsigned int)i);
	}
	return 0;
}

static void sim_free(struct sim *sim)
{
	free(sim->jobs);
	free(sim->reqs);
	free(sim->ring);
	free(sim->start_order);
	job_heap_free(&sim->computing);
	job_heap_free(&sim->in_path);
}

static void loop(struct sim *sim)
{
	const struct sim_workload *w = sim->w;
	uint64_t t, tc, tw, ts, tp;

	for (;;) {
		tc = fnblk_sched_next_event(&sim->sched);
		tw = compute_due(sim);
		ts = start_due(sim);
		tp = path_due(sim);
		t = tc < tw ? tc : tw;
		t = t < ts ? t : ts;
		t = t < tp ? t : tp;
		if (t == FNBLK_NEVER)
			break;
		if (w->duration_ns && t > w->duration_ns) {
			t = w->duration_ns;
			advance_work(sim, t);
			fnblk_sched_run(&sim->sched, t);
			break;
		}
		advance_work(sim, t);
		advance_path(sim, t);
		fnblk_sched_run(&sim->sched, t);
		do {
			leave_path(sim, t);
			drain_pending(sim, t);
			end_computes(sim, t);
			first_starts(sim, t);
		} while (sim->ring_nr && !sim->timeless);
		if (sim->timeless)
			break;
		sim->work_rate = power_rate(sim);
	}
}

int sim_run(const struct fnblk_params *dev, const struct sim_io *io,
	    const struct sim_workload *w, const struct sim_sink *sink,
	    struct sim_result *res, char *err, size_t errlen)
{
	struct sim sim = { .w = w, .io = io, .sink = sink, .res = res,
			   .path = io->path_bw || io->path_iops };
	const char *why;
	int ret = -1;

	*res = (struct sim_result){ 0 };
	if (fnblk_params_check(dev, &why)) {
		snprintf(err, errlen, "device: %s", why);
		return -1;
	}
	if (!w->jobs || !io->qd) {
		snprintf(err, errlen, "need at least one job and qd >= 1");
		return -1;
	}
	if (!w->cycles && !w->duration_ns) {
		snprintf(err, errlen, "need a number of cycles or a duration");
		return -1;
	}
	if (sim_alloc(&sim, w->jobs, io->qd)) {
		snprintf(err, errlen, "out of memory for %u jobs", w->jobs);
		goto out;
	}
	qsort(sim.start_order, w->jobs, sizeof(*sim.start_order), by_start);
	sim.work_rate = 1.0;
	fnblk_sched_init(&sim.sched, dev, &sim_ops, &sim, 0);
	loop(&sim);
	if (sim.timeless) {
		snprintf(err, errlen,
			 "a cycle takes no time (no bandwidth limit, latency or compute): the run would never end");
		goto out;
	}

	res->end_ns = sim.sched.now;
	res->peak_active = sim.sched.peak_active;
	res->n_time_sum = sim.sched.n_time_sum;
	for (unsigned int i = 0; i < FNBLK_NHIST_BINS; i++)
		res->n_hist[i] = sim.sched.n_hist[i];
	ret = 0;
out:
	sim_free(&sim);
	return ret;
}

/* ---- one job alone ---- */

struct solo {
	uint64_t size;
	uint64_t ns;
};

static uint64_t solo_start(void *ctx, unsigned int job)
{
	(void)ctx;
	(void)job;
	return 0;
}

static uint64_t solo_compute(void *ctx, unsigned int job, uint64_t cycle)
{
	(void)ctx;
	(void)job;
	(void)cycle;
	return 0;
}

static uint64_t solo_size(void *ctx, unsigned int job, uint64_t cycle)
{
	(void)job;
	(void)cycle;
	return ((struct solo *)ctx)->size;
}

static void solo_write(void *ctx, const struct fnblk_event *ev)
{
	((struct solo *)ctx)->ns = ev->end_ns - ev->start_ns;
}

uint64_t sim_solo_write_ns(const struct fnblk_params *dev,
			   const struct sim_io *io, uint64_t size)
{
	struct solo solo = { .size = size };
	struct sim_workload w = {
		.jobs = 1, .cycles = 1, .ctx = &solo, .start_ns = solo_start,
		.compute_ns = solo_compute, .size = solo_size,
	};
	struct sim_sink sink = { .ctx = &solo, .write = solo_write };
	struct sim_result res;
	char err[128];

	if (sim_run(dev, io, &w, &sink, &res, err, sizeof(err)))
		return 0;
	return solo.ns;
}
