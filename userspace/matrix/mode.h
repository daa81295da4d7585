/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Access modes: how fnblk-matrix reaches the elements of a matrix. Each
 * mode is one struct mx_mode of operations; modes.c lists them, and
 * "--mode NAME" picks one. The workload (patterns, verification, writes,
 * timing, reports) never knows which mode it runs on.
 *
 * How a mode plugs in (a new runtime, e.g. a user-space mapping library):
 *
 *  1. Write mode_NAME.c defining "const struct mx_mode mx_mode_NAME" with
 *     the operations below, and add &mx_mode_NAME to the table in modes.c
 *     (and the file to the Makefile). Nothing else in the tool changes.
 *  2. The workload reads and writes through get()/put(): get() returns a
 *     pointer to the bytes [off, off + len) of the matrix data (offset 0
 *     is element (0, 0)); the bytes stay valid until the matching put().
 *     put() says whether they were changed; a mode that buffers writes it
 *     back then or at the next sync(). One thread never holds two ranges.
 *  3. Options: flags say which generic options the mode honours (--bs,
 *     --advise); "options" lists the mode's own, which "run" accepts as
 *     --NAME [ARG] and hands to option() once, in the parent, right after
 *     the command line is read (an error there is a usage error); every
 *     job inherits the result in r->conf. --help and fnblk-matrix(1) list
 *     them in a group of their own; giving one with another mode is an
 *     error the tool reports. Names must not clash with run's options.
 *  4. Life cycle, in each job process (after it entered its cgroup):
 *     open() -> thread_init() in every worker thread ->
 *     get()/put()/sync() -> thread_exit() -> describe(), stats() ->
 *     close(). Errors fill err and return -1; the job then stops and the
 *     report carries the message.
 *  5. Reports: describe() adds the settings that shape the mode's I/O
 *     (e.g. readahead, request size) and stats() the mode's own counters
 *     to JSON objects the report prints and embeds.
 *  6. open, get, sync and close are required; every other operation may
 *     be NULL (nothing to do).
 *
 * The matrix file is already open (tgt->fd, read-write when the run
 * writes); a mode may open it again with its own flags (tgt->path).
 */
#ifndef MATRIX_MODE_H
#define MATRIX_MODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* The generic options a mode honours. */
#define MX_MODE_BS	(1u << 0)	/* --bs: bytes per I/O request */
#define MX_MODE_ADVISE	(1u << 1)	/* --advise: access-pattern hint */

enum mx_advise {
	MX_ADVISE_NORMAL,
	MX_ADVISE_RANDOM,
	MX_ADVISE_SEQUENTIAL,
	MX_NR_ADVISE
};

/* One matrix as a job opened it. */
struct mx_target {
	const char *path;
	int fd;			/* O_RDWR if writes, else O_RDONLY; no O_DIRECT */
	uint64_t data_offset;	/* file offset of element (0, 0) */
	uint64_t data_bytes;	/* rows * cols * 8 */
	uint64_t span;		/* bytes from data_offset to the next 1 MiB
				   boundary past the data: readable padding */
	bool blockdev;
	bool writes;		/* the run updates elements */
};

/* The generic settings, as the command line set them. */
struct mx_settings {
	uint64_t bs;		/* MX_MODE_BS: 0 = the mode's default */
	enum mx_advise advise;	/* MX_MODE_ADVISE */
	unsigned int threads;
};

struct mx_mode;

/* A mode's instance in one job. */
struct mx_mode_run {
	const struct mx_mode *mode;
	const struct mx_target *tgt;
	const struct mx_settings *set;
	void *conf;		/* the mode's own options (option()) */
	void *priv;		/* the mode's state from open() to close() */
};

/* A worker thread's view of the mode. */
struct mx_mode_thread {
	struct mx_mode_run *run;
	unsigned int id;	/* 0 .. threads - 1 */
	void *priv;
};

/* One of a mode's own options. */
struct mx_mode_option {
	const char *name;	/* --name */
	const char *arg;	/* argument's name in --help; NULL: none */
	const char *help;
	const char *dflt;	/* the default as --help shows it */
};

/* get() flags */
#define MX_GET_WRITE	(1u << 0)	/* the caller may change the bytes */

struct mx_mode {
	const char *name;
	const char *summary;		/* one line for --help */
	unsigned int flags;		/* MX_MODE_* */
	const struct mx_mode_option *options;	/* NULL-terminated, or NULL */

	int (*option)(struct mx_mode_run *r, const char *name,
		      const char *arg, char *err, size_t errlen);
	int (*open)(struct mx_mode_run *r, char *err, size_t errlen);
	int (*thread_init)(struct mx_mode_thread *t, char *err, size_t errlen);
	int (*get)(struct mx_mode_thread *t, uint64_t off, size_t len,
		   unsigned int flags, void **p, char *err, size_t errlen);
	int (*put)(struct mx_mode_thread *t, uint64_t off, size_t len,
		   bool dirty, char *err, size_t errlen);
	/* Make every update so far durable (msync, fsync...). */
	int (*sync)(struct mx_mode_thread *t, char *err, size_t errlen);
	void (*thread_exit)(struct mx_mode_thread *t);
	/* Optional: settings and counters for the report. */
	void (*describe)(struct mx_mode_run *r, json_t *settings);
	void (*stats)(struct mx_mode_run *r, json_t *counters);
	void (*close)(struct mx_mode_run *r);
};

/* modes.c: the table, NULL-terminated. */
extern const struct mx_mode *const mx_modes[];
const struct mx_mode *mx_mode_find(const char *name);
/* The mode whose own option this is, or NULL. */
const struct mx_mode *mx_mode_owning(const char *option);
const char *mx_advise_name(enum mx_advise a);
int mx_advise_value(const char *name);

#endif /* MATRIX_MODE_H */
