// SPDX-License-Identifier: GPL-2.0
/* Computing a report and printing it as a table or JSON (see report.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report.h"

int report_compute(struct report *rep, const struct fnblk_events *ev,
		   const char *name, unsigned int jobs, unsigned int skip,
		   const double *solo_ns, const double *f)
{
	unsigned int c;

	memset(rep, 0, sizeof(*rep));
	rep->name = name;
	rep->ev = ev;
	rep->jobs = jobs;
	rep->skip = skip;
	if (concurrency_compute(ev, jobs, &rep->conc))
		return -1;
	rep->costs = calloc(jobs, sizeof(*rep->costs));
	if (!rep->costs || job_costs_compute(ev, jobs, solo_ns, rep->costs))
		return -1;
	if (cycle_table_build(ev, jobs, skip, &rep->cycles))
		return 0;	/* no complete cycle: only the above apply */
	rep->have_cycles = 1;
	rep->period_ns = cycle_table_period(&rep->cycles);
	if (order_changes_compute(&rep->cycles, &rep->order) ||
	    pair_maps_compute(&rep->cycles, &rep->maps, &rep->nr_maps))
		return -1;
	if (rep->cycles.cycles > 1) {
		rep->nr_r = rep->cycles.cycles - 1;
		rep->r = malloc(rep->nr_r * sizeof(double));
		if (!rep->r)
			return -1;
		for (c = 0; c < rep->nr_r; c++)
			rep->r[c] = kuramoto_r(&rep->cycles, c);
	}
	if (jobs >= 2 && interval_ratios_compute(&rep->cycles, f, &rep->ratios))
		return -1;
	return 0;
}

void report_free(struct report *rep)
{
	concurrency_free(&rep->conc);
	cycle_table_free(&rep->cycles);
	pair_maps_free(rep->maps, rep->nr_maps);
	interval_ratios_free(&rep->ratios);
	free(rep->r);
	free(rep->costs);
	memset(rep, 0, sizeof(*rep));
}

static void r_stats(const struct report *rep, double *mean, double *min,
		    double *max)
{
	unsigned int c;

	*mean = 0;
	*min = INFINITY;
	*max = -INFINITY;
	for (c = 0; c < rep->nr_r; c++) {
		*mean += rep->r[c];
		*min = fmin(*min, rep->r[c]);
		*max = fmax(*max, rep->r[c]);
	}
	if (rep->nr_r)
		*mean /= rep->nr_r;
}

/* Largest |mean step| and largest rms step over every pair. */
static void map_stats(const struct report *rep, double *worst_mean,
		      double *worst_rms)
{
	size_t i;

	*worst_mean = *worst_rms = 0;
	for (i = 0; i < rep->nr_maps; i++) {
		*worst_mean = fmax(*worst_mean, fabs(rep->maps[i].mean_step));
		*worst_rms = fmax(*worst_rms, rep->maps[i].rms_step);
	}
}

/* Pairs get a line each up to this many jobs, a summary beyond. */
#define TABLE_PAIR_JOBS	6

