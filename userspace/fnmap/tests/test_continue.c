// SPDX-License-Identifier: GPL-2.0
/*
 * Zero-copy fills (FNMAP_CFG_CONTINUE): a read-only mapping's region is a
 * shared memfd mapping, reads land in the memfd's pages and
 * UFFDIO_CONTINUE maps them (Documentation/fnmap.rst).
 *
 * What must hold:
 *  - read-only mappings fill that way (fill_method "continue", no staging
 *    buffer ever), writable ones keep UFFDIO_COPY;
 *  - every word read is the file's, with many threads, evictions and
 *    several block sizes;
 *  - a page is mapped only once its read has completed. While a read is
 *    landing its pages already exist in the memfd, so a thread touching
 *    one takes a minor fault, and mapping it then would show what the
 *    read has not yet written. This program's preadv() (which the
 *    statically linked runtime calls with FNMAP_CFG_PSYNC) fills every
 *    buffer with a wrong pattern first and sleeps before the real read:
 *    a reader that sees the pattern saw a page mapped too early;
 *  - a page the region lost while the memfd keeps it (the program's own
 *    MADV_DONTNEED) is mapped again, not read again, and no thread waits
 *    for ever on it;
 *  - evicting gives the memory back (the memfd's pages are punched out).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#include "fnmap_test.h"

#define MiB	(1ULL << 20)
#define SEED	23
#define BAD	0x5a5a5a5a5a5a5a5aULL

static atomic_int landing_delay_us;

/* glibc's prototype; the runtime's psync reads resolve here. */
ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off)
{
	int us = atomic_load(&landing_delay_us), i, k;

	if (us) {
		struct timespec ts = { 0, us * 1000L };

		for (i = 0; i < n; i++) {
			uint64_t *w = iov[i].iov_base;

			for (k = 0; k < (int)(iov[i].iov_len / 8); k++)
				w[k] = BAD;
		}
		nanosleep(&ts, NULL);
	}
	return syscall(SYS_preadv, fd, iov, n, (long)off, (long)(off >> 32));
}

/* Blocks the memfd behind m's region holds, in bytes (st_blocks of the
 * descriptor named "memfd:fnmap"), or -1. */
static long long memfd_bytes(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long long bytes = -1;

	while (d && (e = readdir(d))) {
		char path[300], target[300];
		struct stat st;
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (strncmp(target, "/memfd:fnmap", 12) || stat(path, &st))
			continue;
		bytes = (bytes < 0 ? 0 : bytes) + (long long)st.st_blocks * 512;
	}
	if (d)
		closedir(d);
	return bytes;
}

static struct fnmap *open_or_bail(const char *path, int flags,
				  uint64_t bs, enum fnmap_advice adv)
{
	struct fnmap_options o = { .block_size = bs, .advice = adv };
	struct fnmap *m = fnmap_open(path, flags, &o);

	if (!m) {
		printf("Bail out! fnmap_open: %s\n", fnmap_errmsg());
		exit(1);
	}
	return m;
}

struct reader {
	const char *base;
	uint64_t size, seed, bad;
	unsigned int id, nthreads;
	atomic_ullong *pages_read;	/* all the readers' pages so far */
};

/* Every word of the thread's stripe of pages, in a scattered order. */
static void *read_stripes(void *arg)
{
	struct reader *r = arg;
	uint64_t pages = r->size / 4096, i, p, off;

	for (i = 0; i < pages; i++) {
		p = (i * 7919 + r->id * 104729) % pages;
		if (p % r->nthreads != r->id)
			continue;
		for (off = p * 4096; off < (p + 1) * 4096; off += 8)
			r->bad += *(const volatile uint64_t *)(r->base + off) !=
				  word_at(off, r->seed);
		atomic_fetch_add(r->pages_read, 1);
	}
	return NULL;
}

/* nthreads readers over the whole mapping; wrong words in all. Readers
 * that read no page for WATCHDOG_S wait for ever (a lost kick or wake-up:
 * the whole run takes a second on the host): say so and stop. Readers
 * that are only slow (a debug kernel on a loaded host) are waited for,
 * and how long they took is printed. */
#define WATCHDOG_S	120

