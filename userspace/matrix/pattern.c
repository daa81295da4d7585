// SPDX-License-Identifier: GPL-2.0
/* Access patterns (see pattern.h). */
#include <math.h>
#include <inttypes.h>
#include <string.h>

#include "../lib/diag.h"
#include "layout.h"
#include "pattern.h"

static const char *const names[MX_NR_PATTERNS] = {
	[MX_PATTERN_COLS] = "cols",
	[MX_PATTERN_ROWS] = "rows",
	[MX_PATTERN_TILES] = "tiles",
	[MX_PATTERN_XTX] = "xtx",
};

static const uint64_t default_block[MX_NR_PATTERNS] = {
	[MX_PATTERN_COLS] = 1,
	[MX_PATTERN_ROWS] = 1,
	[MX_PATTERN_TILES] = 64,
	[MX_PATTERN_XTX] = 64,
};

const char *mx_pattern_name(enum mx_pattern p)
{
	return (unsigned int)p < MX_NR_PATTERNS ? names[p] : "?";
}

int mx_pattern_value(const char *name)
{
	for (unsigned int i = 0; i < MX_NR_PATTERNS; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

uint64_t mx_pattern_default_block(enum mx_pattern p)
{
	return default_block[p];
}

static uint64_t blocks(uint64_t n, uint64_t b)
{
	return (n + b - 1) / b;
}

/* Columns of a tile. */
static uint64_t tile_cols(const struct mx_shape *s)
{
	return s->block_cols ? s->block_cols : s->block;
}

int mx_pattern_check(const struct mx_shape *s, char *err, size_t errlen)
{
	uint64_t limit = s->pattern == MX_PATTERN_COLS ? s->cols : s->rows;
	const char *what = s->pattern == MX_PATTERN_COLS ? "columns" : "rows";

	if (!s->block || s->block > limit)
		return fnblk_seterr(err, errlen,
				    "--block %" PRIu64 ": must be 1..%" PRIu64 " (%s of the matrix) for --pattern %s",
				    s->block, limit, what, names[s->pattern]);
	if (s->block_cols && s->pattern != MX_PATTERN_TILES)
		return fnblk_seterr(err, errlen, "--block RxC: only tiles have two sides");
	if (s->pattern == MX_PATTERN_TILES && tile_cols(s) > s->cols)
		return fnblk_seterr(err, errlen,
				    "--block: a tile of %" PRIu64 " columns, the matrix has %" PRIu64,
				    tile_cols(s), s->cols);
	if (s->pattern == MX_PATTERN_XTX && s->cols > MX_XTX_MAX_COLS)
		return fnblk_seterr(err, errlen,
				    "--pattern xtx takes at most %u columns (each thread keeps a cols x cols sum); this matrix has %" PRIu64,
				    MX_XTX_MAX_COLS, s->cols);
	return 0;
}

uint64_t mx_pattern_pass(const struct mx_shape *s)
{
	switch (s->pattern) {
	case MX_PATTERN_COLS:
		return blocks(s->cols, s->block);
	case MX_PATTERN_TILES:
		return blocks(s->rows, s->block) * blocks(s->cols, tile_cols(s));
	case MX_PATTERN_ROWS:
	case MX_PATTERN_XTX:
	default:
		return blocks(s->rows, s->block);
	}
}

static uint64_t pick(const struct mx_shape *s, uint64_t k, uint64_t n)
{
	return mx_mix(mx_mix(s->seed ^ 0x5a17c0de) ^ k) % n;
}

/* The rectangle [r0, r0 + nr) x [c0, c0 + nc) that access k touches. */
static void rect(const struct mx_shape *s, uint64_t k, uint64_t *r0,
		 uint64_t *nr, uint64_t *c0, uint64_t *nc)
{
	uint64_t b = s->block, m;

	switch (s->pattern) {
	case MX_PATTERN_COLS:
		m = k % blocks(s->cols, b);
		*r0 = 0;
		*nr = s->rows;
		*c0 = m * b;
		*nc = s->cols - *c0 < b ? s->cols - *c0 : b;
		return;
	case MX_PATTERN_TILES:
		m = pick(s, k, blocks(s->rows, b) * blocks(s->cols, tile_cols(s)));
		*r0 = m % blocks(s->rows, b) * b;
		*c0 = m / blocks(s->rows, b) * tile_cols(s);
		*nr = s->rows - *r0 < b ? s->rows - *r0 : b;
		*nc = s->cols - *c0 < tile_cols(s) ? s->cols - *c0 : tile_cols(s);
		return;
	case MX_PATTERN_ROWS:
	case MX_PATTERN_XTX:
	default:
		m = s->pattern == MX_PATTERN_ROWS ? pick(s, k, blocks(s->rows, b)) :
		    k % blocks(s->rows, b);
		*r0 = m * b;
		*nr = s->rows - *r0 < b ? s->rows - *r0 : b;
		*c0 = 0;
		*nc = s->cols;
		return;
	}
}

uint64_t mx_pattern_elements(const struct mx_shape *s, uint64_t k)
{
	uint64_t r0, nr, c0, nc;

	rect(s, k, &r0, &nr, &c0, &nc);
	return nr * nc;
}

int mx_pattern_visit(const struct mx_shape *s, uint64_t k, uint64_t max_n,
		     mx_segment_fn fn, void *arg)
{
	uint64_t r0, nr, c0, nc;
	int ret;

	rect(s, k, &r0, &nr, &c0, &nc);
	for (uint64_t c = c0; c < c0 + nc; c++) {
		for (uint64_t r = r0; r < r0 + nr; r += max_n) {
			struct mx_segment seg = {
				.col = c, .row = r,
				.n = r0 + nr - r < max_n ? r0 + nr - r : max_n,
			};

			ret = fn(arg, &seg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Elements to pass over before the next update. */
static uint64_t update_gap(struct mx_updates *u)
{
	double r;

	if (u->f >= 1.0)
		return 0;
	u->state += 0x9e3779b97f4a7c15ULL;
	r = (double)(mx_mix(u->state) >> 11) * 0x1.0p-53;	/* [0, 1) */
	return (uint64_t)floor(log1p(-r) / log1p(-u->f));
}

void mx_updates_start(struct mx_updates *u, const struct mx_shape *s,
		      uint64_t k, double f)
{
	u->f = f;
	u->state = mx_mix(s->seed ^ 0xc0ffee ^ mx_mix(k));
	u->skip = f > 0 ? update_gap(u) : 0;
}

bool mx_updates_next(struct mx_updates *u, uint64_t n, uint64_t *e)
{
	if (u->f <= 0)
		return false;
	if (u->skip >= n) {
		u->skip -= n;
		return false;
	}
	*e = u->skip;
	u->skip += 1 + update_gap(u);
	return true;
}
