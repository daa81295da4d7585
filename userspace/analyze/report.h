/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One analysis of one event file, computed once and then printed as a
 * table, as JSON, or drawn (the fio idea: one set of numbers, many views).
 */
#ifndef ANALYZE_REPORT_H
#define ANALYZE_REPORT_H

#include <stdio.h>

#include "analysis.h"

struct report {
	const char *name;		/* the file analysed */
	const struct fnblk_events *ev;
	unsigned int jobs;
	unsigned int skip;		/* cycles dropped at the start */
	struct concurrency conc;
	struct cycle_table cycles;	/* valid when have_cycles */
	int have_cycles;
	double period_ns;
	struct order_changes order;
	struct pair_map *maps;
	size_t nr_maps;
	double *r;			/* Kuramoto r per row, cycles-1 of them */
	unsigned int nr_r;
	struct interval_ratios ratios;
	struct job_cost *costs;
	const char *fn;			/* f(n) the expectations assume */
};

/* Fill rep from ev (jobs and solo times already decided). 0 or -1. */
int report_compute(struct report *rep, const struct fnblk_events *ev,
		   const char *name, unsigned int jobs, unsigned int skip,
		   const double *solo_ns, const double *f);
void report_free(struct report *rep);

void report_print_table(FILE *f, const struct report *rep);
/* 0, or -1 if the JSON could not be built or written. */
int report_print_json(FILE *f, const struct report *rep);
/* PNG figures into dir through gnuplot. 0, or -1 with a message on stderr. */
int report_plot(const struct report *rep, const char *dir);

#endif /* ANALYZE_REPORT_H */
