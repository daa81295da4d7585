// SPDX-License-Identifier: GPL-2.0
/*
 * The replay's parent (see run.h). One loop: start the jobs whose arrival
 * (or backoff) is due, wait in ppoll() on the job pipe until the next one
 * is due, take the rows the jobs send, and reap the processes. A slot is
 * freed when its attempt says it has ended, or when its process dies
 * without saying so (its attempt then fails in the phase after the last
 * one it reported). Rows go through the same replay_builder as the
 * simulator's, so both compute the KPIs the same way.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* ppoll, pipe2 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "interrupt.h"
#include "job.h"
#include "replay_locality.h"
#include "run.h"
#include "spare.h"
#include "timer_heap.h"

#define NONE	UINT32_MAX
/*
 * Spare processes are kept ready one per slot, so that every slot can
 * start a job at once (their buffers take what the running jobs' do),
 * up to this many processes.
 */
#define MAX_SPARES	256

enum rjob_state {
	RJOB_WAITING,		/* before its arrival, or backing off */
	RJOB_QUEUED,
	RJOB_RUNNING,
	RJOB_DONE,
};

struct rjob {
	const struct jobrec *rec;
	enum rjob_state state;
	unsigned int attempt;
	uint32_t site;
	uint32_t slot;
	uint32_t next;		/* in its site's queue */
	uint64_t eligible_ns;	/* queued since (replayed time) */
	pid_t pid;		/* 0 once reaped */
	bool ended;		/* its attempt said so */
	bool ok;		/* how */
	int last_phase;		/* of the rows received, -1 none */
	bool error_row;		/* a row of this attempt failed */
	uint64_t last_end;	/* of the rows received */
	struct replay_row *rows;
	size_t nr_rows, cap_rows;
};

struct rsite {
	const struct run_site *cfg;
	uint64_t region;	/* bytes per slot */
	uint32_t *slot_job;	/* job in each slot, or NONE */
	unsigned int running, queued;
	uint32_t head, tail;
};

struct run {
	const struct run_config *cfg;
	const struct run_sink *sink;
	struct run_stats *st;
	struct jobrecs *t;
	struct rjob *jobs;
	uint32_t *rec_site;
	struct rsite *sites;
	struct replay_site_load *load;
	struct timer_heap arrivals;
	struct replay_builder builder;
	uint64_t t0;
	int pipe[2];
	struct spare_pool spares;
	size_t nr_done;
	char *err;
	size_t errlen;
	bool failed;
};

__attribute__((format(printf, 2, 3)))
static void fail(struct run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->failed)
		return;
	r->failed = true;
	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
}

static uint64_t now(const struct run *r)
{
	uint64_t t = job_now_ns();

	return t > r->t0 ? t - r->t0 : 0;
}

static struct replay_row *add_row(struct run *r, struct rjob *job)
{
	struct replay_row *row;

	if (job->nr_rows == job->cap_rows) {
		size_t cap = job->cap_rows ? 2 * job->cap_rows : 8;

		row = realloc(job->rows, cap * sizeof(*row));
		if (!row) {
			fail(r, "out of memory");
			return NULL;
		}
		job->rows = row;
		job->cap_rows = cap;
	}
	row = &job->rows[job->nr_rows++];
	memset(row, 0, sizeof(*row));
	row->id = job->rec->id;
	snprintf(row->category, sizeof(row->category), "%s", job->rec->category);
	row->attempt = job->attempt;
	return row;
}

static void job_end(struct run *r, struct rjob *job, uint64_t t, bool ok)
{
	struct replay_row *row = add_row(r, job);
	char msg[160];

	if (!row)
		return;
	row->what = REPLAY_WHAT_JOB;
	row->start_ns = job->rows[0].start_ns;
	row->end_ns = t;
	row->bytes = replay_bytes(r->cfg->rc, job->rec->in_bytes);
	row->ok = ok;
	job->state = RJOB_DONE;
	r->nr_done++;
	if (replay_job_done(&r->builder, job->rows, job->nr_rows, r->sink->rows,
			    r->sink->result, r->sink->ctx, msg, sizeof(msg)))
		fail(r, "job %" PRIu64 ": %s", job->rec->id, msg);
	free(job->rows);
	job->rows = NULL;
	job->nr_rows = job->cap_rows = 0;
	if (t > r->st->end_ns)
		r->st->end_ns = t;
}

