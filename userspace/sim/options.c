// SPDX-License-Identifier: GPL-2.0
/* Simulation options by name; see options.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "units.h"
#include "diag.h"

#define DIRECT_ALIGN		4096	/* O_DIRECT block, as fnblk-fleet */


int sim_options_init(struct sim_options *o)
{
	memset(o, 0, sizeof(*o));
	if (fleet_config_init(&o->fleet))
		return -1;
	fnblk_params_default(&o->dev);
	snprintf(o->fn_spec, sizeof(o->fn_spec), "constant");
	o->io.bs = FLEET_BS_DEFAULT;
	o->io.qd = FLEET_QD_DEFAULT;
	return 0;
}

void sim_options_free(struct sim_options *o)
{
	fleet_config_free(&o->fleet);
}

/* value among names[0..nr-1]; else "a, b or c" in list. */
static int parse_enum(const char *value, const char *const *names,
		      unsigned int nr, uint8_t *out, char *list, size_t len)
{
	unsigned int i;
	size_t used = 0;

	for (i = 0; i < nr; i++) {
		if (!strcmp(value, names[i])) {
			*out = (uint8_t)i;
			return 0;
		}
	}
	for (i = 0; i < nr; i++)
		used += snprintf(list + used, used < len ? len - used : 0, "%s%s",
				 i ? (i + 1 < nr ? ", " : " or ") : "", names[i]);
	return -1;
}

static int set_device(struct sim_options *o, const char *name,
		      const char *value, char *err, size_t errlen)
{
	/* The write path: one definition with fnblk-fleet's --bs and --qd. */
	const struct cli_option bs = FLEET_OPTION_BS(&o->io.bs, ""),
				qd = FLEET_OPTION_QD(&o->io.qd, "");
	const char *why = NULL;
	char names[64];

	if (!strcmp(name, "bw")) {
		if (fnblk_parse_rate(value, &o->dev.bw, &why))
			return fnblk_seterr(err, errlen, "%s", why);
	} else if (!strcmp(name, "fn")) {
		if (strlen(value) >= sizeof(o->fn_spec))
			return fnblk_seterr(err, errlen, "longer than %d characters",
					    FNBLK_FN_SPEC_LEN - 1);
		if (fnblk_fn_parse(value, &o->dev.fn, &why))
			return fnblk_seterr(err, errlen, "%s", why);
		snprintf(o->fn_spec, sizeof(o->fn_spec), "%s", value);
	} else if (!strcmp(name, "latency")) {
		if (fnblk_parse_duration(value, &o->dev.latency_ns, &why))
			return fnblk_seterr(err, errlen, "%s", why);
	} else if (!strcmp(name, "overhead")) {
		if (fnblk_parse_size(value, &o->dev.overhead, &why))
			return fnblk_seterr(err, errlen, "%s", why);
	} else if (!strcmp(name, "grace")) {
		if (fnblk_parse_duration(value, &o->dev.grace_ns, &why))
			return fnblk_seterr(err, errlen, "%s", why);
	} else if (!strcmp(name, "policy") || !strcmp(name, "users")) {
		bool policy = !strcmp(name, "policy");

		if (parse_enum(value, policy ? fnblk_policy_names :
			       fnblk_users_names,
			       policy ? __FNBLK_POLICY_MAX : __FNBLK_USERS_MAX,
			       policy ? &o->dev.policy : &o->dev.users,
			       names, sizeof(names)))
			return fnblk_seterr(err, errlen, "expected %s", names);
	} else if (!strcmp(name, "path-bw")) {
		if (!strcmp(value, "none"))
			o->io.path_bw = 0;
		else if (fnblk_parse_rate(value, &o->io.path_bw, &why))
			return fnblk_seterr(err, errlen, "%s", why);
		return 0;
	} else if (!strcmp(name, "path-iops")) {
		size_t len = strlen(value);
		char num[32];

		/* "200" or "200/s" */
		if (len > 2 && !strcmp(value + len - 2, "/s"))
			len -= 2;
		snprintf(num, sizeof(num), "%.*s", (int)len, value);
		if (!strcmp(value, "none"))
			o->io.path_iops = 0;
		else if (len >= sizeof(num) ||
			 fnblk_parse_uint(num, 0, UINT32_MAX, &o->io.path_iops,
					  &why))
			return fnblk_seterr(err, errlen, "%s",
					    why ? why : "too long");
		return 0;
	} else if (!strcmp(name, "completion")) {
		static const char *const kinds[] = { "own", "drain" };
		uint8_t k;

		if (parse_enum(value, kinds, 2, &k, names, sizeof(names)))
			return fnblk_seterr(err, errlen, "expected %s", names);
		o->io.drain = k;
		return 0;
	} else if (!strcmp(name, "bs")) {
		return cli_set_value(&bs, NULL, value, err, errlen);
	} else if (!strcmp(name, "qd")) {
		return cli_set_value(&qd, NULL, value, err, errlen);
	} else {
		return 1;
	}
	if (fnblk_params_check(&o->dev, &why))
		return fnblk_seterr(err, errlen, "%s", why);
	return 0;
}

