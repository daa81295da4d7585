/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where threads are: every sample reads the state of each thread of each
 * job (/proc/PID/task/TID/stat: running, uninterruptible "D" or
 * sleeping) and, for threads not running, their kernel stack
 * (/proc/.../stack, root only), reduced to the function they wait in and
 * a class: page I/O (waiting for a page being read), mmap lock, writeback
 * wait, direct I/O, reclaim, dirty throttling, futex (user-space locks),
 * ... Worker threads (named mx-worker-N) and the others (e.g. a
 * runtime's own threads) are counted apart.
 */
#ifndef MATRIX_WAITS_H
#define MATRIX_WAITS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#define MX_WAIT_SITES	64

enum mx_thread_group { MX_WORKERS, MX_OTHERS, MX_NR_GROUPS };

enum mx_state { MX_RUNNING, MX_DISK, MX_SLEEPING, MX_NR_STATES };

struct mx_wait_site {
	char name[64];		/* the kernel function it waits in */
	const char *cls;
	uint64_t samples;
};

struct mx_waits {
	uint64_t samples;			/* ticks taken */
	uint64_t state[MX_NR_GROUPS][MX_NR_STATES];	/* thread-samples */
	uint64_t cls[MX_NR_GROUPS][16];		/* by class index */
	struct mx_wait_site site[MX_WAIT_SITES];
	unsigned int nr_sites;
	uint64_t other_sites;			/* beyond the table */
	bool stacks;				/* stacks were readable */
	/* this tick's workers in each state, for the time series */
	unsigned int now[MX_NR_STATES];
};

void mx_waits_init(struct mx_waits *w);
/* Sample every thread of the given processes. */
void mx_waits_tick(struct mx_waits *w, const pid_t *pids, unsigned int n);
json_t *mx_waits_json(const struct mx_waits *w);
/* Classes in their report order, for the text report. */
const char *mx_wait_class_name(unsigned int i);
unsigned int mx_wait_nr_classes(void);

#endif /* MATRIX_WAITS_H */
