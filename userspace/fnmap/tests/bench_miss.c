// SPDX-License-Identifier: GPL-2.0
/*
 * bench_miss: what one miss costs at queue depth 1. One thread touches
 * one word of every 64 KiB block of a file in a random order (no
 * prefetch, a budget above the file, no eviction), drops the mapping's
 * blocks (FNMAP_ADV_DONTNEED) and does it again, ROUNDS times. Prints,
 * per round: microseconds per miss, the runtime's queue wait (fault
 * queued to read submitted) and service time per read, and how often
 * per miss the channel and fault threads were woken, and io_uring's
 * workers (a read the kernel would not issue without blocking goes to an
 * io-wq worker thread: one more thread woken for it).
 *
 *   tests/bench_miss [MiB [ROUNDS]]        (default 64 MiB, 5 rounds)
 *
 * The file is made in FNMAP_TEST_DIR (default /dev/shm). FNMAP_FLAGS
 * adds runtime flags: FNMAP_FLAGS=handoff has channel threads submit
 * the demand reads (the default before 1.1: the fault threads submit
 * them themselves), FNMAP_FLAGS=continue maps fills without a copy, for
 * comparisons with the default.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "fnmap_test.h"

#define SEED	3

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	uint64_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 64;
	unsigned int rounds = argc > 2 ? (unsigned int)atoi(argv[2]) : 5, r;
	struct fnmap_options o = { .block_size = 64 << 10,
				   .advice = FNMAP_ADV_RANDOM };
	const char *path = test_path("bench_miss.dat");
	uint64_t n = (mib << 20) >> 16, i, bad = 0;
	struct fnmap_config cfg;
	struct fnmap_stats st0, st;
	double us[64], sum_us = 0;
	uint32_t *order;
	struct fnmap *m;
	char *base;
	int fd;

	if (!mib || mib > 4096 || !rounds || rounds > 64) {
		fprintf(stderr, "usage: %s [MiB 1..4096 [ROUNDS 1..64]]\n",
			argv[0]);
		return 2;
	}
	order = malloc(n * sizeof(*order));
	make_file(path, mib << 20, SEED);
	/* Written back before the first round: an O_DIRECT read of a range
	 * with dirty pages waits for their write-back (io_uring hands it to
	 * a worker), which the first round would otherwise measure. */
	fd = open(path, O_RDONLY);
	if (fd < 0 || fsync(fd)) {
		perror(path);
		return 1;
	}
	close(fd);
	if (!order || fnmap_config_init(&cfg)) {
		fprintf(stderr, "%s\n", fnmap_errmsg());
		return 1;
	}
	cfg.budget = 2 * (mib << 20) + (64 << 20);
	cfg.flags |= FNMAP_CFG_NO_GROWTH;
	if (fnmap_init(&cfg)) {
		fprintf(stderr, "fnmap_init: %s\n", fnmap_errmsg());
		test_cleanup();
		return 1;
	}
	m = fnmap_open(path, O_RDONLY, &o);
	if (!m) {
		fprintf(stderr, "fnmap_open: %s\n", fnmap_errmsg());
		test_cleanup();
		return 1;
	}
	base = fnmap_addr(m);
	fnmap_stats(m, &st);
	printf("# %llu MiB, %llu misses a round, %s, %s I/O, %u channels, "
	       "%u fault threads, fills by %s, flags %s\n",
	       (unsigned long long)mib, (unsigned long long)n, st.io_engine,
	       st.direct_io ? "O_DIRECT" : "buffered", st.channels,
	       st.fault_threads, st.fill_method,
	       getenv("FNMAP_FLAGS") ? getenv("FNMAP_FLAGS") : "none");
	printf("# round  us/miss  queue_wait_us  service_us  "
	       "io_wakes/miss  fault_wakes/miss  iowq_wakes/miss\n");
	for (r = 0; r < rounds; r++) {
		uint64_t io0 = thread_switches("fnmap-io");
		uint64_t f0 = thread_switches("fnmap-fault");
		uint64_t w0 = thread_switches("iou-wrk-*"), w;
		double t;

		shuffled(order, n, SEED + r);
		fnmap_stats(m, &st0);
		t = now_s();
		for (i = 0; i < n; i++) {
			uint64_t off = (uint64_t)order[i] << 16;

			bad += *(volatile uint64_t *)(base + off) !=
			       word_at(off, SEED);
		}
		t = now_s() - t;
		fnmap_stats(m, &st);
		/* A worker that exited took its count with it. */
		w = thread_switches("iou-wrk-*");
		w = w > w0 ? w - w0 : 0;
		us[r] = t * 1e6 / (double)n;
		sum_us += us[r];
		printf("%7u  %7.1f  %13.1f  %10.1f  %13.2f  %16.2f  %15.2f\n",
		       r, us[r],
		       (double)(st.queue_wait_ns - st0.queue_wait_ns) / 1e3 /
		       (double)(st.reads - st0.reads),
		       (double)(st.service_ns - st0.service_ns) / 1e3 /
		       (double)(st.reads - st0.reads),
		       (double)(thread_switches("fnmap-io") - io0) / (double)n,
		       (double)(thread_switches("fnmap-fault") - f0) /
		       (double)n,
		       (double)w / (double)n);
		if (fnmap_advise(m, base, fnmap_length(m), FNMAP_ADV_DONTNEED))
			fprintf(stderr, "dontneed: %s\n", fnmap_errmsg());
	}
	qsort(us, rounds, sizeof(us[0]), cmp_double);
	printf("# median %.1f us/miss, mean %.1f; %llu wrong words\n",
	       us[rounds / 2], sum_us / rounds, (unsigned long long)bad);
	fnmap_close(m);
	fnmap_shutdown();
	test_cleanup();
	free(order);
	return bad != 0;
}
