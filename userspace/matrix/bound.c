// SPDX-License-Identifier: GPL-2.0
/* The store's bound on a run (see bound.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/diag.h"
#include "bound.h"
#include "layout.h"
#include "pattern.h"
#include "module/fnblk_sched.h"

#define PAGE		4096u
#define MAX_USERS	4096u	/* key pid: f(n) searched up to this n */

/* best[j] - pages[j] * PAGE: the deque's order (may be negative). */
static int64_t key(const uint64_t *best, const uint64_t *pages, size_t j)
{
	return (int64_t)best[j] - (int64_t)(pages[j] * PAGE);
}

/*
 * Optimal cover by dynamic programming over the sorted pages: best[i] is
 * the least demand covering pages[0..i); the last request of that cover
 * runs from some pages[j] to pages[i-1], so
 *	best[i] = min_j best[j] + (pages[i-1] - pages[j] + 1) * PAGE + overhead
 * over the j whose run fits in max_request. The j enter in order and
 * leave in order, so a deque of candidates with increasing
 * best[j] - pages[j] * PAGE keeps it linear.
 */
int mx_cover_pages(const uint64_t *pages, size_t n, const struct mx_store *st,
		   struct mx_cover *c)
{
	uint64_t max_pages = st->max_request / PAGE;
	uint64_t *best = calloc(n + 1, sizeof(*best));
	size_t *from = calloc(n + 1, sizeof(*from));
	size_t *dq = calloc(n + 1, sizeof(*dq)), head = 0, tail = 0, i, lo = 0;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	if (!best || !from || !dq)
		goto out;
	ret = 0;
	if (!n)
		goto out;
	if (!max_pages)
		max_pages = 1;
	for (i = 1; i <= n; i++) {
		size_t j = i - 1;	/* a request may start at pages[i-1] */

		while (head < tail &&
		       key(best, pages, dq[tail - 1]) >= key(best, pages, j))
			tail--;
		dq[tail++] = j;
		while (pages[i - 1] - pages[lo] + 1 > max_pages)
			lo++;
		while (dq[head] < lo)
			head++;
		j = dq[head];
		best[i] = best[j] + (pages[i - 1] - pages[j] + 1) * PAGE +
			  st->overhead;
		from[i] = j;
	}
	c->demand = best[n];
	for (i = n; i; i = from[i]) {
		c->requests++;
		c->bytes += (pages[i - 1] - pages[from[i]] + 1) * PAGE;
	}
out:
	free(best);
	free(from);
	free(dq);
	return ret;
}

/* report.a.b.c as an integer (or a real); -1 if absent. */
static int get_num(const json_t *report, const char *path, double *v)
{
	char buf[128], *tok, *save;
	const json_t *o = report;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && o;
	     tok = strtok_r(NULL, ".", &save))
		o = json_object_get(o, tok);
	if (!json_is_number(o))
		return -1;
	*v = json_number_value(o);
	return 0;
}

/* Pages of one matrix: read, and written by updates. */
struct replay {
	const struct mx_shape *shape;
	struct mx_updates updates_left;
	uint64_t *read, *written;	/* bitmaps over the matrix's pages */
	uint64_t elements, updates;
};

static void set_range(uint64_t *bits, uint64_t first, uint64_t last)
{
	for (uint64_t p = first; p <= last; p++)
		bits[p / 64] |= 1ULL << (p % 64);
}

/* Page of element e of the segment, counted from the matrix's header. */
static uint64_t page_of(const struct replay *r, const struct mx_segment *s,
			uint64_t e)
{
	return (MX_HEADER_SIZE + (s->col * r->shape->rows + s->row + e) *
		MX_ELEM) / PAGE;
}

/* The pages a segment reads, and those its updates (the workers' own
 * iterator, pattern.h) write. */
static int replay_segment(void *arg, const struct mx_segment *s)
{
	struct replay *r = arg;

	set_range(r->read, page_of(r, s, 0), page_of(r, s, s->n - 1));
	r->elements += s->n;
	for (uint64_t e; mx_updates_next(&r->updates_left, s->n, &e);) {
		uint64_t p = page_of(r, s, e);

		set_range(r->written, p, p);
		r->updates++;
	}
	return 0;
}

