// SPDX-License-Identifier: GPL-2.0
/*
 * Data read through fnmap equal the file: every access pattern (sequential,
 * random, strided like a row of a column-major matrix), 1 to 16 threads,
 * block sizes 64 KiB to 2 MiB, a budget above the file and far below it
 * (eviction all along), each ablation switch, the hand-off of demand
 * reads to channel threads (FNMAP_CFG_HANDOFF), the psync engine, a
 * mapping at an offset, and
 * a file whose size is not a page multiple (the tail reads as zeros past
 * the end, like mmap's last page).
 *
 * FNMAP_TEST_ACCESSES sets the accesses per thread of the random and
 * strided cases (default 3000): the VM suite uses fewer, since under TCG
 * the eviction cases' churn is what costs (same cases, same checks).
 */
#include <pthread.h>
#include <sys/mman.h>

#include "fnmap_test.h"

#define FILE_SIZE	((8ULL << 20) + 1234)
#define SEED		0x5eed

enum pattern { SEQ, RANDOM, STRIDED, NPATTERNS };
static const char *const pattern_names[] = { "sequential", "random", "strided" };

struct reader {
	const char *base;
	uint64_t len;		/* bytes mapped */
	uint64_t file_off;	/* file offset of base */
	uint64_t file_size;
	enum pattern pattern;
	unsigned int id, nthreads;
	uint64_t accesses;
	uint64_t bad;
	uint64_t first_bad;
};

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void check_word(struct reader *r, uint64_t at)
{
	uint64_t got, want, off = r->file_off + at;

	memcpy(&got, r->base + at, 8);
	if (off + 8 <= r->file_size) {
		want = word_at(off, SEED);
	} else {
		unsigned int i;

		want = 0;
		for (i = 0; i < 8; i++)
			if (off + i < r->file_size)
				want |= (uint64_t)byte_at(off + i, SEED) << (8 * i);
	}
	if (got != want) {
		if (!r->bad)
			r->first_bad = at;
		r->bad++;
	}
}

static void *read_main(void *arg)
{
	struct reader *r = arg;
	uint64_t words = r->len / 8, s = 88172645463325252ULL + r->id, i;
	/* Strided: "rows" of a column-major matrix with 256 KiB columns. */
	uint64_t col = (256 << 10) / 8, ncols = words / col;

	for (i = 0; i < r->accesses; i++) {
		uint64_t w;

		switch (r->pattern) {
		case SEQ:
			w = (r->id * (words / r->nthreads) + i) % words;
			break;
		case RANDOM:
			w = rng(&s) % words;
			break;
		default:
			if (i % ncols == 0)
				s = rng(&s);
			w = (i % ncols) * col + s % col;
			break;
		}
		check_word(r, w * 8);
	}
	return NULL;
}

/* Random and strided accesses per thread. */
static uint64_t accesses = 3000;

static void accesses_from_env(void)
{
	const char *v = getenv("FNMAP_TEST_ACCESSES");
	char *end;

	if (!v || !*v)
		return;
	errno = 0;
	accesses = strtoull(v, &end, 10);
	if (errno || *end || accesses < 100 || accesses > 1000000) {
		printf("Bail out! FNMAP_TEST_ACCESSES=%s: want 100..1000000\n",
		       v);
		exit(1);
	}
}

struct run {
	uint64_t block_size, budget;
	unsigned int channels, depth, flags, threads;
	enum pattern pattern;
	enum fnmap_advice advice;
	off_t offset;
};