int sim_options_set(struct sim_options *o, const char *name,
		    const char *value, char *err, size_t errlen)
{
	int ret = fleet_config_set(&o->fleet, name, value, err, errlen);

	if (ret <= 0)
		return ret;
	return set_device(o, name, value, err, errlen);
}

/* A size that parses back to the same bytes: "64MiB", else plain bytes. */
static const char *size_text(uint64_t v, char *buf, size_t len)
{
	const char *why;
	uint64_t back;

	fnblk_format_size(v, buf, len);
	if (fnblk_parse_size(buf, &back, &why) || back != v)
		snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

static const char *duration_text(uint64_t v, char *buf, size_t len)
{
	const char *why;
	uint64_t back;

	fnblk_format_duration(v, buf, len);
	if (fnblk_parse_duration(buf, &back, &why) || back != v)
		snprintf(buf, len, "%" PRIu64 "ns", v);
	return buf;
}

void sim_options_params(const struct sim_options *o,
			void (*emit)(void *arg, const char *name,
				     const char *value),
			void *arg)
{
	char buf[64];

	fleet_config_params(&o->fleet, emit, arg);
	if (o->dev.bw) {
		size_text(o->dev.bw, buf, sizeof(buf) - 2);
		strcat(buf, "/s");
	} else {
		snprintf(buf, sizeof(buf), "unlimited");
	}
	emit(arg, "bw", buf);
	emit(arg, "fn", o->fn_spec);
	emit(arg, "latency", duration_text(o->dev.latency_ns, buf, sizeof(buf)));
	emit(arg, "overhead", size_text(o->dev.overhead, buf, sizeof(buf)));
	emit(arg, "grace", duration_text(o->dev.grace_ns, buf, sizeof(buf)));
	emit(arg, "policy", fnblk_policy_names[o->dev.policy]);
	emit(arg, "users", fnblk_users_names[o->dev.users]);
	emit(arg, "bs", size_text(o->io.bs, buf, sizeof(buf)));
	snprintf(buf, sizeof(buf), "%u", o->io.qd);
	emit(arg, "qd", buf);
	/* Only a path that is there: a run without one reads as before. */
	if (o->io.path_bw) {
		size_text(o->io.path_bw, buf, sizeof(buf) - 2);
		strcat(buf, "/s");
		emit(arg, "path-bw", buf);
	}
	if (o->io.path_iops) {
		snprintf(buf, sizeof(buf), "%" PRIu64 "/s", o->io.path_iops);
		emit(arg, "path-iops", buf);
	}
	if (o->io.drain)
		emit(arg, "completion", "drain");
}

/* ---- the device and write-path options of every command ---- */

static int set_by_name(void *ctx, const struct cli_option *o, const char *arg,
		       char *err, size_t errlen)
{
	return sim_options_set(ctx, o->name, arg, err, errlen) ? -1 : 0;
}

struct lookup {
	const char *name;
	char *buf;
	size_t len;
};

static void lookup_param(void *arg, const char *name, const char *value)
{
	struct lookup *l = arg;

	if (!strcmp(name, l->name))
		snprintf(l->buf, l->len, "%s", value);
}

/* The current value, as an event file records it: the default --help shows. */
static const char *show_by_name(void *ctx, const struct cli_option *o,
				char *buf, size_t len)
{
	struct lookup l = { o->name, buf, len };

	buf[0] = '\0';
	sim_options_params(ctx, lookup_param, &l);
	return buf[0] ? buf : NULL;
}

#define SIM_OPTION(opt, placeholder, text) {				\
	.name = (opt), .arg = (placeholder), .type = CLI_CALL,		\
	.set = set_by_name, .show = show_by_name, .help = (text) }

