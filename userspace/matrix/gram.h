/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compute of --pattern xtx: X^T X accumulated panel by panel. A
 * panel (b rows of every column) is packed as it is read, then its Gram
 * matrix is added to the thread's running sum (upper triangle): cols^2 b
 * / 2 multiply-adds per panel, so the pattern is bound by computation
 * rather than I/O. Elements are scaled to [0, 1) first.
 */
#ifndef MATRIX_GRAM_H
#define MATRIX_GRAM_H

#include <stdint.h>

struct mx_gram {
	uint64_t cols, block;
	double *panel;		/* block x cols, column-major */
	double *sum;		/* cols x cols, upper triangle used */
	uint64_t panels;
};

int mx_gram_init(struct mx_gram *g, uint64_t cols, uint64_t block);
/* n elements of column col, starting at row r of the panel. */
void mx_gram_pack(struct mx_gram *g, uint64_t col, uint64_t r,
		  const double *x, uint64_t n);
/* Add the packed panel's first rows rows. */
void mx_gram_add(struct mx_gram *g, uint64_t rows);
/* Sum of the diagonal: the squared norm of every element read. */
double mx_gram_trace(const struct mx_gram *g);
void mx_gram_free(struct mx_gram *g);

#endif /* MATRIX_GRAM_H */
