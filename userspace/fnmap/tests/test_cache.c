// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's policies at work, seen in its statistics: a sequential
 * read is coalesced into requests larger than a block (and is not with
 * FNMAP_CFG_NO_COALESCE); a strided walk is prefetched (not under random
 * advice, not with FNMAP_CFG_NO_PREFETCH); the capacity grows when blocks
 * come back (reuse within the budget) and does not for a scan that never
 * reuses, and a cold sweep of random rows does not read the matrix over
 * and over before it has grown, even with an evictor slowed down (as on a
 * loaded host: an eviction pass outlasts a growth); the budget bounds
 * what is resident;
 * fnmap_advise(WILLNEED)
 * brings a range in before it is touched (no fault on it afterwards) in
 * coalesced requests, and DONTNEED drops it; an idle runtime sleeps
 * (its channels wait in the kernel, they do not spin).
 */
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>

#include "fnmap_test.h"

#define MiB	(1ULL << 20)
#define SEED	5

/*
 * This program is linked with --wrap=sys_madvise: while slow_map is set,
 * each block the evictor drops costs it 2 ms more, as a busy host's
 * scheduler makes an eviction cost, and drops made while the cache held
 * at most half its capacity of that moment are counted: the evictor had
 * no reason to make them (it evicts down to 7/8 of the capacity, further
 * only by the reads in flight and the one refused, a few MiB here).
 */
int __real_sys_madvise(void *addr, size_t len, int advice);
static const struct fnmap *_Atomic slow_map;
static _Atomic uint64_t needless;

int __wrap_sys_madvise(void *addr, size_t len, int advice)
{
	const struct fnmap *m = atomic_load(&slow_map);
	struct timespec ts = { 0, 2 * 1000 * 1000 };
	struct fnmap_stats st;
	char comm[16] = "";

	if (m && advice == MADV_DONTNEED && !prctl(PR_GET_NAME, comm) &&
	    !strcmp(comm, "fnmap-evict") && !fnmap_stats(m, &st)) {
		if (st.resident + len <= st.capacity / 2)
			atomic_fetch_add(&needless, 1);
		nanosleep(&ts, NULL);
	}
	return __real_sys_madvise(addr, len, advice);
}


static struct fnmap *open_with(const char *path, uint64_t budget,
			       unsigned int flags, enum fnmap_advice adv)
{
	struct fnmap_options o = { .block_size = 64 << 10, .advice = adv };
	struct fnmap *m;

	runtime_with(budget, 4, 8, flags);
	m = fnmap_open(path, O_RDONLY, &o);
	if (!m) {
		printf("Bail out! fnmap_open: %s\n", fnmap_errmsg());
		exit(1);
	}
	return m;
}

static void wait_fills(const struct fnmap *m, uint64_t want,
		       struct fnmap_stats *st);
static void wait_all_filled(const struct fnmap *m, struct fnmap_stats *st);

static uint64_t touch(const struct fnmap *m, uint64_t off)
{
	return *(volatile uint64_t *)((char *)fnmap_addr(m) + off);
}

/* n random rows (seeded xorshift, drawn from the first `rows`) of the
 * file as a column-major matrix of 128 columns of 512 KiB: one word per
 * column, each a stride of 8 blocks from the last. Wrong words read. */
static uint64_t walk_rows(const struct fnmap *m, uint64_t s, uint64_t rows,
			  unsigned int n)
{
	uint64_t bad = 0, off, col;

	while (n--) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		for (col = 0; col < 128; col++) {
			off = col * (512 << 10) + s % rows * 8;
			bad += touch(m, off) != word_at(off, SEED);
		}
	}
	return bad;
}