static double seconds_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) +
	       (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static uint64_t read_all(const char *base, uint64_t size, unsigned int n)
{
	struct timespec start, slice;
	double now, last_change = 0, longest_idle = 0;
	unsigned long long seen = 0, now_read;
	atomic_ullong pages_read = 0;
	struct reader r[16];
	pthread_t t[16];
	uint64_t bad = 0;
	unsigned int i;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < n; i++) {
		r[i] = (struct reader){ base, size, SEED, 0, i, n, &pages_read };
		pthread_create(&t[i], NULL, read_stripes, &r[i]);
	}
	for (i = 0; i < n; ) {
		clock_gettime(CLOCK_REALTIME, &slice);
		slice.tv_sec += 1;
		if (!pthread_timedjoin_np(t[i], NULL, &slice)) {
			bad += r[i].bad;
			i++;
			continue;
		}
		now_read = atomic_load(&pages_read);
		now = seconds_since(&start);
		if (now_read != seen) {
			if (now - last_change > longest_idle)
				longest_idle = now - last_change;
			seen = now_read;
			last_change = now;
		} else if (now - last_change >= WATCHDOG_S) {
			ok(0, "%u readers: no page read for %d s (%llu of %llu "
			   "pages read in %.0f s)", n, WATCHDOG_S, seen,
			   (unsigned long long)(size / 4096), now);
			fflush(stdout);
			_exit(1);
		}
	}
	diag("%u readers over %llu KiB: %.1f s (longest wait for a page "
	     "about %.0f s)", n, (unsigned long long)size >> 10,
	     seconds_since(&start), longest_idle);
	return bad;
}

static void test_methods(const char *path)
{
	struct fnmap_stats st;
	struct fnmap *m;

	runtime_with(32 * MiB, 4, 8, FNMAP_CFG_CONTINUE);
	m = open_or_bail(path, O_RDONLY, 64 << 10, FNMAP_ADV_NORMAL);
	fnmap_stats(m, &st);
	if (strcmp(st.fill_method, "continue")) {
		printf("1..0 # SKIP no zero-copy fills here (fills by %s: "
		       "the kernel lacks minor faults on shmem?)\n",
		       st.fill_method);
		fnmap_shutdown();
		test_cleanup();
		exit(0);
	}
	ok(1, "a read-only mapping fills by UFFDIO_CONTINUE");
	ok(memfd_bytes() == 0, "its memfd holds nothing before a read "
	   "(%lld bytes)", memfd_bytes());
	fnmap_close(m);
	m = open_or_bail(path, O_RDWR, 64 << 10, FNMAP_ADV_NORMAL);
	fnmap_stats(m, &st);
	ok(!strcmp(st.fill_method, "copy"), "a writable mapping still "
	   "copies (fills by %s)", st.fill_method);
	fnmap_close(m);
}

/*
 * Threads over the file, budgets above and far below it, block sizes;
 * zero-copy (extra FNMAP_CFG_CONTINUE), or copying as a reference
 * (extra 0: the eviction cases only, the VM's time is short). 16 threads on 256 KiB blocks under a 4 MiB budget once
 * hung both ways: an admission refused for a block larger than the
 * evictor's headroom (a sixteenth of the capacity) was never owed a
 * kick, so every channel slept with reads queued.
 */
static void test_reads(const char *path, uint64_t size, unsigned int extra)
{
	static const struct {
		uint64_t budget, bs;
		unsigned int threads, flags;
		bool reference;		/* run copying too */
	} cases[] = {
		{ 64 * MiB, 64 << 10, 1, 0, false },
		{ 64 * MiB, 64 << 10, 8, 0, false },
		{ 2 * MiB, 64 << 10, 8, 0, true },
		{ 4 * MiB, 256 << 10, 16, 0, true },
		{ 8 * MiB, 2 << 20, 4, 0, false },
		{ 2 * MiB, 64 << 10, 8, FNMAP_CFG_HANDOFF, false },
		{ 2 * MiB, 128 << 10, 8, FNMAP_CFG_PSYNC, false },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fnmap_stats st;
		struct fnmap *m;
		uint64_t bad;

		if (!extra && !cases[i].reference)
			continue;

		runtime_with(cases[i].budget, 4, 8, extra | cases[i].flags);
		m = open_or_bail(path, O_RDONLY, cases[i].bs,
				 FNMAP_ADV_NORMAL);
		bad = read_all(fnmap_addr(m), size, cases[i].threads);
		fnmap_stats(m, &st);
		/* Evictions are certain only where the capacity plus the
		 * blocks the threads may hold (two each) is below the file. */
		ok(!bad && st.fills && (!extra || !st.staging) &&
		   (cases[i].budget + 2ULL * cases[i].threads * cases[i].bs >=
		    size || st.evictions),
		   "fills by %s, %u threads, %llu KiB blocks, budget %llu MiB, "
		   "flags %#x: %llu wrong words, %llu fills, %llu evictions, "
		   "staging %llu bytes", st.fill_method, cases[i].threads,
		   (unsigned long long)cases[i].bs >> 10,
		   (unsigned long long)cases[i].budget >> 20, cases[i].flags,
		   (unsigned long long)bad, (unsigned long long)st.fills,
		   (unsigned long long)st.evictions,
		   (unsigned long long)st.staging);
		fnmap_close(m);
	}
}

