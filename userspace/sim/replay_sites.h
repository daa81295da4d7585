/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sites of the replay commands (replay, sweep): "--site
 * NAME[,KEY=VALUE]..." on the command line, each a simulated fnblk device
 * (the device options are every site's defaults, a site overrides them)
 * with job slots. fn comes last and takes the rest of the text.
 */
#ifndef FNBLK_SIM_REPLAY_SITES_H
#define FNBLK_SIM_REPLAY_SITES_H

#include "options.h"
#include "replay_engine.h"

#define REPLAY_MAX_SITES	1024

struct replay_site_specs {
	const char *spec[REPLAY_MAX_SITES];
	unsigned int nr;
};

/* The --site option; its group's ctx is a struct replay_site_specs. */
int replay_site_spec_add(void *ctx, const struct cli_option *o,
			 const char *arg, char *err, size_t errlen);
#define REPLAY_SITE_OPTION {						\
	.name = "site", .arg = "NAME[,KEY=VALUE]...", .type = CLI_CALL,	\
	.set = replay_site_spec_add, .dflt = "",				\
	.help = "a site: a device with job slots (slots=1 unless "	\
		"given); repeat for more sites" }

/*
 * The sites of sp, from the device defaults in dflt, into *out (freed by
 * the caller); names must differ. 0, or -1 with err.
 */
int replay_sites_parse(const struct replay_site_specs *sp,
		       const struct sim_options *dflt, struct replay_site **out,
		       char *err, size_t errlen);

#endif /* FNBLK_SIM_REPLAY_SITES_H */
