/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line parsing shared by the fnblk-sim commands: every simulation
 * option (options.h) as --name VALUE, plus each command's own options.
 */
#ifndef FNBLK_SIM_CLI_H
#define FNBLK_SIM_CLI_H

#include <getopt.h>
#include <stdbool.h>

#include "options.h"

/* Exit codes of every command. */
#define EXIT_OK		0
#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

/*
 * A command's own option: on(ctx, val, arg) returns 0, or -1 after
 * printing what was wrong. own is terminated by a zeroed entry; their val
 * must be below 256.
 */
struct cli_command {
	const char *name;
	const struct option *own;
	const char *shortopts;
	int (*on)(void *ctx, int val, const char *arg);
	void *ctx;
	bool own_only;		/* no simulation options (o may be NULL) */
};

/*
 * Parse argv into o and the command's own options. Returns the index of
 * the first operand, or -1 after printing a usage error.
 */
int cli_parse(const struct cli_command *cmd, struct sim_options *o,
	      int argc, char **argv);

/* After a usage error: where the help is. */
void cli_hint(const char *cmd);

/* Parse a plain unsigned number for option name; -1 after a message. */
int cli_uint(const char *cmd, const char *name, const char *arg,
	     unsigned long long min, unsigned long long max,
	     unsigned long long *v);

#endif /* FNBLK_SIM_CLI_H */
