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

#include "sim_cli.h"
#include "commands.h"
#include "ntrace.h"
#include "print.h"

struct run_args {
	const char *csv_path;
	const char *jsonl_path;
	const char *ntrace_path;
	bool quiet;
	bool json;
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

static const char *const run_usage[] = {
	"[OPTIONS] [-o FILE.csv] [--jsonl FILE] [--n-trace FILE]", NULL
};

static const char run_about[] =
	"Simulate a fleet of checkpointing jobs on a fnblk device and write "
	"one event per checkpoint, as fnblk-fleet would have on the device "
	"(CSV on standard output unless -o or --jsonl says otherwise). Every "
	"option is recorded in the events' header, so a file is enough to "
	"simulate its run again. At the end a summary line gives the writes, "
	"the simulated time and the simulator's speed.";

static FILE *open_out(const char *path)
{
	FILE *f;

	if (!strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "fnblk-sim: run: %s: %s\n", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *path)
{
	if (!f)
		return 0;
	if ((f == stdout ? fflush(f) : fclose(f)) || (f == stdout && ferror(f))) {
		fprintf(stderr, "fnblk-sim: run: writing %s failed\n", path);
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

/* The summary: on stdout unless the events go there, JSON with -j. */
static void run_summary(const struct run_args *a, const struct sim_options *o,
			const struct sim_result *res, double wall)
{
	bool events_on_stdout = (a->csv_path && !strcmp(a->csv_path, "-")) ||
				(a->jsonl_path && !strcmp(a->jsonl_path, "-"));

	pr_init(a->json);
	pr_set_file(events_on_stdout ? stderr : stdout);
	pr_open_object(NULL);
	pr_u64("writes", "%llu writes", res->writes);
	pr_u64("jobs", " of %llu jobs", o->fleet.jobs);
	pr_double("simulated_s", ", %.3f s simulated", res->end_ns * 1e-9);
	pr_u64("events", "; %llu events", res->events);
	pr_double("wall_s", " in %.3f s", wall);
	/* Text in millions, JSON as it is. */
	pr_double("events_per_s", NULL, wall > 0 ? res->events / wall : 0.0);
	pr_text(" = %.2f M events/s\n", wall > 0 ? res->events / wall * 1e-6 : 0.0);
	pr_close_object();
	pr_end();
}

int cmd_run(int argc, char **argv)
{
	static struct run_args a;
	static struct sim_options o;
	const struct cli_option own[] = {
		FLEET_OPTION_CSV(&a.csv_path, "standard output, unless --jsonl"),
		FLEET_OPTION_JSONL(&a.jsonl_path),
		{ .name = "n-trace", .arg = "FILE", .type = CLI_STRING,
		  .var = &a.ntrace_path,
		  .help = "write n(t), the device's active users, as CSV" },
		{ .name = "quiet", .key = 'q', .type = CLI_FLAG, .var = &a.quiet,
		  .help = "no summary" },
		{ .name = NULL },
	};
	const struct cli_group groups[] = {
		SIM_GROUPS(&o, ""),
		{ .title = "Output", .options = own },
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblk-sim run", .usage = run_usage, .about = run_about,
		.groups = groups, .json = &a.json,
		.json_help = "print the summary as JSON (times in seconds, "
			     "events per second)",
	};
	struct run_sink rs = { 0 };
	struct sim_sink sink = { .ctx = &rs, .write = run_write };
	struct fleet_workload fw = { 0 };
	struct fnblk_events hdr;
	struct sim_workload w;
	struct sim_result res = { 0 };
	FILE *ntf = NULL;
	char err[512];
	double t0, wall = 0;
	int ret = CLI_EXIT_FAILURE, first;

	fnblk_events_init(&hdr);
	if (sim_options_init(&o))
		return cli_error(&prog, "out of memory");
	first = 0;
	ret = cli_parse(&prog, argc, argv, &first);
	if (ret == CLI_CONTINUE && first < argc)
		ret = cli_usage_error(&prog, "unexpected operand '%s'", argv[first]);
	if (ret == CLI_CONTINUE && a.csv_path && a.jsonl_path &&
	    !strcmp(a.csv_path, "-") && !strcmp(a.jsonl_path, "-"))
		ret = cli_usage_error(&prog, "-o and --jsonl cannot both write to standard output");
	if (ret == CLI_CONTINUE && fleet_config_check(&o.fleet, err, sizeof(err)))
		ret = cli_usage_error(&prog, "%s", err);
	if (ret == CLI_CONTINUE && fleet_workload_init(&fw, &o.fleet, err, sizeof(err)))
		ret = cli_usage_error(&prog, "%s", err);
	if (ret != CLI_CONTINUE) {
		sim_options_free(&o);
		return ret;
	}
	ret = CLI_EXIT_FAILURE;
	if (make_header(&o, &fw, &hdr)) {
		cli_error(&prog, "out of memory");
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
		fprintf(stderr, "fnblk-sim: run: %s\n", err);
		goto out;
	}
	wall = sim_wall_seconds() - t0;
	if (ntf && ntrace_close(&rs.nt))
		rs.failed = true;
	if (rs.failed) {
		fprintf(stderr, "fnblk-sim: run: writing the output failed\n");
		goto out;
	}
	ret = CLI_EXIT_OK;
out:
	if (close_out(rs.csv, a.csv_path) || close_out(rs.jsonl, a.jsonl_path) ||
	    close_out(ntf, a.ntrace_path))
		ret = CLI_EXIT_FAILURE;
	if (ret == CLI_EXIT_OK && !a.quiet)
		run_summary(&a, &o, &res, wall);
	fnblk_events_free(&hdr);
	fleet_workload_free(&fw);
	sim_options_free(&o);
	return ret;
}
