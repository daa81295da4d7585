/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replay itself: jobs arrive at their scaled creation times, are
 * assigned a site, wait in the site's FIFO queue for a slot, and run as
 * one process per attempt (job.h), forked ahead as a spare (spare.h); a
 * failed attempt is queued again after its backoff. The parent keeps the
 * queues and slots, collects each
 * attempt's rows from the pipe, and hands every finished job to the sink,
 * exactly as fnblk-sim replay does with the same records and settings.
 */
#ifndef FNBLK_REPLAY_RUN_H
#define FNBLK_REPLAY_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobrec.h"
#include "replay.h"
#include "replay_events.h"

struct run_site {
	char name[REPLAY_NAME_MAX];
	const char *path;	/* its device */
	unsigned int slots;
	double fail[REPLAY_NR_PHASES];	/* its own; negative: the config's */
	uint64_t size;		/* bytes of the device */
};

struct run_config {
	const struct replay_config *rc;
	enum replay_assign assign;
	const struct replay_locality *locality;	/* NULL: data everywhere */
	const struct run_site *sites;
	unsigned int nr_sites;
	uint64_t bs;
	unsigned int qd;
	bool buffered;		/* no O_DIRECT (a target that cannot) */
};

struct run_sink {
	void *ctx;
	replay_rows_fn rows;		/* a job's rows once it ended, or NULL */
	replay_result_fn result;	/* the job as the KPIs see it, or NULL */
};

struct run_stats {
	uint64_t attempts;
	uint64_t died;		/* attempts whose process ended unreported */
	uint64_t waited;	/* attempts whose process had not prepared */
	uint64_t end_ns;
	/* Of the attempts that reported their end (ended of them): */
	uint64_t ended;
	uint64_t notice_ns, notice_max_ns;	/* till the parent took it */
	uint64_t late_ns, late_max_ns;		/* not caught up by compute */
};

/*
 * Replay t (sorted by arrival first). Returns 0, or -1 with err (a bad
 * site, fork failing, a sink failing); an interrupted run (SIGINT, SIGTERM)
 * stops its jobs and returns -1.
 */
int run_replay(const struct run_config *cfg, struct jobrecs *t,
	       const struct run_sink *sink, struct run_stats *st, char *err,
	       size_t errlen);

#endif /* FNBLK_REPLAY_RUN_H */
