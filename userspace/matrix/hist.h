/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency histograms with a bounded relative error: durations are kept
 * in log-linear buckets (each power of two split in MX_HIST_SUB parts),
 * so a percentile is exact to within 1/MX_HIST_SUB of its value; the
 * largest and smallest values and the sum are kept exactly. One per
 * thread, merged for reports.
 */
#ifndef MATRIX_HIST_H
#define MATRIX_HIST_H

#include <stdint.h>

#include <jansson.h>

#define MX_HIST_SUB_BITS	5
#define MX_HIST_SUB		(1u << MX_HIST_SUB_BITS)
#define MX_HIST_BUCKETS		((64 - MX_HIST_SUB_BITS + 1) * MX_HIST_SUB)

struct mx_hist {
	uint64_t count;
	uint64_t sum;		/* ns */
	uint64_t min;
	uint64_t max;
	uint64_t bucket[MX_HIST_BUCKETS];
};

void mx_hist_init(struct mx_hist *h);
void mx_hist_add(struct mx_hist *h, uint64_t ns);
void mx_hist_merge(struct mx_hist *into, const struct mx_hist *from);
/* The value below which a fraction p (0..1) of the samples lie. */
uint64_t mx_hist_quantile(const struct mx_hist *h, double p);

/*
 * As JSON: count, sum, min, max, mean, p50, p90, p99, p999 and the
 * non-empty buckets as [lowest value, count] pairs, so a reader can
 * recompute any percentile; and back (for the parent reading its jobs).
 */
json_t *mx_hist_json(const struct mx_hist *h);
int mx_hist_from_json(struct mx_hist *h, const json_t *j);

#endif /* MATRIX_HIST_H */
