/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report of a run: one JSON document (the jobs' results, what the
 * parent sampled, the device's counters), the totals computed from it,
 * and the text form printed from the same document, so -j and the text
 * can never disagree.
 */
#ifndef MATRIX_REPORT_H
#define MATRIX_REPORT_H

#include <stdbool.h>

#include <jansson.h>

/* Add "result": totals, rates, merged latencies, delays over all jobs. */
void mx_report_summarise(json_t *rep);
/* Did any job read a wrong element or lose an update? */
bool mx_report_data_wrong(const json_t *rep);
/* Print as text, or as JSON (-j). */
void mx_report_print(const json_t *rep, bool json);

#endif /* MATRIX_REPORT_H */
