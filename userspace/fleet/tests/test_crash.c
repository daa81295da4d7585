// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of what --crash-at reads back (userspace/fleet/crash.c): each
 * job's region in a file, stamped as checkpoints of given cycles, judged
 * against the writes completed before the crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../crash.h"
#include "tap.h"

#define REGION	(4 * CKPT_BLOCK)

/*
 * Blocks of job's region, the regions from base, stamped with cycles[]
 * (-1: left unwritten).
 */
static void put_job_at(FILE *f, long base, unsigned int job, const int *cycles)
{
	char block[CKPT_BLOCK];
	int b;

	for (b = 0; b < 4; b++) {
		memset(block, 0, sizeof(block));
		if (cycles[b] >= 0)
			ckpt_stamp(block, sizeof(block), job, (uint64_t)cycles[b]);
		fseek(f, base + (long)(job * REGION + b * CKPT_BLOCK), SEEK_SET);
		fwrite(block, 1, sizeof(block), f);
	}
}

static void put_job(FILE *f, unsigned int job, const int *cycles)
{
	put_job_at(f, 0, job, cycles);
}

/* --part: a fleet whose regions start at base reads them there. */
static void test_base(void)
{
	static const int kept[4] = { 2, 2, 2, 2 };
	static const struct fnblk_event ev[] = { { 0, 2, 100, 200, REGION } };
	struct fnblk_events e = { .ev = (struct fnblk_event *)ev, .nr = 1 };
	uint64_t sizes[1] = { REGION };
	char path[] = "/tmp/fnblk-crash-XXXXXX", err[256];
	struct crash_job c[1];
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	TAP_OK(f != NULL, "temporary target for a part");
	if (!f)
		return;
	put_job_at(f, 3 * REGION, 0, kept);
	fclose(f);
	TAP_OK(!crash_verify(path, 1, 3 * REGION, REGION, sizes, &e, 1000, 0,
			     c, err, sizeof(err)), "read back a part's region");
	TAP_EQ_U(c[0].verdict, CRASH_KEPT, "at its base: kept");
	TAP_OK(!crash_verify(path, 1, 0, REGION, sizes, &e, 1000, 0, c, err,
			     sizeof(err)), "read back the target's first region");
	TAP_EQ_U(c[0].verdict, CRASH_LOST,
		 "read where it did not write: its checkpoint is not there");
	unlink(path);
}

int main(void)
{
	static const int blocks[5][4] = {
		{ 5, 5, 5, 5 },		/* job 0: its last, done 5 */
		{ 6, 6, 5, 5 },		/* job 1: cycle 6 half written */
		{ 3, 3, 3, 3 },		/* job 2: older than done 5 */
		{ -1, -1, -1, -1 },	/* job 3: never completed a write */
		{ 5, 5, -1, -1 },	/* job 4: done 5, half of it gone */
	};
	static const struct fnblk_event ev[] = {
		{ 0, 5, 100, 200, REGION }, { 1, 5, 100, 200, REGION },
		{ 2, 5, 100, 200, REGION }, { 4, 5, 100, 200, REGION },
		/* ended after the crash at 1000: not completed before it */
		{ 0, 6, 900, 1100, REGION },
	};
	struct fnblk_events e = { .ev = (struct fnblk_event *)ev, .nr = 5 };
	uint64_t sizes[5] = { REGION, REGION, REGION, REGION, REGION };
	char path[] = "/tmp/fnblk-crash-XXXXXX", err[256];
	struct crash_job c[5];
	unsigned int j;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	printf("TAP version 13\n");
	TAP_OK(f != NULL, "temporary target");
	if (!f)
		return 1;
	for (j = 0; j < 5; j++)
		put_job(f, j, blocks[j]);
	fclose(f);
	TAP_OK(!crash_verify(path, 5, 0, REGION, sizes, &e, 1000, 0, c, err,
			     sizeof(err)), "read back every region");
	TAP_EQ_U(c[0].verdict, CRASH_KEPT, "the last completed checkpoint: kept");
	TAP_EQ_U(c[0].done, 5, "a write that ended after the crash is not done");
	TAP_EQ_U(c[1].verdict, CRASH_TORN, "half the next one over it: torn");
	TAP_EQ_U(c[1].lo, 5, "torn: lowest cycle found");
	TAP_EQ_U(c[1].hi, 6, "torn: highest cycle found");
	TAP_EQ_U(c[2].verdict, CRASH_LOST, "an older checkpoint: lost");
	TAP_EQ_U(c[3].verdict, CRASH_EMPTY, "nothing written: empty");
	TAP_EQ_U(c[4].verdict, CRASH_LOST, "part of the last one gone: lost");
	TAP_EQ_U(c[4].unstamped, 2, "blocks without a stamp are counted");
	unlink(path);
	test_base();
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
