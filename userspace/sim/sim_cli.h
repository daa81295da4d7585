/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line of the fnblk-sim commands: libfnblk's convention
 * (Documentation/cli.rst), and the option groups every simulating command
 * shares: the fleet's schedule (as fnblk-fleet's, one table), the device
 * and the write path, all setting a struct sim_options.
 */
#ifndef FNBLK_SIM_SIM_CLI_H
#define FNBLK_SIM_SIM_CLI_H

#include "cli.h"
#include "options.h"

/* note: a string literal added to each title (may be ""). */
#define SIM_GROUPS(o, note)						\
	{ .title = "Fleet, as fnblk-fleet takes it" note,		\
	  .options = fleet_schedule_options, .ctx = &(o)->fleet },	\
	{ .title = "Device" note,		\
	  .options = sim_device_cli_options, .ctx = (o) },		\
	{ .title = "Write path, as fnblk-fleet's" note,			\
	  .options = sim_io_cli_options, .ctx = (o) },			\
	{ .title = "Path shared by every job, in front of the device" note, \
	  .options = sim_path_cli_options, .ctx = (o) }

#endif /* FNBLK_SIM_SIM_CLI_H */
