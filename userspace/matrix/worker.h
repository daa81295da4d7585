/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The worker threads of one job. Each takes the next access number from
 * a shared counter until --accesses are done or --duration is up, and
 * for every segment of the access: get() the bytes from the mode, check
 * (--verify) or sum every element, pack it (xtx), update a fraction of
 * the elements with this run's version, put() them back, and after
 * every --sync-every accesses that wrote, sync. It records the latency
 * of each access and of each sync, its faults and context switches
 * (getrusage RUSAGE_THREAD) and its delays (delays.h).
 */
#ifndef MATRIX_WORKER_H
#define MATRIX_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "delays.h"
#include "gram.h"
#include "hist.h"
#include "layout.h"
#include "mode.h"
#include "pattern.h"

#define MX_WRONG_KEPT		8	/* wrong elements reported per thread */
#define MX_RECENT_UPDATES	64	/* updates kept for the durability check */

/* What every worker of a job shares. */
struct mx_work {
	const struct mx_header *h;
	struct mx_shape shape;
	struct mx_mode_run *mode;
	uint32_t version;		/* written by this run's updates */
	double write_fraction;
	uint64_t sync_every;		/* accesses that wrote; 0 = at the end */
	bool verify;
	uint64_t limit;			/* accesses; 0 = until the deadline */
	uint64_t deadline_ns;		/* CLOCK_MONOTONIC; 0 = none */
	atomic_uint_fast64_t next;	/* next access number */
	atomic_bool stop;		/* a worker failed: everyone stops */
	atomic_bool done;		/* every worker has ended */
	/* Start: workers count themselves ready, then wait for go. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int ready;
	bool go;
};

struct mx_element_ref {
	uint64_t i, j;
	double found;
};

/* One worker: its state and, once it ends, its results. */
struct mx_worker {
	struct mx_work *work;
	struct mx_mode_thread mt;
	pthread_t thread;
	pid_t tid;
	struct mx_gram gram;		/* xtx only */
	struct mx_updates updates_left;	/* the current access's updates */
	bool dirty;			/* this segment was updated */
	bool access_wrote;

	/* results */
	uint64_t accesses, elements, updates, verified, wrong, syncs;
	double checksum;
	struct mx_hist latency;		/* per access */
	struct mx_hist sync_latency;
	uint64_t start_ns, end_ns;
	uint64_t minflt, majflt, nvcsw, nivcsw, utime_us, stime_us;
	struct mx_delays delays;
	bool delays_implausible;	/* the kernel's counters were off */
	struct mx_element_ref wrong_at[MX_WRONG_KEPT];
	struct mx_element_ref recent[MX_RECENT_UPDATES];
	unsigned int nr_recent;		/* total updates seen, ring index */
	char error[256];
};

/* Thread body: init, say ready, wait for go, run, record. */
void *mx_worker_main(void *arg);
/* The job's side of the start: wait until n workers are ready; go. */
void mx_work_wait_ready(struct mx_work *wk, unsigned int n);
void mx_work_go(struct mx_work *wk);

/* The results as JSON (the job sends them to the parent). */
json_t *mx_worker_json(const struct mx_worker *w);

uint64_t mx_now_ns(void);

#endif /* MATRIX_WORKER_H */
