// SPDX-License-Identifier: GPL-2.0
/* Host tests of the access patterns. */
#include <stdlib.h>
#include <string.h>

#include "pattern.h"
#include "tap.h"

#define R	37
#define C	23

static unsigned int seen[C][R];
static uint64_t segments, longest;

static int mark(void *arg, const struct mx_segment *s)
{
	(void)arg;
	segments++;
	if (s->n > longest)
		longest = s->n;
	if (s->col >= C || s->row + s->n > R || !s->n)
		return -1;
	for (uint64_t r = s->row; r < s->row + s->n; r++)
		seen[s->col][r]++;
	return 0;
}

static bool each_once(void)
{
	for (unsigned int c = 0; c < C; c++)
		for (unsigned int r = 0; r < R; r++)
			if (seen[c][r] != 1)
				return false;
	return true;
}

/* One pass of a sweep touches every element exactly once. */
static void sweep(enum mx_pattern p, uint64_t block)
{
	struct mx_shape s = { R, C, p, block, 1, 0 };
	uint64_t n = mx_pattern_pass(&s), elems = 0;
	int bad = 0;

	memset(seen, 0, sizeof(seen));
	for (uint64_t k = 0; k < n; k++) {
		bad |= mx_pattern_visit(&s, k, 5, mark, NULL);
		elems += mx_pattern_elements(&s, k);
	}
	ok(!bad && each_once() && elems == (uint64_t)R * C,
	   "%s block %llu: one pass (%llu accesses) touches every element once",
	   mx_pattern_name(p), (unsigned long long)block, (unsigned long long)n);
}

int main(void)
{
	struct mx_shape s = { R, C, MX_PATTERN_ROWS, 1, 7, 0 };
	char err[256];
	bool in_row = true, same = true;

	sweep(MX_PATTERN_COLS, 1);
	sweep(MX_PATTERN_COLS, 4);
	sweep(MX_PATTERN_XTX, 8);
	sweep(MX_PATTERN_XTX, R);
	longest = 0;
	sweep(MX_PATTERN_COLS, C);
	ok(longest == 5, "segments are split at max_n elements");

	/* rows: every access is one row across all columns */
	for (uint64_t k = 0; k < 200; k++) {
		memset(seen, 0, sizeof(seen));
		segments = 0;
		mx_pattern_visit(&s, k, 1000, mark, NULL);
		in_row &= segments == C;
		for (unsigned int c = 0; c < C; c++) {
			unsigned int n = 0;

			for (unsigned int r = 0; r < R; r++)
				n += seen[c][r];
			in_row &= n == 1;
		}
	}
	ok(in_row, "rows: an access reads one element of each of the %d columns", C);

	/* accesses depend on k and the seed only */
	{
		struct mx_shape t = s;
		unsigned int a[C][R];

		t.pattern = MX_PATTERN_TILES;
		t.block = 4;
		memset(seen, 0, sizeof(seen));
		for (uint64_t k = 0; k < 50; k++)
			mx_pattern_visit(&t, k, 1000, mark, NULL);
		memcpy(a, seen, sizeof(a));
		memset(seen, 0, sizeof(seen));
		for (uint64_t k = 50; k-- > 0;)
			mx_pattern_visit(&t, k, 1000, mark, NULL);
		same = !memcmp(a, seen, sizeof(a));
		ok(same, "tiles: the same k touch the same elements in any order");
		t.seed = 8;
		memset(seen, 0, sizeof(seen));
		for (uint64_t k = 0; k < 50; k++)
			mx_pattern_visit(&t, k, 1000, mark, NULL);
		ok(memcmp(a, seen, sizeof(a)), "another seed touches other tiles");
		is_u64(mx_pattern_elements(&t, 0) <= 16, 1, "a tile has at most block^2 elements");
	}

	/* tiles ROWSxCOLS: rectangles of that shape, inside the matrix */
	{
		struct mx_shape t = { R, C, MX_PATTERN_TILES, 16, 3, 2 };
		bool shaped = true;

		for (uint64_t k = 0; k < 100; k++) {
			memset(seen, 0, sizeof(seen));
			segments = 0;
			longest = 0;
			shaped &= !mx_pattern_visit(&t, k, 1000, mark, NULL);
			shaped &= segments <= 2 && longest <= 16 &&
				  mx_pattern_elements(&t, k) <= 32;
		}
		ok(shaped, "tiles 16x2: at most two segments of at most 16 elements");
		is_u64(mx_pattern_pass(&t), 3 * 12, "tiles 16x2 of 37 x 23: 3 x 12 tiles a pass");
		t.block_cols = C + 1;
		ok(mx_pattern_check(&t, err, sizeof(err)) && strstr(err, "23"),
		   "a tile wider than the matrix is refused (%s)", err);
		t.block_cols = 2;
		t.pattern = MX_PATTERN_ROWS;
		ok(mx_pattern_check(&t, err, sizeof(err)) && strstr(err, "only tiles"),
		   "RxC is for tiles only (%s)", err);
	}

	s.block = R + 1;
	ok(mx_pattern_check(&s, err, sizeof(err)) && strstr(err, "1..37"),
	   "rows: a block larger than the matrix is refused (%s)", err);
	s.pattern = MX_PATTERN_TILES;
	s.block = C + 1;
	ok(mx_pattern_check(&s, err, sizeof(err)) && strstr(err, "23"),
	   "tiles: the block must fit both sides (%s)", err);
	s.pattern = MX_PATTERN_XTX;
	s.cols = MX_XTX_MAX_COLS + 1;
	s.block = 1;
	ok(mx_pattern_check(&s, err, sizeof(err)) && strstr(err, "at most"),
	   "xtx: too many columns refused (%s)", err);
	s.block = 0;
	s.cols = C;
	ok(mx_pattern_check(&s, err, sizeof(err)), "a block of 0 is refused");
	return tap_done();
}
