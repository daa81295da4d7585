// SPDX-License-Identifier: GPL-2.0
/* The "# param" lines of a fleet run (see params.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../lib/units.h"
#include "params.h"

#define DEV_PARAMS_DIR "/sys/module/fnblk/parameters"

static void add_param(void *arg, const char *name, const char *value)
{
	fnblk_events_set_param(arg, name, value);
}

static void add_param_u64(struct fnblk_events *e, const char *name, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	fnblk_events_set_param(e, name, buf);
}

/* A module parameter's value, or NULL. */
static const char *module_param(const char *name, char *buf, size_t len)
{
	char path[256];
	FILE *f;
	const char *ret = NULL;

	snprintf(path, sizeof(path), "%s/%s", DEV_PARAMS_DIR, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	if (fgets(buf, len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = buf;
	}
	fclose(f);
	return ret;
}

/*
 * The module's load-time device settings, in the names and units
 * fnblk-sim takes (bw, fn, latency, ...), so "fnblk-sim compare" can
 * replay the run. They describe the device only when it was made at load
 * time: a device made or changed over netlink needs --param.
 */
static void add_device_params(struct fnblk_events *e)
{
	static const struct {
		const char *module, *name, *fmt;
	} map[] = {
		{ "bw_mbps", "bw", "%sMiB/s" },
		{ "fn", "fn", "%s" },
		{ "latency_us", "latency", "%sus" },
		{ "overhead_kb", "overhead", "%sKiB" },
		{ "grace_us", "grace", "%sus" },
		{ "policy", "policy", "%s" },
		{ "users", "users", "%s" },
		{ "key", "key", "%s" },
		{ "store", "store", "%s" },
	};
	char val[FNBLK_UNIT_BUFLEN * 8], text[sizeof(val) + 16];
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (!module_param(map[i].module, val, sizeof(val)))
			continue;
		if (!strcmp(map[i].module, "bw_mbps") && !strcmp(val, "0"))
			snprintf(text, sizeof(text), "unlimited");
		else
			snprintf(text, sizeof(text), map[i].fmt, val);
		fnblk_events_set_param(e, map[i].name, text);
	}
}

void record_params(struct fleet_run *r)
{
	struct fnblk_events *e = &r->ev;
	char buf[128], name[64];
	unsigned int j;

	fnblk_events_set_source(e, "fleet");
	fleet_config_params(&r->cfg, add_param, e);
	fnblk_events_set_param(e, "target", r->io.dir ? "" : r->io.target);
	fnblk_events_set_param(e, "dir", r->io.dir ? r->io.dir : "");
	fnblk_events_set_param(e, "rotate", r->io.rotate ? "1" : "0");
	fnblk_events_set_param(e, "path", ckpt_path_name(r->io.path));
	fnblk_events_set_param(e, "engine", ckpt_engine_name(r->io.engine));
	add_param_u64(e, "qd", r->io.qd);
	add_param_u64(e, "bs", r->io.bs);
	fnblk_events_set_param(e, "compute-mode", compute_mode_name(r->comp.mode));
	fnblk_events_set_param(e, "cgroup", r->cgroup ? r->cgroup : "");
	add_param_u64(e, "memory-max", r->memory_max);
	add_param_u64(e, "region", r->region);
	add_param_u64(e, "start_ns", r->t0);
	for (j = 0; j < r->cfg.jobs; j++) {
		snprintf(name, sizeof(name), "plan.%u", j);
		snprintf(buf, sizeof(buf), "phase_ns=%" PRIu64 ";compute_ns=%"
			 PRIu64 ";size=%" PRIu64, r->plan[j].phase_ns,
			 r->plan[j].compute_ns, r->plan[j].size);
		fnblk_events_set_param(e, name, buf);
		if (r->solo_ns[j] > 0) {
			snprintf(name, sizeof(name), "solo_ns.%u", j);
			add_param_u64(e, name, (uint64_t)r->solo_ns[j]);
		}
	}
	if (!r->io.dir && !strncmp(r->io.target, "/dev/fnblk", 10))
		add_device_params(e);
	for (j = 0; j < r->user.nr_params; j++)
		fnblk_events_set_param(e, r->user.params[j].name,
				       r->user.params[j].value);
}

