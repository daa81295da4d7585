// SPDX-License-Identifier: GPL-2.0
/* fnblkctl stats [NAME] | stats reset NAME; and the n histogram table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "fnblkctl.h"
#include "print.h"

#define BAR_WIDTH	40

/* JSON keys of the scalar counters, in enum fnblk_stat order. */
static const char *const stat_keys[__FNBLK_STAT_MAX] = {
	[FNBLK_STAT_TIME_NS] = "time_ns",
	[FNBLK_STAT_ELAPSED_NS] = "elapsed_ns",
	[FNBLK_STAT_READ_OPS] = "read_ops",
	[FNBLK_STAT_READ_BYTES] = "read_bytes",
	[FNBLK_STAT_WRITE_OPS] = "write_ops",
	[FNBLK_STAT_WRITE_BYTES] = "write_bytes",
	[FNBLK_STAT_FLUSH_OPS] = "flush_ops",
	[FNBLK_STAT_DISCARD_OPS] = "discard_ops",
	[FNBLK_STAT_DISCARD_BYTES] = "discard_bytes",
	[FNBLK_STAT_KTHREAD_OPS] = "kthread_ops",
	[FNBLK_STAT_KTHREAD_BYTES] = "kthread_bytes",
	[FNBLK_STAT_ERRORS] = "errors",
	[FNBLK_STAT_NR_ACTIVE] = "nr_active",
	[FNBLK_STAT_PEAK_ACTIVE] = "peak_active",
	[FNBLK_STAT_ACTIVATIONS] = "activations",
	[FNBLK_STAT_NR_USERS] = "nr_users",
	[FNBLK_STAT_N_TIME_SUM] = "n_time_sum_ns",
	[FNBLK_STAT_LAT_SUM_NS] = "lat_sum_ns",
	[FNBLK_STAT_QUEUE_SUM_NS] = "queue_sum_ns",
	[FNBLK_STAT_INFLIGHT] = "inflight",
	[FNBLK_STAT_EVENTS] = "events",
	[FNBLK_STAT_USERS_RETIRED] = "users_retired",
	[FNBLK_STAT_USER_OVERFLOWS] = "user_overflows",
	[FNBLK_STAT_STORE_BYTES] = "store_bytes",
	[FNBLK_STAT_DIRTY_BYTES] = "dirty_bytes",
	[FNBLK_STAT_CRASHES] = "crashes",
	[FNBLK_STAT_CRASH_LOST_BYTES] = "crash_lost_bytes",
	[FNBLK_STAT_FAULT_EIO] = "fault_eio",
	[FNBLK_STAT_FAULT_TIMEOUT] = "fault_timeout",
	[FNBLK_STAT_FAULT_DELAY] = "fault_delay",
};

static const char *const stats_usage[] = { "[NAME]", "reset NAME", NULL };

static const struct cli_term stats_commands[] = {
	{ "stats [NAME]",
	  "Counters of every device, or one, since it was added or last "
	  "reset: operations and bytes read, written, flushed, discarded, "
	  "those submitted by kernel threads, errors, n now and its peak, "
	  "activations (idle to active), users known, requests in flight and "
	  "events sent; latency and queueing delay (mean and the power-of-two "
	  "bins holding the median and 99th percentile); the time spent at "
	  "each n as a table with a bar per row; and a summary: mean n (the "
	  "integral of n over the elapsed time), p99 n (time-weighted, from "
	  "the histogram; a range for n >= 64), max n (highest histogram "
	  "bin) and peak n (the kernel's counter); the request sizes read and "
	  "written (power-of-two bins: a bin holds sizes from its own up to "
	  "the next). JSON carries every counter under its name, the raw "
	  "histograms n_hist_ns, lat_hist, queue_hist, read_size_hist and "
	  "write_size_hist (bin i from 512 << i bytes), and a summary "
	  "object." },
	{ "stats reset NAME", "Zero the counters." },
	{ NULL, NULL },
};