static void test_coalescing(const char *path)
{
	struct fnmap_stats st;
	struct fnmap *m;
	uint64_t off, bad = 0;

	m = open_with(path, 64 * MiB, 0, FNMAP_ADV_SEQUENTIAL);
	for (off = 0; off < 16 * MiB; off += 4096)
		bad += touch(m, off) != word_at(off, SEED);
	fnmap_stats(m, &st);
	/* 256 blocks touched, and up to a request's worth read ahead. */
	ok(!bad && st.fills >= 256 && st.fills <= 256 + 16 &&
	   st.reads < st.fills / 2,
	   "sequential advice: %llu blocks in %llu requests (coalesced)",
	   (unsigned long long)st.fills, (unsigned long long)st.reads);
	ok(st.read_bytes / st.reads > 64 << 10, "mean request %llu KiB > "
	   "one block", (unsigned long long)(st.read_bytes / st.reads >> 10));
	ok(st.prefetches > 0, "read ahead of the misses (%llu blocks)",
	   (unsigned long long)st.prefetches);
	fnmap_close(m);

	m = open_with(path, 64 * MiB, FNMAP_CFG_NO_COALESCE, FNMAP_ADV_SEQUENTIAL);
	for (off = 0; off < 16 * MiB; off += 4096)
		bad += touch(m, off) != word_at(off, SEED);
	/* A read is counted when it completes and its fill just after, and
	 * read-ahead may still be out: wait for a moment when every read
	 * counted has been filled (the same snapshot the check reads). */
	wait_all_filled(m, &st);
	ok(!bad && st.reads == st.fills && st.read_sizes[4] == st.reads,
	   "no-coalesce: one 64 KiB request per block (%llu of %llu, "
	   "%llu fills, %llu wrong)", (unsigned long long)st.read_sizes[4],
	   (unsigned long long)st.reads, (unsigned long long)st.fills,
	   (unsigned long long)bad);
	fnmap_close(m);
}

/* One thread walking a "row": 40 blocks 8 blocks apart. */
static uint64_t stride_walk(const struct fnmap *m)
{
	uint64_t b, bad = 0;

	for (b = 0; b < 40; b++) {
		uint64_t off = b * 8 * (64 << 10) + 8 * b;

		bad += touch(m, off) != word_at(off, SEED);
	}
	return bad;
}

static void test_prefetch(const char *path)
{
	struct fnmap_stats st;
	struct fnmap *m;
	uint64_t bad;

	m = open_with(path, 64 * MiB, 0, FNMAP_ADV_NORMAL);
	bad = stride_walk(m);
	fnmap_stats(m, &st);
	/* Blocks read because a thread waited for them: fills that were not
	 * prefetches (a late prefetch still counts as one). */
	ok(!bad && st.prefetches >= 20 && st.fills <= st.prefetches + 20,
	   "a strided walk is prefetched: %llu of %llu blocks read ahead",
	   (unsigned long long)st.prefetches, (unsigned long long)st.fills);
	fnmap_close(m);

	m = open_with(path, 64 * MiB, 0, FNMAP_ADV_RANDOM);
	bad = stride_walk(m);
	fnmap_stats(m, &st);
	ok(!bad && !st.prefetches && st.fills == 40,
	   "random advice: no prefetch, 40 blocks read for 40 (%llu fills)",
	   (unsigned long long)st.fills);
	fnmap_close(m);

	m = open_with(path, 64 * MiB, FNMAP_CFG_NO_PREFETCH, FNMAP_ADV_NORMAL);
	bad = stride_walk(m);
	fnmap_stats(m, &st);
	ok(!bad && !st.prefetches, "no-prefetch: none");
	fnmap_close(m);
}

