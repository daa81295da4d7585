/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulator's discrete-event loop: a fleet of checkpointing jobs on one
 * simulated fnblk device, in simulated ns from 0.
 *
 * The device is the module's own scheduler core (module/fnblk_sched.c), so
 * the simulation serves requests exactly as the kernel does; the loop only
 * adds what the kernel gets from user space: jobs that compute, then write
 * their checkpoint as requests of io.bs bytes kept io.qd deep.
 *
 * Job j begins at start_ns(j); cycle c is compute_ns(j, c) of computing
 * followed by a write of size(j, c) bytes. While m jobs compute, each
 * progresses at min(1, P/m) (P = power_cap; 0 means no cap).
 */
#ifndef FNBLK_SIM_ENGINE_H
#define FNBLK_SIM_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "module/fnblk_sched.h"
#include "events.h"

/* What the jobs do: a pure description, asked as the run goes. */
struct sim_workload {
	unsigned int jobs;
	uint64_t cycles;	/* writes per job; 0 = until duration_ns */
	uint64_t duration_ns;	/* stop then; 0 = when every job is done */
	double power_cap;	/* P in jobs' worth of power; 0 = none */
	void *ctx;
	uint64_t (*start_ns)(void *ctx, unsigned int job);
	uint64_t (*compute_ns)(void *ctx, unsigned int job, uint64_t cycle);
	uint64_t (*size)(void *ctx, unsigned int job, uint64_t cycle);
};

/*
 * How a job writes its checkpoint, and the path its requests take to the
 * device. The path is a processor shared equally by every request in it
 * (all jobs'), in front of the device: a request needs
 * bytes/path_bw + 1/path_iops seconds of it alone, and k requests in it
 * each get 1/k. Both 0: no path, requests reach the device at once.
 */
struct sim_io {
	uint64_t bs;		/* request size; 0 = the whole checkpoint */
	unsigned int qd;	/* requests in flight per job, >= 1 */
	uint64_t path_bw;	/* bytes/s of the path's capacity; 0 = none */
	uint64_t path_iops;	/* requests/s of it; 0 = none */
	/*
	 * A request completes only when the device has no request left in
	 * flight, any job's: nbd-server's sync export, where each write's
	 * fsync waits for every page of the device under writeback, any
	 * host's, so the hosts' completions wait for one another.
	 */
	bool drain;
};

/* ns of the path alone that a request of bytes needs (0: no path). */
double sim_path_work_ns(const struct sim_io *io, uint64_t bytes);

/* Where results go; either callback may be NULL. */
struct sim_sink {
	void *ctx;
	/* A checkpoint write finished. */
	void (*write)(void *ctx, const struct fnblk_event *ev);
	/* n changed at t (several calls with one t: the last one holds). */
	void (*n_change)(void *ctx, uint64_t t, unsigned int n);
};

struct sim_result {
	uint64_t events;	/* request completions + write starts + ends */
	uint64_t requests;	/* requests completed */
	uint64_t writes;	/* checkpoints completed */
	uint64_t end_ns;	/* simulated time at the end */
	uint32_t peak_active;	/* largest n */
	uint64_t n_time_sum;	/* integral of n dt, ns */
	uint64_t n_hist[FNBLK_NHIST_BINS];	/* ns at each n (core bins) */
};

/*
 * Run the fleet to the end. Returns 0, or -1 with a message in err (bad
 * parameters, out of memory).
 */
int sim_run(const struct fnblk_params *dev, const struct sim_io *io,
	    const struct sim_workload *w, const struct sim_sink *sink,
	    struct sim_result *res, char *err, size_t errlen);

/*
 * Time one job alone takes to write size bytes on this device and path:
 * the denominator of a write slowdown. 0 if the parameters are bad.
 */
uint64_t sim_solo_write_ns(const struct fnblk_params *dev,
			   const struct sim_io *io, uint64_t size);

#endif /* FNBLK_SIM_ENGINE_H */
