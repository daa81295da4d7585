// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-sim: the fluid-model twin of a fleet on a fnblk device. It links
 * the module's scheduler core, so what it predicts is what the module
 * does, minus the guest's own noise. See Documentation/simulator.rst.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "run", cmd_run, "simulate a fleet and write its events" },
	{ "theory", cmd_theory, "check the phase-blindness theory" },
	{ "compare", cmd_compare, "re-simulate a fleet run and compare KPIs" },
	{ "bench", cmd_bench, "measure simulated events per second" },
};

void sim_usage_options(FILE *f)
{
	fputs("\nFleet options (as fnblk-fleet):\n"
	      "  --jobs N              jobs (2)\n"
	      "  --compute T           compute time per cycle: 10s, list 1s,2s or\n"
	      "                        uniform:a,b | normal:mu,sigma | exponential:mean (1s)\n"
	      "  --size S              checkpoint size, same forms (4MiB)\n"
	      "  --jitter X            per-cycle compute jitter, fraction (0)\n"
	      "  --phases P            sync | random | stagger | file:PATH (sync)\n"
	      "  --period T            span of random/stagger phases (mean compute)\n"
	      "  --seed N              (1)\n"
	      "  --cycles C            checkpoints per job, 0 = until --duration (10)\n"
	      "  --duration T          stop the run at T\n"
	      "  --power-cap P         computing jobs progress at min(1, P/m) (0 = none)\n"
	      "Device options (defaults as the module's):\n"
	      "  --bw RATE             bandwidth B, e.g. 32MiB/s (100MiB/s)\n"
	      "  --fn SPEC             constant | linear:K | power:A | table:f1,... (constant)\n"
	      "  --latency T           added after service (0)\n"
	      "  --overhead SIZE       demand added to every request (0)\n"
	      "  --grace T             idle grace before a user leaves n (2ms)\n"
	      "  --policy P            anon | fifo | weighted (anon)\n"
	      "  --users U             all | writes (all)\n"
	      "Write path:\n"
	      "  --bs SIZE             request size, 0 = whole checkpoint (1MiB)\n"
	      "  --qd N                requests in flight per job (1)\n",
	      f);
}

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: fnblk-sim COMMAND [OPTIONS]\n\nCommands:\n", f);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
	fputs("\n'fnblk-sim COMMAND --help' describes a command's options.\n", f);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "fnblk-sim: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
