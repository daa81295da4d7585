/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The n(t) record of a simulated run (Documentation/events-format.rst):
 * one "t_ns,n" row each time n changes. Changes at one instant collapse
 * into the last, so a user that leaves and rejoins at t leaves no row.
 */
#ifndef FNBLK_SIM_NTRACE_H
#define FNBLK_SIM_NTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ntrace {
	FILE *f;
	uint64_t t;		/* time of the change not yet written */
	unsigned int n;
	unsigned int written_n;	/* n of the last row written */
	bool held, any;
};

/* Start a record on f (header lines), with n = 0 at time 0. */
void ntrace_open(struct ntrace *nt, FILE *f);
/* n became n at t (t never decreases). */
void ntrace_change(struct ntrace *nt, uint64_t t, unsigned int n);
/* Write what is held; returns 0, or -1 if f reported an error. */
int ntrace_close(struct ntrace *nt);

#endif /* FNBLK_SIM_NTRACE_H */
