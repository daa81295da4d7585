/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Key figures of a fleet run, from its events alone, computed the same way
 * for a kernel run and its simulation so the two can be set side by side.
 */
#ifndef FNBLK_SIM_KPI_H
#define FNBLK_SIM_KPI_H

#include <stddef.h>

#include "events.h"

struct kpi {
	unsigned int jobs;
	size_t writes;
	double mean_write_s;	/* end - start, over every write */
	double p99_write_s;	/* nearest rank */
	/*
	 * Time-weighted distribution of concurrent writers: conc[k] is the
	 * fraction of [first start, last end) with k writes in progress,
	 * k = 0..jobs.
	 */
	double *conc;
	double mean_writers;
	double *job_mean_write_s;	/* per job; 0 if it wrote nothing */
	size_t *job_writes;
};

/*
 * Figures of e's writes by jobs below jobs (others are ignored). Returns 0,
 * or -1 when out of memory. Free with kpi_free.
 */
int kpi_compute(const struct fnblk_events *e, unsigned int jobs,
		struct kpi *k);
void kpi_free(struct kpi *k);

/* (predicted - measured) / measured; 0 when both are 0. */
double kpi_rel_error(double predicted, double measured);

#endif /* FNBLK_SIM_KPI_H */
