/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory pressure and limits of the cgroup the process runs in (cgroup v2):
 * the ancestor whose memory.max/memory.high leaves the least headroom, a
 * PSI trigger on the process's own memory.pressure (or the system's), and
 * that ancestor's memory.events.
 */
#ifndef FNMAP_PRESSURE_H
#define FNMAP_PRESSURE_H

#include <poll.h>
#include <stdint.h>

#include "policy.h"

struct pressure;

/* NULL if neither a cgroup nor /proc/pressure is there to watch. */
struct pressure *pressure_open(void);
void pressure_close(struct pressure *p);
/* Descriptors to poll (POLLPRI); how many were written (<= max). */
int pressure_fds(struct pressure *p, struct pollfd *fds, int max);
/* Read usage, limit and whether a signal came (fds: what poll returned). */
void pressure_sample(struct pressure *p, const struct pollfd *fds, int n,
		     struct pressure_sample *s);
/* Bytes the process could still use: the limiting cgroup's headroom, else
 * MemAvailable. */
uint64_t pressure_available(struct pressure *p);
/* For fnmap_stats and tests: the limiting cgroup's directory, or "". */
const char *pressure_cgroup(struct pressure *p);

#endif /* FNMAP_PRESSURE_H */