/* What a spare is told: the attempt to run, and where. */
struct assignment {
	uint64_t t0;
	uint64_t start;		/* replayed ns it got its slot */
	uint32_t job, site, slot, attempt;
};

/* What a spare prepares: the ring, the buffer, every site's device open. */
struct prepared {
	struct job_prep prep;
	int *fds;		/* by site: open, or -errno */
};

static void *spare_prepare(void *ctx)
{
	struct run *r = ctx;
	struct prepared *p = calloc(1, sizeof(*p));
	uint32_t s;

	close(r->pipe[0]);
	if (!p)
		return NULL;
	job_prep_init(&p->prep, r->cfg->qd, r->cfg->bs);
	p->fds = calloc(r->cfg->nr_sites, sizeof(*p->fds));
	for (s = 0; p->fds && s < r->cfg->nr_sites; s++) {
		p->fds[s] = open(r->cfg->sites[s].path,
				 O_RDWR | (r->cfg->buffered ? 0 : O_DIRECT));
		if (p->fds[s] < 0)
			p->fds[s] = -errno;
	}
	if (!p->fds && !p->prep.err)
		p->prep.err = -ENOMEM;
	return p;
}

/* In the spare: the attempt, which ends the process. */
static int spare_run(void *ctx, void *prepared, const void *msg)
{
	struct run *r = ctx;
	struct prepared *p = prepared;
	const struct assignment *as = msg;
	const struct rsite *site = &r->sites[as->site];
	const struct rjob *job = &r->jobs[as->job];
	struct job_attempt a = {
		.index = as->job, .rec = job->rec, .site = site->cfg->name,
		.site_fail = site->cfg->fail,
		.local = replay_locality_holds(r->cfg->locality, job->rec->category,
					       as->site),
		.attempt = as->attempt, .rc = r->cfg->rc, .t0 = as->t0,
		.start = as->start,
		.msg_fd = r->pipe[1],
		.target = {
			.path = site->cfg->path, .direct = !r->cfg->buffered,
			.base = as->slot * site->region, .region = site->region,
			.bs = r->cfg->bs, .qd = r->cfg->qd,
		},
	};
	struct job_prep failed = { .err = -ENOMEM };

	if (!p || !p->fds) {
		a.fd = -ENOMEM;
		return job_attempt_run(&a, p ? &p->prep : &failed);
	}
	a.fd = p->fds[as->site];
	return job_attempt_run(&a, &p->prep);
}

static const struct spare_ops spare_ops = {
	.prepare = spare_prepare,
	.run = spare_run,
};

static void start_attempt(struct run *r, uint32_t j, uint64_t t)
{
	struct rjob *job = &r->jobs[j];
	struct rsite *site = &r->sites[job->site];
	struct replay_row *row = add_row(r, job);
	struct assignment as;
	uint32_t slot;
	pid_t pid;

	if (!row)
		return;
	row->what = REPLAY_WHAT_QUEUE;
	snprintf(row->site, sizeof(row->site), "%s", site->cfg->name);
	row->start_ns = job->eligible_ns;
	row->end_ns = t > job->eligible_ns ? t : job->eligible_ns;
	row->ok = true;
	for (slot = 0; site->slot_job[slot] != NONE; slot++)
		;
	as = (struct assignment) {
		.t0 = r->t0, .start = row->end_ns, .job = j, .site = job->site,
		.slot = slot,
		.attempt = job->attempt,
	};
	pid = spare_start(&r->spares, &as);
	if (pid < 0) {
		fail(r, "starting job %" PRIu64 ": %s", job->rec->id,
		     strerror((int)-pid));
		return;
	}
	site->slot_job[slot] = j;
	site->running++;
	job->slot = slot;
	job->pid = pid;
	job->state = RJOB_RUNNING;
	job->ended = false;
	job->error_row = false;
	job->last_phase = -1;
	job->last_end = row->end_ns;
	r->st->attempts++;
}

