/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replay event files: what each replayed job did, written by fnblk-replay
 * and fnblk-sim replay, read by fnblk-analyze replay and fnblk-sim compare.
 * Documentation/replay.rst is normative; in short:
 *
 *   # fnblk-replay-events v1
 *   # source=sim
 *   # param time_scale=3600
 *   id,category,attempt,site,what,start_ns,end_ns,io_ns,bytes,remote_bytes,result
 *   7,user.data,1,BNL,queue,0,1200,0,0,0,ok
 *   7,user.data,1,BNL,payload,1200,9000,3000,409600,409600,ok
 *   7,user.data,1,BNL,stageout,9000,9800,800,8192,0,ok
 *   7,user.data,1,,job,0,9800,3800,409600,409600,ok
 *
 * A job's rows are together and end with its "job" row. Per attempt: a
 * "queue" row (queued until it got a slot) and a row per phase it began
 * (stagein, payload, stageout; result "error" ends the attempt). The job
 * row spans arrival to end; its attempt is the number of attempts, bytes
 * its replayed input bytes, result "ok" or "failed".
 */
#ifndef FNBLK_REPLAY_EVENTS_H
#define FNBLK_REPLAY_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "events.h"
#include "replay.h"

#define REPLAY_EVENTS_MAGIC	"# fnblk-replay-events v1"
#define REPLAY_EVENTS_HEADER \
	"id,category,attempt,site,what,start_ns,end_ns,io_ns,bytes,remote_bytes,result"
#define REPLAY_NAME_MAX		64

enum replay_what {
	REPLAY_WHAT_QUEUE,
	REPLAY_WHAT_STAGEIN,	/* = REPLAY_WHAT_QUEUE + 1 + REPLAY_STAGEIN */
	REPLAY_WHAT_PAYLOAD,
	REPLAY_WHAT_STAGEOUT,
	REPLAY_WHAT_JOB,
	REPLAY_NR_WHAT,
};

extern const char *const replay_what_names[REPLAY_NR_WHAT];

struct replay_row {
	uint64_t id;
	char category[REPLAY_NAME_MAX];
	uint32_t attempt;
	char site[REPLAY_NAME_MAX];
	uint8_t what;		/* enum replay_what */
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t io_ns;		/* time spent reading or writing */
	uint64_t bytes;
	uint64_t remote_bytes;
	bool ok;
};

/* One job as the KPIs see it, put together from its rows. */
struct replay_result {
	uint64_t id;
	const char *category;
	const char *site;	/* of its last attempt */
	uint64_t arrival_ns;
	uint64_t queue_ns;	/* every attempt's wait for a slot */
	uint64_t wall_ns;	/* its last attempt, slot to end */
	uint64_t io_ns;		/* of its last attempt */
	uint64_t end_ns;
	uint64_t in_bytes;
	uint64_t remote_bytes;	/* of its last attempt */
	uint32_t attempts;
	uint32_t failed_attempts;
	bool failed;
};

/*
 * Puts a job's rows back together into its replay_result: the one
 * definition of the KPIs' inputs, used by the reader and by the simulator.
 */
struct replay_builder {
	struct replay_result res;
	char category[REPLAY_NAME_MAX];
	char site[REPLAY_NAME_MAX];
	bool open;		/* rows of res seen, its job row not yet */
	uint64_t attempt_start;	/* of the last attempt: it got its slot */
	uint32_t attempt;	/* last attempt seen */
};

/*
 * Add row r (zero-initialise b first). Returns 1 when r completed a job
 * (b->res holds it until the next call), 0 when more rows are due, or -1
 * with what is inconsistent in msg.
 */
int replay_builder_add(struct replay_builder *b, const struct replay_row *r,
		       char *msg, size_t len);

/* Where a replay tool hands each finished job's rows. */
typedef int (*replay_rows_fn)(void *ctx, const struct replay_row *rows,
			      size_t nr);
typedef int (*replay_result_fn)(void *ctx, const struct replay_result *res);

/*
 * A job has ended; rows[nr - 1] is its job row (span, input bytes, result
 * set). Fill in that row's I/O time and remote bytes from the last
 * attempt, hand the rows to rows_fn, put them together with b and hand
 * the job to result_fn (either may be NULL). 0, or -1 with msg.
 */
int replay_job_done(struct replay_builder *b, struct replay_row *rows,
		    size_t nr, replay_rows_fn rows_fn, replay_result_fn result_fn,
		    void *ctx, char *msg, size_t len);

/* Header: magic, source, the params of p (may be NULL), the column line. */
int replay_events_header(FILE *f, const char *source,
			 const struct fnblk_events *p);
int replay_events_row(FILE *f, const struct replay_row *r);

/* (replay_result_fn: called for each job of a file; non-zero stops the reader.) */
/* Called for each row, once checked; non-zero stops the reader. */
typedef int (*replay_row_fn)(void *ctx, const struct replay_row *row);

/*
 * Read an event file ("-" = standard input): its params go into params
 * (may be NULL), each row to row_fn (may be NULL), each job to fn (may be
 * NULL) once its "job" row is read. Returns 0, or -1 with "name:line:
 * what" in err.
 */
int replay_events_read_file(const char *path, struct fnblk_events *params,
			    replay_result_fn fn, replay_row_fn row_fn,
			    void *ctx, char *err, size_t errlen);

#endif /* FNBLK_REPLAY_EVENTS_H */
