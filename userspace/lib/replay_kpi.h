/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Key performance indicators of a replay (Documentation/replay.rst): queue
 * time, wall time, I/O share of wall time, error rate and remote access,
 * for all jobs, per site and per job category. One definition for
 * fnblk-replay's report, fnblk-sim replay's prediction and fnblk-analyze
 * replay, so predicted and emulated figures can be compared directly.
 */
#ifndef FNBLK_REPLAY_KPI_H
#define FNBLK_REPLAY_KPI_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "replay_events.h"

/* The jobs of one group (all, a site, a category). */
struct replay_group {
	char name[REPLAY_NAME_MAX];
	uint64_t jobs;
	uint64_t failed;		/* jobs whose last attempt failed */
	uint64_t attempts;
	uint64_t failed_attempts;
	double *queue_s;		/* per job, seconds of replay time */
	double *wall_s;
	size_t cap;
	double io_s;			/* sums over jobs */
	double wall_sum_s;
	uint64_t in_bytes;
	uint64_t remote_bytes;
	uint64_t end_ns;		/* last job's end */
};

/* What a group's figures are, once every job is in. */
struct replay_figures {
	uint64_t jobs, failed, attempts;
	double error_rate;		/* failed / jobs */
	double attempt_error_rate;	/* failed attempts / attempts */
	double queue_mean_s, queue_p50_s, queue_p95_s, queue_p99_s;
	double wall_mean_s, wall_p50_s, wall_p95_s;
	double io_share;		/* time in I/O / wall time */
	double remote_fraction;		/* bytes read remotely / input */
	double makespan_s;		/* first arrival to last end */
};

struct replay_kpi {
	struct replay_group all;
	struct replay_group *sites;
	size_t nr_sites;
	struct replay_group *categories;
	size_t nr_categories;
	uint64_t first_arrival_ns;
};

void replay_kpi_init(struct replay_kpi *k);
void replay_kpi_free(struct replay_kpi *k);
/* Count one job. 0, or -1 when out of memory. */
int replay_kpi_add(struct replay_kpi *k, const struct replay_result *r);
/* A replay_result_fn that adds to the replay_kpi ctx. */
int replay_kpi_add_fn(void *ctx, const struct replay_result *r);
/* The figures of g (sorts its samples). */
void replay_kpi_figures(const struct replay_kpi *k, struct replay_group *g,
			struct replay_figures *f);

/* The figures by name ("queue_mean_s", ...), in a fixed order. */
#define REPLAY_NR_FIGURES	11
extern const char *const replay_figure_names[REPLAY_NR_FIGURES];
double replay_figure(const struct replay_figures *f, unsigned int i);
/* Index of a figure's name, or -1. */
int replay_figure_index(const char *name);

/* Text tables: all, per site, per category. */
void replay_kpi_print(FILE *out, struct replay_kpi *k);
/* {"all": {...}, "sites": {name: {...}}, "categories": {...}} */
json_t *replay_kpi_json(struct replay_kpi *k);

#endif /* FNBLK_REPLAY_KPI_H */
