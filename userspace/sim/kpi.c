// SPDX-License-Identifier: GPL-2.0
/* Key figures of a fleet run; see kpi.h. */
#include <math.h>
#include <string.h>

#include "kpi.h"

int kpi_compute(const struct fnblk_events *e, unsigned int jobs,
		struct kpi *k)
{
	memset(k, 0, sizeof(*k));
	k->jobs = jobs;
	if (fnblk_concurrency_compute(e, jobs, 0, 0, &k->conc) ||
	    fnblk_write_times_compute(e, jobs, 0, NULL, &k->times)) {
		kpi_free(k);
		return -1;
	}
	return 0;
}

void kpi_free(struct kpi *k)
{
	fnblk_concurrency_free(&k->conc);
	fnblk_write_times_free(&k->times);
	memset(k, 0, sizeof(*k));
}

double kpi_rel_error(double predicted, double measured)
{
	if (measured == 0)
		return predicted == 0 ? 0 : INFINITY;
	return (predicted - measured) / measured;
}
