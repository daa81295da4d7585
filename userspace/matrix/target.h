/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Matrix sets on disk: one matrix per job, either files in a directory
 * (DIR/matrix-NNNN.fbm) or matrices one after the other on a block
 * device or in a regular file, each starting on a 1 MiB boundary
 * (layout.h). Creating them, finding member k, bumping a member's
 * version, and dropping a member's cached pages.
 */
#ifndef MATRIX_TARGET_H
#define MATRIX_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"

enum mx_set_kind {
	MX_SET_DIR,
	MX_SET_FILE,
	MX_SET_BLOCKDEV,
};

struct mx_set {
	char path[PATH_MAX];
	enum mx_set_kind kind;
	struct mx_header first;	/* header of matrix 0 */
};

/* Matrix job of a set. */
struct mx_member {
	char path[PATH_MAX];
	uint64_t offset;	/* of its header */
	bool blockdev;
	struct mx_header h;
};

struct mx_create_opts {
	uint64_t rows;
	uint64_t cols;
	uint64_t seed;
	unsigned int jobs;
	bool progress;		/* a progress line on stderr */
};

const char *mx_set_kind_name(enum mx_set_kind k);

/* Write a whole set; every byte is synced and dropped from the cache. */
int mx_create(const char *path, const struct mx_create_opts *o,
	      char *err, size_t errlen);

/* Open a set: read and check the header of matrix 0. */
int mx_set_open(const char *path, struct mx_set *s, char *err,
		size_t errlen);
/* Locate matrix job (its header read and checked). */
int mx_set_member(const struct mx_set *s, unsigned int job,
		  struct mx_member *m, char *err, size_t errlen);
/* Matrices the set holds (directory: files present in sequence). */
unsigned int mx_set_count(const struct mx_set *s);

/* Write m->h back (sealed) and make it durable. */
int mx_member_write_header(struct mx_member *m, char *err, size_t errlen);
/*
 * Write back and evict the member's cached pages, so a run starts with
 * none of its data in memory (a device's or file system's readahead
 * state is left alone).
 */
int mx_member_drop_cache(const struct mx_member *m, char *err,
			 size_t errlen);
/* Bytes from the member's data start to its stride's end. */
uint64_t mx_member_span(const struct mx_member *m);

#endif /* MATRIX_TARGET_H */
