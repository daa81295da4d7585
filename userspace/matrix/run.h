/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "fnblk-matrix run": everything the command line decided, and the run
 * itself: open the matrices, make the cgroups, start the jobs, watch them,
 * collect what they report, and build the report (one JSON document the
 * text report is printed from).
 */
#ifndef MATRIX_RUN_H
#define MATRIX_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "../lib/cli.h"
#include "mode.h"
#include "pattern.h"

#define PROG "fnblk-matrix"

/* One of a mode's own options as given on the command line. */
struct mx_mode_arg {
	const char *name;
	const char *arg;
};

struct mx_run_opts {
	const char *path;
	const struct mx_mode *mode;
	struct mx_settings set;
	bool bs_given, advise_given;
	struct mx_mode_arg *mode_args;
	unsigned int nr_mode_args;
	enum mx_pattern pattern;
	uint64_t block;			/* 0: the pattern's default */
	uint64_t block_cols;		/* tiles RxC: C; 0 = square */
	double write_fraction;
	uint64_t sync_every;
	bool verify;
	uint64_t accesses;		/* 0: see duration, else one pass */
	uint64_t duration_ns;
	uint64_t churn_ns;		/* --mmap-churn: 0 = none */
	unsigned int jobs;
	uint64_t memory_max;
	const char *cgroup;		/* NULL: fnblk-matrix-PID */
	bool no_cgroup;
	bool keep_cache;
	uint64_t sample_ns;
	uint64_t seed;			/* of the access sequence */
	bool seed_given;
	bool json;
	bool quiet;
};

/* Exit statuses of a run. */
#define MX_EXIT_OK		0
#define MX_EXIT_FAILED		1	/* a job failed, wrong or lost data */
#define MX_EXIT_USAGE		2
#define MX_EXIT_OOM		3	/* only OOM kills went wrong */

/* Run; messages speak as prog ("fnblk-matrix: run: ..."). */
int mx_run(struct mx_run_opts *o, const struct cli_program *prog);

#endif /* MATRIX_RUN_H */
