/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replay simulator: job records run at sites, each site one simulated
 * fnblk device (the module's scheduler core) with a number of job slots.
 * It does what fnblk-replay does on real devices (userspace/lib/replay.h
 * says what a record becomes): jobs arrive at their scaled creation times,
 * are assigned a site, wait in the site's FIFO queue for a slot, then run
 * their plan of reads, computes and writes; a failed phase ends the
 * attempt, and the job is queued again after a backoff until its attempts
 * are used up. Every running job is its own user of its site's device, as
 * each job process is one user (key tgid) in the emulation.
 */
#ifndef FNBLK_REPLAY_ENGINE_H
#define FNBLK_REPLAY_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "module/fnblk_sched.h"
#include "jobrec.h"
#include "replay.h"
#include "replay_events.h"

struct replay_site {
	char name[REPLAY_NAME_MAX];
	struct fnblk_params dev;
	unsigned int slots;		/* >= 1 */
	double fail[REPLAY_NR_PHASES];	/* its own; negative: the config's */
};

struct replay_sim {
	const struct replay_config *rc;
	const struct replay_site *sites;
	unsigned int nr_sites;
	enum replay_assign assign;
	const struct replay_locality *locality;	/* NULL: data everywhere */
	uint64_t bs;			/* request size, a multiple of 4 KiB */
	unsigned int qd;		/* requests in flight per job, >= 1 */
};

struct replay_sim_sink {
	void *ctx;
	replay_rows_fn rows;		/* a job's rows once it ended, or NULL */
	replay_result_fn result;	/* the job as the KPIs see it, or NULL */
};

struct replay_sim_stats {
	uint64_t events;		/* arrivals, computes, completions */
	uint64_t requests;
	uint64_t end_ns;
};

/*
 * Replay every record of t (sorted by arrival first). Returns 0, or -1 with
 * a message in err (a record's site not among the sites, a bad setting,
 * out of memory, a sink that failed).
 */
int replay_sim_run(const struct replay_sim *sim, struct jobrecs *t,
		   const struct replay_sim_sink *sink,
		   struct replay_sim_stats *stats, char *err, size_t errlen);

#endif /* FNBLK_REPLAY_ENGINE_H */
