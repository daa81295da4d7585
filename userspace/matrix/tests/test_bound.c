// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the store's bound: the linear-time cover equals the best
 * of every way to cut the pages into requests, on random sets and three
 * stores; a set worked by hand; and a replayed report counts the
 * elements, updates and pages its pattern touches.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "tap.h"

#define PAGE	4096u

/* The least demand over all cuts of pages[0..n) into consecutive runs. */
static uint64_t brute(const uint64_t *p, size_t n, const struct mx_store *st)
{
	uint64_t best = UINT64_MAX;

	for (uint64_t cuts = 0; cuts < 1ULL << (n - 1); cuts++) {
		uint64_t d = 0;
		size_t start = 0;
		bool fits = true;

		for (size_t i = 1; i <= n; i++) {
			if (i < n && !(cuts & (1ULL << (i - 1))))
				continue;
			if ((p[i - 1] - p[start] + 1) * PAGE > st->max_request)
				fits = false;
			d += (p[i - 1] - p[start] + 1) * PAGE + st->overhead;
			start = i;
		}
		if (fits && d < best)
			best = d;
	}
	return best;
}

static void random_sets(void)
{
	static const uint64_t overheads[] = { 0, 4096, 16384, 65536 };
	static const uint64_t maxes[] = { 8192, 65536, 1 << 20 };
	unsigned int bad = 0, inconsistent = 0, cases = 0;

	srand(7);
	for (unsigned int o = 0; o < 4; o++) {
		for (unsigned int x = 0; x < 3; x++) {
			struct mx_store st = { .bw = 1, .overhead = overheads[o],
					       .max_request = maxes[x],
					       .rate_factor = 1 };

			for (unsigned int t = 0; t < 200; t++) {
				uint64_t p[12], at = (uint64_t)(rand() % 5);
				size_t n = 1 + (size_t)(rand() % 12);
				struct mx_cover c;

				for (size_t i = 0; i < n; i++) {
					p[i] = at;
					at += 1 + (uint64_t)(rand() % 9);
				}
				bad += mx_cover_pages(p, n, &st, &c) != 0 ||
				       c.demand != brute(p, n, &st);
				inconsistent += c.demand != c.bytes +
					c.requests * st.overhead ||
					c.bytes < n * PAGE;
				cases++;
			}
		}
	}
	is_u64(bad, 0, "cover: the least demand of every cut, %u random sets",
	       cases);
	is_u64(inconsistent, 0, "cover: demand = bytes + requests x overhead, "
	       "every page covered");
}

static void by_hand(void)
{
	const uint64_t p[] = { 0, 1, 2, 10, 14, 30 };
	struct mx_store st = { .bw = 1, .overhead = 16384,
			       .max_request = 1 << 20, .rate_factor = 1 };
	struct mx_cover c;

	/* 0-2 in one; 10 and 14 (a 3-page gap is cheaper than a request's
	 * 4 pages of overhead) in another; 30 alone. */
	mx_cover_pages(p, 6, &st, &c);
	ok(c.requests == 3 && c.bytes == (3 + 5 + 1) * PAGE &&
	   c.demand == (3 + 5 + 1) * PAGE + 3 * 16384,
	   "cover: {0-2, 10, 14, 30} with 16 KiB overhead is 3 requests of "
	   "9 pages (%llu, %llu bytes)", (unsigned long long)c.requests,
	   (unsigned long long)c.bytes);
	st.max_request = 2 * PAGE;
	mx_cover_pages(p, 6, &st, &c);
	ok(c.requests == 5 && c.bytes == 6 * PAGE,
	   "cover: requests of at most 2 pages cut 0-2 and keep 10, 14 "
	   "apart (%llu requests)", (unsigned long long)c.requests);
	ok(!mx_cover_pages(p, 0, &st, &c) && c.requests == 0 && c.demand == 0,
	   "cover: no pages, no requests");
}

