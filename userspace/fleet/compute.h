/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compute phase of a job: sleep or spin for T, and under a shared
 * power cap P progress at min(1, P/m) where m is the number of jobs
 * computing now. The cap is anonymous: jobs only publish that they
 * compute, in a shared counter, and read how many do.
 */
#ifndef FLEET_COMPUTE_H
#define FLEET_COMPUTE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum compute_mode {
	COMPUTE_SLEEP,
	COMPUTE_SPIN,
};

/* Lives in a MAP_SHARED mapping made before the jobs fork. */
struct compute_shared {
	atomic_uint computing;		/* m */
};

struct compute_opts {
	unsigned int mode;		/* enum compute_mode */
	double power_cap;		/* 0 = none */
	uint64_t step_ns;		/* longest step between rate reads */
};

/* --compute-mode: name and help of mode m, NULL past the last. */
const char *compute_mode_name(unsigned int m);
const char *compute_mode_help(unsigned int m);

/* A shared segment for a fleet, or NULL with errno. */
struct compute_shared *compute_shared_create(void);
void compute_shared_destroy(struct compute_shared *sh);

uint64_t now_ns(void);
/* Sleep (or spin) until CLOCK_MONOTONIC reaches t. */
void wait_until_ns(enum compute_mode mode, uint64_t t);

/*
 * Compute for work_ns of full-speed progress, stopping early at deadline
 * (0 = none). Returns true when the work was done.
 */
bool compute_run(const struct compute_opts *o, struct compute_shared *sh,
		 uint64_t work_ns, uint64_t deadline);

#endif /* FLEET_COMPUTE_H */
