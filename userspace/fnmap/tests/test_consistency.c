// SPDX-License-Identifier: GPL-2.0
/*
 * Two processes map the same matrix (1024 x 256 doubles, column-major),
 * each with its own runtime and cache, and write it with explicit syncs.
 * What each sees is fnmap's consistency model (fnmap(3), CONSISTENCY):
 *
 *  1. Disjoint pages: A writes the left half, B the right, both sync.
 *     Each still sees the other half as it was when it cached it; after
 *     fnmap_sync(FNMAP_SYNC_INVALIDATE) each sees the other's writes.
 *  2. One page, different elements, no protocol: A writes x and syncs,
 *     then B writes y in the same page and syncs. B's page, cached
 *     before A's sync, goes back whole: the file has y and the old x.
 *     A's update is lost (write-back is per page).
 *  3. The same with the protocol: B invalidates before it writes, so its
 *     write faults the page in again with A's x; the file has both.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "fnmap_test.h"

#define ROWS	1024
#define COLS	256
#define SIZE	((uint64_t)ROWS * COLS * 8)

static int to_peer, from_peer;

static void barrier(void)
{
	char c = 0;

	if (write(to_peer, &c, 1) != 1 || read(from_peer, &c, 1) != 1) {
		fprintf(stderr, "barrier: peer gone\n");
		_exit(9);
	}
}

static double *el(double *m, unsigned int i, unsigned int j)
{
	return &m[(size_t)j * ROWS + i];
}

static double file_el(const char *path, unsigned int i, unsigned int j)
{
	int fd = open(path, O_RDONLY);
	double v = -1;

	if (pread(fd, &v, 8, (off_t)(((uint64_t)j * ROWS + i) * 8)) != 8)
		v = -1;
	close(fd);
	return v;
}

/* Every element of columns [j0, j1) equals v? */
static bool cols_are(double *m, unsigned int j0, unsigned int j1, double v)
{
	unsigned int i, j;

	for (j = j0; j < j1; j++)
		for (i = 0; i < ROWS; i++)
			if (*(volatile double *)el(m, i, j) != v)
				return false;
	return true;
}

static void fill_cols(double *m, unsigned int j0, unsigned int j1, double v)
{
	unsigned int i, j;

	for (j = j0; j < j1; j++)
		for (i = 0; i < ROWS; i++)
			*el(m, i, j) = v;
}

/* The checks each side makes, in order; results[k] is 1 if passed. */
static unsigned char results[16];
static unsigned int nres;

static void check(bool pass)
{
	results[nres++] = pass;
}

static void side(const char *path, bool is_a)
{
	struct fnmap_options o = { .block_size = 64 << 10 };
	struct fnmap *m;
	double *x;
	unsigned int mine0 = is_a ? 0 : COLS / 2, other0 = is_a ? COLS / 2 : 0;

	runtime_with(16 << 20, 2, 4, 0);
	m = fnmap_open(path, O_RDWR, &o);
	if (!m)
		_exit(8);
	x = fnmap_addr(m);
	/* Both cache everything first. */
	check(cols_are(x, 0, COLS, 0.0));
	barrier();

	/* 1. Disjoint halves. */
	fill_cols(x, mine0, mine0 + COLS / 2, is_a ? 1.0 : 2.0);
	check(!fnmap_sync(m, NULL, 0, 0));
	barrier();
	check(cols_are(x, other0, other0 + COLS / 2, 0.0));
	check(!fnmap_sync(m, NULL, 0, FNMAP_SYNC_INVALIDATE));
	check(cols_are(x, other0, other0 + COLS / 2, is_a ? 2.0 : 1.0) &&
	      cols_are(x, mine0, mine0 + COLS / 2, is_a ? 1.0 : 2.0));
	barrier();

	/* 2. One page, no protocol: column 10 rows 0 (A) and 1 (B). Both
	 * have the page cached and clean now. */
	if (is_a) {
		*el(x, 0, 10) = 7.0;
		check(!fnmap_sync(m, NULL, 0, 0));
	}
	barrier();
	if (!is_a) {
		*el(x, 1, 10) = 8.0;
		check(!fnmap_sync(m, NULL, 0, 0));
	}
	barrier();

	/* 3. With the protocol: column 20 rows 0 (A) and 1 (B). */
	if (is_a) {
		*el(x, 0, 20) = 7.0;
		check(!fnmap_sync(m, NULL, 0, 0));
	}
	barrier();
	if (!is_a) {
		check(!fnmap_sync(m, el(x, 0, 20), 8, FNMAP_SYNC_INVALIDATE));
		*el(x, 1, 20) = 8.0;
		check(*el(x, 0, 20) == 7.0);
		check(!fnmap_sync(m, NULL, 0, 0));
	}
	barrier();
	check(!fnmap_close(m));
}

int main(void)
{
	const char *path = test_path("matrix.dat");
	static const char *const a_names[] = {
		"A: reads the zero matrix",
		"A: syncs its half",
		"A: still sees B's half as it cached it (zeros)",
		"A: sync with invalidate",
		"A: then sees B's half, and its own",
		"A: writes x, syncs",
		"A: writes x' in another page, syncs",
		"A: close",
	};
	static const char *const b_names[] = {
		"B: reads the zero matrix",
		"B: syncs its half",
		"B: still sees A's half as it cached it (zeros)",
		"B: sync with invalidate",
		"B: then sees A's half, and its own",
		"B: writes y into x's page, syncs",
		"B: invalidates x''s page before writing",
		"B: writes y'; its page now holds A's x'",
		"B: syncs",
		"B: close",
	};
	int ab[2], ba[2], status;
	unsigned char bres[16];
	unsigned int k;
	pid_t pid;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, SIZE)) {
		perror(path);
		return 1;
	}
	close(fd);
	runtime_or_skip(NULL);
	fnmap_shutdown();
	if (pipe(ab) || pipe(ba))
		return 1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		to_peer = ba[1];
		from_peer = ab[0];
		side(path, false);
		if (write(ba[1], results, nres) != (ssize_t)nres)
			_exit(7);
		_exit(0);
	}
	to_peer = ab[1];
	from_peer = ba[0];
	side(path, true);
	if (read(ba[0], bres, sizeof(b_names) / sizeof(b_names[0])) !=
	    sizeof(b_names) / sizeof(b_names[0]))
		memset(bres, 0, sizeof(bres));
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && !WEXITSTATUS(status), "B exited normally");
	for (k = 0; k < nres; k++)
		ok(results[k], "%s", a_names[k]);
	for (k = 0; k < sizeof(b_names) / sizeof(b_names[0]); k++)
		ok(bres[k], "%s", b_names[k]);

	/* What the file holds in the end. */
	ok(file_el(path, 5, 3) == 1.0 && file_el(path, 5, COLS - 3) == 2.0,
	   "file: both halves");
	ok(file_el(path, 1, 10) == 8.0 && file_el(path, 0, 10) == 1.0,
	   "file: one page without the protocol: B's y, and A's x lost "
	   "(the page as B cached it)");
	ok(file_el(path, 0, 20) == 7.0 && file_el(path, 1, 20) == 8.0,
	   "file: one page with the protocol: both x' and y'");
	test_cleanup();
	return tap_done();
}
