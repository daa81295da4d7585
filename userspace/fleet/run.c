// SPDX-License-Identifier: GPL-2.0
/*
 * Running a fleet (see run.h). The parent forks one process per job and
 * then only listens: each job sends one fixed-size record per checkpoint
 * write down a shared pipe (atomic below PIPE_BUF), and the parent writes
 * them out as CSV / JSON lines as they come.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/interrupt.h"
#include "crash.h"
#include "params.h"
#include "run.h"

static void job_fail(unsigned int job, const char *what)
{
	fprintf(stderr, PROG ": job %u: %s\n", job, what);
	_exit(1);
}

/*
 * Jobs set up first (cgroup, device, io_uring: slow on a fresh device in a
 * slow guest), say so on ready, and only then learn time 0 from go, so a
 * slow start-up cannot eat into the planned phases.
 */
static void job_main(struct fleet_run *r, unsigned int job, int out,
		     int ready, int go)
{
	const struct fleet_job *p = &r->plan[job];
	uint64_t bytes = ckpt_write_size(&r->io, p->size), cycle, deadline;
	struct ckpt_writer *w;
	char err[256];

	fnblk_interrupt_child();
	if (r->cgroup && fnblk_cgroup_enter(&r->cgset, job, err, sizeof(err)))
		job_fail(job, err);
	if (ckpt_open(&w, &r->io, job, r->region, err, sizeof(err)))
		job_fail(job, err);
	/* Close ready at once: the parent sees EOF when a job died instead. */
	if (write(ready, "", 1) != 1)
		job_fail(job, "ready pipe closed");
	close(ready);
	if (read(go, &r->t0, sizeof(r->t0)) != sizeof(r->t0))
		_exit(1);	/* the parent gave up: it says why */
	close(go);
	deadline = r->cfg.duration_ns ? r->t0 + r->cfg.duration_ns : 0;
	wait_until_ns(COMPUTE_SLEEP, r->t0 + p->phase_ns);
	for (cycle = 0; !r->cfg.cycles || cycle < r->cfg.cycles; cycle++) {
		uint64_t t = fleet_cycle_compute_ns(&r->cfg, p, job, cycle);
		struct fnblk_event ev = { .job = job, .cycle = cycle,
					  .bytes = bytes };

		if (!compute_run(&r->comp, r->shared, t, deadline))
			break;
		if (deadline && now_ns() >= deadline)
			break;
		ev.start_ns = now_ns();
		if (ckpt_write(w, bytes, cycle, err, sizeof(err)))
			job_fail(job, err);
		ev.end_ns = now_ns();
		if (write(out, &ev, sizeof(ev)) != sizeof(ev))
			job_fail(job, "event pipe closed");
	}
	ckpt_close(w);
	_exit(0);
}

static void progress(const struct fleet_run *r, uint64_t expected, bool last)
{
	double el = (now_ns() - r->t0) / 1e9;

	if (now_ns() < r->t0)
		el = 0;
	fprintf(stderr, "\r" PROG ": %7.1fs  writes %zu", el, r->ev.nr);
	if (expected)
		fprintf(stderr, "/%" PRIu64, expected);
	if (r->ev.nr) {
		const struct fnblk_event *e = &r->ev.ev[r->ev.nr - 1];

		fprintf(stderr, "  last %.1fms   ", (e->end_ns - e->start_ns) / 1e6);
	}
	if (last)
		fputc('\n', stderr);
}

/*
 * The power goes: the jobs die (killed first, so none reports the failed
 * writes as errors of its own) and the device loses what was not durable.
 */
static int crash(struct fleet_run *r, const pid_t *pids)
{
	char err[256];
	unsigned int j;

	for (j = 0; j < r->cfg.jobs; j++)
		kill(pids[j], SIGKILL);
	r->crash_ns = now_ns();
	if (crash_now(r->crash_dev, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return -1;
	}
	return 0;
}

/* How long to wait for events: 500 ms, or until the crash is due. */
static struct timespec tick(const struct fleet_run *r)
{
	uint64_t ns = 500000000, now = now_ns(), at = r->t0 + r->crash_at_ns;

	if (r->crash_at_ns && !r->crash_ns)
		ns = at > now ? (at - now < ns ? at - now : ns) : 0;
	return (struct timespec){ .tv_sec = 0, .tv_nsec = (long)ns };
}

/* Read events until every job has closed its end of the pipe. */
static int collect(struct fleet_run *r, int in, struct outputs *o,
		   const pid_t *pids)
{
	bool show = !r->quiet && isatty(STDERR_FILENO);
	uint64_t expected = r->cfg.cycles && !r->cfg.duration_ns ?
			    r->cfg.cycles * r->cfg.jobs : 0;
	struct pollfd pfd = { .fd = in, .events = POLLIN };
	int ret = 0;

	for (;;) {
		struct fnblk_event ev;
		ssize_t n;

		struct timespec t = tick(r);

		if (ppoll(&pfd, 1, &t, fnblk_interrupt_waitmask()) < 0 &&
		    errno != EINTR)
			return -1;
		if (fnblk_interrupted())
			return -1;
		if (r->crash_at_ns && !r->crash_ns &&
		    now_ns() >= r->t0 + r->crash_at_ns && crash(r, pids))
			ret = -1;
		if (show)
			progress(r, expected, false);
		if (!(pfd.revents & (POLLIN | POLLHUP)))
			continue;
		n = read(in, &ev, sizeof(ev));
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n != sizeof(ev)) {
			fprintf(stderr, PROG ": torn event record\n");
			return -1;
		}
		if (fnblk_events_add(&r->ev, &ev))
			return -1;
		if (o->csv && fnblk_events_csv_row(o->csv, &ev))
			ret = -1;
		if (o->jsonl && fnblk_events_jsonl_row(o->jsonl, &ev))
			ret = -1;
	}
	if (show)
		progress(r, expected, true);
	return ret;
}