void report_print_table(FILE *f, const struct report *rep)
{
	const struct concurrency *c = &rep->conc;
	unsigned int k, j;
	double rmean, rmin, rmax, wm, wr;

	fprintf(f, "%s: source %s, %u jobs, %zu writes\n", rep->name,
		rep->ev->source ? rep->ev->source : "?", rep->jobs, rep->ev->nr);
	fprintf(f, "window %.3f s, mean concurrent writers %.3f\n",
		(c->to_ns - c->from_ns) / 1e9, c->mean_n);
	fprintf(f, "\nconcurrent writers: share of time (independent phases = Poisson-binomial of duty cycles)\n");
	fprintf(f, "%4s %12s %12s %14s %14s %9s\n", "n", "measured",
		"independent", "P(n>=k) meas", "P(n>=k) indep", "ratio");
	for (k = 0; k <= c->jobs; k++) {
		fprintf(f, "%4u %12.6f %12.6f %14.6g %14.6g", k, c->measured[k],
			c->baseline[k], c->measured_tail[k], c->baseline_tail[k]);
		if (c->baseline_tail[k] > 0)
			fprintf(f, " %9.3f\n", c->measured_tail[k] / c->baseline_tail[k]);
		else
			fprintf(f, " %9s\n", "-");
	}
	fprintf(f, "\nduty cycles:");
	for (j = 0; j < rep->jobs; j++)
		fprintf(f, " %.4f", c->duty[j]);
	fprintf(f, "\n");
	if (!rep->have_cycles) {
		fprintf(f, "\nno cycle completed by every job: no per-cycle analysis\n");
		goto cost;
	}
	fprintf(f, "\ncycles %u..%u complete for every job, mean period %.3f ms\n",
		rep->cycles.first, rep->cycles.first + rep->cycles.cycles - 1,
		rep->period_ns / 1e6);
	fprintf(f, "firing order: %u transitions, %u changed, %llu swaps (max %u in one)",
		rep->order.transitions, rep->order.changed,
		(unsigned long long)rep->order.swaps, rep->order.max_swaps);
	if (rep->order.swaps)
		fprintf(f, ", swapped jobs at most %.3f ms apart",
			rep->order.max_swap_gap_ns / 1e6);
	fprintf(f, "\n");
	map_stats(rep, &wm, &wr);
	fprintf(f, "\nphase-gap return maps g(c+1) vs g(c), %zu pairs: worst |mean step| %.3f ms, worst rms step %.3f ms (%.4f of the period)\n",
		rep->nr_maps, wm / 1e6, wr / 1e6,
		rep->period_ns > 0 ? wr / rep->period_ns : 0);
	if (rep->jobs <= TABLE_PAIR_JOBS) {
		fprintf(f, "%7s %12s %12s %12s %12s %8s %13s\n", "pair", "gap0_ms",
			"mean_step_ms", "rms_step_ms", "max_step_ms", "slope",
			"intercept_ms");
		for (k = 0; k < rep->nr_maps; k++) {
			const struct pair_map *m = &rep->maps[k];

			fprintf(f, "%3u-%-3u %12.3f %12.3f %12.3f %12.3f %8.3f %13.3f\n",
				m->i, m->j, m->gap[0] / 1e6, m->mean_step / 1e6,
				m->rms_step / 1e6, m->max_step / 1e6, m->slope,
				m->intercept / 1e6);
		}
	}
	if (rep->nr_r) {
		r_stats(rep, &rmean, &rmin, &rmax);
		fprintf(f, "\nKuramoto r per cycle: mean %.4f min %.4f max %.4f (random phases ~ 1/sqrt(N) = %.4f)\n",
			rmean, rmin, rmax, 1 / sqrt(rep->jobs));
		fprintf(f, "  r:");
		for (k = 0; k < rep->nr_r; k++)
			fprintf(f, " %.3f", rep->r[k]);
		fprintf(f, "\n");
	}
	if (rep->ratios.jobs) {
		fprintf(f, "\nstart intervals a_k over %u transitions with all writes overlapping (f = %s)\n",
			rep->ratios.transitions, rep->fn ? rep->fn : "constant");
		if (rep->ratios.transitions) {
			fprintf(f, "%4s %10s %10s %10s %10s\n", "k", "expected",
				"median", "mean", "geomean");
			for (k = 0; k + 1 < rep->jobs; k++)
				fprintf(f, "%4u %10.4f %10.4f %10.4f %10.4f\n", k + 1,
					rep->ratios.expected[k], rep->ratios.median[k],
					rep->ratios.mean[k], exp(rep->ratios.log_mean[k]));
			for (j = 0; j < rep->ratios.transitions; j++) {
				fprintf(f, "  cycle %u -> %u:", rep->cycles.first + rep->ratios.row[j],
					rep->cycles.first + rep->ratios.row[j] + 1);
				for (k = 0; k + 1 < rep->jobs; k++)
					fprintf(f, " %.4f", rep->ratios.ratio[(size_t)j * (rep->jobs - 1) + k]);
				fprintf(f, "\n");
			}
		}
	}
cost:
	fprintf(f, "\nwrite cost per job\n%4s %7s %10s %10s %9s\n", "job",
		"writes", "mean_ms", "solo_ms", "slowdown");
	for (j = 0; j < rep->jobs; j++) {
		const struct job_cost *jc = &rep->costs[j];

		fprintf(f, "%4u %7u %10.3f", j, jc->writes, jc->mean_ns / 1e6);
		if (jc->solo_ns > 0)
			fprintf(f, " %10.3f %9.3f\n", jc->solo_ns / 1e6, jc->slowdown);
		else
			fprintf(f, " %10s %9s\n", "-", "-");
	}
}

/* NaN and infinities are not JSON: null instead. */
static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jarray(const double *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, jnum(v[i]));
	return a;
}

