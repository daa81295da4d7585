// SPDX-License-Identifier: GPL-2.0
/* One attempt of one job (see job.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* O_DIRECT */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>

#include "job.h"

#define ALIGN	4096

struct job_io {
	const struct job_target *t;
	int fd;
	struct io_uring *ring;
	char *buf;
	uint64_t cursor;	/* next offset in the region */
};

void job_prep_init(struct job_prep *p, unsigned int qd, uint64_t bs)
{
	*p = (struct job_prep) { 0 };
	p->err = io_uring_queue_init(qd, &p->ring, 0);
	if (!p->err && posix_memalign((void **)&p->buf, ALIGN, bs))
		p->err = -ENOMEM;
	/* Never zero, so a store that skips zero pages keeps it all. */
	if (!p->err)
		memset(p->buf, 0x5a, bs);
}

uint64_t job_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t / 1000000000ULL),
		.tv_nsec = (long)(t % 1000000000ULL),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * bytes through the ring, requests of bs, qd in flight, at the region's
 * cursor (wrapping: a job's data need not fit its region, only its rate
 * matters). Returns 0, or the first request's negative errno.
 */
static int job_rw(struct job_io *io, uint64_t bytes, bool write)
{
	const struct job_target *t = io->t;
	uint64_t submitted = 0, done = 0;
	unsigned int inflight = 0;
	int err = 0;

	while (done < bytes) {
		struct io_uring_cqe *cqe;
		int ret;

		while (!err && inflight < t->qd && submitted < bytes) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(io->ring);
			uint64_t len = bytes - submitted < t->bs ?
				       bytes - submitted : t->bs;

			if (!sqe)
				break;
			if (len > t->region - io->cursor)
				len = t->region - io->cursor;
			if (write)
				io_uring_prep_write(sqe, io->fd, io->buf, len,
						    t->base + io->cursor);
			else
				io_uring_prep_read(sqe, io->fd, io->buf, len,
						   t->base + io->cursor);
			io_uring_sqe_set_data64(sqe, len);
			io->cursor = (io->cursor + len) % t->region;
			submitted += len;
			inflight++;
		}
		if (!inflight)
			break;
		ret = io_uring_submit_and_wait(io->ring, 1);
		if (ret < 0 && ret != -EINTR)
			return ret;
		while (io_uring_peek_cqe(io->ring, &cqe) == 0) {
			uint64_t want = io_uring_cqe_get_data64(cqe);

			if (cqe->res < 0 && !err)
				err = cqe->res;
			else if ((uint64_t)cqe->res != want && !err)
				err = -EIO;	/* short: past the end */
			io_uring_cqe_seen(io->ring, cqe);
			inflight--;
			done += want;
		}
	}
	return err;
}

static int send_msg(const struct job_attempt *a, const struct job_msg *m)
{
	ssize_t n;

	/* Under PIPE_BUF: one write is atomic among the jobs sharing the pipe. */
	do {
		n = write(a->msg_fd, m, sizeof(*m));
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*m) ? 0 : -1;
}

struct phase {
	int ph;			/* -1 before the first */
	bool open;
	uint64_t start, io_ns, bytes, remote;
	bool io_failed;
};

/* Report the phase in progress; false when it failed. */
static bool close_phase(const struct job_attempt *a, struct phase *p,
			uint64_t t, int *report)
{
	struct job_msg m = { .job = a->index, .kind = JOB_MSG_ROW };
	struct replay_row *r = &m.row;

	r->id = a->rec->id;
	snprintf(r->category, sizeof(r->category), "%s", a->rec->category);
	snprintf(r->site, sizeof(r->site), "%s", a->site);
	r->attempt = a->attempt;
	r->what = (uint8_t)(REPLAY_WHAT_STAGEIN + p->ph);
	r->start_ns = p->start;
	r->end_ns = t;
	r->io_ns = p->io_ns;
	r->bytes = p->bytes;
	r->remote_bytes = p->remote;
	r->ok = !p->io_failed &&
		!replay_fails(a->rc, a->site_fail, a->rec, a->attempt,
			      (enum replay_phase)p->ph);
	if (send_msg(a, &m))
		*report = -1;
	return r->ok;
}

