/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Key figures of a fleet run, from its events alone, computed the same way
 * for a kernel run and its simulation so the two can be set side by side:
 * libfnblk's concurrency sweep and write times, the definitions
 * fnblk-analyze uses too.
 */
#ifndef FNBLK_SIM_KPI_H
#define FNBLK_SIM_KPI_H

#include <stddef.h>

#include "concurrency.h"
#include "events.h"
#include "write_times.h"

struct kpi {
	unsigned int jobs;
	/* Time-weighted n over [first start, last end), n = 0..jobs. */
	struct fnblk_concurrency conc;
	/* Write times (end - start): every write, and per job. */
	struct fnblk_write_times times;
};

/*
 * Figures of e's writes by jobs below jobs (others are ignored). Returns 0,
 * or -1 when e holds no write or out of memory. Free with kpi_free.
 */
int kpi_compute(const struct fnblk_events *e, unsigned int jobs,
		struct kpi *k);
void kpi_free(struct kpi *k);

/* (predicted - measured) / measured; 0 when both are 0. */
double kpi_rel_error(double predicted, double measured);

#endif /* FNBLK_SIM_KPI_H */
