/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Job records: what a workload system knows about each job it ran, read
 * from CSV with named columns (PanDA's names). Documentation/replay.rst is
 * the normative description; in short:
 *
 *   pandaid,creationtime,computingsite,cpuconsumptiontime,corecount,...
 *   6486070333,2025-01-20 18:10:40,BNL,172,1,...
 *
 * Columns are found by name in the header; unknown columns are ignored, a
 * missing required one is refused, and every bad value is refused with its
 * line, column number and column name. fnblk-replay runs the records
 * against fnblk devices, fnblk-sim replay predicts the same run.
 */
#ifndef FNBLK_JOBREC_H
#define FNBLK_JOBREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* How a job reads its input (PanDA's transfertype). */
enum jobrec_stagein {
	JOBREC_STAGEIN_UNSAID,	/* empty: the replay's default decides */
	JOBREC_STAGEIN_DIRECT,	/* remote reads during the payload */
	JOBREC_STAGEIN_COPY,	/* read everything to scratch first */
};

/* The components whose error codes a record carries, in column order. */
enum jobrec_component {
	JOBREC_ERR_PILOT,
	JOBREC_ERR_EXE,
	JOBREC_ERR_DDM,
	JOBREC_ERR_DISPATCHER,
	JOBREC_ERR_TASKBUFFER,
	JOBREC_NR_COMPONENTS,
};

#define JOBREC_NO_TIME	INT64_MIN

struct jobrec {
	uint64_t id;			/* pandaid */
	int64_t created_s;		/* creationtime, s since the epoch (UTC) */
	int64_t started_s;		/* starttime, or JOBREC_NO_TIME */
	int64_t ended_s;		/* endtime, or JOBREC_NO_TIME */
	char *site;			/* computingsite */
	char *name;			/* jobname, "" if absent */
	char *category;			/* see jobrec_category() */
	double cpu_s;			/* cpuconsumptiontime, CPU seconds */
	uint32_t cores;			/* corecount, >= 1 */
	uint64_t in_bytes;		/* inputfilebytes (empty = 0) */
	uint64_t out_bytes;		/* outputfilebytes (empty = 0) */
	uint32_t in_files;		/* ninputdatafiles (empty = 0) */
	uint32_t out_files;		/* noutputdatafiles (empty = 0) */
	enum jobrec_stagein stagein;	/* transfertype */
	bool failed;			/* jobstatus failed, or an error code */
	int64_t error[JOBREC_NR_COMPONENTS];	/* 0 = none or absent */
};

struct jobrecs {
	struct jobrec *r;
	size_t nr;
	size_t cap;
	int64_t first_created_s;	/* earliest creationtime */
};

void jobrecs_init(struct jobrecs *t);
void jobrecs_free(struct jobrecs *t);

/*
 * Read a record file ("-" = standard input) and append its records.
 * Returns 0, or -1 with "name:line:column (colname): what" in err.
 */
int jobrecs_read_file(const char *path, struct jobrecs *t, char *err,
		      size_t errlen);
int jobrecs_read_stream(FILE *f, const char *name, struct jobrecs *t,
			char *err, size_t errlen);

/*
 * Sort by creation time (ties: id), the order in which jobs arrive.
 */
void jobrecs_sort(struct jobrecs *t);

/*
 * The category of a job, from its name and submitting group (used when the
 * file has no "category" column): "<group>.<kind>", where group is the
 * name's first dot-separated word when it is "user" or "group" and "prod"
 * otherwise, and kind is "data" or "mc" by the first word after the owner
 * that starts so ("data18_13TeV", "mc23_13p6TeV", or a six-digit dataset
 * number for mc), else "other". Writes into buf (size len), returns buf.
 */
const char *jobrec_category(const char *jobname, char *buf, size_t len);

/* Column names, as the writer of synthetic traces spells them. */
extern const char *const jobrec_component_columns[JOBREC_NR_COMPONENTS];

/*
 * Write records in the same format (every column this reader knows), so a
 * generated trace reads back exactly. Returns 0, or -1 on a write error.
 */
int jobrecs_write_csv(FILE *f, const struct jobrecs *t);

#endif /* FNBLK_JOBREC_H */
