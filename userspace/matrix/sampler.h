/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parent watches while the jobs run: the memory of the parent
 * cgroup (memory.current and memory.stat's file, anon, dirty and
 * writeback) and of each job's group, sampled every --sample-interval;
 * before and after the run, the counters that tell the story (memory.stat
 * fault, reclaim and refault counts, memory.events, io.pressure and
 * memory.pressure stall totals, memory.peak) and the system's CPU time
 * split (/proc/stat, iowait included); and at every sample the threads'
 * states and wait sites (waits.h).
 */
#ifndef MATRIX_SAMPLER_H
#define MATRIX_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "../lib/cgroup.h"
#include "waits.h"

#define MX_MEMSTAT_SERIES	4	/* file, anon, file_dirty, file_writeback */
#define MX_MEMSTAT_COUNTERS	10

struct mx_cpu_times {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

struct mx_sampler {
	const struct fnblk_cgroup_set *cg;	/* NULL: no cgroups */
	unsigned int jobs;
	const pid_t *pids;
	uint64_t t0, t1;			/* CLOCK_MONOTONIC */

	/* series: one row per sample */
	size_t nr, cap;
	uint64_t *t_ns;				/* since t0 */
	uint64_t *current;			/* parent memory.current */
	uint64_t *stat[MX_MEMSTAT_SERIES];	/* parent memory.stat */
	uint64_t *job_current;			/* nr x jobs */
	unsigned int *workers[3];		/* running, D, sleeping */

	/* before and after */
	uint64_t counters[2][MX_MEMSTAT_COUNTERS];
	struct fnblk_pressure io[2], mem[2];
	bool have_io, have_mem;
	struct fnblk_memory_events events[2];
	struct fnblk_memory_events *job_events;	/* jobs x 2 */
	uint64_t peak, *job_peak;
	struct mx_cpu_times cpu[2];
	struct mx_waits waits;
};

int mx_sampler_init(struct mx_sampler *s, const struct fnblk_cgroup_set *cg,
		    unsigned int jobs, const pid_t *pids);
/* Counters before the jobs start (events: before they even exist). */
void mx_sampler_begin(struct mx_sampler *s);
void mx_sampler_tick(struct mx_sampler *s);
void mx_sampler_end(struct mx_sampler *s);
/* A job's memory.events before and now, to judge how it ended. */
void mx_sampler_job_events(const struct mx_sampler *s, unsigned int job,
			   struct fnblk_memory_events *before,
			   struct fnblk_memory_events *now);
json_t *mx_sampler_json(const struct mx_sampler *s);
json_t *mx_sampler_job_json(const struct mx_sampler *s, unsigned int job);
void mx_sampler_free(struct mx_sampler *s);

#endif /* MATRIX_SAMPLER_H */