static int stats_args(int *argc, char ***argv)
{
	static const struct cli_group groups[] = {
		{ .title = "Commands", .terms = stats_commands },
		{ .title = "Options" },
		{ .title = NULL },
	};
	static const struct cli_program prog = {
		.name = "fnblkctl stats", .usage = stats_usage,
		.about = "What a device has done, and how many users it had "
			 "when.",
		.groups = groups, .json = &ctl_json,
		.json_help = "print the counters as JSON",
	};

	return object_args(&prog, argc, argv);
}

static uint64_t sum(const uint64_t *a, unsigned int nr)
{
	uint64_t s = 0;

	for (unsigned int i = 0; i < nr; i++)
		s += a[i];
	return s;
}

unsigned int n_hist_percentile_bin(const uint64_t *hist, double p)
{
	uint64_t total = sum(hist, FNBLK_NHIST_BINS), cum = 0;

	for (unsigned int i = 0; i < FNBLK_NHIST_BINS; i++) {
		cum += hist[i];
		if (total && (double)cum >= p * (double)total)
			return i;
	}
	return 0;
}

static unsigned int highest_bin(const uint64_t *hist, unsigned int nr)
{
	unsigned int top = 0;

	for (unsigned int i = 0; i < nr; i++)
		if (hist[i])
			top = i;
	return top;
}

/* "5", "64-127", or "2048+" for the last, open-ended bin. */
static const char *bin_label(unsigned int bin, char *buf, size_t len)
{
	uint32_t lo = fnblk_nhist_bin_low(bin), hi = fnblk_nhist_bin_high(bin);

	if (lo == hi)
		snprintf(buf, len, "%u", lo);
	else if (hi == UINT32_MAX)
		snprintf(buf, len, "%u+", lo);
	else
		snprintf(buf, len, "%u-%u", lo, hi);
	return buf;
}

static void pr_u64_array(const char *key, const uint64_t *a, unsigned int nr)
{
	pr_open_array(key);
	for (unsigned int i = 0; i < nr; i++)
		pr_u64(NULL, NULL, a[i]);
	pr_close_array();
}

void print_n_hist(const uint64_t *hist, const char *key)
{
	uint64_t total = sum(hist, FNBLK_NHIST_BINS), most = 0;
	char label[32], bar[BAR_WIDTH + 1];

	if (pr_json()) {
		pr_u64_array(key, hist, FNBLK_NHIST_BINS);
		return;
	}
	for (unsigned int i = 0; i < FNBLK_NHIST_BINS; i++)
		if (hist[i] > most)
			most = hist[i];
	printf("  %-10s %12s %7s\n", "n", "time", "share");
	for (unsigned int i = 0; i < FNBLK_NHIST_BINS; i++) {
		unsigned int w;

		if (!hist[i])
			continue;
		/* Bars are scaled to the longest row; any time shows a mark. */
		w = (unsigned int)ceil((double)hist[i] * BAR_WIDTH /
				       (double)most);
		memset(bar, '#', w);
		bar[w] = '\0';
		pr_text("  %-10s ", bin_label(i, label, sizeof(label)));
		pr_duration(NULL, "%12s", hist[i]);
		pr_text(" %6.2f%% %s\n", 100.0 * (double)hist[i] / (double)total,
			bar);
	}
}

/* Latency percentile as the upper bound of its power-of-two bin. */
static uint64_t lat_percentile(const uint64_t *hist, double p)
{
	uint64_t total = sum(hist, FNBLK_LHIST_BINS), cum = 0;

	for (unsigned int i = 0; i < FNBLK_LHIST_BINS; i++) {
		cum += hist[i];
		if (total && (double)cum >= p * (double)total)
			return 2ULL << i;
	}
	return 0;
}

static void print_latency(const char *name, const uint64_t *hist,
			  uint64_t sum_ns, const char *key)
{
	uint64_t nr = sum(hist, FNBLK_LHIST_BINS);
	char k[64];

	pr_text("  %-8s", name);
	snprintf(k, sizeof(k), "%s_mean_ns", key);
	pr_duration(k, " mean %s", nr ? sum_ns / nr : 0);
	snprintf(k, sizeof(k), "%s_p50_ns", key);
	pr_duration(k, "  p50 <%s", lat_percentile(hist, 0.50));
	snprintf(k, sizeof(k), "%s_p99_ns", key);
	pr_duration(k, "  p99 <%s", lat_percentile(hist, 0.99));
	pr_text("  (%llu requests)\n", (unsigned long long)nr);
}

