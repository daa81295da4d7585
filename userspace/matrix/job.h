/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One job of a run: a process of its own (in its own cgroup when there
 * are cgroups) working on its own matrix with --threads workers. It
 * opens the mode, starts the workers, says "ready" to the parent, starts
 * them when the parent says go, and at the end syncs what it updated,
 * checks that its last updates reached the device, and sends its results
 * to the parent as one JSON document.
 */
#ifndef MATRIX_JOB_H
#define MATRIX_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "../lib/cgroup.h"
#include "mode.h"
#include "pattern.h"
#include "target.h"

struct mx_job_spec {
	unsigned int job;
	const struct mx_member *member;
	enum mx_pattern pattern;
	uint64_t block;
	uint64_t block_cols;
	const struct mx_mode *mode;
	void *mode_conf;
	struct mx_settings set;
	double write_fraction;
	uint64_t sync_every;
	bool verify;
	uint64_t accesses;		/* 0: until the duration ends */
	uint64_t duration_ns;		/* 0: no limit */
	uint64_t churn_ns;		/* --mmap-churn period; 0: none */
	uint32_t version;		/* for updates */
	uint64_t seed;			/* of the accesses and updates */
	const struct fnblk_cgroup_set *cg;	/* NULL: no cgroups */
};

/*
 * The job's body in the forked process: never returns. ready_fd gets one
 * byte once the workers are set up; go_fd delivers the start time;
 * result_fd the JSON results. Exit status 0, or 1 if the job failed
 * (the results then say why, when they could be sent).
 */
void mx_job_main(const struct mx_job_spec *s, int ready_fd, int go_fd,
		 int result_fd) __attribute__((noreturn));

#endif /* MATRIX_JOB_H */