/* The set bits of bits[0..npages) as a sorted list, offset by base. */
static size_t list_pages(const uint64_t *bits, uint64_t npages, uint64_t base,
			 uint64_t *out)
{
	size_t n = 0;

	for (uint64_t p = 0; p < npages; p++)
		if (bits[p / 64] & (1ULL << (p % 64)))
			out[n++] = base + p;
	return n;
}

static void add_cover(struct mx_cover *sum, const struct mx_cover *c)
{
	sum->requests += c->requests;
	sum->bytes += c->bytes;
	sum->demand += c->demand;
}

double mx_fn_peak(const struct fnblk_fn *fn, unsigned int users)
{
	double peak = 0;

	for (unsigned int k = 1; k <= users; k++) {
		double f = (double)fnblk_fn_value(fn, k) / FNBLK_FN_ONE;

		if (f > peak)
			peak = f;
	}
	return peak;
}

unsigned int mx_report_jobs(const json_t *report)
{
	return (unsigned int)json_array_size(json_object_get(report, "jobs"));
}

/* How many users the store can have seen: the device tells users apart
 * by process or cgroup (a job each), not at all, or by thread (any number:
 * runtimes and the kernel's write-back submit too). */
static unsigned int users_of(const json_t *cfg, unsigned int jobs)
{
	const char *key = json_string_value(json_object_get(cfg, "key"));

	if (key && !strcmp(key, "single"))
		return 1;
	if (key && !strcmp(key, "pid"))
		return MAX_USERS;
	return jobs;
}

/* The store of the report's fnblk device. */
static int report_store(const json_t *report, unsigned int jobs,
			struct mx_store *st, char *err, size_t errlen)
{
	const json_t *cfg = json_object_get(json_object_get(report, "device"),
					    "config");
	const char *spec = json_string_value(json_object_get(cfg, "fn")), *why;
	struct fnblk_fn fn;
	double bw, ov, kb;

	if (!cfg || get_num(cfg, "bw", &bw) || get_num(cfg, "overhead", &ov) || !spec)
		return fnblk_seterr(err, errlen, "the report has no fnblk device "
			    "configuration (device.config): give the store "
			    "(--bw, --overhead, --fn)");
	if (bw <= 0)
		return fnblk_seterr(err, errlen, "the device ran with no bandwidth "
			    "limit (bw 0): no bound; give --bw");
	if (fnblk_fn_parse(spec, &fn, &why))
		return fnblk_seterr(err, errlen, "device.config.fn '%s': %s", spec, why);
	st->bw = (uint64_t)bw;
	st->overhead = (uint64_t)ov;
	st->max_request = 1u << 20;
	if (!get_num(report, "device.max_sectors_kb", &kb) && kb >= 4)
		st->max_request = (uint64_t)kb * 1024 / PAGE * PAGE;
	st->rate_factor = mx_fn_peak(&fn, users_of(cfg, jobs));
	return 0;
}

/* What a pattern's name in the report is, and the shape of job j. */
static int job_shape(const json_t *report, unsigned int j,
		     struct mx_shape *shape, char *err, size_t errlen)
{
	const json_t *set = json_object_get(report, "settings");
	const char *pat = json_string_value(json_object_get(set, "pattern"));
	double rows, cols, block, seed, block_cols = 0;
	int p = pat ? mx_pattern_value(pat) : -1;

	if (!set || p < 0 || get_num(report, "matrix.rows", &rows) ||
	    get_num(report, "matrix.cols", &cols) ||
	    get_num(set, "block", &block) || get_num(set, "seed", &seed))
		return fnblk_seterr(err, errlen, "not a report of fnblk-matrix run -j "
			    "(settings.pattern, .block, .seed, matrix.rows, "
			    ".cols)");
	get_num(set, "block_cols", &block_cols);
	*shape = (struct mx_shape){
		.rows = (uint64_t)rows, .cols = (uint64_t)cols,
		.pattern = (enum mx_pattern)p, .block = (uint64_t)block,
		.seed = (uint64_t)seed + j, .block_cols = (uint64_t)block_cols,
	};
	return mx_pattern_check(shape, err, errlen);
}