static void test_growth(const char *path)
{
	struct fnmap_stats st;
	struct fnmap *m;
	uint64_t s = 1, i, bad = 0, off;

	/* Budget 64 MiB: the capacity starts at 16 MiB. Random reads over
	 * 24 MiB come back at distances within reach: it grows. */
	m = open_with(path, 64 * MiB, 0, FNMAP_ADV_RANDOM);
	fnmap_stats(m, &st);
	is_u64(st.capacity, 16 * MiB, "capacity starts at 16 MiB");
	for (i = 0; i < 20000; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		off = (s % (24 * MiB / 8)) * 8;
		bad += touch(m, off) != word_at(off, SEED);
	}
	fnmap_stats(m, &st);
	ok(!bad && st.grows > 0 && st.capacity >= 24 * MiB,
	   "reuse within the budget: grew %llu times to %llu MiB",
	   (unsigned long long)st.grows, (unsigned long long)(st.capacity >> 20));
	ok(st.reuse_hits > 0, "misses that an eviction caused: %llu",
	   (unsigned long long)st.reuse_hits);
	fnmap_close(m);

	/* One pass over 48 MiB never comes back: no growth. Resident: the
	 * capacity, and besides it the two blocks the thread's window
	 * holds (in use, they do not count against it). */
	m = open_with(path, 64 * MiB, 0, FNMAP_ADV_RANDOM);
	for (off = 0; off < 48 * MiB; off += 64 << 10)
		bad += touch(m, off) != word_at(off, SEED);
	fnmap_stats(m, &st);
	ok(!bad && !st.grows && st.capacity == 16 * MiB &&
	   st.resident_max <= 16 * MiB + 2 * (64 << 10),
	   "a scan: no growth, resident at most the capacity + 2 blocks "
	   "(%llu KiB)", (unsigned long long)(st.resident_max >> 10));
	fnmap_close(m);

	/* Rows of a column-major 64 MiB matrix (128 columns of 512 KiB),
	 * drawn from its first half: a thread's faults stride by a column,
	 * so most blocks arrive by prefetch, and the 32 MiB come back again
	 * and again beyond the 16 MiB capacity. Re-reads of evicted blocks
	 * by prefetch are reuse too: it grows. */
	m = open_with(path, 64 * MiB, 0, FNMAP_ADV_NORMAL);
	bad += walk_rows(m, 7, 32768, 300);
	fnmap_stats(m, &st);
	ok(!bad && st.prefetches > st.fills / 2 && st.capacity >= 32 * MiB,
	   "prefetched rows coming back: grew to %llu MiB (%llu of %llu "
	   "fills prefetched, %llu evictions)",
	   (unsigned long long)(st.capacity >> 20),
	   (unsigned long long)st.prefetches, (unsigned long long)st.fills,
	   (unsigned long long)st.evictions);
	fnmap_close(m);

	/* no-growth: the whole budget at once. */
	m = open_with(path, 32 * MiB, FNMAP_CFG_NO_GROWTH, FNMAP_ADV_RANDOM);
	fnmap_stats(m, &st);
	is_u64(st.capacity, 32 * MiB, "no-growth: capacity = budget");
	fnmap_close(m);
}

/*
 * A cold sweep: rows of a column-major 64 MiB matrix (128 columns of
 * 512 KiB) drawn from all of it, under a budget that holds it twice. The
 * capacity starts at 16 MiB; the blocks that leave come back (most by
 * prefetch, which hides the misses), so the cache must grow before it has
 * read the matrix many times over: at most 1.5 times its size.
 *
 * Then the same with a slow evictor. Its passes then last while the walk
 * misses, and the misses grow the capacity: a pass must stop once the
 * cache is within the grown capacity, not go on evicting down to the
 * target it started with while the walk refills what it drops. Before it
 * did, the sweep read 136-139 MiB on a loaded host (one pass went round
 * the whole cache after the capacity had doubled past the matrix), and
 * here the slow evictor made 46-114 drops with the cache half full.
 */
static void cold_sweep(const char *path, bool slow)
{
	struct fnmap_stats st;
	struct fnmap *m;
	uint64_t bad;

	m = open_with(path, 128 * MiB, 0, FNMAP_ADV_NORMAL);
	atomic_store(&needless, 0);
	if (slow)
		atomic_store(&slow_map, m);
	bad = walk_rows(m, 11, 65536, 400);
	atomic_store(&slow_map, NULL);
	fnmap_stats(m, &st);
	ok(!bad && st.read_bytes <= 96 * MiB,
	   "cold sweep of a 64 MiB matrix%s: read %llu MiB (at most 96), "
	   "%llu evictions, grew %llu times to %llu MiB, %llu of %llu fills "
	   "prefetched", slow ? ", slow evictor" : "",
	   (unsigned long long)(st.read_bytes >> 20),
	   (unsigned long long)st.evictions, (unsigned long long)st.grows,
	   (unsigned long long)(st.capacity >> 20),
	   (unsigned long long)st.prefetches, (unsigned long long)st.fills);
	/* A growth between the pass's look at the capacity and the drop
	 * that follows it can leave one drop behind. */
	if (slow)
		ok(atomic_load(&needless) <= st.grows,
		   "slow evictor: %llu blocks dropped with the cache at most "
		   "half full (at most one a growth, %llu)",
		   (unsigned long long)atomic_load(&needless),
		   (unsigned long long)st.grows);
	fnmap_close(m);
}

