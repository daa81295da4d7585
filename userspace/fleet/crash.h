/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A power loss in the middle of a fleet run (--crash-at): the fnblk device
 * behind a raw target crashes, losing what was not durable; the jobs die
 * with it; then each job's region is read back to see which checkpoint it
 * holds, told apart by the stamp at the start of every 4 KiB block of a
 * checkpoint (its job and cycle).
 */
#ifndef FLEET_CRASH_H
#define FLEET_CRASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/events.h"

#define CKPT_BLOCK	4096

/* Stamp every whole block of buf (len bytes) as job's checkpoint cycle. */
void ckpt_stamp(char *buf, uint64_t len, unsigned int job, uint64_t cycle);

/* What a job's region holds after the crash. */
enum crash_verdict {
	CRASH_KEPT,		/* its last completed checkpoint (or a newer one) */
	CRASH_TORN,		/* partly a checkpoint being written at the crash */
	CRASH_LOST,		/* older than its last completed checkpoint */
	CRASH_EMPTY,		/* nothing was completed, nothing is there */
};

struct crash_job {
	int64_t done;		/* last cycle completed before the crash, -1 */
	int64_t lo, hi;		/* cycles found in its blocks; lo > hi: none */
	uint64_t blocks, unstamped;
	enum crash_verdict verdict;
};

/* The fnblk device (fnblkN) behind a raw target; 0 or -1 with err. */
int crash_device(const char *target, char *name, size_t len, char *err,
		 size_t errlen);
/* Crash it now; 0 or -1 with err. */
int crash_now(const char *name, char *err, size_t errlen);
/*
 * Read back each job's region of target (job j at base + j * region,
 * sizes[j] bytes) and judge it against the writes ev completed before
 * crash_ns. The device comes back once every job has closed it: wait up
 * to wait_ns.
 */
int crash_verify(const char *target, unsigned int jobs, uint64_t base,
		 uint64_t region,
		 const uint64_t *sizes, const struct fnblk_events *ev,
		 uint64_t crash_ns, uint64_t wait_ns, struct crash_job *out,
		 char *err, size_t errlen);
const char *crash_verdict_name(enum crash_verdict v);
/*
 * Print the verdicts, in JSON as "crash": {...} inside the caller's
 * object; returns how many jobs lost a checkpoint they had completed.
 */
unsigned int crash_report(const struct crash_job *jobs, unsigned int nr,
			  uint64_t crash_at_ns, bool durable);

#endif /* FLEET_CRASH_H */
