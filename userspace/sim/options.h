/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything a simulated run needs, set by long option name: the fleet's
 * schedule (userspace/lib/fleet.h, shared with fnblk-fleet), the device
 * (defaults as the module's: 100 MiB/s, constant f, 2 ms grace, anon) and
 * the write path (bs, qd). The same names are the "# param" lines of an
 * event file, so a run is re-created from its file by setting each line.
 */
#ifndef FNBLK_SIM_OPTIONS_H
#define FNBLK_SIM_OPTIONS_H

#include <stddef.h>

#include "engine.h"
#include "cli.h"
#include "fleet.h"

struct sim_options {
	struct fleet_config fleet;
	struct fnblk_params dev;
	char fn_spec[FNBLK_FN_SPEC_LEN];	/* as given: a table may not fit */
	struct sim_io io;
};

int sim_options_init(struct sim_options *o);
void sim_options_free(struct sim_options *o);

/*
 * Set option name to value. Returns 0 when set, -1 with err when the value
 * is bad, 1 when name is not a simulation option.
 */
int sim_options_set(struct sim_options *o, const char *name,
		    const char *value, char *err, size_t errlen);

/*
 * The device options (bw, fn, latency, overhead, grace, policy, users) and
 * the write path (bs, qd) as command-line options; their group's ctx is the
 * struct sim_options they set. The schedule is fleet_schedule_options.
 */
extern const struct cli_option sim_device_cli_options[];
extern const struct cli_option sim_io_cli_options[];
/* The shared path in front of the device (path-bw, path-iops): engine.h. */
extern const struct cli_option sim_path_cli_options[];

/* emit(arg, name, value) for every option, in canonical text. */
void sim_options_params(const struct sim_options *o,
			void (*emit)(void *arg, const char *name,
				     const char *value),
			void *arg);

/* The fleet's drawn schedule as a workload for sim_run(). */
struct fleet_workload {
	const struct fleet_config *fleet;
	struct fleet_job *jobs;
	uint64_t *first_write;	/* non-NULL: first write starts here, no compute */
	/*
	 * non-NULL: compute of (job, cycle) is compute[job * stride + cycle]
	 * where that is not FLEET_WORKLOAD_SCHEDULED and cycle < stride.
	 */
	uint64_t *compute;
	uint64_t stride;
};

#define FLEET_WORKLOAD_SCHEDULED	UINT64_MAX

int fleet_workload_init(struct fleet_workload *fw,
			const struct fleet_config *fleet, char *err,
			size_t errlen);
void fleet_workload_free(struct fleet_workload *fw);
void fleet_workload_fill(struct fleet_workload *fw, struct sim_workload *w);

#endif /* FNBLK_SIM_OPTIONS_H */
