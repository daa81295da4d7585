// SPDX-License-Identifier: GPL-2.0
/*
 * Compute phases (see compute.h). Under a cap the rate can change at any
 * time another job starts or stops computing, so progress is integrated in
 * steps no longer than step_ns, each at the rate read when it began; the
 * last step is cut to land on the remaining work exactly.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "compute.h"
#include "../lib/fleet.h"

const char *compute_mode_name(unsigned int m)
{
	static const char *const names[] = {
		[COMPUTE_SLEEP] = "sleep", [COMPUTE_SPIN] = "spin",
	};

	return m < sizeof(names) / sizeof(names[0]) ? names[m] : NULL;
}

const char *compute_mode_help(unsigned int m)
{
	return m == COMPUTE_SPIN ? "busy on a CPU, as a real computation" :
	       "sleep, leaving the CPUs to the others";
}

struct compute_shared *compute_shared_create(void)
{
	struct compute_shared *sh;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return NULL;
	atomic_init(&sh->computing, 0);
	return sh;
}

void compute_shared_destroy(struct compute_shared *sh)
{
	if (sh)
		munmap(sh, sizeof(*sh));
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void wait_until_ns(enum compute_mode mode, uint64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ULL,
			       .tv_nsec = t % 1000000000ULL };

	if (mode == COMPUTE_SPIN) {
		while (now_ns() < t)
			;
		return;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

bool compute_run(const struct compute_opts *o, struct compute_shared *sh,
		 uint64_t work_ns, uint64_t deadline)
{
	uint64_t t = now_ns(), end;
	double done = 0;

	if (o->power_cap <= 0 || !sh) {
		end = t + work_ns;
		if (deadline && deadline < end) {
			wait_until_ns(o->mode, deadline);
			return false;
		}
		wait_until_ns(o->mode, end);
		return true;
	}
	atomic_fetch_add(&sh->computing, 1);
	while (done < work_ns) {
		double rate = fleet_power_rate(o->power_cap,
					       atomic_load(&sh->computing));
		uint64_t need = (uint64_t)ceil((work_ns - done) / rate);
		uint64_t step = min_u64(o->step_ns, need), t2;

		if (deadline && t + step > deadline)
			step = deadline > t ? deadline - t : 0;
		wait_until_ns(o->mode, t + step);
		t2 = now_ns();
		done += (t2 - t) * rate;
		t = t2;
		if (deadline && t >= deadline && done < work_ns)
			break;
	}
	atomic_fetch_sub(&sh->computing, 1);
	return done >= work_ns;
}
