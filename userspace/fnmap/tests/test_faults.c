// SPDX-License-Identifier: GPL-2.0
/*
 * Several fault threads: a fault waits for no other fault's handling.
 *
 * The test makes one fault's handling slow on purpose: it defines
 * mincore() itself (the library, linked statically, calls this one), and
 * while `stall` is set that call sleeps. The runtime calls mincore() on a
 * fault in a resident block whose page is gone (here: the program dropped
 * it with madvise(MADV_DONTNEED)). While one thread's fault sits in that
 * call, another thread faults on a block not read yet: with the default
 * fault threads its block is read and it goes on at once; with
 * FNMAP_FAULT_THREADS=1 it waits for the stalled call (the single fault
 * thread of the runtime before, where every fault queued behind the one
 * being handled).
 *
 * And no hand-off per miss (the default since 1.1): a fault thread
 * submits the demand read it queued on its own ring and finishes it, so
 * during a cold random sweep (no prefetch, no eviction) the channel
 * threads sleep. Counted as their voluntary context switches
 * (/proc/self/task/<tid>/status): the hand-off (FNMAP_CFG_HANDOFF, and
 * every miss before 1.1) wakes a channel thread per miss (a kick
 * through an eventfd) and most sleep again waiting for the read: the
 * same sweep with it must count at least half a wake-up a miss, or the
 * count shows nothing.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#include "fnmap_test.h"

#define MiB	(1ULL << 20)
#define SEED	9
#define STALL_MS	1000

static atomic_bool stall, stalled;

int mincore(void *addr, size_t len, unsigned char *vec)
{
	if (atomic_exchange(&stall, false)) {
		struct timespec ts = { STALL_MS / 1000,
				       (STALL_MS % 1000) * 1000000L };

		atomic_store(&stalled, true);
		nanosleep(&ts, NULL);
	}
	return (int)syscall(SYS_mincore, addr, len, vec);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t touch(const struct fnmap *m, uint64_t off)
{
	return *(volatile uint64_t *)((char *)fnmap_addr(m) + off);
}

struct slow {
	const struct fnmap *m;
	uint64_t got;
};

static void *slow_reader(void *arg)
{
	struct slow *s = arg;

	s->got = touch(s->m, 4096);
	return NULL;
}

/* The time (s) a fault on block 16 took while another fault's handling
 * stalls; *right: both read the file. */
static double fault_during_stall(const char *path, bool *right)
{
	struct fnmap_options o = { .block_size = 64 << 10,
				   .advice = FNMAP_ADV_RANDOM };
	struct slow s = { 0 };
	struct timespec tick = { 0, 1000000 };
	pthread_t t;
	struct fnmap *m;
	double t0, took;
	uint64_t got;
	int i;

	runtime_with(64 * MiB, 4, 8, 0);
	m = fnmap_open(path, O_RDONLY, &o);
	if (!m) {
		printf("Bail out! fnmap_open: %s\n", fnmap_errmsg());
		exit(1);
	}
	s.m = m;
	/* Block 0 resident, then its second page dropped behind the
	 * runtime's back: the next touch there faults into mincore(). */
	*right = touch(m, 0) == word_at(0, SEED);
	if (madvise((char *)fnmap_addr(m) + 4096, 4096, MADV_DONTNEED))
		*right = false;
	atomic_store(&stalled, false);
	atomic_store(&stall, true);
	pthread_create(&t, NULL, slow_reader, &s);
	for (i = 0; i < 5000 && !atomic_load(&stalled); i++)
		nanosleep(&tick, NULL);
	t0 = now_s();
	got = touch(m, 16 * (64 << 10));
	took = now_s() - t0;
	pthread_join(t, NULL);
	*right = *right && atomic_load(&stalled) &&
		 got == word_at(16 * (64 << 10), SEED) &&
		 s.got == word_at(4096, SEED);
	atomic_store(&stall, false);
	fnmap_close(m);
	return took;
}

/* A cold random sweep, one access per block: the channel threads' wake-
 * ups per miss. */
