// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-sim: the fluid-model twin of a fleet on a fnblk device. It links
 * the module's scheduler core, so what it predicts is what the module
 * does, minus the guest's own noise. See Documentation/simulator.rst.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "sim_cli.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "run", cmd_run },
	{ "theory", cmd_theory },
	{ "compare", cmd_compare },
	{ "bench", cmd_bench },
	{ "replay", cmd_replay },
	{ "sweep", cmd_sweep },
};

static const struct cli_term command_terms[] = {
	{ "run", "simulate a fleet and write its events" },
	{ "theory", "measure the maps the phase-blindness theory predicts, "
		    "beside the formulas" },
	{ "compare", "simulate again a fleet run recorded by fnblk-fleet and "
		     "compare the key figures" },
	{ "bench", "measure simulated events per second" },
	{ "replay", "replay job records at simulated sites and predict "
		    "queue time, wall time, errors and remote access" },
	{ "sweep", "rank replay policies over many seeds, with confidence "
		   "intervals" },
	{ NULL, NULL },
};

static const char *const usage[] = { "COMMAND [OPTIONS]", NULL };

static const struct cli_group groups[] = {
	{ .title = "Commands", .terms = command_terms },
	{ .title = "Options" },
	{ .title = NULL },
};

static const struct cli_program prog = {
	.name = "fnblk-sim",
	.usage = usage,
	.about = "Simulate fleets of checkpointing jobs on a fnblk device in "
		 "the discrete-event model built on the module's own "
		 "scheduler core. 'fnblk-sim COMMAND --help' describes a "
		 "command's options.",
	.groups = groups,
	.stop_at_operand = true,
};

int main(int argc, char **argv)
{
	int first, ret = cli_parse(&prog, argc, argv, &first);
	size_t i;

	if (ret != CLI_CONTINUE)
		return ret;
	if (first == argc)
		return cli_usage_error(&prog, "no COMMAND (run, theory, compare, bench, replay or sweep)");
	if (!strcmp(argv[first], "help")) {
		cli_help(&prog, stdout);
		return CLI_EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[first], commands[i].name))
			return commands[i].fn(argc - first, argv + first);
	return cli_usage_error(&prog, "unknown command '%s' (expected run, theory, compare, bench, replay or sweep)",
			       argv[first]);
}
