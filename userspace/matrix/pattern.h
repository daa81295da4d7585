/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Access patterns. An access is numbered k = 0, 1, 2, ... and is a list
 * of segments: runs of consecutive elements of one column. What access k
 * touches depends only on k, the pattern, its block and the seed, never
 * on which thread takes it, so a run with a given seed touches the same
 * elements with 1 or 64 threads.
 *
 *   cols   column-block sweep: access k reads columns [b*m, b*m + b),
 *          m = k mod (cols / b): whole columns, contiguous on disk
 *   rows   random rows gathered across all columns: b consecutive rows
 *          at a random row block, one short segment in every column
 *          (each in its own page when a column is 4 KiB or more)
 *   tiles  random b x c tiles (c = b unless given): c segments of b
 *          elements
 *   xtx    X^T X by row panels: access k packs panel m = k mod (rows / b)
 *          (b rows of every column) and adds its Gram matrix: compute-bound
 */
#ifndef MATRIX_PATTERN_H
#define MATRIX_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mx_pattern {
	MX_PATTERN_COLS,
	MX_PATTERN_ROWS,
	MX_PATTERN_TILES,
	MX_PATTERN_XTX,
	MX_NR_PATTERNS
};

/* Largest column count xtx takes: each thread holds a cols^2 matrix. */
#define MX_XTX_MAX_COLS		1024u

struct mx_segment {
	uint64_t col;
	uint64_t row;
	uint64_t n;
};

struct mx_shape {
	uint64_t rows, cols;
	enum mx_pattern pattern;
	uint64_t block;		/* columns (cols), rows (rows, xtx, tiles) */
	uint64_t seed;
	uint64_t block_cols;	/* tiles: columns of a tile; 0 = block */
};

const char *mx_pattern_name(enum mx_pattern p);
int mx_pattern_value(const char *name);
/* The pattern's block when --block is not given. */
uint64_t mx_pattern_default_block(enum mx_pattern p);
/* 0 if block fits the matrix, else -1 and why. */
int mx_pattern_check(const struct mx_shape *s, char *err, size_t errlen);
/* Accesses in one pass: each element once (the random ones: as many). */
uint64_t mx_pattern_pass(const struct mx_shape *s);
/* Elements access k touches. */
uint64_t mx_pattern_elements(const struct mx_shape *s, uint64_t k);

/*
 * Call fn for each segment of access k, in order (column by column, each
 * segment at most max_n elements); stop at and return fn's first non-zero.
 */
typedef int (*mx_segment_fn)(void *arg, const struct mx_segment *seg);
int mx_pattern_visit(const struct mx_shape *s, uint64_t k, uint64_t max_n,
		     mx_segment_fn fn, void *arg);

/*
 * Which elements access k updates, with --write-fraction f: between two
 * updates (and before the first) a geometric number of elements in visit
 * order is passed over, mean 1/f - 1 (none when f >= 1). Like the
 * elements, they depend on k and the seed only. The workers and the
 * replay of a run (bound.c) both walk them with this iterator.
 */
struct mx_updates {
	double f;
	uint64_t state;		/* random state of access k */
	uint64_t skip;		/* elements before the next update */
};

void mx_updates_start(struct mx_updates *u, const struct mx_shape *s,
		      uint64_t k, double f);
/* The next updated element of a segment of n elements in *e; false when
 * the segment has no more (the count carries over to the next one). */
bool mx_updates_next(struct mx_updates *u, uint64_t n, uint64_t *e);

#endif /* MATRIX_PATTERN_H */
