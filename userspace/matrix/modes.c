// SPDX-License-Identifier: GPL-2.0
/*
 * The table of access modes (mode.h says how a mode plugs in): one line
 * per mode, in the order --help lists them.
 */
#include <string.h>

#include "mode.h"

extern const struct mx_mode mx_mode_mmap;
extern const struct mx_mode mx_mode_pread;
extern const struct mx_mode mx_mode_direct;
extern const struct mx_mode mx_mode_fnmap;

const struct mx_mode *const mx_modes[] = {
	&mx_mode_mmap,
	&mx_mode_pread,
	&mx_mode_direct,
	&mx_mode_fnmap,
	NULL
};

const struct mx_mode *mx_mode_find(const char *name)
{
	for (unsigned int i = 0; mx_modes[i]; i++)
		if (!strcmp(mx_modes[i]->name, name))
			return mx_modes[i];
	return NULL;
}

const struct mx_mode *mx_mode_owning(const char *option)
{
	for (unsigned int i = 0; mx_modes[i]; i++) {
		const struct mx_mode_option *o = mx_modes[i]->options;

		for (; o && o->name; o++)
			if (!strcmp(o->name, option))
				return mx_modes[i];
	}
	return NULL;
}

static const char *const advise_names[MX_NR_ADVISE] = {
	[MX_ADVISE_NORMAL] = "normal",
	[MX_ADVISE_RANDOM] = "random",
	[MX_ADVISE_SEQUENTIAL] = "sequential",
};

const char *mx_advise_name(enum mx_advise a)
{
	return (unsigned int)a < MX_NR_ADVISE ? advise_names[a] : "?";
}

int mx_advise_value(const char *name)
{
	for (unsigned int i = 0; i < MX_NR_ADVISE; i++)
		if (!strcmp(advise_names[i], name))
			return (int)i;
	return -1;
}