static void start_queued(struct run *r, uint32_t s, uint64_t t)
{
	struct rsite *site = &r->sites[s];

	while (!r->failed && site->running < site->cfg->slots &&
	       site->head != NONE) {
		uint32_t j = site->head;

		site->head = r->jobs[j].next;
		if (site->head == NONE)
			site->tail = NONE;
		site->queued--;
		start_attempt(r, j, t);
	}
}

static void arrive(struct run *r, uint32_t j, uint64_t due)
{
	struct rjob *job = &r->jobs[j];
	struct rsite *site;
	uint32_t s;

	for (s = 0; s < r->cfg->nr_sites; s++) {
		r->load[s].running = r->sites[s].running;
		r->load[s].queued = r->sites[s].queued;
		r->load[s].slots = r->sites[s].cfg->slots;
	}
	s = replay_assign_site(r->cfg->assign, r->cfg->rc, job->rec,
			       job->attempt, r->load, r->cfg->nr_sites,
			       r->rec_site[j], r->cfg->locality);
	site = &r->sites[s];
	job->site = s;
	job->state = RJOB_QUEUED;
	job->eligible_ns = due;
	job->next = NONE;
	if (site->tail == NONE)
		site->head = j;
	else
		r->jobs[site->tail].next = j;
	site->tail = j;
	site->queued++;
	/* A slot that is free is the job's from its arrival. */
	start_queued(r, s, due);
}

/*
 * The attempt of job j is over at t (when it said so, or when its process
 * was found dead): free the slot, retry or finish the job, fill the slot
 * again, as of t.
 */
static void attempt_over(struct run *r, uint32_t j, bool ok, uint64_t t)
{
	struct rjob *job = &r->jobs[j];
	struct rsite *site = &r->sites[job->site];
	const struct replay_config *rc = r->cfg->rc;

	/* A failure with no failed phase row (set-up failed, or died): one. */
	if (!ok && !job->error_row) {
		struct replay_row *row = add_row(r, job);
		int ph = job->last_phase + 1 < REPLAY_NR_PHASES ?
			 job->last_phase + 1 : REPLAY_STAGEOUT;

		if (!row)
			return;
		snprintf(row->site, sizeof(row->site), "%s", site->cfg->name);
		row->what = (uint8_t)(REPLAY_WHAT_STAGEIN + ph);
		row->start_ns = job->last_end;
		row->end_ns = t > job->last_end ? t : job->last_end;
		row->ok = false;
	}
	site->slot_job[job->slot] = NONE;
	site->running--;
	if (ok || job->attempt >= rc->max_attempts) {
		job_end(r, job, t, ok);
	} else {
		job->state = RJOB_WAITING;
		job->eligible_ns = t + replay_backoff_ns(rc, job->attempt);
		job->attempt++;
		timer_heap_set(&r->arrivals, j, job->eligible_ns);
	}
	start_queued(r, (uint32_t)(site - r->sites), t);
}

static void take_msg(struct run *r, const struct job_msg *m)
{
	struct rjob *job;
	struct replay_row *row;

	if (m->job >= r->t->nr || r->jobs[m->job].state != RJOB_RUNNING ||
	    r->jobs[m->job].ended) {
		fail(r, "internal: a message from job %" PRIu32 ", which is not running",
		     m->job);
		return;
	}
	job = &r->jobs[m->job];
	if (m->kind == JOB_MSG_END) {
		uint64_t t = now(r), end = m->end_ns;

		/*
		 * The slot is free since the job said so: the time this
		 * process took to notice is not the next job's (its deadline
		 * chain starts then and catches it up) nor this one's.
		 */
		if (end < job->last_end)
			end = job->last_end;
		if (end > t)
			end = t;
		r->st->notice_ns += t - end;
		if (t - end > r->st->notice_max_ns)
			r->st->notice_max_ns = t - end;
		r->st->late_ns += m->late_ns;
		if (m->late_ns > r->st->late_max_ns)
			r->st->late_max_ns = m->late_ns;
		r->st->ended++;
		job->ended = true;
		attempt_over(r, m->job, m->ok, end);
		return;
	}
	row = add_row(r, job);
	if (!row)
		return;
	*row = m->row;
	job->last_phase = row->what - REPLAY_WHAT_STAGEIN;
	job->last_end = row->end_ns;
	job->error_row |= !row->ok;
}

