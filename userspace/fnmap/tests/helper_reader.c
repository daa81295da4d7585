// SPDX-License-Identifier: GPL-2.0
/*
 * A program built on libfnmap for the VM tests: THREADS threads read (and
 * with -w also write) random 8-byte words of FILE through fnmap for
 * SECONDS, checking what they read against the pattern of tests/
 * fnmap_test.h (seed 1; -n: do not check; -m MIB: make FILE with that
 * pattern first, MIB MiB; -s STOP: stop earlier, at the first sample
 * after the file STOP appears, so that a test can end the run on an event
 * rather than at a guessed time). Every 250 ms it prints
 * the cache's state, and at the end its counters:
 *
 *   sample t_ms=... budget_now=... capacity=... fills=... resident=...
 *   key value          (one per line: budget, shrinks, wrong, ...)
 *
 * The runtime takes its settings from the FNMAP_* environment variables.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>

#include "fnmap_test.h"

static char *base;
static uint64_t words;
static bool writes, check = true;
static const char *stop_file;
static uint64_t make_mib;
static _Atomic bool stop;
static _Atomic uint64_t wrong, accesses;

static void *worker(void *arg)
{
	uint64_t s = (uintptr_t)arg * 0x9E3779B97F4A7C15ULL + 1, n = 0;

	while (!atomic_load(&stop)) {
		uint64_t w;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		w = s % words;
		if (writes && (s >> 60) == 0)
			/* The same value back: the page becomes dirty. */
			*(volatile uint64_t *)(base + w * 8) = word_at(w * 8, 1);
		else if (*(volatile uint64_t *)(base + w * 8) != word_at(w * 8, 1) &&
			 check)
			atomic_fetch_add(&wrong, 1);
		n++;
	}
	atomic_fetch_add(&accesses, n);
	return NULL;
}

int main(int argc, char **argv)
{
	struct fnmap_stats st;
	struct timespec t0, t;
	pthread_t th[64];
	struct fnmap *m;
	unsigned int threads, i;
	double seconds, el;
	int opt;

	while ((opt = getopt(argc, argv, "wnm:s:")) != -1) {
		if (opt == 'w')
			writes = true;
		else if (opt == 'n')
			check = false;
		else if (opt == 'm')
			make_mib = strtoull(optarg, NULL, 10);
		else if (opt == 's')
			stop_file = optarg;
		else
			return 2;
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: helper_reader [-w] [-n] [-m MIB] [-s STOP] FILE SECONDS THREADS\n");
		return 2;
	}
	seconds = atof(argv[optind + 1]);
	threads = (unsigned int)atoi(argv[optind + 2]);
	if (threads < 1 || threads > 64)
		return 2;
	if (make_mib)
		make_file(argv[optind], make_mib << 20, 1);
	m = fnmap_open(argv[optind], writes ? O_RDWR : O_RDONLY, NULL);
	if (!m) {
		fprintf(stderr, "helper_reader: %s\n", fnmap_errmsg());
		return 1;
	}
	base = fnmap_addr(m);
	words = fnmap_length(m) / 8 - 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	do {
		usleep(250000);
		clock_gettime(CLOCK_MONOTONIC, &t);
		el = (double)(t.tv_sec - t0.tv_sec) +
		     (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
		fnmap_stats(m, &st);
		printf("sample t_ms=%.0f budget_now=%llu capacity=%llu "
		       "fills=%llu resident=%llu\n", el * 1000,
		       (unsigned long long)st.budget_now,
		       (unsigned long long)st.capacity,
		       (unsigned long long)st.fills,
		       (unsigned long long)st.resident);
		fflush(stdout);
	} while (el < seconds && !(stop_file && !access(stop_file, F_OK)));
	atomic_store(&stop, true);
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	if (fnmap_sync(m, NULL, 0, 0))
		fprintf(stderr, "helper_reader: sync: %s\n", fnmap_errmsg());
	fnmap_stats(m, &st);
	printf("budget %llu\nbudget_now %llu\nresident_max %llu\nshrinks %llu\n"
	       "pressure_events %llu\nevictions %llu\nfills %llu\nwrong %llu\n"
	       "accesses %llu\nsource %s\ndirect %u\n",
	       (unsigned long long)st.budget, (unsigned long long)st.budget_now,
	       (unsigned long long)st.resident_max,
	       (unsigned long long)st.shrinks,
	       (unsigned long long)st.pressure_events,
	       (unsigned long long)st.evictions, (unsigned long long)st.fills,
	       (unsigned long long)atomic_load(&wrong),
	       (unsigned long long)atomic_load(&accesses), st.uffd_source,
	       st.direct_io);
	return fnmap_close(m) || atomic_load(&wrong) ? 1 : 0;
}