static json_t *json_concurrency(const struct concurrency *c)
{
	return json_pack("{s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "from_ns", (json_int_t)c->from_ns,
			 "to_ns", (json_int_t)c->to_ns,
			 "mean_n", jnum(c->mean_n),
			 "duty", jarray(c->duty, c->jobs),
			 "measured", jarray(c->measured, c->jobs + 1),
			 "independent", jarray(c->baseline, c->jobs + 1),
			 "measured_tail", jarray(c->measured_tail, c->jobs + 1),
			 "independent_tail", jarray(c->baseline_tail, c->jobs + 1));
}

static json_t *json_maps(const struct report *rep)
{
	json_t *a = json_array();
	size_t k;

	for (k = 0; a && k < rep->nr_maps; k++) {
		const struct pair_map *m = &rep->maps[k];

		json_array_append_new(a, json_pack(
			"{s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o}",
			"i", m->i, "j", m->j,
			"gap_ns", jarray(m->gap, m->points + 1),
			"mean_step_ns", jnum(m->mean_step),
			"rms_step_ns", jnum(m->rms_step),
			"max_step_ns", jnum(m->max_step),
			"slope", jnum(m->slope),
			"intercept_ns", jnum(m->intercept)));
	}
	return a;
}

static json_t *json_costs(const struct report *rep)
{
	json_t *a = json_array();
	unsigned int j;

	for (j = 0; a && j < rep->jobs; j++) {
		const struct job_cost *c = &rep->costs[j];

		json_array_append_new(a, json_pack("{s:i, s:i, s:o, s:o, s:o}",
			"job", j, "writes", c->writes,
			"mean_ns", jnum(c->mean_ns),
			"solo_ns", c->solo_ns > 0 ? jnum(c->solo_ns) : json_null(),
			"slowdown", c->solo_ns > 0 ? jnum(c->slowdown) : json_null()));
	}
	return a;
}

int report_print_json(FILE *f, const struct report *rep)
{
	json_t *root, *cyc = json_null();
	int ret;

	if (rep->have_cycles) {
		const struct interval_ratios *ir = &rep->ratios;
		size_t nk = ir->jobs ? ir->jobs - 1 : 0;

		cyc = json_pack("{s:i, s:i, s:o, s:{s:i, s:i, s:I, s:i, s:o}, s:o, s:o, s:f, s:{s:i, s:s, s:o, s:o, s:o, s:o}}",
			"first", rep->cycles.first,
			"complete", rep->cycles.cycles,
			"period_ns", jnum(rep->period_ns),
			"firing_order",
				"transitions", rep->order.transitions,
				"changed", rep->order.changed,
				"swaps", (json_int_t)rep->order.swaps,
				"max_swaps", rep->order.max_swaps,
				"max_swap_gap_ns", jnum(rep->order.max_swap_gap_ns),
			"return_maps", json_maps(rep),
			"kuramoto_r", jarray(rep->r, rep->nr_r),
			"kuramoto_random_baseline", 1 / sqrt(rep->jobs),
			"interval_ratios",
				"transitions", ir->transitions,
				"fn", rep->fn ? rep->fn : "constant",
				"expected", jarray(ir->expected, nk),
				"median", ir->transitions ? jarray(ir->median, nk) : json_array(),
				"mean", ir->transitions ? jarray(ir->mean, nk) : json_array(),
				"geomean", json_array());
		if (cyc && ir->transitions) {
			json_t *g = json_object_get(json_object_get(cyc, "interval_ratios"),
						    "geomean");
			size_t k;

			for (k = 0; k < nk; k++)
				json_array_append_new(g, jnum(exp(ir->log_mean[k])));
		}
	}
	if (cyc && rep->have_cycles && rep->ratios.jobs) {
		json_t *per = json_array();
		unsigned int t;

		for (t = 0; per && t < rep->ratios.transitions; t++)
			json_array_append_new(per, json_pack("{s:i, s:o}",
				"cycle", rep->cycles.first + rep->ratios.row[t],
				"ratios", jarray(rep->ratios.ratio +
						 (size_t)t * (rep->jobs - 1),
						 rep->jobs - 1)));
		json_object_set_new(json_object_get(cyc, "interval_ratios"),
				    "per_transition", per ? per : json_null());
	}
	root = json_pack("{s:s, s:s?, s:i, s:I, s:i, s:o, s:o, s:o}",
			 "file", rep->name, "source", rep->ev->source,
			 "jobs", rep->jobs, "writes", (json_int_t)rep->ev->nr,
			 "skip_cycles", rep->skip,
			 "concurrency", json_concurrency(&rep->conc),
			 "cycles", cyc ? cyc : json_null(),
			 "write_cost", json_costs(rep));
	if (!root)
		return -1;
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	fputc('\n', f);
	return ret || ferror(f) ? -1 : 0;
}
