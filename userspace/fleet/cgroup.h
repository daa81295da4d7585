/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 for fleets: a fleet cgroup under /sys/fs/cgroup with one child
 * per job, so the module's key=cgroup and the page cache's writeback
 * attribution see each job as its own group.
 */
#ifndef FLEET_CGROUP_H
#define FLEET_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#define FLEET_CGROUP_ROOT	"/sys/fs/cgroup"

/*
 * Create ROOT/name and ROOT/name/job-NNNN for each job, enable memory and
 * io for them, set memory.max on each job's group (0 = leave it). 0, or
 * -1 with err.
 */
int fleet_cgroup_create(const char *name, unsigned int jobs,
			uint64_t memory_max, char *err, size_t errlen);
/* Move the calling process into job's group. */
int fleet_cgroup_enter(const char *name, unsigned int job, char *err,
		       size_t errlen);
/* Remove the job groups and the fleet group (once the jobs have exited). */
void fleet_cgroup_remove(const char *name, unsigned int jobs);

#endif /* FLEET_CGROUP_H */
