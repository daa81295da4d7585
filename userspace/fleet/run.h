/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fleet run: everything fnblk-fleet decided before the jobs start, and
 * the forking, the start handshake and the collection of events.
 */
#ifndef FLEET_RUN_H
#define FLEET_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../lib/cgroup.h"
#include "../lib/events.h"
#include "../lib/fleet.h"
#include "ckpt.h"
#include "compute.h"
#include "device.h"

#define PROG "fnblk-fleet"
#define FLEET_PARTS_MAX	4096	/* --part I/N: N at most */

struct fleet_run {
	struct fleet_config cfg;
	struct fleet_job *plan;
	struct ckpt_opts io;
	struct compute_opts comp;
	const char *cgroup;		/* --cgroup NAME */
	struct fnblk_cgroup_set cgset;	/* its groups, once made */
	uint64_t memory_max;
	const char *csv_path;
	const char *jsonl_path;
	bool solo_baseline;
	uint64_t solo_time_ns;
	uint64_t start_delay_ns;
	uint64_t start_at_ns;	/* time 0 on CLOCK_MONOTONIC; 0 = by the delay */
	bool quiet;
	uint64_t region;		/* bytes per job on a raw target */
	double *solo_ns;		/* per job, 0 = unknown */
	struct fleet_device dev;	/* the fnblk device written to, if any */
	uint64_t t0;
	struct fnblk_events ev;		/* header params and every write */
	struct fnblk_events user;	/* --param NAME=VALUE, applied last */
	struct compute_shared *shared;
	/* --crash-at: crash device crash_dev that long after time 0. */
	uint64_t crash_at_ns;
	char crash_dev[32];
	uint64_t crash_ns;		/* when it crashed; 0 if it did not */
};

/* Where the events go; NULL streams are not written. */
struct outputs {
	FILE *csv;
	FILE *jsonl;
};

/*
 * Fork the jobs, wait until each is ready, fix r->t0, write the output
 * headers, start the jobs and collect their events into r->ev and o until
 * the last job ends. With crash_at_ns, crash the device then and kill the
 * jobs, as a power loss would. Returns the exit status: 0, or 1 if
 * anything failed.
 */
int run_fleet(struct fleet_run *r, struct outputs *o);

#endif /* FLEET_RUN_H */