static int start_outputs(struct fleet_run *r, struct outputs *o);

/* Say how a job that did not finish cleanly ended; true if it did not. */
static bool job_failed(const struct fleet_run *r, unsigned int job,
		       int status, const struct fnblk_memory_events *before,
		       bool stopped)
{
	struct fnblk_memory_events after;
	bool have = false, oom;
	char dir[PATH_MAX], why[256];

	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return false;
	if (r->cgroup) {
		fnblk_cgroup_job_dir(&r->cgset, job, dir, sizeof(dir));
		have = !fnblk_cgroup_memory_events(dir, &after);
	}
	/* Jobs we stopped ourselves (interrupt, failed start) need no word. */
	if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM &&
	      (fnblk_interrupted() || stopped)) &&
	    !(WIFEXITED(status) && WEXITSTATUS(status) == 1))
		fprintf(stderr, PROG ": job %u: %s\n", job,
			fnblk_describe_exit(status, have ? before : NULL,
					    have ? &after : NULL, &oom, why,
					    sizeof(why)));
	return true;
}

static int send_t0(int go, uint64_t t0, unsigned int jobs)
{
	unsigned int j;

	for (j = 0; j < jobs; j++)
		if (write(go, &t0, sizeof(t0)) != sizeof(t0))
			return -1;
	return 0;
}

int run_fleet(struct fleet_run *r, struct outputs *o)
{
	unsigned int j, started = 0;
	pid_t *pids = calloc(r->cfg.jobs, sizeof(*pids));
	struct fnblk_memory_events *events0 = calloc(r->cfg.jobs, sizeof(*events0));
	int ev[2], ready[2], go[2], ret = 0, status;
	char dir[PATH_MAX];
	bool stopped;

	if (!pids || !events0 || pipe(ev) || pipe(ready) || pipe(go)) {
		fprintf(stderr, PROG ": %s\n", strerror(errno));
		free(pids);
		free(events0);
		return 1;
	}
	/* memory.events before, to tell an OOM kill from another SIGKILL. */
	for (j = 0; r->cgroup && j < r->cfg.jobs; j++) {
		fnblk_cgroup_job_dir(&r->cgset, j, dir, sizeof(dir));
		fnblk_cgroup_memory_events(dir, &events0[j]);
	}
	/* Jobs inherit stdio buffers: empty them so nothing is written twice. */
	fflush(NULL);
	for (j = 0; j < r->cfg.jobs; j++) {
		pids[j] = fork();
		if (pids[j] < 0) {
			fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
			ret = 1;
			break;
		}
		if (pids[j] == 0) {
			close(ev[0]);
			close(ready[0]);
			close(go[1]);
			job_main(r, j, ev[1], ready[1], go[0]);
		}
		started++;
	}
	close(ev[1]);
	close(ready[1]);
	close(go[0]);
	if (!ret && fnblk_wait_bytes(ready[0], r->cfg.jobs)) {
		fprintf(stderr, PROG ": a job failed to start\n");
		ret = 1;
	}
	if (!ret) {
		r->t0 = r->start_at_ns ? r->start_at_ns :
			now_ns() + r->start_delay_ns;
		if (start_outputs(r, o) || send_t0(go[1], r->t0, r->cfg.jobs))
			ret = 1;
		else if (now_ns() > r->t0)
			fprintf(stderr, PROG ": warning: start-up overran %s by %.1fms; early phases are late\n",
				r->start_at_ns ? "--start-at" : "--start-delay",
				(now_ns() - r->t0) / 1e6);
	}
	close(go[1]);
	close(ready[0]);
	if (!ret && collect(r, ev[0], o, pids)) {
		if (!fnblk_interrupted())
			fprintf(stderr, PROG ": collecting events: %s\n", strerror(errno));
		ret = 1;
	}
	close(ev[0]);
	stopped = ret;
	for (j = 0; j < started; j++) {
		if (stopped)
			kill(pids[j], SIGTERM);
		while (waitpid(pids[j], &status, 0) < 0 && errno == EINTR)
			;
		/* After a crash the jobs died with the power: no failure. */
		if (!r->crash_ns &&
		    job_failed(r, j, status, &events0[j], stopped))
			ret = 1;
	}
	free(pids);
	free(events0);
	return ret;
}

/* Parameters (t0 included) and the file headers, once every job is ready. */
static int start_outputs(struct fleet_run *r, struct outputs *o)
{
	record_params(r);
	if ((o->csv && (fnblk_events_csv_header(o->csv, &r->ev) || fflush(o->csv))) ||
	    (o->jsonl && (fnblk_events_jsonl_header(o->jsonl, &r->ev) ||
			  fflush(o->jsonl)))) {
		fprintf(stderr, PROG ": writing events: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

