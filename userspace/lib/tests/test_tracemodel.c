// SPDX-License-Identifier: GPL-2.0
/*
 * TAP tests of the job-stream model (tracemodel.c): fitted on records of
 * a known structure, it must find that structure and generate it back.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracemodel.h"
#include "tests/sched/tap.h"

#define DAY	86400

/*
 * 10 days; each day, at hours 2, 5 and 8, a batch of 3 jobs of category A
 * (cpu 10, 100 and 1000 s, 1 MB in) and one job of category B (cpu 5 s,
 * no input).
 */
static void training(struct jobrecs *t)
{
	int64_t base = 1735689600;	/* 2025-01-01 00:00:00 */
	int d, h, k;
	uint64_t id = 1;

	jobrecs_init(t);
	for (d = 0; d < 10; d++) {
		for (h = 2; h <= 8; h += 3) {
			for (k = 0; k < 4; k++) {
				struct jobrec r = {
					.id = id++, .started_s = JOBREC_NO_TIME,
					.ended_s = JOBREC_NO_TIME, .cores = 1,
					.created_s = base + d * DAY + h * 3600 + k * 10,
					.cpu_s = k == 3 ? 5 : k == 0 ? 10 : k == 1 ? 100 : 1000,
					.in_bytes = k < 3 ? 1000000 : 0,
					.in_files = k < 3,
				};

				r.site = strdup("X");
				r.name = strdup("");
				/* The batch's category is its first job's. */
				r.category = strdup(k < 3 ? "A" : "B");
				if (t->nr == t->cap) {
					t->cap = t->cap ? 2 * t->cap : 64;
					t->r = realloc(t->r, t->cap * sizeof(*t->r));
				}
				t->r[t->nr++] = r;
			}
		}
	}
	t->first_created_s = base + 2 * 3600;
}

int main(void)
{
	struct trace_model m, back;
	struct jobrecs t, g1, g2;
	char err[256] = "";
	double cpu_a = 0, hours_in = 0;
	size_t i, nr_a = 0, batches = 0, same = 0;
	json_t *j;

	training(&t);
	trace_model_init(&m);
	if (!ok(!trace_model_fit(&m, &t, 60, err, sizeof(err)), "fits"))
		diag("%s", err);
	is_u64(m.nr_batches, 30, "30 batches of 4 jobs within 60 s");
	ok(m.nr_batches && m.batch_sizes[0] == 4, "each of size 4");
	is_u64(m.nr_categories, 2, "two categories");
	near(m.categories[0].share, 1.0, 1e-12,
	     "every batch starts with an A job: A has all batch starts");
	near(m.hour_weight[2], (10 + 0.1) / (30 + 2.4) * 24, 1e-12,
	     "hour 2 weighs (10 + 0.1) / (30 + 24 * 0.1) * 24");
	near(m.hour_weight[3], 0.1 / (30 + 2.4) * 24, 1e-12,
	     "an hour never seen keeps a little weight");
	ok(m.categories[1].bandwidth[TM_IN_BYTES] == 0,
	   "B has no input: no kernel for it");

	jobrecs_init(&g1);
	jobrecs_init(&g2);
	ok(!trace_model_generate(&m, 40000, 3, 1, 1735689600, 7, &g1, err,
				 sizeof(err)), "generates 40000 jobs");
	is_u64(g1.nr, 40000, "exactly as many as asked");
	for (i = 0; i < g1.nr; i++) {
		int hour = (int)((g1.r[i].created_s % DAY) / 3600);

		hours_in += hour == 2 || hour == 5 || hour == 8;
		if (!strcmp(g1.r[i].category, "A")) {
			cpu_a += g1.r[i].cpu_s;
			nr_a++;
		}
		batches += i == 0 || g1.r[i].created_s != g1.r[i - 1].created_s;
	}
	ok(hours_in / g1.nr > 0.88 && hours_in / g1.nr < 0.98,
	   "about 30.3/32.4 of the jobs at hours 2, 5, 8 (%.3f)", hours_in / g1.nr);
	near((double)g1.nr / batches, 4, 0.05, "jobs arrive 4 to a batch (%.3f)",
	     (double)g1.nr / batches);
	ok(nr_a == g1.nr, "a batch's jobs take its category: B never starts one");
	/* A's jobs: 10, 100 and 1000 s, widely spread in log space. */
	ok(m.categories[0].bandwidth[TM_CPU] > 0.5, "A's CPU kernel is wide (%.2f)",
	   m.categories[0].bandwidth[TM_CPU]);
	near(cpu_a / nr_a, 370, 370 * 0.05,
	     "the jitter keeps the mean CPU time (%.1f s)", cpu_a / nr_a);
	ok(!trace_model_generate(&m, 1000, 3, 1, 1735689600, 7, &g2, err,
				 sizeof(err)), "generates again");
	for (i = 0; i < g2.nr; i++)
		same += g2.r[i].created_s == g1.r[i].created_s &&
			g2.r[i].cpu_s == g1.r[i].cpu_s &&
			!strcmp(g2.r[i].site, g1.r[i].site);
	is_u64(same, 1000, "the same seed gives the same jobs");

	j = trace_model_to_json(&m);
	trace_model_init(&back);
	ok(j && !trace_model_from_json(&back, j, err, sizeof(err)),
	   "the model reads back from its JSON");
	ok(back.nr_batches == m.nr_batches && back.nr_categories == m.nr_categories &&
	   back.batch_rate == m.batch_rate &&
	   !memcmp(back.hour_weight, m.hour_weight, sizeof(m.hour_weight)) &&
	   back.categories[0].nr_jobs == m.categories[0].nr_jobs &&
	   back.categories[0].bandwidth[TM_CPU] == m.categories[0].bandwidth[TM_CPU],
	   "... equal");
	json_decref(j);
	j = json_pack("{ss}", "format", "other 2");
	ok(trace_model_from_json(&back, j, err, sizeof(err)) && strlen(err) > 0,
	   "a file that is not a model is refused (%s)", err);
	json_decref(j);
	trace_model_free(&back);
	trace_model_free(&m);
	jobrecs_free(&g1);
	jobrecs_free(&g2);
	jobrecs_free(&t);
	printf("1..%d\n", tap_count);
	return tap_failures ? 1 : 0;
}
