/* SPDX-License-Identifier: GPL-2.0 */
/* The fnblk-sim commands; each returns the process exit code. */
#ifndef FNBLK_SIM_COMMANDS_H
#define FNBLK_SIM_COMMANDS_H

#include <stdio.h>

int cmd_run(int argc, char **argv);
int cmd_theory(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_sweep(int argc, char **argv);

/* CLOCK_MONOTONIC in seconds, for rates of simulated events. */
double sim_wall_seconds(void);

#endif /* FNBLK_SIM_COMMANDS_H */
