// SPDX-License-Identifier: GPL-2.0
/* Log-linear latency histograms (see hist.h). */
#include <string.h>

#include "hist.h"

static unsigned int bucket_of(uint64_t v)
{
	unsigned int e;

	if (v < MX_HIST_SUB)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	return (e - MX_HIST_SUB_BITS + 1) * MX_HIST_SUB +
	       (unsigned int)((v >> (e - MX_HIST_SUB_BITS)) & (MX_HIST_SUB - 1));
}

static uint64_t bucket_low(unsigned int b)
{
	unsigned int e, sub;

	if (b < MX_HIST_SUB)
		return b;
	e = b / MX_HIST_SUB + MX_HIST_SUB_BITS - 1;
	sub = b % MX_HIST_SUB;
	return (uint64_t)(MX_HIST_SUB + sub) << (e - MX_HIST_SUB_BITS);
}

static uint64_t bucket_width(unsigned int b)
{
	return b < MX_HIST_SUB ? 1 :
	       1ULL << (b / MX_HIST_SUB - 1);
}

void mx_hist_init(struct mx_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void mx_hist_add(struct mx_hist *h, uint64_t ns)
{
	h->count++;
	h->sum += ns;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->bucket[bucket_of(ns)]++;
}

void mx_hist_merge(struct mx_hist *into, const struct mx_hist *from)
{
	into->count += from->count;
	into->sum += from->sum;
	if (from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
	for (unsigned int b = 0; b < MX_HIST_BUCKETS; b++)
		into->bucket[b] += from->bucket[b];
}

uint64_t mx_hist_quantile(const struct mx_hist *h, double p)
{
	uint64_t rank, cum = 0, v;

	if (!h->count)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 1)
		return h->max;
	/* The smallest value with at least p of the samples at or below it. */
	rank = (uint64_t)(p * (double)h->count);
	if ((double)rank < p * (double)h->count || !rank)
		rank++;
	for (unsigned int b = 0; b < MX_HIST_BUCKETS; b++) {
		cum += h->bucket[b];
		if (cum < rank)
			continue;
		/* The middle of the bucket, within what was seen. */
		v = bucket_low(b) + bucket_width(b) / 2;
		if (v < h->min)
			v = h->min;
		if (v > h->max)
			v = h->max;
		return v;
	}
	return h->max;
}

json_t *mx_hist_json(const struct mx_hist *h)
{
	json_t *o = json_object(), *b = json_array();

	if (!o || !b) {
		json_decref(o);
		json_decref(b);
		return NULL;
	}
	json_object_set_new(o, "count", json_integer((json_int_t)h->count));
	json_object_set_new(o, "sum_ns", json_integer((json_int_t)h->sum));
	json_object_set_new(o, "min_ns", json_integer(h->count ? (json_int_t)h->min : 0));
	json_object_set_new(o, "max_ns", json_integer((json_int_t)h->max));
	json_object_set_new(o, "mean_ns", json_integer(h->count ?
				(json_int_t)(h->sum / h->count) : 0));
	json_object_set_new(o, "p50_ns", json_integer((json_int_t)mx_hist_quantile(h, 0.5)));
	json_object_set_new(o, "p90_ns", json_integer((json_int_t)mx_hist_quantile(h, 0.9)));
	json_object_set_new(o, "p99_ns", json_integer((json_int_t)mx_hist_quantile(h, 0.99)));
	json_object_set_new(o, "p999_ns", json_integer((json_int_t)mx_hist_quantile(h, 0.999)));
	for (unsigned int i = 0; i < MX_HIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		json_array_append_new(b, json_pack("[II]", (json_int_t)bucket_low(i),
						   (json_int_t)h->bucket[i]));
	}
	json_object_set_new(o, "buckets", b);
	return o;
}

int mx_hist_from_json(struct mx_hist *h, const json_t *j)
{
	json_int_t count, sum, min, max;
	json_t *b, *pair;
	size_t i;

	mx_hist_init(h);
	if (json_unpack((json_t *)j, "{s:I, s:I, s:I, s:I, s:o}", "count", &count,
			"sum_ns", &sum, "min_ns", &min, "max_ns", &max,
			"buckets", &b) || !json_is_array(b))
		return -1;
	h->count = (uint64_t)count;
	h->sum = (uint64_t)sum;
	h->min = count ? (uint64_t)min : UINT64_MAX;
	h->max = (uint64_t)max;
	json_array_foreach(b, i, pair) {
		json_int_t low, n;

		if (json_unpack(pair, "[II]", &low, &n) || low < 0 || n < 0)
			return -1;
		h->bucket[bucket_of((uint64_t)low)] += (uint64_t)n;
	}
	return 0;
}
