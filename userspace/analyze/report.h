/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One analysis of one event file, computed once and then printed as a
 * table, as JSON, or drawn (the fio idea: one set of numbers, many views).
 */
#ifndef ANALYZE_REPORT_H
#define ANALYZE_REPORT_H

#include <stdio.h>

#include <jansson.h>

#include "analysis.h"
#include "hosts_report.h"
#include "write_times.h"

/* Bootstrap resamples by default, and the largest fleet that gets them
 * without asking (each resample costs O(N^2) for the baseline). */
#define REPORT_BOOTSTRAP	1000
#define REPORT_BOOTSTRAP_MAX_JOBS 256
#define REPORT_CI_LEVEL		0.95

/* What the user chose; the file decides the rest. */
struct report_opts {
	unsigned int skip;		/* cycles 0..skip-1 left out everywhere */
	enum pair_set pairs;
	unsigned int bootstrap;		/* resamples; 0 = none */
	int bootstrap_given;		/* asked for explicitly */
	uint64_t seed;			/* of the bootstrap */
	const double *solo_ns;		/* per job, 0 = unknown */
	const double *f;		/* f(0..jobs), NULL = constant */
	const char *fn;			/* its spec, for the report */
	const struct fnblk_hosts *hosts;	/* several hosts' run, or NULL */
};

struct report {
	const char *name;		/* the file analysed */
	const struct fnblk_events *ev;
	unsigned int jobs;
	struct report_opts opt;
	struct concurrency conc;
	struct tail_ci ci;		/* valid when ci.resamples */
	const char *ci_why;		/* why there is none */
	struct cycle_table cycles;	/* valid when have_cycles */
	int have_cycles;
	double period_ns;
	struct order_changes order;
	enum pair_set pairs;		/* resolved */
	struct pair_map *maps;
	size_t nr_maps;
	struct fnblk_linfit_result pooled;	/* step on gap, every map */
	double *r;			/* Kuramoto r per row, cycles-1 of them */
	unsigned int nr_r;
	struct interval_ratios ratios;
	struct fnblk_write_times cost;
};

/* Fill rep from ev (jobs decided by the caller). 0 or -1. */
int report_compute(struct report *rep, const struct fnblk_events *ev,
		   const char *name, unsigned int jobs,
		   const struct report_opts *opt);
void report_free(struct report *rep);

void report_print_table(FILE *f, const struct report *rep);
/* 0, or -1 if the JSON could not be built or written. */
int report_print_json(FILE *f, const struct report *rep);
/* PNG figures into dir through gnuplot. 0, or -1 with a message on stderr. */
int report_plot(const struct report *rep, const char *dir);

/* The pooled fit as text and as JSON (also for --pool over many files). */
void report_print_pooled(FILE *f, const struct fnblk_linfit_result *p);
json_t *report_json_pooled(const struct fnblk_linfit_result *p);

#endif /* ANALYZE_REPORT_H */