/* Requests per size bin, reads and writes side by side; rows seen only. */
static void print_sizes(const struct fnblk_stats *st)
{
	uint64_t nr = sum(st->read_size_hist, FNBLK_RSIZE_BINS);
	uint64_t nw = sum(st->write_size_hist, FNBLK_RSIZE_BINS);

	if (pr_json()) {
		pr_u64_array("read_size_hist", st->read_size_hist, FNBLK_RSIZE_BINS);
		pr_u64_array("write_size_hist", st->write_size_hist, FNBLK_RSIZE_BINS);
		return;
	}
	if (!nr && !nw)
		return;
	pr_text("  request size        reads             writes\n");
	for (unsigned int i = 0; i < FNBLK_RSIZE_BINS; i++) {
		uint64_t r = st->read_size_hist[i], w = st->write_size_hist[i];

		if (!r && !w)
			continue;
		pr_size(NULL, "  %-10s", fnblk_rsize_bin_low(i));
		pr_text("%s %10llu %6.2f%% %10llu %6.2f%%\n",
			i == FNBLK_RSIZE_BINS - 1 ? "+" : " ",
			(unsigned long long)r, nr ? 100.0 * (double)r / (double)nr : 0,
			(unsigned long long)w, nw ? 100.0 * (double)w / (double)nw : 0);
	}
}

static void print_stats(const struct fnblk_stats *st)
{
	const uint64_t *v = st->val;
	uint64_t elapsed = v[FNBLK_STAT_ELAPSED_NS];
	unsigned int p99 = n_hist_percentile_bin(st->n_hist, 0.99);
	unsigned int top = highest_bin(st->n_hist, FNBLK_NHIST_BINS);
	double mean = elapsed ? (double)v[FNBLK_STAT_N_TIME_SUM] /
				(double)elapsed : 0;
	char label[32];

	pr_open_object(NULL);
	pr_u64("id", NULL, st->dev_id);
	pr_str("name", "%s:", st->dev_name);
	if (pr_json()) {
		for (int i = 0; i < __FNBLK_STAT_MAX; i++)
			if (stat_keys[i] && (st->present & FNBLK_BIT(i)))
				pr_u64(stat_keys[i], NULL, v[i]);
	}
	pr_duration(NULL, " elapsed %s", elapsed);
	pr_u64(NULL, "  n %llu", v[FNBLK_STAT_NR_ACTIVE]);
	pr_u64(NULL, " (peak %llu)", v[FNBLK_STAT_PEAK_ACTIVE]);
	pr_u64(NULL, "  users %llu", v[FNBLK_STAT_NR_USERS]);
	pr_u64(NULL, "  activations %llu", v[FNBLK_STAT_ACTIVATIONS]);
	pr_u64(NULL, "  inflight %llu", v[FNBLK_STAT_INFLIGHT]);
	pr_u64(NULL, "  events %llu\n", v[FNBLK_STAT_EVENTS]);
	pr_u64(NULL, "  read     %llu ops", v[FNBLK_STAT_READ_OPS]);
	pr_size(NULL, " %s\n", v[FNBLK_STAT_READ_BYTES]);
	pr_u64(NULL, "  write    %llu ops", v[FNBLK_STAT_WRITE_OPS]);
	pr_size(NULL, " %s\n", v[FNBLK_STAT_WRITE_BYTES]);
	pr_u64(NULL, "  flush    %llu ops", v[FNBLK_STAT_FLUSH_OPS]);
	pr_u64(NULL, "  discard %llu ops", v[FNBLK_STAT_DISCARD_OPS]);
	pr_size(NULL, " %s\n", v[FNBLK_STAT_DISCARD_BYTES]);
	pr_u64(NULL, "  kthread  %llu ops", v[FNBLK_STAT_KTHREAD_OPS]);
	pr_size(NULL, " %s", v[FNBLK_STAT_KTHREAD_BYTES]);
	pr_u64(NULL, "  errors %llu\n", v[FNBLK_STAT_ERRORS]);
	pr_u64(NULL, "  users retired %llu",
	       v[FNBLK_STAT_USERS_RETIRED]);
	pr_u64(NULL, "  requests in overflow %llu\n",
	       v[FNBLK_STAT_USER_OVERFLOWS]);
	pr_size(NULL, "  stored %s", v[FNBLK_STAT_STORE_BYTES]);
	pr_size(NULL, "  not durable %s", v[FNBLK_STAT_DIRTY_BYTES]);
	pr_u64(NULL, "  crashes %llu", v[FNBLK_STAT_CRASHES]);
	pr_size(NULL, " (lost %s)\n", v[FNBLK_STAT_CRASH_LOST_BYTES]);
	pr_u64(NULL, "  faults injected: eio %llu", v[FNBLK_STAT_FAULT_EIO]);
	pr_u64(NULL, "  timeout %llu", v[FNBLK_STAT_FAULT_TIMEOUT]);
	pr_u64(NULL, "  delay %llu\n", v[FNBLK_STAT_FAULT_DELAY]);

	print_sizes(st);
	print_n_hist(st->n_hist, "n_hist_ns");
	if (pr_json()) {
		pr_u64_array("lat_hist", st->lat_hist, FNBLK_LHIST_BINS);
		pr_u64_array("queue_hist", st->queue_hist, FNBLK_LHIST_BINS);
	}
	pr_open_object("summary");
	print_latency("latency", st->lat_hist, v[FNBLK_STAT_LAT_SUM_NS],
		      "latency");
	print_latency("queue", st->queue_hist, v[FNBLK_STAT_QUEUE_SUM_NS],
		      "queue");
	pr_double("mean_n", "  summary: mean n %.3f", mean);
	pr_u64("p99_n", NULL, fnblk_nhist_bin_low(p99));
	pr_str(NULL, "  p99 n %s", bin_label(p99, label, sizeof(label)));
	pr_u64("max_n", NULL, fnblk_nhist_bin_low(top));
	pr_str(NULL, "  max n %s", bin_label(top, label, sizeof(label)));
	pr_u64("peak_n", "  peak n %llu\n", v[FNBLK_STAT_PEAK_ACTIVE]);
	pr_close_object();
	pr_close_object();
}