static void test_no_handoff(const char *path, uint64_t size,
			    unsigned int handoff)
{
	struct fnmap_options o = { .block_size = 64 << 10,
				   .advice = FNMAP_ADV_RANDOM };
	const char *name = handoff ? "hand-off" : "default";
	uint64_t n = size >> 16, i, bad = 0, sw;
	uint32_t *order = malloc(n * sizeof(*order));
	struct fnmap_stats st;
	struct fnmap *m;

	runtime_with(256 * MiB, 4, 8, FNMAP_CFG_NO_GROWTH | handoff);
	m = fnmap_open(path, O_RDONLY, &o);
	if (!m || !order) {
		printf("Bail out! fnmap_open: %s\n", fnmap_errmsg());
		exit(1);
	}
	fnmap_stats(m, &st);
	if (strcmp(st.io_engine, "io_uring")) {
		ok(true, "%s: channel wake-ups # SKIP io engine %s", name,
		   st.io_engine);
		fnmap_close(m);
		free(order);
		return;
	}
	shuffled(order, n, 0x9e3779b9);
	sw = thread_switches("fnmap-io");
	for (i = 0; i < n; i++) {
		uint64_t off = (uint64_t)order[i] << 16;

		bad += touch(m, off) != word_at(off, SEED);
	}
	sw = thread_switches("fnmap-io") - sw;
	fnmap_stats(m, &st);
	ok(!bad && st.fills == n, "%s: cold random sweep: %llu blocks read "
	   "right (%llu fills)", name, (unsigned long long)n,
	   (unsigned long long)st.fills);
	/* The hand-off kicks a channel per miss, which wakes it unless it
	 * has not gone back to sleep since the last fill (the guest: 262
	 * in 256 misses, the host 511-514): at least half a miss, twice
	 * the default's bound, so the count tells the two paths apart. */
	if (handoff)
		ok(sw * 2 >= n, "hand-off: the channel threads woke %llu times "
		   "in %llu misses (at least half a miss)",
		   (unsigned long long)sw, (unsigned long long)n);
	else
		ok(sw * 4 <= n, "default: no hand-off per miss: the channel "
		   "threads woke %llu times in %llu misses (at most a "
		   "quarter)", (unsigned long long)sw, (unsigned long long)n);
	fnmap_close(m);
	free(order);
}

/* The stall cases drop a page behind the runtime's back to reach its
 * mincore(); a zero-copy mapping maps such a page again from its memfd
 * without asking (test_continue), so FNMAP_FLAGS=continue is left out;
 * and handoff, which the sweeps set themselves where they want it. */
static void without_continue(void)
{
	const char *f = getenv("FNMAP_FLAGS");
	char in[256], out[256] = "", *tok, *save;

	if (!f)
		return;
	snprintf(in, sizeof(in), "%s", f);
	for (tok = strtok_r(in, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "continue") && strcmp(tok, "handoff"))
			snprintf(out + strlen(out), sizeof(out) - strlen(out),
				 "%s%s", *out ? "," : "", tok);
	}
	setenv("FNMAP_FLAGS", out, 1);
}

int main(void)
{
	const char *path = test_path("faults.dat");
	struct fnmap_stats st;
	bool right;
	double took;

	const char *sweep = test_path("sweep.dat");

	make_file(path, 4 * MiB, SEED);
	make_file(sweep, 16 * MiB, SEED);
	unsetenv("FNMAP_FAULT_THREADS");
	without_continue();
	runtime_or_skip(NULL);
	fnmap_stats(NULL, &st);
	diag("%u fault threads by default", st.fault_threads);
	ok(st.fault_threads > 1, "several fault threads by default (%u)",
	   st.fault_threads);

	took = fault_during_stall(path, &right);
	ok(right, "default: both faults read the file");
	ok(took < STALL_MS / 2000.0, "default: a miss is served in %.3f s "
	   "while another fault's handling sleeps %d ms (under %.1f s)",
	   took, STALL_MS, STALL_MS / 2000.0);

	setenv("FNMAP_FAULT_THREADS", "1", 1);
	took = fault_during_stall(path, &right);
	fnmap_stats(NULL, &st);
	ok(right && st.fault_threads == 1, "one fault thread: both faults "
	   "read the file (%u thread)", st.fault_threads);
	ok(took >= STALL_MS / 2000.0, "one fault thread: the miss waited "
	   "%.3f s behind the stalled handling (the single thread's "
	   "queueing)", took);
	unsetenv("FNMAP_FAULT_THREADS");

	test_no_handoff(sweep, 16 * MiB, 0);
	test_no_handoff(sweep, 16 * MiB, FNMAP_CFG_HANDOFF);

	fnmap_shutdown();
	test_cleanup();
	return tap_done();
}
