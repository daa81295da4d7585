/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hosts' view of a run merged from several hosts (lib/hosts.h): per
 * host its writes, bytes and mean write time, and how long 0, 1, ... N
 * hosts wrote at once. Printed after the per-job analysis.
 */
#ifndef ANALYZE_HOSTS_REPORT_H
#define ANALYZE_HOSTS_REPORT_H

#include <stdio.h>

#include <jansson.h>

#include "../lib/events.h"
#include "../lib/hosts.h"

/* 0, or -1 (out of memory). */
int hosts_report_table(FILE *f, const struct fnblk_events *e,
		       const struct fnblk_hosts *h, unsigned int skip);
/* The same as a JSON object, or NULL (out of memory). */
json_t *hosts_report_json(const struct fnblk_events *e,
			  const struct fnblk_hosts *h, unsigned int skip);

#endif /* ANALYZE_HOSTS_REPORT_H */