static void test_cold_sweep(const char *path)
{
	cold_sweep(path, false);
	cold_sweep(path, true);
}

/* Statistics of m once fills reach want, or after 20 s. */
static void wait_fills(const struct fnmap *m, uint64_t want,
		       struct fnmap_stats *st)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 2000; i++) {
		fnmap_stats(m, st);
		if (st->fills >= want)
			return;
		nanosleep(&ts, NULL);
	}
}

/* Statistics of m once every read counted has been filled (one block per
 * read: no coalescing), or after 20 s. */
static void wait_all_filled(const struct fnmap *m, struct fnmap_stats *st)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 2000; i++) {
		fnmap_stats(m, st);
		if (st->fills == st->reads)
			return;
		nanosleep(&ts, NULL);
	}
}

static void test_willneed(const char *path)
{
	const uint64_t at = 8 * MiB, len = 8 * MiB;
	struct fnmap_stats st;
	struct fnmap *m;
	uint64_t off, bad = 0, faults;
	char *base;

	m = open_with(path, 64 * MiB, 0, FNMAP_ADV_RANDOM);
	base = fnmap_addr(m);
	ok(!fnmap_advise(m, base + at, len, FNMAP_ADV_WILLNEED),
	   "willneed on 8 MiB: accepted");
	wait_fills(m, len >> 16, &st);
	ok(st.fills == len >> 16 && st.prefetches == len >> 16 && !st.faults,
	   "willneed: the 128 blocks came in before any touch (%llu fills, "
	   "%llu prefetched, %llu faults)", (unsigned long long)st.fills,
	   (unsigned long long)st.prefetches, (unsigned long long)st.faults);
	ok(st.reads < st.fills / 2, "willneed: in coalesced requests (%llu "
	   "for %llu blocks)", (unsigned long long)st.reads,
	   (unsigned long long)st.fills);
	for (off = at; off < at + len; off += 4096)
		bad += touch(m, off) != word_at(off, SEED);
	faults = st.faults;
	fnmap_stats(m, &st);
	ok(!bad && st.faults == faults && st.fills == len >> 16,
	   "willneed: every page of the range read right without a fault "
	   "(%llu faults)", (unsigned long long)(st.faults - faults));

	ok(!fnmap_advise(m, base + at, len, FNMAP_ADV_DONTNEED),
	   "dontneed on the range: accepted");
	fnmap_stats(m, &st);
	is_u64(st.resident, 0, "dontneed: nothing of it stays resident");
	for (off = at; off < at + len; off += 64 << 10)
		bad += touch(m, off) != word_at(off, SEED);
	fnmap_stats(m, &st);
	/* Once per block; a repeated fault message was seen once in a
	 * few host runs (cause not known), hence the small margin. */
	ok(!bad && st.faults >= faults + (len >> 16) &&
	   st.faults <= faults + (len >> 16) + 8,
	   "dontneed: touched again, each block faults (128 to 136) and "
	   "reads right (%llu faults)", (unsigned long long)(st.faults - faults));
	fnmap_close(m);
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Four channels and the other threads, nothing to do for a second: they
 * must sleep. (On 6.1 an io_uring read of a non-blocking eventfd
 * completes at once with -EAGAIN; a channel that re-armed it spun.) */
static void test_idle(const char *path)
{
	struct timespec ts = { 1, 0 };
	struct fnmap *m;
	double used;

	m = open_with(path, 64 * MiB, 0, FNMAP_ADV_RANDOM);
	ok(touch(m, 0) == word_at(0, SEED), "idle: one read first");
	used = cpu_s();
	nanosleep(&ts, NULL);
	used = cpu_s() - used;
	ok(used < 0.25, "idle: the runtime used %.3f s of CPU in 1 s "
	   "(under 0.25)", used);
	fnmap_close(m);
}

int main(void)
{
	const char *path = test_path("cache.dat");

	make_file(path, 64 * MiB, SEED);
	runtime_or_skip(NULL);
	test_idle(path);
	test_coalescing(path);
	test_prefetch(path);
	test_growth(path);
	test_cold_sweep(path);
	test_willneed(path);
	fnmap_shutdown();
	test_cleanup();
	return tap_done();
}