const struct cli_option sim_device_cli_options[] = {
	SIM_OPTION("bw", "RATE", "the device's bandwidth B, shared by n "
		   "users as f(n)*B; unlimited (or 0) for none"),
	SIM_OPTION("fn", "SPEC", "f(n): constant, linear:K (min(n, K)), "
		   "power:A (n^A) or table:f1,f2,... (the last value holds "
		   "beyond)"),
	SIM_OPTION("latency", "DUR", "added to every request after its "
		   "share is served"),
	SIM_OPTION("overhead", "SIZE", "service demand added to every "
		   "request"),
	SIM_OPTION("grace", "DUR", "how long a user with nothing in flight "
		   "still counts in n, from its last completion"),
	SIM_OPTION("policy", "P", "anon (equal split), fifo (one request at "
		   "a time) or weighted"),
	SIM_OPTION("users", "U", "which requests count in n: all or writes"),
	{ .name = NULL },
};

const struct cli_option sim_io_cli_options[] = {
	SIM_OPTION("bs", "SIZE", "a checkpoint is written in requests of "
		   "SIZE; 0 = the whole checkpoint in one"),
	SIM_OPTION("qd", "N", "requests in flight per job; each completion "
		   "submits the next"),
	{ .name = NULL },
};

const struct cli_option sim_path_cli_options[] = {
	SIM_OPTION("path-bw", "RATE", "capacity of a path every job's "
		   "requests cross before the device, shared equally by the "
		   "requests in it (processor sharing): a request of b bytes "
		   "needs b/RATE of it alone; none (the default) for no path"),
	SIM_OPTION("path-iops", "N", "the path's capacity in requests per "
		   "second (N or N/s): each request also needs 1/N of it "
		   "alone; none (the default) for none"),
	SIM_OPTION("completion", "C", "own (the default): a request "
		   "completes when the device has served it; drain: only once "
		   "the device has no request left in flight, any job's "
		   "(nbd-server's sync export, where each write's fsync waits "
		   "for every page of the device under writeback)"),
	{ .name = NULL },
};

/* ---- the fleet's schedule as a workload ---- */

static uint64_t fw_start(void *ctx, unsigned int job)
{
	struct fleet_workload *fw = ctx;

	return fw->first_write ? fw->first_write[job] : fw->jobs[job].phase_ns;
}

static uint64_t fw_compute(void *ctx, unsigned int job, uint64_t cycle)
{
	struct fleet_workload *fw = ctx;

	if (fw->first_write && !cycle)
		return 0;
	if (fw->compute && cycle < fw->stride &&
	    fw->compute[job * fw->stride + cycle] != FLEET_WORKLOAD_SCHEDULED)
		return fw->compute[job * fw->stride + cycle];
	return fleet_cycle_compute_ns(fw->fleet, &fw->jobs[job], job, cycle);
}

static uint64_t fw_size(void *ctx, unsigned int job, uint64_t cycle)
{
	(void)cycle;
	return ((struct fleet_workload *)ctx)->jobs[job].size;
}

int fleet_workload_init(struct fleet_workload *fw,
			const struct fleet_config *fleet, char *err,
			size_t errlen)
{
	unsigned int j;

	memset(fw, 0, sizeof(*fw));
	fw->fleet = fleet;
	fw->jobs = calloc(fleet->jobs, sizeof(*fw->jobs));
	if (!fw->jobs)
		return fnblk_seterr(err, errlen, "out of memory for %u jobs",
			    fleet->jobs);
	if (fleet_plan(fleet, fw->jobs, err, errlen)) {
		fleet_workload_free(fw);
		return -1;
	}
	/* The fleet's direct path writes whole blocks: S rounds up as there. */
	for (j = 0; j < fleet->jobs; j++)
		fw->jobs[j].size = (fw->jobs[j].size + DIRECT_ALIGN - 1) /
				   DIRECT_ALIGN * DIRECT_ALIGN;
	return 0;
}

void fleet_workload_free(struct fleet_workload *fw)
{
	free(fw->jobs);
	free(fw->first_write);
	free(fw->compute);
	memset(fw, 0, sizeof(*fw));
}

void fleet_workload_fill(struct fleet_workload *fw, struct sim_workload *w)
{
	*w = (struct sim_workload){
		.jobs = fw->fleet->jobs,
		.cycles = fw->fleet->cycles,
		.duration_ns = fw->fleet->duration_ns,
		.power_cap = fw->fleet->power_cap,
		.ctx = fw,
		.start_ns = fw_start,
		.compute_ns = fw_compute,
		.size = fw_size,
	};
}
