/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One attempt of one job, in its own process (so each running job is one
 * user of its site's device, as key tgid counts them): the plan of
 * lib/replay.h done for real, O_DIRECT reads and writes through io_uring
 * and computes as sleeps, each phase reported to the parent as a row on a
 * pipe when it ends.
 */
#ifndef FNBLK_REPLAY_JOB_H
#define FNBLK_REPLAY_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include <liburing.h>

#include "replay.h"
#include "replay_events.h"

/* What a job process sends: a phase's row, then the attempt's end. */
enum job_msg_kind {
	JOB_MSG_ROW,
	JOB_MSG_END,
};

struct job_msg {
	uint32_t job;
	uint32_t kind;		/* enum job_msg_kind */
	bool ok;		/* JOB_MSG_END: the attempt succeeded */
	uint64_t end_ns;	/* JOB_MSG_END: replayed ns it ended */
	uint64_t late_ns;	/* JOB_MSG_END: how far past its deadline chain */
	struct replay_row row;	/* JOB_MSG_ROW */
};

/* Where and how a job does its I/O. */
struct job_target {
	const char *path;	/* the site's device (or a file) */
	bool direct;		/* O_DIRECT */
	uint64_t base;		/* its slot's region of the device */
	uint64_t region;	/* bytes, a multiple of 4 KiB */
	uint64_t bs;
	unsigned int qd;
};

/*
 * What a job process prepares before it knows its attempt (spare.h):
 * the ring and the buffer, made once for requests of bs, qd in flight.
 */
struct job_prep {
	int err;		/* 0, or the negative errno of the set-up */
	struct io_uring ring;
	char *buf;
};

void job_prep_init(struct job_prep *p, unsigned int qd, uint64_t bs);

struct job_attempt {
	uint32_t index;			/* the job's index, for messages */
	const struct jobrec *rec;
	const char *site;
	const double *site_fail;	/* its failure probabilities */
	bool local;			/* the site holds the job's data */
	unsigned int attempt;
	const struct replay_config *rc;
	struct job_target target;
	uint64_t t0;			/* CLOCK_MONOTONIC of replayed time 0 */
	uint64_t start;			/* replayed ns it got its slot */
	int msg_fd;			/* the pipe to the parent */
	int fd;				/* target.path open, or -errno */
};

/*
 * Run the attempt with what p prepared and report it; the process's exit
 * status is 0 when it ran (whatever the attempt's result), 1 when it
 * could not report.
 */
int job_attempt_run(const struct job_attempt *a, struct job_prep *p);

/* CLOCK_MONOTONIC in ns. */
uint64_t job_now_ns(void);

#endif /* FNBLK_REPLAY_JOB_H */
