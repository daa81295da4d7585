/* SPDX-License-Identifier: GPL-2.0 */
/* Per-job write-time summary printed at the end of a fleet run. */
#ifndef FLEET_SUMMARY_H
#define FLEET_SUMMARY_H

#include "../lib/write_times.h"

/*
 * Each job's writes: count, mean, p50, p99 and slowdown (libfnblk's), as
 * a table, or with print.h in JSON mode "jobs": [...], times in ns, inside
 * the caller's object.
 */
void job_summary_print(const struct fnblk_write_times *w);

#endif /* FLEET_SUMMARY_H */
