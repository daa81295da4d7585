// SPDX-License-Identifier: GPL-2.0
/* X^T X by panels (see gram.h). */
#include <stdlib.h>
#include <string.h>

#include "gram.h"

#define SCALE	0x1.0p-52	/* element values are below 2^52 */

int mx_gram_init(struct mx_gram *g, uint64_t cols, uint64_t block)
{
	memset(g, 0, sizeof(*g));
	g->cols = cols;
	g->block = block;
	g->panel = calloc(cols * block, sizeof(double));
	g->sum = calloc(cols * cols, sizeof(double));
	if (!g->panel || !g->sum) {
		mx_gram_free(g);
		return -1;
	}
	return 0;
}

void mx_gram_pack(struct mx_gram *g, uint64_t col, uint64_t r,
		  const double *x, uint64_t n)
{
	double *dst = g->panel + col * g->block + r;

	for (uint64_t k = 0; k < n; k++)
		dst[k] = x[k] * SCALE;
}

void mx_gram_add(struct mx_gram *g, uint64_t rows)
{
	for (uint64_t a = 0; a < g->cols; a++) {
		const double *pa = g->panel + a * g->block;

		for (uint64_t b = a; b < g->cols; b++) {
			const double *pb = g->panel + b * g->block;
			double dot = 0;

			for (uint64_t r = 0; r < rows; r++)
				dot += pa[r] * pb[r];
			g->sum[a * g->cols + b] += dot;
		}
	}
	g->panels++;
}

double mx_gram_trace(const struct mx_gram *g)
{
	double t = 0;

	for (uint64_t a = 0; a < g->cols; a++)
		t += g->sum[a * g->cols + a];
	return t;
}

void mx_gram_free(struct mx_gram *g)
{
	free(g->panel);
	free(g->sum);
	g->panel = g->sum = NULL;
}