static int print_one(const struct fnblk_stats *st, void *arg)
{
	bool *first = arg;

	if (!*first)
		pr_text("\n");
	*first = false;
	print_stats(st);
	return 0;
}

int do_stats(int argc, char **argv)
{
	struct fnblk_stats *st;
	struct fnblk *h;
	char err[256];
	bool first = true;
	int ret;

	ret = stats_args(&argc, &argv);
	if (ret != CLI_CONTINUE)
		return ret;
	if (argc >= 2 && !strcmp(argv[1], "reset")) {
		if (argc != 3)
			return usage_error("stats reset: expected one device "
					   "name");
		if (args_check_dev(argv[2], err, sizeof(err)))
			return usage_error("stats reset: %s", err);
		h = ctl_handle();
		if (fnblk_stats_reset(h, argv[2]) < 0)
			return nl_error(h, "stats reset");
		return 0;
	}
	if (argc > 2)
		return usage_error("stats: unexpected argument '%s'", argv[2]);
	if (argc == 2 && args_check_dev(argv[1], err, sizeof(err)))
		return usage_error("stats: %s", err);
	h = ctl_handle();
	if (argc == 1) {
		pr_open_array(NULL);
		ret = fnblk_stats_dump(h, print_one, &first);
		pr_close_array();
		if (ret < 0)
			return nl_error(h, "stats");
		pr_end();
		return 0;
	}
	st = malloc(sizeof(*st));
	if (!st)
		return runtime_error("out of memory");
	ret = fnblk_stats_get(h, argv[1], st);
	if (ret < 0) {
		free(st);
		return nl_error(h, "stats");
	}
	print_stats(st);
	pr_end();
	free(st);
	return 0;
}
