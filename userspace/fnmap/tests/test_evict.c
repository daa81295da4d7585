// SPDX-License-Identifier: GPL-2.0
/*
 * Eviction never drops a block a thread is using: one the thread faulted
 * on, and has not moved on from (two other blocks) or exited. A budget of
 * 2 MiB (32 blocks) and eight threads reading at random over 32 MiB keep
 * the evictor busy; meanwhile reader threads, each working on its own
 * block (and one on two blocks at once), check with mincore() on every
 * pass that every page of their blocks stayed mapped, and that the data
 * are right. When the readers exit, their blocks become evictable again.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "fnmap_test.h"

#define SIZE		(32ULL << 20)
#define BS		(64ULL << 10)
#define SEED		77
#define READERS		4
#define CHURNERS	8

static char *base;
static _Atomic bool stop;

struct reader {
	uint64_t blk[2];
	unsigned int nblk;
	_Atomic uint64_t passes;
	uint64_t dropped, wrong;
};

static bool resident(const char *p, size_t len)
{
	unsigned char v[BS / 4096];
	size_t i;

	if (mincore((void *)p, len, v))
		return false;
	for (i = 0; i < len / 4096; i++)
		if (!(v[i] & 1))
			return false;
	return true;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	unsigned int k;

	while (!atomic_load(&stop)) {
		for (k = 0; k < r->nblk; k++) {
			uint64_t off = r->blk[k] * BS, i;

			for (i = 0; i < BS; i += 512)
				if (*(volatile uint64_t *)(base + off + i) !=
				    word_at(off + i, SEED))
					r->wrong++;
			if (!resident(base + off, BS))
				r->dropped++;
		}
		r->passes++;
	}
	return NULL;
}

static void *churn_main(void *arg)
{
	uint64_t s = (uintptr_t)arg * 2654435761u + 1, sum = 0;

	while (!atomic_load(&stop)) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		sum += *(volatile uint64_t *)(base + (s % (SIZE / 8)) * 8);
	}
	return (void *)(uintptr_t)sum;
}

static uint64_t passes_of(struct reader *r)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < READERS; i++)
		n += atomic_load(&r[i].passes);
	return n;
}

/*
 * Let the churners run until the evictor has gone round many times while
 * the readers kept passing over their blocks (ten times what the checks
 * below ask), or for at most 3 s.
 */
static void churn(const struct fnmap *m, const struct fnmap_stats *st0,
		  struct reader *r)
{
	uint64_t p0 = passes_of(r);
	struct fnmap_stats st;
	unsigned int ms;

	for (ms = 0; ms < 3000; ms += 10) {
		usleep(10000);
		fnmap_stats(m, &st);
		if (st.evictions - st0->evictions > 1000 &&
		    passes_of(r) - p0 > 1000)
			break;
	}
}

int main(void)
{
	const char *path = test_path("evict.dat");
	struct fnmap_options o = { .block_size = BS, .advice = FNMAP_ADV_RANDOM };
	struct reader r[READERS];
	pthread_t rt[READERS], ct[CHURNERS];
	struct fnmap_stats st0, st;
	uint64_t dropped = 0, wrong = 0, passes = 0;
	struct fnmap *m;
	unsigned int i, tries;
	bool left = false;

	make_file(path, SIZE, SEED);
	runtime_with(2 << 20, 4, 8, 0);
	m = fnmap_open(path, O_RDONLY, &o);
	if (!m) {
		printf("Bail out! fnmap_open: %s\n", fnmap_errmsg());
		return 1;
	}
	base = fnmap_addr(m);
	/* Readers first: their first touch of their blocks is a fault. */
	for (i = 0; i < READERS; i++) {
		r[i] = (struct reader){ .blk = { 100 + 37 * i, 300 + 11 * i },
					.nblk = i == 0 ? 2 : 1 };
		pthread_create(&rt[i], NULL, reader_main, &r[i]);
	}
	for (i = 0; i < READERS; i++)
		while (!atomic_load(&r[i].passes))
			usleep(1000);
	for (i = 0; i < CHURNERS; i++)
		pthread_create(&ct[i], NULL, churn_main, (void *)(uintptr_t)(i + 1));
	fnmap_stats(m, &st0);
	churn(m, &st0, r);
	atomic_store(&stop, true);
	for (i = 0; i < READERS; i++) {
		pthread_join(rt[i], NULL);
		dropped += r[i].dropped;
		wrong += r[i].wrong;
		passes += r[i].passes;
	}
	for (i = 0; i < CHURNERS; i++)
		pthread_join(ct[i], NULL);
	fnmap_stats(m, &st);
	diag("%llu reader passes, %llu evictions meanwhile, resident max "
	     "%llu KiB", (unsigned long long)passes,
	     (unsigned long long)(st.evictions - st0.evictions),
	     (unsigned long long)st.resident_max >> 10);
	ok(st.evictions - st0.evictions > 100,
	   "the cache evicted all along (%llu evictions)",
	   (unsigned long long)(st.evictions - st0.evictions));
	ok(passes > 100, "readers made progress (%llu passes)",
	   (unsigned long long)passes);
	is_u64(dropped, 0, "no page of a block a thread used was dropped");
	is_u64(wrong, 0, "readers read the file's data");
	ok(r[0].passes > 0, "a thread working on two blocks kept both");

	/* The readers are gone: their blocks may leave once the fault
	 * thread notices (a sweep a second) and the clock comes round. */
	atomic_store(&stop, false);
	for (i = 0; i < CHURNERS; i++)
		pthread_create(&ct[i], NULL, churn_main, (void *)(uintptr_t)(i + 9));
	for (tries = 0; tries < 100 && !left; tries++) {
		usleep(100000);
		left = !resident(base + r[1].blk[0] * BS, BS);
	}
	atomic_store(&stop, true);
	for (i = 0; i < CHURNERS; i++)
		pthread_join(ct[i], NULL);
	ok(left, "a block stops being held once its thread exits");
	ok(!fnmap_close(m), "close");
	fnmap_shutdown();
	test_cleanup();
	return tap_done();
}