static void run_case(const char *path, const struct run *c)
{
	struct fnmap_options o = { .block_size = c->block_size,
				   .advice = c->advice };
	struct reader r[16];
	pthread_t th[16];
	struct fnmap_stats st;
	struct fnmap *m;
	uint64_t bad = 0, len = FILE_SIZE - (uint64_t)c->offset;
	unsigned int i;
	int fd;

	runtime_with(c->budget, c->channels, c->depth, c->flags);
	fd = open(path, O_RDONLY);
	m = fd < 0 ? NULL : fnmap_open_fd(fd, c->offset, len, PROT_READ,
					  NULL, 0, &o);
	close(fd);
	if (!ok(m != NULL, "open: %s, %u threads, bs %llu KiB, budget %llu "
		"MiB, flags %#x, offset %lld", pattern_names[c->pattern],
		c->threads, (unsigned long long)c->block_size >> 10,
		(unsigned long long)c->budget >> 20, c->flags,
		(long long)c->offset)) {
		diag("%s", fnmap_errmsg());
		return;
	}
	for (i = 0; i < c->threads; i++) {
		r[i] = (struct reader){
			.base = fnmap_addr(m), .len = len,
			.file_off = (uint64_t)c->offset, .file_size = FILE_SIZE,
			.pattern = c->pattern, .id = i, .nthreads = c->threads,
			.accesses = c->pattern == SEQ ? len / 8 / c->threads
						      : accesses,
		};
		pthread_create(&th[i], NULL, read_main, &r[i]);
	}
	for (i = 0; i < c->threads; i++) {
		pthread_join(th[i], NULL);
		if (r[i].bad && !bad)
			diag("thread %u: first wrong word at %#llx", i,
			     (unsigned long long)r[i].first_bad);
		bad += r[i].bad;
	}
	fnmap_stats(m, &st);
	is_u64(bad, 0, "  every word read equals the file");
	ok(st.fills > 0 && st.reads > 0 && st.read_bytes >= st.fill_bytes,
	   "  stats: %llu fills in %llu reads of %llu bytes",
	   (unsigned long long)st.fills, (unsigned long long)st.reads,
	   (unsigned long long)st.read_bytes);
	/* Over the budget only by the blocks threads hold (two each) and
	 * one request in flight. */
	ok(st.resident_max <= st.budget + 2 * c->block_size * c->threads +
	   (1 << 20), "  resident at most %llu <= budget %llu + held blocks",
	   (unsigned long long)st.resident_max,
	   (unsigned long long)st.budget);
	ok(!fnmap_close(m), "  close");
}

int main(void)
{
	const char *path = test_path("read.dat");
	static const struct run cases[] = {
		/* Patterns x threads, cache larger than the file. */
		{ 64 << 10, 32 << 20, 4, 8, 0, 1, SEQ, 0, 0 },
		{ 64 << 10, 32 << 20, 4, 8, 0, 4, RANDOM, 0, 0 },
		{ 64 << 10, 32 << 20, 4, 8, 0, 16, STRIDED, 0, 0 },
		{ 256 << 10, 32 << 20, 4, 8, 0, 8, RANDOM, 0, 0 },
		{ 2 << 20, 32 << 20, 2, 4, 0, 4, SEQ, FNMAP_ADV_SEQUENTIAL, 0 },
		/* Budget far below the file: evictions throughout. */
		{ 64 << 10, 2 << 20, 4, 8, 0, 1, SEQ, 0, 0 },
		{ 64 << 10, 2 << 20, 4, 8, 0, 8, RANDOM, FNMAP_ADV_RANDOM, 0 },
		{ 128 << 10, 2 << 20, 4, 8, 0, 16, STRIDED, 0, 0 },
		{ 2 << 20, 4 << 20, 4, 8, 0, 4, RANDOM, 0, 0 },
		/* Ablations and the engine. */
		{ 64 << 10, 2 << 20, 4, 8, FNMAP_CFG_NO_COALESCE, 4, SEQ, 0, 0 },
		{ 64 << 10, 2 << 20, 4, 8, FNMAP_CFG_SIMPLE_CACHE, 8, RANDOM, 0, 0 },
		{ 64 << 10, 2 << 20, 4, 8, FNMAP_CFG_NO_GROWTH |
		  FNMAP_CFG_NO_PREFETCH, 4, STRIDED, 0, 0 },
		{ 64 << 10, 2 << 20, 3, 1, FNMAP_CFG_PSYNC, 4, RANDOM, 0, 0 },
		{ 64 << 10, 32 << 20, 1, 1, 0, 4, RANDOM, 0, 0 },
		/* Fault threads submitting their own demand reads, where
		 * staging and the cache's admission hold reads back. */
		{ 128 << 10, 2 << 20, 4, 8, FNMAP_CFG_HANDOFF, 16, STRIDED, 0, 0 },
		{ 2 << 20, 4 << 20, 4, 8, FNMAP_CFG_HANDOFF, 4, RANDOM, 0, 0 },
		{ 64 << 10, 32 << 20, 2, 4, FNMAP_CFG_HANDOFF, 4, SEQ, 0, 0 },
		/* A mapping that starts inside the file. */
		{ 64 << 10, 2 << 20, 4, 8, 0, 4, RANDOM, 0, 1 << 20 },
		{ 64 << 10, 2 << 20, 4, 8, 0, 2, SEQ, 0, 12288 },
	};
	unsigned int i;

	accesses_from_env();
	make_file(path, FILE_SIZE, SEED);
	runtime_or_skip(NULL);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(path, &cases[i]);
	fnmap_shutdown();
	test_cleanup();
	return tap_done();
}