/* Replay job j of report: add its counts to b, its covers to read/write. */
static int replay_job(const json_t *report, unsigned int j, double wf,
		      const struct mx_store *st, struct mx_bound *b,
		      struct mx_cover *read, struct mx_cover *write, char *err,
		      size_t errlen)
{
	const json_t *job = json_array_get(json_object_get(report, "jobs"), j);
	struct mx_shape shape;
	struct replay r = { .shape = &shape };
	uint64_t npages, *list, n;
	struct mx_cover c;
	int ret = -1;
	double a;

	if (job_shape(report, j, &shape, err, errlen))
		return -1;
	if (get_num(job, "result.accesses", &a))
		return fnblk_seterr(err, errlen, "jobs[%u].result.accesses: "
				    "missing (the job did not finish?)", j);
	npages = (MX_HEADER_SIZE + shape.rows * shape.cols * MX_ELEM +
		  PAGE - 1) / PAGE;
	r.read = calloc((npages + 63) / 64, sizeof(uint64_t));
	r.written = calloc((npages + 63) / 64, sizeof(uint64_t));
	list = calloc(npages, sizeof(*list));
	if (!r.read || !r.written || !list)
		goto out;
	for (uint64_t k = 0; k < (uint64_t)a; k++) {
		mx_updates_start(&r.updates_left, &shape, k, wf);
		mx_pattern_visit(&shape, k, shape.rows, replay_segment, &r);
	}
	b->accesses += (uint64_t)a;
	b->elements += r.elements;
	b->updates += r.updates;
	/* A matrix's requests never span into the next one. */
	n = list_pages(r.read, npages, 0, list);
	b->pages_read += n;
	if (mx_cover_pages(list, n, st, &c))
		goto out;
	add_cover(read, &c);
	n = list_pages(r.written, npages, 0, list);
	b->pages_written += n;
	if (mx_cover_pages(list, n, st, &c))
		goto out;
	add_cover(write, &c);
	ret = 0;
out:
	if (ret)
		fnblk_seterr(err, errlen, "out of memory for %" PRIu64
			     " pages", npages);
	free(r.read);
	free(r.written);
	free(list);
	return ret;
}

int mx_bound_report(const json_t *report, const struct mx_store *given,
		    struct mx_bound *b, char *err, size_t errlen)
{
	const json_t *jobs = json_object_get(report, "jobs");
	unsigned int njobs = (unsigned int)json_array_size(jobs);
	struct mx_cover read1 = { 0 }, write1 = { 0 };
	double wf = 0, el = 0, sync = 0, v;
	struct mx_store st;

	memset(b, 0, sizeof(*b));
	if (!njobs)
		return fnblk_seterr(err, errlen, "not a report of fnblk-matrix run -j "
			    "(no jobs)");
	if (given)
		st = *given;
	else if (report_store(report, njobs, &st, err, errlen))
		return -1;
	get_num(report, "settings.write_fraction", &wf);
	for (unsigned int j = 0; j < njobs; j++)
		if (replay_job(report, j, wf, &st, b, &read1, &write1, err,
			       errlen))
			return -1;
	b->per_page.requests = b->pages_read + b->pages_written;
	b->per_page.bytes = b->per_page.requests * PAGE;
	b->per_page.demand = b->per_page.requests * (PAGE + st.overhead);
	b->least = read1;
	add_cover(&b->least, &write1);
	v = st.rate_factor * (double)st.bw;
	b->per_page_s = (double)b->per_page.demand / v;
	b->least_s = (double)b->least.demand / v;
	if (!get_num(report, "result.elapsed_ns", &el))
		get_num(report, "result.final_sync_ns", &sync);
	b->measured_s = (el + sync) / 1e9;
	/* The device's own requests: what the store was asked to serve. */
	{
		const json_t *io = json_object_get(json_object_get(report,
								   "device"),
						   "io");
		double ops = 0, bytes = 0, wops = 0, wbytes = 0;

		if (io && !get_num(io, "read_ops", &ops) &&
		    !get_num(io, "read_bytes", &bytes) &&
		    !get_num(io, "write_ops", &wops) &&
		    !get_num(io, "write_bytes", &wbytes))
			b->device_s = (bytes + wbytes + (ops + wops) *
				       (double)st.overhead) / v;
	}
	return 0;
}
