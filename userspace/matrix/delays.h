/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a thread's time went, from the kernel's delay accounting
 * (taskstats over generic netlink; needs CAP_NET_ADMIN, and
 * kernel.task_delayacct = 1 for the delays to be counted): time on a CPU,
 * waiting for one, waiting for block I/O (page faults and reads waiting
 * on their pages included), in direct reclaim, and on refaults of pages
 * evicted earlier (thrashing), plus the thread's own I/O bytes.
 */
#ifndef MATRIX_DELAYS_H
#define MATRIX_DELAYS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

struct mx_delays {
	bool valid;
	uint64_t span_ns;		/* wall time the counters cover */
	uint64_t run_ns;		/* on a CPU (schedstat: exact) */
	uint64_t runq_ns;		/* runnable, waiting for a CPU */
	uint64_t blkio_ns, blkio_count;
	uint64_t reclaim_ns;		/* direct reclaim (freepages) */
	uint64_t thrashing_ns;
	uint64_t swapin_ns;
	uint64_t read_bytes;		/* storage reads this thread caused */
	uint64_t write_bytes;
};

/* Is delay accounting on (kernel.task_delayacct)? -1 if unknown. */
int mx_delayacct_enabled(void);

/*
 * The calling thread's counters: time on a CPU and waiting for one from
 * /proc/thread-self/schedstat (nanoseconds, exact), the rest from
 * taskstats. Each thread calls it on its own: a netlink socket is opened
 * and closed per call. 0, or -1 (valid false) when either is unavailable.
 */
int mx_delays_self(struct mx_delays *d);
/*
 * after - before, field by field, over span_ns of wall time (valid only if
 * both are). A delay longer than the span is impossible: the kernel lost
 * the start of an interval (an io-wait wakeup without a recorded start
 * adds the whole uptime), so the result is then marked invalid and
 * *implausible set.
 */
void mx_delays_sub(struct mx_delays *out, const struct mx_delays *after,
		   const struct mx_delays *before, uint64_t span_ns,
		   bool *implausible);
void mx_delays_add(struct mx_delays *into, const struct mx_delays *d);
json_t *mx_delays_json(const struct mx_delays *d);
int mx_delays_from_json(struct mx_delays *d, const json_t *j);

#endif /* MATRIX_DELAYS_H */
