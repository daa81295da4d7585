// SPDX-License-Identifier: GPL-2.0
/* Command-line parsing of fnblk-sim; see cli.h. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "units.h"

#define SIM_OPT_BASE	256

static size_t count(const char *const *names)
{
	size_t n = 0;

	while (names[n])
		n++;
	return n;
}

int cli_parse(const struct cli_command *cmd, struct sim_options *o,
	      int argc, char **argv)
{
	size_t nf = count(fleet_config_options), nd = count(sim_device_options);
	size_t no = 0, i, k = 0;
	struct option *table;
	const char *name;
	char err[512];
	int c, ret = -1, idx;

	while (cmd->own && cmd->own[no].name)
		no++;
	if (cmd->own_only) {
		nf = 0;
		nd = 0;
	}
	table = calloc(nf + nd + no + 1, sizeof(*table));
	if (!table) {
		fprintf(stderr, "fnblk-sim %s: out of memory\n", cmd->name);
		return -1;
	}
	for (i = 0; i < nf; i++, k++)
		table[k] = (struct option){ fleet_config_options[i],
					    required_argument, NULL,
					    SIM_OPT_BASE + (int)k };
	for (i = 0; i < nd; i++, k++)
		table[k] = (struct option){ sim_device_options[i],
					    required_argument, NULL,
					    SIM_OPT_BASE + (int)k };
	for (i = 0; i < no; i++)
		table[k + i] = cmd->own[i];

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, cmd->shortopts ? cmd->shortopts :
				"", table, &idx)) != -1) {
		if (c >= SIM_OPT_BASE) {
			name = table[c - SIM_OPT_BASE].name;
			if (sim_options_set(o, name, optarg, err, sizeof(err))) {
				fprintf(stderr, "fnblk-sim %s: %s\n", cmd->name,
					err);
				goto out;
			}
		} else if (c == '?' || c == ':') {
			if (optopt)
				fprintf(stderr,
					"fnblk-sim %s: bad or incomplete option -%c\n",
					cmd->name, optopt);
			else
				fprintf(stderr,
					"fnblk-sim %s: unknown option or missing value: %s\n",
					cmd->name, argv[optind - 1]);
			goto out;
		} else if (!cmd->on || cmd->on(cmd->ctx, c, optarg)) {
			goto out;
		}
	}
	ret = optind;
out:
	free(table);
	return ret;
}

int cli_uint(const char *cmd, const char *name, const char *arg,
	     unsigned long long min, unsigned long long max,
	     unsigned long long *v)
{
	const char *why;
	uint64_t x;

	if (fnblk_parse_uint(arg, min, max, &x, &why)) {
		fprintf(stderr, "fnblk-sim %s: %s: %s\n", cmd, name, why);
		return -1;
	}
	*v = x;
	return 0;
}

void cli_hint(const char *cmd)
{
	fprintf(stderr, "Try 'fnblk-sim %s --help'.\n", cmd);
}
