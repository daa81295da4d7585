/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Processes forked ahead of need ("spares"). Each one prepares what any
 * job attempt needs (ops->prepare: an io_uring ring, a buffer, the sites'
 * devices open), then waits for one assignment, runs it (ops->run) and
 * exits. An attempt thus starts in a process that is already there: the
 * fork and the set-up, 10-20 ms a job in the emulated guest and nothing
 * the simulator models, stay out of its queue and wall time. It is still
 * one process per attempt, so still one user of the device per job.
 */
#ifndef FNBLK_REPLAY_SPARE_H
#define FNBLK_REPLAY_SPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct spare_ops {
	/* In the child, before it waits: what run() gets as prepared. */
	void *(*prepare)(void *ctx);
	/* In the child, with the assignment: the process's exit status. */
	int (*run)(void *ctx, void *prepared, const void *msg);
};

struct spare {
	pid_t pid;
	int sock;		/* the assignment goes down this one */
	bool ready;		/* it said its preparation is done */
};

struct spare_pool {
	const struct spare_ops *ops;
	void *ctx;
	size_t msg_size;
	unsigned int cap;	/* spares kept ready */
	unsigned int nr;
	struct spare *s;
	uint64_t waited;	/* assignments that went to a spare not ready */
};

/* No process yet: spare_fill() forks them. 0, or -ENOMEM. */
int spare_pool_init(struct spare_pool *p, unsigned int cap, size_t msg_size,
		    const struct spare_ops *ops, void *ctx);

/* Fork spares until cap are ready. 0, or a negative errno (fork). */
int spare_fill(struct spare_pool *p);

/*
 * Fork one spare if fewer than cap are there (a fork at a time, so that
 * what is due between two is not kept waiting). 1 if it forked one, 0 if
 * the pool is full, or a negative errno.
 */
int spare_add(struct spare_pool *p);

/* Wait until every spare has prepared (before a run's time 0). 0, or -errno. */
int spare_wait_ready(struct spare_pool *p);

/*
 * Hand msg to a spare, one that has prepared if there is one (forking
 * one if there is none at all; either way counted in waited), and return
 * its pid, or a negative errno. The pool is not refilled here: call
 * spare_add() once the attempt is under way.
 */
pid_t spare_start(struct spare_pool *p, const void *msg);

/* The spares still waiting exit (they read the end of their socket). */
void spare_pool_close(struct spare_pool *p);

#endif /* FNBLK_REPLAY_SPARE_H */
