/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fleet event files: one record per checkpoint write.
 *
 * Written by fnblk-fleet and fnblk-sim, read by fnblk-analyze. The text
 * format is normative in Documentation/events-format.rst; in short:
 *
 *   # fnblk-events v1
 *   # source=fleet
 *   # param jobs=16
 *   job,cycle,start_ns,end_ns,bytes
 *   0,0,123456789,223456789,67108864
 *
 * JSON lines carry the same data: an optional first object
 *   {"fnblk_events":1,"source":"fleet","params":{"jobs":"16",...}}
 * then one object per write
 *   {"job":0,"cycle":0,"start_ns":...,"end_ns":...,"bytes":...}
 *
 * Times are CLOCK_MONOTONIC ns for fnblk-fleet (the module's event clock)
 * and simulated ns from 0 for fnblk-sim.
 */
#ifndef FNBLK_EVENTS_H
#define FNBLK_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FNBLK_EVENTS_MAGIC	"# fnblk-events v1"
#define FNBLK_EVENTS_HEADER	"job,cycle,start_ns,end_ns,bytes"

/* One checkpoint write. */
struct fnblk_event {
	uint32_t job;
	uint32_t cycle;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t bytes;
};

struct fnblk_event_param {
	char *name;
	char *value;
};

/* A run in memory: where it came from, its parameters, its writes. */
struct fnblk_events {
	char *source;			/* "fleet", "sim", or NULL if unsaid */
	struct fnblk_event_param *params;
	size_t nr_params;
	struct fnblk_event *ev;
	size_t nr;
	size_t cap;
};

void fnblk_events_init(struct fnblk_events *e);
void fnblk_events_free(struct fnblk_events *e);

/* The setters copy their strings. They return 0, or -1 (errno ENOMEM). */
int fnblk_events_set_source(struct fnblk_events *e, const char *source);
/* Add a parameter, or replace the value of one with the same name. */
int fnblk_events_set_param(struct fnblk_events *e, const char *name,
			   const char *value);
/* Value of a parameter, or NULL. */
const char *fnblk_events_param(const struct fnblk_events *e, const char *name);
int fnblk_events_add(struct fnblk_events *e, const struct fnblk_event *ev);
/*
 * Every write belongs to one of jobs jobs (a count given on a command
 * line, which must not drop writes); else -1 with which job does not.
 */
int fnblk_events_check_jobs(const struct fnblk_events *e, uint64_t jobs,
			    char *err, size_t errlen);
/*
 * The number of jobs: the jobs param when it is a number from 1 to max,
 * else the largest job + 1 (0 for no writes).
 */
unsigned int fnblk_events_jobs(const struct fnblk_events *e, unsigned int max);
/* Order by start time (ties: job, then cycle). */
void fnblk_events_sort(struct fnblk_events *e);

/*
 * Read a CSV or JSON-lines event file (told apart by the first
 * non-blank character) and append to e. "-" reads standard input.
 * Returns 0, or -1 with a message "name:line: what went wrong" in err.
 */
int fnblk_events_read_file(const char *path, struct fnblk_events *e,
			   char *err, size_t errlen);
int fnblk_events_read_stream(FILE *f, const char *name,
			     struct fnblk_events *e, char *err, size_t errlen);

/*
 * Streaming writers: the header (magic, source, params; the CSV column
 * line) once, then a row per write. Return 0, or -1 if f reported an error.
 */
int fnblk_events_csv_header(FILE *f, const struct fnblk_events *e);
int fnblk_events_csv_row(FILE *f, const struct fnblk_event *ev);
int fnblk_events_jsonl_header(FILE *f, const struct fnblk_events *e);
int fnblk_events_jsonl_row(FILE *f, const struct fnblk_event *ev);

/*
 * The "# source=NAME" and "# param NAME=VALUE" lines, which other fnblk
 * text files (replay events) share: parse one comment line s (starting
 * with '#'; other comments are ignored) into e, or write e's. meta_line
 * returns 0, or -1 with *why.
 */
int fnblk_events_meta_line(struct fnblk_events *e, char *s, const char **why);
int fnblk_events_write_meta(FILE *f, const struct fnblk_events *e);

/* Whole-set writers: header and every row. */
int fnblk_events_write_csv(FILE *f, const struct fnblk_events *e);
int fnblk_events_write_jsonl(FILE *f, const struct fnblk_events *e);

#endif /* FNBLK_EVENTS_H */
