/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 groups for jobs, shared by fnblk-fleet and fnblk-matrix: a
 * parent group /sys/fs/cgroup/NAME with one child per job (job-NNNN), an
 * optional memory.max on the parent and on each job, and what a run
 * needs to read back: memory.current/peak, memory.stat and memory.events,
 * pressure (PSI), and how a job ended. A set is removed whole, killing
 * whatever still runs in it, so an interrupted tool leaves nothing.
 */
#ifndef FNBLK_CGROUP_H
#define FNBLK_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FNBLK_CGROUP_ROOT	"/sys/fs/cgroup"

struct fnblk_cgroup_set {
	char dir[256];		/* FNBLK_CGROUP_ROOT/name */
	unsigned int jobs;
	bool made;		/* the parent group was made by us */
};

/* 0 if cgroup v2 with the memory controller is usable here, else why. */
int fnblk_cgroup_available(char *why, size_t len);

/*
 * Make NAME and NAME/job-0000 .. job-(jobs-1), memory (and io, when
 * available) enabled for them; memory.max on the parent and on each job
 * where non-zero. An existing group of that name is reused only if no
 * process is in it. 0, or -1 with err (nothing left behind).
 */
int fnblk_cgroup_create(struct fnblk_cgroup_set *s, const char *name,
			unsigned int jobs, uint64_t parent_max,
			uint64_t job_max, char *err, size_t errlen);
/* The directory of job's group. */
void fnblk_cgroup_job_dir(const struct fnblk_cgroup_set *s, unsigned int job,
			  char *out, size_t len);
/* Move the calling process into job's group. */
int fnblk_cgroup_enter(const struct fnblk_cgroup_set *s, unsigned int job,
		       char *err, size_t errlen);
/*
 * Kill every process left in the set (cgroup.kill where the kernel has
 * it), wait until the groups are empty and remove them. Safe to call on
 * a set that was never made or is already gone. 0, or -1 if a group
 * could not be removed (it is named on stderr).
 */
int fnblk_cgroup_remove(struct fnblk_cgroup_set *s);

/* A single-number file ("max" reads as UINT64_MAX). */
int fnblk_cgroup_read_u64(const char *dir, const char *file, uint64_t *v);
/*
 * A flat-keyed file (memory.stat, memory.events): vals[i] gets the value
 * of keys[i] (left alone when absent). The number of keys found, or -1.
 */
int fnblk_cgroup_read_keyed(const char *dir, const char *file,
			    const char *const *keys, uint64_t *vals,
			    unsigned int n);

struct fnblk_memory_events {
	uint64_t low, high, max, oom, oom_kill, oom_group_kill;
};
int fnblk_cgroup_memory_events(const char *dir,
			       struct fnblk_memory_events *e);

/* Pressure stall totals (us) of io.pressure or memory.pressure. */
struct fnblk_pressure {
	uint64_t some_us;
	uint64_t full_us;
};
int fnblk_cgroup_pressure(const char *dir, const char *resource,
			  struct fnblk_pressure *p);

/*
 * How a job ended, in words: "exited 0", "exit status 3", "killed by
 * signal 15 (Terminated)" or, when it died of SIGKILL while its group's
 * oom_kill count rose, "killed by the OOM killer (SIGKILL; memory.events:
 * oom 1, oom_kill 1)". *oom says whether it was the OOM killer.
 */
const char *fnblk_describe_exit(int status,
				const struct fnblk_memory_events *before,
				const struct fnblk_memory_events *after,
				bool *oom, char *buf, size_t len);

#endif /* FNBLK_CGROUP_H */
