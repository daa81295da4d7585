/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The store's bound on a run: the least time any runtime that maps pages
 * (kernel mmap, fnmap, anything with a memory interface) needs on this
 * store to read the pages the run's accesses touched and to write the
 * pages its updates changed, against the run's measured time.
 *
 * The run is replayed from its report: access k touches and updates
 * elements that depend only on k, the pattern and the seed (pattern.h),
 * and a run's accesses are 0, 1, ... up to the count it reports. The
 * store serves each request in (bytes + overhead) / (f(n) * bw) of its
 * time, requests in flight sharing it, so the least time is the least
 * demand over the fastest rate: every page read at least once (the run
 * starts with the matrices evicted), every changed page written, with
 * requests of up to max_request bytes each covering a run of pages, gaps
 * included where reading a gap costs less than a request's overhead
 * (the cover below is optimal). Latency is left out: it can be hidden by
 * requests in flight, so the bound holds for any depth.
 */
#ifndef MATRIX_BOUND_H
#define MATRIX_BOUND_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The store; from the report's device.config for an fnblk device. */
struct mx_store {
	uint64_t bw;		/* bytes/s for one user: f(1) = 1 */
	uint64_t overhead;	/* bytes of demand added to each request */
	uint64_t max_request;	/* largest request, bytes (a page multiple) */
	double rate_factor;	/* max f(k) over the run's 1..jobs users */
};

/* Least demand of requests covering the sorted distinct pages[0..n):
 * the cover's requests, bytes and demand in c. -1 if out of memory. */
struct mx_cover {
	uint64_t requests;
	uint64_t bytes;		/* pages and gaps read or written */
	uint64_t demand;	/* bytes + requests * overhead */
};

struct fnblk_fn;
/* The largest f(k), k = 1..users: the store's best rate over bw. */
double mx_fn_peak(const struct fnblk_fn *fn, unsigned int users);
/* Jobs of a report (each its own user of the store). */
unsigned int mx_report_jobs(const json_t *report);

int mx_cover_pages(const uint64_t *pages, size_t n, const struct mx_store *st,
		   struct mx_cover *c);

struct mx_bound {
	uint64_t accesses, elements, updates;
	uint64_t pages_read, pages_written;
	struct mx_cover per_page;	/* one request a page, read and write */
	struct mx_cover least;		/* the optimal covers of both */
	double per_page_s, least_s;	/* demand / (rate_factor * bw) */
	double measured_s;		/* run time + final sync */
	double device_s;		/* the device's own requests' demand */
};

/*
 * Replay the run of report (fnblk-matrix run -j) and bound it on store
 * st; st NULL: the report's fnblk device. -1 with why in err.
 */
int mx_bound_report(const json_t *report, const struct mx_store *st,
		    struct mx_bound *b, char *err, size_t errlen);

#endif /* MATRIX_BOUND_H */