/* As the simulator does: a phase without operations has no row, but the payload. */
static bool enter_phase(const struct job_attempt *a, struct phase *p, int next,
			uint64_t t, int *report)
{
	while (p->ph < next) {
		if (p->open && !close_phase(a, p, t, report))
			return false;
		p->open = false;
		p->ph++;
		if (p->ph == next || p->ph == REPLAY_PAYLOAD) {
			p->open = true;
			p->start = t;
			p->io_ns = p->bytes = p->remote = 0;
		}
	}
	return true;
}

static uint64_t since_t0(const struct job_attempt *a)
{
	uint64_t now = job_now_ns();

	return now > a->t0 ? now - a->t0 : 0;
}

int job_attempt_run(const struct job_attempt *a, struct job_prep *prep)
{
	struct job_io io = {
		.t = &a->target, .fd = a->fd, .ring = &prep->ring, .buf = prep->buf,
	};
	struct replay_plan plan = { 0 };
	struct phase p = { .ph = -1 };
	/* The deadline chain, below. */
	uint64_t deadline = a->start, took;
	struct job_msg end = { .job = a->index, .kind = JOB_MSG_END };
	const char *why;
	int report = 0, ret;
	size_t i;

	if (replay_plan_build(a->rc, a->rec, a->local, &plan, &why)) {
		fprintf(stderr, "fnblk-replay: job %" PRIu64 ": %s\n", a->rec->id, why);
		goto out;
	}
	ret = a->fd < 0 ? a->fd : prep->err;
	if (ret < 0) {
		fprintf(stderr, "fnblk-replay: job %" PRIu64 ": %s: %s\n", a->rec->id,
			a->target.path, strerror(-ret));
		goto out;
	}
	/*
	 * The deadline chain: where the job would be had it started when it
	 * got its slot and every compute slept exactly its time. Each I/O
	 * moves it by what the I/O took; each compute sleeps until it. So a
	 * late start or a late wake-up is caught up by the next compute,
	 * never added to it (the simulator's jobs are never late).
	 */
	for (i = 0; i < plan.nr; i++) {
		const struct replay_op *op = &plan.ops[i];
		uint64_t t = since_t0(a);

		if (op->phase != p.ph && !enter_phase(a, &p, op->phase, t, &report)) {
			end.end_ns = t;	/* a phase failed: it ends there */
			goto out;
		}
		if (op->kind == REPLAY_COMPUTE) {
			deadline += op->amount;
			if (deadline > t)
				sleep_until(a->t0 + deadline);
			continue;
		}
		ret = job_rw(&io, op->amount, op->kind == REPLAY_WRITE);
		took = since_t0(a) - t;
		p.io_ns += took;
		deadline += took;
		if (ret) {
			fprintf(stderr, "fnblk-replay: job %" PRIu64 " attempt %u: %s: %s\n",
				a->rec->id, a->attempt,
				op->kind == REPLAY_WRITE ? "write" : "read",
				strerror(-ret));
			p.io_failed = true;
			end.end_ns = since_t0(a);
			close_phase(a, &p, end.end_ns, &report);
			goto out;
		}
		p.bytes += op->amount;
		if (op->remote)
			p.remote += op->amount;
	}
	/* Done: it ends when its last phase does. */
	end.end_ns = since_t0(a);
	end.ok = enter_phase(a, &p, REPLAY_NR_PHASES, end.end_ns, &report);
out:
	if (!end.end_ns)	/* it could not start */
		end.end_ns = since_t0(a);
	end.late_ns = end.end_ns > deadline ? end.end_ns - deadline : 0;
	/* The end first: tearing down (the ring, the process) is not the job's time. */
	if (send_msg(a, &end))
		report = -1;
	replay_plan_free(&plan);
	return report ? 1 : 0;
}