/* A report of 2 accesses of pattern rows over a 1024 x 4 matrix. */
static json_t *report_keyed(double write_fraction, const char *fn,
			    const char *key)
{
	return json_pack("{s:{s:I, s:I}, s:{s:s, s:I, s:I, s:f},"
			 " s:{s:{s:I, s:I, s:s, s:s}, s:{s:I, s:I, s:I, s:I}},"
			 " s:[{s:{s:I}}], s:{s:I, s:I}}",
			 "matrix", "rows", (json_int_t)1024, "cols", (json_int_t)4,
			 "settings", "pattern", "rows", "block", (json_int_t)1,
			 "seed", (json_int_t)1, "write_fraction", write_fraction,
			 "device", "config", "bw", (json_int_t)(1 << 20),
			 "overhead", (json_int_t)0, "fn", fn, "key", key,
			 "io", "read_ops", (json_int_t)8, "read_bytes",
			 (json_int_t)(8 * PAGE), "write_ops", (json_int_t)0,
			 "write_bytes", (json_int_t)0,
			 "jobs", "result", "accesses", (json_int_t)2,
			 "result", "elapsed_ns", (json_int_t)1000000000,
			 "final_sync_ns", (json_int_t)0);
}

static json_t *report(double write_fraction, const char *fn)
{
	return report_keyed(write_fraction, fn, "tgid");
}

/* The store's best rate: f(n) over the users the device could see. */
static void users(void)
{
	static const char *const keys[] = { "tgid", "single", "pid" };
	double least[3] = { 0 };
	char err[256] = "";
	struct mx_bound b;
	int bad = 0;

	for (int i = 0; i < 3; i++) {
		json_t *r = report_keyed(1.0, "table:1,2,3", keys[i]);

		bad += mx_bound_report(r, NULL, &b, err, sizeof(err));
		least[i] = b.least_s;
		json_decref(r);
	}
	ok(!bad && least[0] > 0 && least[1] == least[0] &&
	   fabs(least[2] * 3 - least[0]) < 1e-9,
	   "users: one job is f(1) keyed by process or single, f(3) (the "
	   "table's largest) keyed by thread (%g %g %g s)", least[0],
	   least[1], least[2]);
}

static void replay(void)
{
	struct mx_bound b;
	char err[256] = "";
	json_t *r = report(1.0, "constant");

	/* A row of a 1024-row column-major matrix: an element in each of
	 * the 4 columns, each column 2 pages: 4 pages an access. */
	int ret = mx_bound_report(r, NULL, &b, err, sizeof(err));

	ok(!ret && b.accesses == 2 && b.elements == 8 && b.updates == 8 &&
	   b.pages_read >= 4 && b.pages_read <= 8 &&
	   b.pages_written == b.pages_read,
	   "replay: 2 rows of 4 columns updated: 8 elements, %llu pages read "
	   "and written %s", (unsigned long long)b.pages_read, err);
	ok(b.per_page.requests == 2 * b.pages_read &&
	   b.least.demand <= b.per_page.demand && b.measured_s == 1.0 &&
	   b.device_s > 0.0312 && b.device_s < 0.0313,
	   "replay: one request a page costs most; the device's 8 reads of "
	   "4 KiB at 1 MiB/s are 31.25 ms (%f)", b.device_s);
	json_decref(r);
	r = report(0, "constant");
	ret = mx_bound_report(r, NULL, &b, err, sizeof(err));
	ok(!ret && b.updates == 0 && b.pages_written == 0,
	   "replay: no updates without a write fraction");
	json_decref(r);
	r = report(0, "nonsense");
	ok(mx_bound_report(r, NULL, &b, err, sizeof(err)) &&
	   strstr(err, "nonsense"), "replay: a bad f(n) is refused (%s)", err);
	json_decref(r);
	r = json_pack("{s:[]}", "jobs");
	ok(mx_bound_report(r, NULL, &b, err, sizeof(err)) &&
	   strstr(err, "not a report"), "replay: not a run's report (%s)", err);
	json_decref(r);
}

int main(void)
{
	random_sets();
	by_hand();
	replay();
	users();
	return tap_done();
}
