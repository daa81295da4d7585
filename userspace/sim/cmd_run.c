// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-sim run: simulate a fleet and write its events, as fnblk-fleet
 * would have on a real device with the same parameters.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "commands.h"
#include "ntrace.h"

struct run_args {
	const char *csv_path;
	const char *jsonl_path;
	const char *ntrace_path;
	bool quiet;
	bool help;
};

struct run_sink {
	FILE *csv, *jsonl;
	struct ntrace nt;
	bool tracing;
	bool failed;
};

static void run_write(void *ctx, const struct fnblk_event *ev)
{
	struct run_sink *rs = ctx;

	if (rs->csv && fnblk_events_csv_row(rs->csv, ev))
		rs->failed = true;
	if (rs->jsonl && fnblk_events_jsonl_row(rs->jsonl, ev))
		rs->failed = true;
}

static void run_n_change(void *ctx, uint64_t t, unsigned int n)
{
	struct run_sink *rs = ctx;

	ntrace_change(&rs->nt, t, n);
}

static const struct option run_own[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "jsonl", required_argument, NULL, 'j' },
	{ "n-trace", required_argument, NULL, 'n' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int run_on(void *ctx, int val, const char *arg)
{
	struct run_args *a = ctx;

	switch (val) {
	case 'o':
		a->csv_path = arg;
		return 0;
	case 'j':
		a->jsonl_path = arg;
		return 0;
	case 'n':
		a->ntrace_path = arg;
		return 0;
	case 'q':
		a->quiet = true;
		return 0;
	case 'h':
		a->help = true;
		return 0;
	}
	return -1;
}

static void run_usage(FILE *f)
{
	fputs("usage: fnblk-sim run [FLEET OPTIONS] [DEVICE OPTIONS]\n"
	      "                     [-o FILE.csv] [--jsonl FILE] [--n-trace FILE] [-q]\n"
	      "Simulate a fleet of checkpointing jobs on a fnblk device and write\n"
	      "one event per checkpoint (CSV on standard output unless -o/--jsonl).\n",
	      f);
	sim_usage_options(f);
}

static FILE *open_out(const char *path)
{
	FILE *f;

	if (!strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "fnblk-sim run: %s: %s\n", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *path)
{
	if (!f)
		return 0;
	if ((f == stdout ? fflush(f) : fclose(f)) || (f == stdout && ferror(f))) {
		fprintf(stderr, "fnblk-sim run: writing %s failed\n", path);
		return -1;
	}
	return 0;
}

static void add_param(void *arg, const char *name, const char *value)
{
	fnblk_events_set_param(arg, name, value);
}

/*
 * The header every output file starts with: source, all parameters, and
 * as fnblk-fleet does, the solo write time for the write slowdown that
 * fnblk-analyze reports: one solo_ns when every job writes the same size,
 * else solo_ns.J per job (a parameter lookup is linear, so a header of
 * per-job lines costs O(N^2) to build and to read).
 */
static int make_header(const struct sim_options *o,
		       const struct fleet_workload *fw, struct fnblk_events *hdr)
{
	uint64_t solo = 0, solo_size = 0;
	char name[32], value[32];
	unsigned int j;
	bool same = true;

	fnblk_events_init(hdr);
	if (fnblk_events_set_source(hdr, "sim"))
		return -1;
	sim_options_params(o, add_param, hdr);
	/* Simulated time starts at 0, as the fleet records its own start. */
	add_param(hdr, "start_ns", "0");
	for (j = 1; j < o->fleet.jobs; j++)
		same = same && fw->jobs[j].size == fw->jobs[0].size;
	for (j = 0; j < (same ? 1 : o->fleet.jobs); j++) {
		if (!j || fw->jobs[j].size != solo_size) {
			solo_size = fw->jobs[j].size;
			solo = sim_solo_write_ns(&o->dev, &o->io, solo_size);
		}
		if (same)
			snprintf(name, sizeof(name), "solo_ns");
		else
			snprintf(name, sizeof(name), "solo_ns.%u", j);
		snprintf(value, sizeof(value), "%llu", (unsigned long long)solo);
		add_param(hdr, name, value);
	}
	return hdr->nr_params ? 0 : -1;
}

double sim_wall_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int cmd_run(int argc, char **argv)
{
	struct run_args a = { 0 };
	struct cli_command cmd = {
		.name = "run", .own = run_own, .shortopts = "o:qh",
		.on = run_on, .ctx = &a,
	};
	struct run_sink rs = { 0 };
	struct sim_sink sink = { .ctx = &rs, .write = run_write };
	struct sim_options o;
	struct fleet_workload fw;
	struct fnblk_events hdr;
	struct sim_workload w;
	struct sim_result res;
	FILE *ntf = NULL;
	char err[512];
	double t0, wall;
	int ret = EXIT_RUNTIME, first;

	if (sim_options_init(&o)) {
		fprintf(stderr, "fnblk-sim run: out of memory\n");
		return EXIT_RUNTIME;
	}
	first = cli_parse(&cmd, &o, argc, argv);
	if (first < 0 || a.help || first < argc) {
		if (first >= 0 && first < argc && !a.help)
			fprintf(stderr, "fnblk-sim run: unexpected operand %s\n",
				argv[first]);
		if (a.help)
			run_usage(stdout);
		else
			cli_hint("run");
		sim_options_free(&o);
		return a.help ? EXIT_OK : EXIT_USAGE;
	}
	if (fleet_config_check(&o.fleet, err, sizeof(err))) {
		fprintf(stderr, "fnblk-sim run: %s\n", err);
		sim_options_free(&o);
		return EXIT_USAGE;
	}
	if (fleet_workload_init(&fw, &o.fleet, err, sizeof(err))) {
		fprintf(stderr, "fnblk-sim run: %s\n", err);
		sim_options_free(&o);
		return EXIT_USAGE;
	}
	if (make_header(&o, &fw, &hdr)) {
		fprintf(stderr, "fnblk-sim run: out of memory\n");
		goto out;
	}
	if (!a.csv_path && !a.jsonl_path)
		a.csv_path = "-";
	if (a.csv_path) {
		rs.csv = open_out(a.csv_path);
		if (!rs.csv)
			goto out;
	}
	if (a.jsonl_path) {
		rs.jsonl = open_out(a.jsonl_path);
		if (!rs.jsonl)
			goto out;
	}
	if (a.ntrace_path) {
		ntf = open_out(a.ntrace_path);
		if (!ntf)
			goto out;
		ntrace_open(&rs.nt, ntf);
		sink.n_change = run_n_change;
	}
	if ((rs.csv && fnblk_events_csv_header(rs.csv, &hdr)) ||
	    (rs.jsonl && fnblk_events_jsonl_header(rs.jsonl, &hdr)))
		rs.failed = true;

	fleet_workload_fill(&fw, &w);
	t0 = sim_wall_seconds();
	if (sim_run(&o.dev, &o.io, &w, &sink, &res, err, sizeof(err))) {
		fprintf(stderr, "fnblk-sim run: %s\n", err);
		goto out;
	}
	wall = sim_wall_seconds() - t0;
	if (ntf && ntrace_close(&rs.nt))
		rs.failed = true;
	if (rs.failed) {
		fprintf(stderr, "fnblk-sim run: writing the output failed\n");
		goto out;
	}
	if (!a.quiet)
		fprintf(stderr,
			"fnblk-sim run: %llu writes of %u jobs, %.3f s simulated; %llu events in %.3f s = %.2f M events/s\n",
			(unsigned long long)res.writes, o.fleet.jobs,
			res.end_ns * 1e-9, (unsigned long long)res.events,
			wall, wall > 0 ? res.events / wall * 1e-6 : 0.0);
	ret = EXIT_OK;
out:
	if (close_out(rs.csv, a.csv_path) || close_out(rs.jsonl, a.jsonl_path) ||
	    close_out(ntf, a.ntrace_path))
		ret = EXIT_RUNTIME;
	fnblk_events_free(&hdr);
	fleet_workload_free(&fw);
	sim_options_free(&o);
	return ret;
}
