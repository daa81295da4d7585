// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-sim: the fluid-model twin of a fleet on a fnblk device. It links
 * the module's scheduler core, so what it predicts is what the module
 * does, minus the guest's own noise. See Documentation/simulator.rst.
 */

#include "commands.h"
#include "sim_cli.h"

static const struct cli_command commands[] = {
	{ .name = "run", .run = cmd_run,
	  .help = "simulate a fleet and write its events" },
	{ .name = "theory", .run = cmd_theory,
	  .help = "measure the maps the phase-blindness theory predicts, "
		  "beside the formulas" },
	{ .name = "compare", .run = cmd_compare,
	  .help = "simulate again a fleet run recorded by fnblk-fleet and "
		  "compare the key figures" },
	{ .name = "bench", .run = cmd_bench,
	  .help = "measure simulated events per second" },
	{ .name = "replay", .run = cmd_replay,
	  .help = "replay job records at simulated sites and predict "
		  "queue time, wall time, errors and remote access" },
	{ .name = "sweep", .run = cmd_sweep,
	  .help = "rank replay policies over many seeds, with confidence "
		  "intervals" },
	{ .name = NULL },
};

int main(int argc, char **argv)
{
	return cli_command_main("fnblk-sim",
				"Simulate fleets of checkpointing jobs on a fnblk "
				"device in the discrete-event model built on the "
				"module's own scheduler core. 'fnblk-sim COMMAND "
				"--help' describes a command's options.",
				commands, argc, argv);
}
