// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-sim bench: how fast the simulator runs, in simulated events per
 * second of one core, on a fleet of 10,000 jobs x 1,000 cycles unless told
 * otherwise. Nothing is written, so the figure is the model's own cost.
 */
#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "commands.h"

/* The benchmark fleet: every option may be overridden on the command line. */
static const char *const bench_defaults[][2] = {
	{ "jobs", "10000" }, { "cycles", "1000" }, { "compute", "10s" },
	{ "size", "4MiB" }, { "phases", "random" }, { "bw", "10GiB/s" },
	{ "bs", "1MiB" }, { "qd", "1" },
};

static const struct option bench_own[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int bench_on(void *ctx, int val, const char *arg)
{
	(void)arg;
	if (val != 'h')
		return -1;
	*(bool *)ctx = true;
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	bool help = false;
	struct cli_command cmd = {
		.name = "bench", .own = bench_own, .shortopts = "h",
		.on = bench_on, .ctx = &help,
	};
	struct sim_sink sink = { 0 };
	struct fleet_workload fw;
	struct sim_workload w;
	struct sim_result res;
	struct sim_options o;
	char err[512];
	double t0, wall;
	size_t i;
	int first, ret = EXIT_RUNTIME;

	if (sim_options_init(&o))
		return EXIT_RUNTIME;
	for (i = 0; i < sizeof(bench_defaults) / sizeof(bench_defaults[0]); i++)
		if (sim_options_set(&o, bench_defaults[i][0],
				    bench_defaults[i][1], err, sizeof(err)))
			goto out;
	first = cli_parse(&cmd, &o, argc, argv);
	if (first < 0 || help || first < argc) {
		if (!help) {
			cli_hint("bench");
			ret = EXIT_USAGE;
			goto out;
		}
		fputs("usage: fnblk-sim bench [FLEET OPTIONS] [DEVICE OPTIONS]\n"
		      "Simulate a fleet without output and report simulated events per\n"
		      "second (default: 10000 jobs x 1000 cycles, compute 10s, 4MiB in 1MiB\n"
		      "requests, random phases, 10GiB/s).\n",
		      stdout);
		sim_usage_options(stdout);
		ret = EXIT_OK;
		goto out;
	}
	if (fleet_workload_init(&fw, &o.fleet, err, sizeof(err))) {
		fprintf(stderr, "fnblk-sim bench: %s\n", err);
		ret = EXIT_USAGE;
		goto out;
	}
	fleet_workload_fill(&fw, &w);
	t0 = sim_wall_seconds();
	if (sim_run(&o.dev, &o.io, &w, &sink, &res, err, sizeof(err))) {
		fprintf(stderr, "fnblk-sim bench: %s\n", err);
		fleet_workload_free(&fw);
		goto out;
	}
	wall = sim_wall_seconds() - t0;
	printf("fleet: %u jobs x %llu cycles, %llu writes, %llu requests, peak n %u, %.0f s simulated\n",
	       o.fleet.jobs, (unsigned long long)o.fleet.cycles,
	       (unsigned long long)res.writes,
	       (unsigned long long)res.requests, res.peak_active,
	       res.end_ns * 1e-9);
	printf("events: %llu in %.3f s wall = %.2f M simulated events/s (%.0f ns/event)\n",
	       (unsigned long long)res.events, wall,
	       wall > 0 ? res.events / wall * 1e-6 : 0.0,
	       res.events ? wall * 1e9 / res.events : 0.0);
	fleet_workload_free(&fw);
	ret = EXIT_OK;
out:
	sim_options_free(&o);
	return ret;
}
