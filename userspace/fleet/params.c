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
	/* Engine and depth mean something on the queued (direct) path only. */
	if (ckpt_path_at(r->io.path)->queued) {
		fnblk_events_set_param(e, "engine",
				       ckpt_engine_name(r->io.engine));
		if (r->io.engine == CKPT_ENGINE_URING)
			add_param_u64(e, "qd", r->io.qd);
	}
	add_param_u64(e, "bs", r->io.bs);
	fnblk_events_set_param(e, "compute-mode", compute_mode_name(r->comp.mode));
	fnblk_events_set_param(e, "cgroup", r->cgroup ? r->cgroup : "");
	add_param_u64(e, "memory-max", r->memory_max);
	add_param_u64(e, "region", r->region);
	if (r->io.part_count) {
		snprintf(buf, sizeof(buf), "%u/%u", r->io.part_index,
			 r->io.part_count);
		fnblk_events_set_param(e, "part", buf);
		add_param_u64(e, "region_base", r->io.base);
	}
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
	fleet_device_params(&r->dev, add_param, e);
	for (j = 0; j < r->user.nr_params; j++)
		fnblk_events_set_param(e, r->user.params[j].name,
				       r->user.params[j].value);
}

