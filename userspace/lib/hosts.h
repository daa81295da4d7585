/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One run on several hosts (scripts/cluster): each client host's fleet
 * writes its own event file on its own clock. Merging them gives one
 * fleet whose jobs are numbered host by host (host 0's jobs first), with
 * every host's times moved onto the first host's clock, so the analysis
 * of one file applies to the whole cluster; and the hosts' own view:
 * how many hosts write at once.
 *
 * A host file's "# param clock_offset_ns=D" (signed ns, scripts/cluster
 * measures it) is added to its times. The merged set carries
 * "# param host_jobs=J0,J1,..." (jobs per host), so a merged file read
 * back still knows its hosts. Documentation/cluster.rst.
 */
#ifndef FNBLK_HOSTS_H
#define FNBLK_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"

#define FNBLK_HOSTS_MAX 4096

struct fnblk_hosts {
	unsigned int nr;
	unsigned int *first_job;	/* nr + 1: host h has jobs [first_job[h], first_job[h+1]) */
};

/*
 * Merge host files in[0..nr-1] (named in messages by names[k], or "host
 * K" when names is NULL) into out (initialised by the caller, empty)
 * and describe the hosts in h. Parameters every host has with the same
 * value are kept; those that differ (target, host) are dropped, except
 * the per-job ones (solo_ns.J, plan.J, and solo_ns, which becomes a
 * solo_ns.J per job) renumbered. start_ns is the earliest start. 0, or -1
 * with a message in err (a file without jobs, an offset that is not a
 * number or moves a time below 0, too many jobs, out of memory).
 */
int fnblk_hosts_merge(struct fnblk_events *out, struct fnblk_hosts *h,
		      const struct fnblk_events *in, const char *const *names,
		      unsigned int nr, char *err, size_t errlen);

/*
 * The hosts of a set that carries host_jobs (a merged file), for jobs
 * jobs. 0 (h->nr 0 when the set has no host_jobs), or -1 with err.
 */
int fnblk_hosts_from_params(const struct fnblk_events *e, unsigned int jobs,
			    struct fnblk_hosts *h, char *err, size_t errlen);

/* Host of a job, or h->nr if beyond the hosts' jobs. */
unsigned int fnblk_hosts_of_job(const struct fnblk_hosts *h, unsigned int job);

void fnblk_hosts_free(struct fnblk_hosts *h);

/* Per host: writes, bytes, time spent writing (sum over its writes). */
struct fnblk_host_stats {
	unsigned int jobs;
	uint64_t writes;
	uint64_t bytes;
	double write_ns;
};

/*
 * Hosts writing at once: busy_ns[k] is the time exactly k hosts had a
 * write in flight (k = 0..nr), over the writes of cycles >= skip (from
 * the first one's start to the last one's end), and per-host totals of
 * those writes in st (nr entries). Writes of jobs beyond the hosts are
 * ignored. 0, or -1 (out of memory).
 */
int fnblk_hosts_concurrency(const struct fnblk_events *e,
			    const struct fnblk_hosts *h, unsigned int skip,
			    double *busy_ns, struct fnblk_host_stats *st);

#endif /* FNBLK_HOSTS_H */