/* Reads land slowly (the wrong pattern first): readers on every page. */
static void test_landing(const char *path, uint64_t size)
{
	struct fnmap_stats st;
	struct fnmap *m;
	uint64_t bad;

	runtime_with(64 * MiB, 2, 1, FNMAP_CFG_CONTINUE | FNMAP_CFG_PSYNC);
	m = open_or_bail(path, O_RDONLY, 256 << 10, FNMAP_ADV_RANDOM);
	atomic_store(&landing_delay_us, 2000);
	bad = read_all(fnmap_addr(m), size / 4, 16);
	atomic_store(&landing_delay_us, 0);
	fnmap_stats(m, &st);
	ok(!bad && st.faults_joined, "16 threads touching blocks whose reads "
	   "land 2 ms after their pages exist: %llu wrong words (%llu faults "
	   "joined a read in flight)", (unsigned long long)bad,
	   (unsigned long long)st.faults_joined);
	fnmap_close(m);
}

struct toucher {
	const volatile uint64_t *p;
	uint64_t got;
	atomic_bool done;
};

static void *touch_one(void *arg)
{
	struct toucher *t = arg;

	t->got = *t->p;
	atomic_store(&t->done, true);
	return NULL;
}

/* The region loses a resident page; the memfd keeps it. */
static void test_lost_entry(const char *path)
{
	struct toucher t = { 0 };
	struct fnmap_stats a, b;
	struct fnmap *m;
	const char *base;
	pthread_t th;
	int i;

	runtime_with(64 * MiB, 4, 8, FNMAP_CFG_CONTINUE);
	m = open_or_bail(path, O_RDONLY, 64 << 10, FNMAP_ADV_RANDOM);
	base = fnmap_addr(m);
	ok(*(const volatile uint64_t *)(base + 8192) == word_at(8192, SEED),
	   "first read of block 0");
	fnmap_stats(m, &a);
	if (madvise((void *)(base + 8192), 4096, MADV_DONTNEED))
		diag("madvise: %s", strerror(errno));
	t.p = (const volatile uint64_t *)(base + 8192);
	pthread_create(&th, NULL, touch_one, &t);
	for (i = 0; i < 5000 && !atomic_load(&t.done); i++)
		usleep(1000);
	if (!atomic_load(&t.done)) {
		ok(0, "a page dropped by MADV_DONTNEED: the reader still "
		   "waits after 5 s");
		fflush(stdout);
		_exit(1);
	}
	pthread_join(th, NULL);
	fnmap_stats(m, &b);
	ok(t.got == word_at(8192, SEED) && b.fills == a.fills &&
	   b.faults > a.faults, "a page dropped by MADV_DONTNEED is mapped "
	   "again from the memfd: right word, %llu fault(s), %llu new fills",
	   (unsigned long long)(b.faults - a.faults),
	   (unsigned long long)(b.fills - a.fills));
	fnmap_close(m);
}

/* Evictions and DONTNEED punch the memfd. */
static void test_memory(const char *path, uint64_t size)
{
	struct fnmap *m;
	long long full, after;

	runtime_with(64 * MiB, 4, 8, FNMAP_CFG_CONTINUE | FNMAP_CFG_NO_GROWTH);
	m = open_or_bail(path, O_RDONLY, 64 << 10, FNMAP_ADV_SEQUENTIAL);
	read_all(fnmap_addr(m), size, 4);
	full = memfd_bytes();
	fnmap_advise(m, NULL, 0, FNMAP_ADV_DONTNEED);
	after = memfd_bytes();
	ok(full >= (long long)size && after == 0, "the memfd holds the "
	   "file's %llu bytes once read (%lld), none after DONTNEED (%lld)",
	   (unsigned long long)size, full, after);
	ok(read_all(fnmap_addr(m), size, 4) == 0, "and reads right again");
	fnmap_close(m);

	runtime_with(4 * MiB, 4, 8, FNMAP_CFG_CONTINUE | FNMAP_CFG_NO_GROWTH);
	m = open_or_bail(path, O_RDONLY, 64 << 10, FNMAP_ADV_RANDOM);
	read_all(fnmap_addr(m), size, 4);
	after = memfd_bytes();
	ok(after > 0 && after <= 8 * (long long)MiB, "a 4 MiB budget over "
	   "%llu MiB: the memfd holds %lld KiB at the end (evicted blocks "
	   "punched out)", (unsigned long long)size >> 20, after >> 10);
	fnmap_close(m);
	ok(memfd_bytes() < 0, "closing releases the memfd");
}

int main(void)
{
	const char *path = test_path("continue.dat");
	uint64_t size = 16 * MiB;

	make_file(path, size, SEED);
	runtime_or_skip(NULL);

	test_methods(path);
	test_reads(path, size, FNMAP_CFG_CONTINUE);
	test_reads(path, size, 0);
	test_landing(path, size);
	test_lost_entry(path);
	test_memory(path, size);

	fnmap_shutdown();
	test_cleanup();
	return tap_done();
}
