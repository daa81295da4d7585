// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-sim bench: how fast the simulator runs, in simulated events per
 * second of one core, on a fleet of 10,000 jobs x 1,000 cycles unless told
 * otherwise. Nothing is written, so the figure is the model's own cost.
 */
#include <stdbool.h>
#include <stdio.h>

#include "commands.h"
#include "print.h"
#include "sim_cli.h"

/*
 * The benchmark fleet: every option may be overridden on the command line,
 * and --help shows these, since it reads the options as set.
 */
static const char *const bench_defaults[][2] = {
	{ "jobs", "10000" }, { "cycles", "1000" }, { "compute", "10s" },
	{ "size", "4MiB" }, { "phases", "random" }, { "bw", "10GiB/s" },
	{ "bs", "1MiB" }, { "qd", "1" },
};

static const char *const bench_usage[] = { "[OPTIONS]", NULL };

static void bench_report(const struct sim_options *o,
			 const struct sim_result *res, double wall)
{
	pr_open_object(NULL);
	pr_u64("jobs", "fleet: %llu jobs", o->fleet.jobs);
	pr_u64("cycles", " x %llu cycles", o->fleet.cycles);
	pr_u64("writes", ", %llu writes", res->writes);
	pr_u64("requests", ", %llu requests", res->requests);
	pr_u64("peak_n", ", peak n %llu", res->peak_active);
	pr_double("simulated_s", ", %.0f s simulated\n", res->end_ns * 1e-9);
	pr_u64("events", "events: %llu", res->events);
	pr_double("wall_s", " in %.3f s wall", wall);
	/* Text in millions and ns per event, JSON as it is. */
	pr_double("events_per_s", NULL, wall > 0 ? res->events / wall : 0.0);
	pr_text(" = %.2f M simulated events/s (%.0f ns/event)\n",
		wall > 0 ? res->events / wall * 1e-6 : 0.0,
		res->events ? wall * 1e9 / res->events : 0.0);
	pr_close_object();
	pr_end();
}

int cmd_bench(int argc, char **argv)
{
	static struct sim_options o;
	static bool json;
	const struct cli_group groups[] = {
		SIM_GROUPS(&o, ""),
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblk-sim bench", .usage = bench_usage,
		.about = "Simulate a fleet without output and report simulated "
			 "events per second of one core. The defaults below are "
			 "the benchmark's own fleet: 10000 jobs x 1000 cycles, "
			 "compute 10s, 4MiB checkpoints in 1MiB requests, "
			 "random phases, 10GiB/s.",
		.groups = groups, .json = &json,
		.json_help = "print the figures as JSON (times in seconds)",
	};
	struct sim_sink sink = { 0 };
	struct fleet_workload fw;
	struct sim_workload w;
	struct sim_result res;
	char err[512];
	double t0, wall;
	size_t i;
	int first, ret;

	if (sim_options_init(&o))
		return cli_error(&prog, "out of memory");
	for (i = 0; i < sizeof(bench_defaults) / sizeof(bench_defaults[0]); i++) {
		if (sim_options_set(&o, bench_defaults[i][0],
				    bench_defaults[i][1], err, sizeof(err))) {
			sim_options_free(&o);
			return cli_error(&prog, "%s: %s", bench_defaults[i][0], err);
		}
	}
	ret = cli_parse(&prog, argc, argv, &first);
	if (ret == CLI_CONTINUE && first < argc)
		ret = cli_usage_error(&prog, "unexpected operand '%s'", argv[first]);
	if (ret == CLI_CONTINUE && fleet_workload_init(&fw, &o.fleet, err, sizeof(err)))
		ret = cli_usage_error(&prog, "%s", err);
	if (ret != CLI_CONTINUE) {
		sim_options_free(&o);
		return ret;
	}
	fleet_workload_fill(&fw, &w);
	t0 = sim_wall_seconds();
	ret = CLI_EXIT_FAILURE;
	if (sim_run(&o.dev, &o.io, &w, &sink, &res, err, sizeof(err))) {
		cli_error(&prog, "%s", err);
	} else {
		wall = sim_wall_seconds() - t0;
		pr_init(json);
		bench_report(&o, &res, wall);
		ret = CLI_EXIT_OK;
	}
	fleet_workload_free(&fw);
	sim_options_free(&o);
	return ret;
}