/* Every message waiting in the pipe (non-blocking). */
static void drain(struct run *r)
{
	struct job_msg m;
	ssize_t n;

	while (!r->failed) {
		n = read(r->pipe[0], &m, sizeof(m));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		if (n != (ssize_t)sizeof(m)) {
			fail(r, "internal: a message of %zd bytes", n);
			return;
		}
		take_msg(r, &m);
	}
}

static struct rjob *job_of_pid(struct run *r, pid_t pid)
{
	uint32_t s, k;

	for (s = 0; s < r->cfg->nr_sites; s++)
		for (k = 0; k < r->sites[s].cfg->slots; k++)
			if (r->sites[s].slot_job[k] != NONE &&
			    r->jobs[r->sites[s].slot_job[k]].pid == pid)
				return &r->jobs[r->sites[s].slot_job[k]];
	return NULL;
}

/* Reap ended processes; one that died unreported fails its attempt. */
static void reap(struct run *r)
{
	struct rjob *job;
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		job = job_of_pid(r, pid);
		if (!job)
			continue;	/* its attempt had ended already */
		job->pid = 0;
		/* What it wrote before it exited is in the pipe by now. */
		drain(r);
		if (job->state == RJOB_RUNNING && !job->ended) {
			fprintf(stderr, "fnblk-replay: job %" PRIu64 " attempt %u: process %s %d without a report\n",
				job->rec->id, job->attempt,
				WIFSIGNALED(status) ? "killed by signal" : "exited",
				WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			r->st->died++;
			job->ended = true;
			attempt_over(r, (uint32_t)(job - r->jobs), false, now(r));
		}
	}
}

