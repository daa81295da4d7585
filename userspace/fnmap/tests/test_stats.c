// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics are never behind what a thread has read: once an access
 * to a block returns, fnmap_stats() counts that block's fill. A read-ahead
 * block becomes readable at its UFFDIO_COPY, before any wake-up, so a
 * thread may read it while the runtime is still between the copy and its
 * bookkeeping; CI once saw "255 blocks" after a sequential read of 256.
 *
 * This program widens that window on purpose: its own ioctl() (which the
 * statically linked runtime calls) sleeps after every successful
 * UFFDIO_COPY. A runtime that counted a fill after the copy would show
 * the gap at once; one that counts it first never can.
 */
#include <linux/userfaultfd.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>

#include "fnmap_test.h"

#define MiB	(1ULL << 20)
#define SEED	11
#define BLOCK	(64 << 10)

static atomic_int copy_delay_us;

/* glibc's prototype; the runtime's calls resolve here, not to libc. */
int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	long ret;
	int us;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	ret = syscall(SYS_ioctl, fd, req, arg);
	us = atomic_load(&copy_delay_us);
	if (req == UFFDIO_COPY && !ret && us) {
		struct timespec ts = { 0, us * 1000L };

		nanosleep(&ts, NULL);
	}
	return (int)ret;
}

/* Reads the file's first size bytes in order, a word per page, and after
 * each block compares the fills counted with the blocks read so far.
 * Returns the blocks at which the count was behind; *bad the wrong words. */
static unsigned int behind_while_reading(const char *path, uint64_t size,
					 uint64_t *bad, uint64_t *worst)
{
	struct fnmap_options o = { .block_size = BLOCK,
				   .advice = FNMAP_ADV_SEQUENTIAL };
	struct fnmap_stats st;
	unsigned int behind = 0;
	struct fnmap *m;
	uint64_t off, blk;

	runtime_with(64 * MiB, 4, 8, 0);
	m = fnmap_open(path, O_RDONLY, &o);
	if (!m) {
		printf("Bail out! fnmap_open: %s\n", fnmap_errmsg());
		exit(1);
	}
	*bad = *worst = 0;
	for (blk = 0; blk < size / BLOCK; blk++) {
		for (off = blk * BLOCK; off < (blk + 1) * BLOCK; off += 4096)
			*bad += *(volatile uint64_t *)((char *)fnmap_addr(m) +
						       off) !=
				word_at(off, SEED);
		fnmap_stats(m, &st);
		if (st.fills < blk + 1) {
			behind++;
			if (blk + 1 - st.fills > *worst)
				*worst = blk + 1 - st.fills;
		}
	}
	fnmap_close(m);
	return behind;
}

int main(void)
{
	const char *path = test_path("stats.dat");
	uint64_t bad, worst;
	unsigned int behind;

	make_file(path, 8 * MiB, SEED);
	runtime_or_skip(NULL);

	behind = behind_while_reading(path, 8 * MiB, &bad, &worst);
	ok(!behind && !bad, "sequential read: fills never behind the blocks "
	   "read (%u blocks behind, by up to %llu; %llu wrong words)", behind,
	   (unsigned long long)worst, (unsigned long long)bad);

	/* 2 ms after every copy: read-ahead blocks sit readable, not yet
	 * accounted, for far longer than the reader needs to get to them. */
	atomic_store(&copy_delay_us, 2000);
	behind = behind_while_reading(path, 8 * MiB, &bad, &worst);
	atomic_store(&copy_delay_us, 0);
	ok(!behind && !bad, "with 2 ms between each copy and what follows it: "
	   "fills never behind (%u blocks behind, by up to %llu; %llu wrong "
	   "words)", behind, (unsigned long long)worst,
	   (unsigned long long)bad);

	fnmap_shutdown();
	test_cleanup();
	return tap_done();
}