static int setup(struct run *r)
{
	const struct run_config *cfg = r->cfg;
	size_t nr = r->t->nr, j;
	uint32_t s;

	r->jobs = calloc(nr ? nr : 1, sizeof(*r->jobs));
	r->rec_site = calloc(nr ? nr : 1, sizeof(*r->rec_site));
	r->sites = calloc(cfg->nr_sites, sizeof(*r->sites));
	r->load = calloc(cfg->nr_sites, sizeof(*r->load));
	if (!r->jobs || !r->rec_site || !r->sites || !r->load ||
	    timer_heap_init(&r->arrivals, nr)) {
		fail(r, "out of memory");
		return -1;
	}
	for (s = 0; s < cfg->nr_sites; s++) {
		struct rsite *site = &r->sites[s];

		site->cfg = &cfg->sites[s];
		site->head = site->tail = NONE;
		site->region = site->cfg->size / site->cfg->slots / REPLAY_BLOCK *
			       REPLAY_BLOCK;
		if (site->region < cfg->bs) {
			fail(r, "site %s: %" PRIu64 " bytes for %u slots leave less than one request (%" PRIu64 " bytes) per slot",
			     site->cfg->name, site->cfg->size, site->cfg->slots, cfg->bs);
			return -1;
		}
		site->slot_job = malloc(site->cfg->slots * sizeof(*site->slot_job));
		if (!site->slot_job) {
			fail(r, "out of memory");
			return -1;
		}
		memset(site->slot_job, 0xff, site->cfg->slots * sizeof(*site->slot_job));
	}
	for (j = 0; j < nr; j++) {
		struct rjob *job = &r->jobs[j];

		for (s = 0; s < cfg->nr_sites; s++)
			if (!strcmp(r->t->r[j].site, cfg->sites[s].name))
				break;
		if (s == cfg->nr_sites && cfg->assign == REPLAY_ASSIGN_RECORDED) {
			fail(r, "job %" PRIu64 " ran at site '%s', which no --site names (or choose --assign random|least-loaded)",
			     r->t->r[j].id, r->t->r[j].site);
			return -1;
		}
		r->rec_site[j] = s;
		job->rec = &r->t->r[j];
		job->attempt = 1;
		timer_heap_set(&r->arrivals, (uint32_t)j,
			       replay_ns(cfg->rc, (double)(r->t->r[j].created_s -
							   r->t->first_created_s)));
	}
	if (pipe2(r->pipe, O_CLOEXEC | O_NONBLOCK)) {
		fail(r, "pipe: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Interrupted or failed: stop every job and wait for them. */
static void stop_jobs(struct run *r)
{
	size_t j;

	for (j = 0; j < r->t->nr; j++)
		if (r->jobs && r->jobs[j].state == RJOB_RUNNING && r->jobs[j].pid > 0)
			kill(r->jobs[j].pid, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

static unsigned int spares_wanted(const struct run_config *cfg)
{
	unsigned int s, slots = 0;

	for (s = 0; s < cfg->nr_sites && slots < MAX_SPARES; s++)
		slots += cfg->sites[s].slots;
	return slots < MAX_SPARES ? slots : MAX_SPARES;
}

int run_replay(const struct run_config *cfg, struct jobrecs *t,
	       const struct run_sink *sink, struct run_stats *st, char *err,
	       size_t errlen)
{
	struct run r = {
		.cfg = cfg, .sink = sink, .st = st, .t = t, .err = err,
		.errlen = errlen, .pipe = { -1, -1 },
	};
	size_t j;
	int ret;

	memset(st, 0, sizeof(*st));
	jobrecs_sort(t);
	if (setup(&r))
		goto out;
	if (spare_pool_init(&r.spares, spares_wanted(cfg), sizeof(struct assignment),
			    &spare_ops, &r)) {
		fail(&r, "out of memory");
		goto out;
	}
	/* Before time 0: the first jobs start in spares too. */
	ret = spare_fill(&r.spares);
	if (!ret)
		ret = spare_wait_ready(&r.spares);
	if (ret < 0) {
		fail(&r, "fork: %s", strerror(-ret));
		goto out;
	}
	r.t0 = job_now_ns();
	while (!r.failed && r.nr_done < t->nr) {
		uint64_t due = timer_heap_next(&r.arrivals), tnow = now(&r);
		struct pollfd pfd = { .fd = r.pipe[0], .events = POLLIN };
		struct timespec ts, *tsp = NULL;

		if (due != TIMER_NONE && due <= tnow) {
			uint32_t jj = timer_heap_first(&r.arrivals);

			timer_heap_set(&r.arrivals, jj, TIMER_NONE);
			arrive(&r, jj, due);
			continue;
		}
		/*
		 * Nothing due: replace a spare that a job took, one fork a
		 * turn, after what is waiting (ends, deaths), so a burst of
		 * them is not held up by a round of forks.
		 */
		if (r.spares.nr < r.spares.cap) {
			drain(&r);
			reap(&r);
			ret = spare_add(&r.spares);
			if (ret < 0) {
				fail(&r, "fork: %s", strerror(-ret));
				break;
			}
			continue;
		}
		/* Wake at the next arrival, and at least every 100 ms to reap. */
		if (due == TIMER_NONE || due - tnow > 100000000)
			due = tnow + 100000000;
		ts.tv_sec = (time_t)((due - tnow) / 1000000000ULL);
		ts.tv_nsec = (long)((due - tnow) % 1000000000ULL);
		tsp = &ts;
		if (ppoll(&pfd, 1, tsp, fnblk_interrupt_waitmask()) < 0 &&
		    errno != EINTR) {
			fail(&r, "ppoll: %s", strerror(errno));
			break;
		}
		if (fnblk_interrupted()) {
			fail(&r, "interrupted");
			break;
		}
		drain(&r);
		reap(&r);
	}
out:
	st->waited = r.spares.waited;
	/* The spares that still wait end when their sockets do. */
	spare_pool_close(&r.spares);
	if (r.failed)
		stop_jobs(&r);
	/* Attempts that reported their end may still be exiting. */
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	for (j = 0; r.jobs && j < t->nr; j++)
		free(r.jobs[j].rows);
	for (j = 0; r.sites && j < cfg->nr_sites; j++)
		free(r.sites[j].slot_job);
	free(r.jobs);
	free(r.rec_site);
	free(r.sites);
	free(r.load);
	timer_heap_free(&r.arrivals);
	if (r.pipe[0] >= 0)
		close(r.pipe[0]);
	if (r.pipe[1] >= 0)
		close(r.pipe[1]);
	return r.failed ? -1 : 0;
}
