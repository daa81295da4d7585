// SPDX-License-Identifier: GPL-2.0
/* Computing a report and printing it as a table or JSON (see report.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Above this many jobs the table prints summaries, the JSON everything. */
#define TABLE_JOBS_MAX	64
/* Pairs get a line each up to this many jobs, a summary beyond. */
#define TABLE_PAIR_JOBS	6

static void bootstrap(struct report *rep)
{
	const struct report_opts *o = &rep->opt;

	if (!o->bootstrap) {
		rep->ci_why = "off (--bootstrap 0)";
	} else if (rep->conc.sweep.nr_blocks < 2) {
		rep->ci_why = "needs two or more complete periods";
	} else if (rep->jobs > REPORT_BOOTSTRAP_MAX_JOBS && !o->bootstrap_given) {
		rep->ci_why = "not computed above 256 jobs unless --bootstrap is given";
	} else if (tail_ratio_bootstrap(&rep->conc, o->bootstrap, o->seed,
					REPORT_CI_LEVEL, &rep->ci)) {
		rep->ci_why = "failed (out of memory)";
	}
}

int report_compute(struct report *rep, const struct fnblk_events *ev,
		   const char *name, unsigned int jobs,
		   const struct report_opts *opt)
{
	unsigned int c;
	struct fnblk_linfit fit;

	memset(rep, 0, sizeof(*rep));
	rep->name = name;
	rep->ev = ev;
	rep->jobs = jobs;
	rep->opt = *opt;
	rep->pooled.a = rep->pooled.b = NAN;
	if (fnblk_write_times_compute(ev, jobs, opt->skip, opt->solo_ns,
				      &rep->cost))
		return -1;
	if (!cycle_table_build(ev, jobs, opt->skip, &rep->cycles)) {
		rep->have_cycles = 1;
		rep->period_ns = cycle_table_period(&rep->cycles);
	}
	/* Bootstrap blocks are one mean period long: one cycle of every job. */
	if (concurrency_compute(ev, jobs, opt->skip,
				(uint64_t)(rep->period_ns > 0 ? rep->period_ns : 0),
				&rep->conc))
		return -1;
	bootstrap(rep);
	if (!rep->have_cycles)
		return 0;	/* no complete cycle: only the above apply */
	rep->pairs = pair_set_resolve(opt->pairs, &rep->cycles);
	if (order_changes_compute(&rep->cycles, &rep->order) ||
	    pair_maps_compute(&rep->cycles, rep->pairs, &rep->maps,
			      &rep->nr_maps))
		return -1;
	fnblk_linfit_init(&fit);
	pair_maps_pool(rep->maps, rep->nr_maps, &fit);
	fnblk_linfit_solve(&fit, &rep->pooled);
	if (rep->cycles.cycles > 1) {
		rep->nr_r = rep->cycles.cycles - 1;
		rep->r = malloc(rep->nr_r * sizeof(double));
		if (!rep->r)
			return -1;
		for (c = 0; c < rep->nr_r; c++)
			rep->r[c] = kuramoto_r(&rep->cycles, c);
	}
	if (jobs >= 2 && interval_ratios_compute(&rep->cycles, opt->f,
						 &rep->ratios))
		return -1;
	return 0;
}

void report_free(struct report *rep)
{
	concurrency_free(&rep->conc);
	tail_ci_free(&rep->ci);
	cycle_table_free(&rep->cycles);
	pair_maps_free(rep->maps, rep->nr_maps);
	interval_ratios_free(&rep->ratios);
	fnblk_write_times_free(&rep->cost);
	free(rep->r);
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

/* The run's first write start: the origin of times in the table. */
static uint64_t run_start_ns(const struct fnblk_events *e)
{
	uint64_t t = UINT64_MAX;
	size_t i;

	for (i = 0; i < e->nr; i++)
		t = e->ev[i].start_ns < t ? e->ev[i].start_ns : t;
	return t;
}

/* What --skip-cycles left out, and where each figure starts. */
static void print_skip(FILE *f, const struct report *rep)
{
	const struct fnblk_concurrency *s = &rep->conc.sweep;
	unsigned int k = rep->opt.skip;

	if (!k) {
		fprintf(f, "skip-cycles 0: every cycle is used\n");
		return;
	}
	fprintf(f, "skip-cycles %u: cycles 0..%u of every job left out (%zu writes) of every figure:\n"
		"  concurrency, duty cycles and the independent baseline from t = %.3f s (the first\n"
		"  write of cycle %u; earlier writes count only where they overlap that window),\n"
		"  write cost over cycles >= %u, per-cycle structure from cycle %u\n",
		k, k - 1, s->skipped, (s->from_ns - run_start_ns(rep->ev)) / 1e9,
		k, k, rep->have_cycles ? rep->cycles.first : k);
}

void report_print_pooled(FILE *f, const struct fnblk_linfit_result *p)
{
	if (isnan(p->b)) {
		fprintf(f, "pooled step on gap over %zu points: undetermined (the gaps do not vary)\n",
			p->n);
		return;
	}
	fprintf(f, "pooled step on gap over %zu points: step = %.3f ms %+.5f * gap (slope s.e. %.5f, intercept s.e. %.3f ms), residual rms %.3f ms\n",
		p->n, p->a / 1e6, p->b, p->se_b, p->se_a / 1e6,
		p->resid_rms / 1e6);
}

/* Rows of the concurrency table: all of them for small fleets; for large
 * ones up to where both tails have fallen below 1e-12. */
static unsigned int last_row(const struct concurrency *c)
{
	unsigned int k = c->sweep.jobs;

	if (k <= TABLE_JOBS_MAX)
		return k;
	while (k > 0 && c->measured_tail[k] < 1e-12 && c->baseline_tail[k] < 1e-12)
		k--;
	return k;
}

static void print_concurrency(FILE *f, const struct report *rep)
{
	const struct concurrency *c = &rep->conc;
	const struct fnblk_concurrency *s = &c->sweep;
	unsigned int k, top = last_row(c);
	const char *ci_head = rep->ci.resamples ? "95% CI of ratio" : "";

	fprintf(f, "\nconcurrent writers: share of time (independent phases = Poisson-binomial of duty cycles)\n");
	fprintf(f, "%4s %12s %12s %14s %14s %9s %s\n", "n", "measured",
		"independent", "P(n>=k) meas", "P(n>=k) indep", "ratio", ci_head);
	for (k = 0; k <= top; k++) {
		fprintf(f, "%4u %12.6f %12.6f %14.6g %14.6g", k, s->time_at[k],
			c->baseline[k], c->measured_tail[k], c->baseline_tail[k]);
		if (c->baseline_tail[k] > 0)
			fprintf(f, " %9.3f", c->measured_tail[k] / c->baseline_tail[k]);
		else
			fprintf(f, " %9s", "-");
		if (rep->ci.resamples && !isnan(rep->ci.lo[k]))
			fprintf(f, " %.3f..%.3f", rep->ci.lo[k], rep->ci.hi[k]);
		fprintf(f, "\n");
	}
	if (top < s->jobs)
		fprintf(f, "  (n > %u: both tails below 1e-12)\n", top);
	if (rep->ci.resamples)
		fprintf(f, "ratio CI: block bootstrap, %u resamples of %zu blocks of one period (%.3f ms), seed %llu\n",
			rep->ci.resamples, s->nr_blocks, s->block_ns / 1e6,
			(unsigned long long)rep->ci.seed);
	else
		fprintf(f, "ratio CI: %s\n", rep->ci_why ? rep->ci_why : "-");
}

static void print_duty(FILE *f, const struct report *rep)
{
	const struct fnblk_concurrency *s = &rep->conc.sweep;
	double lo = INFINITY, hi = 0, sum = 0;
	unsigned int j;

	if (rep->jobs <= TABLE_JOBS_MAX) {
		fprintf(f, "\nduty cycles:");
		for (j = 0; j < rep->jobs; j++)
			fprintf(f, " %.4f", s->duty[j]);
		fprintf(f, "\n");
		return;
	}
	for (j = 0; j < rep->jobs; j++) {
		lo = fmin(lo, s->duty[j]);
		hi = fmax(hi, s->duty[j]);
		sum += s->duty[j];
	}
	fprintf(f, "\nduty cycles: min %.4f mean %.4f max %.4f (per job in --json)\n",
		lo, sum / rep->jobs, hi);
}

static void print_pairs(FILE *f, const struct report *rep)
{
	double wm, wr;
	unsigned int k;

	map_stats(rep, &wm, &wr);
	fprintf(f, "\nphase-gap return maps g(c+1) vs g(c), %zu pairs (%s): worst |mean step| %.3f ms, worst rms step %.3f ms (%.4f of the period)\n",
		rep->nr_maps, pair_set_name(rep->pairs), wm / 1e6, wr / 1e6,
		rep->period_ns > 0 ? wr / rep->period_ns : 0);
	if (!rep->nr_maps)
		return;
	report_print_pooled(f, &rep->pooled);
	if (rep->jobs > TABLE_PAIR_JOBS)
		return;
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

static void print_ratios(FILE *f, const struct report *rep)
{
	const struct interval_ratios *ir = &rep->ratios;
	unsigned int k, j;

	fprintf(f, "\nstart intervals a_k over %u transitions with all writes overlapping (f = %s)\n",
		ir->transitions, rep->opt.fn ? rep->opt.fn : "constant");
	if (!ir->transitions)
		return;
	fprintf(f, "%4s %10s %10s %10s %10s\n", "k", "expected", "median",
		"mean", "geomean");
	for (k = 0; k + 1 < rep->jobs; k++)
		fprintf(f, "%4u %10.4f %10.4f %10.4f %10.4f\n", k + 1,
			ir->expected[k], ir->median[k], ir->mean[k],
			exp(ir->log_mean[k]));
	for (j = 0; j < ir->transitions; j++) {
		fprintf(f, "  cycle %u -> %u:", rep->cycles.first + ir->row[j],
			rep->cycles.first + ir->row[j] + 1);
		for (k = 0; k + 1 < rep->jobs; k++)
			fprintf(f, " %.4f", ir->ratio[(size_t)j * (rep->jobs - 1) + k]);
		fprintf(f, "\n");
	}
}

static void print_cost_row(FILE *f, const char *who,
			   const struct fnblk_write_stats *w)
{
	fprintf(f, "%6s %7zu %10.3f %10.3f %10.3f %10.3f", who, w->writes,
		w->mean_ns / 1e6, w->p50_ns / 1e6, w->p99_ns / 1e6,
		w->max_ns / 1e6);
	if (w->solo_ns > 0 && w->writes)
		fprintf(f, " %10.3f %9.3f\n", w->solo_ns / 1e6, w->slowdown);
	else
		fprintf(f, " %10s %9s\n", "-", "-");
}

static void print_cost(FILE *f, const struct report *rep)
{
	char who[16];
	unsigned int j;

	fprintf(f, "\nwrite cost per job\n%6s %7s %10s %10s %10s %10s %10s %9s\n",
		"job", "writes", "mean_ms", "p50_ms", "p99_ms", "max_ms",
		"solo_ms", "slowdown");
	print_cost_row(f, "all", &rep->cost.all);
	if (rep->jobs > TABLE_JOBS_MAX) {
		fprintf(f, "  (per job in --json)\n");
		return;
	}
	for (j = 0; j < rep->jobs; j++) {
		snprintf(who, sizeof(who), "%u", j);
		print_cost_row(f, who, &rep->cost.job[j]);
	}
}

void report_print_table(FILE *f, const struct report *rep)
{
	const struct fnblk_concurrency *s = &rep->conc.sweep;
	double rmean, rmin, rmax;
	unsigned int k;

	fprintf(f, "%s: source %s, %u jobs, %zu writes\n", rep->name,
		rep->ev->source ? rep->ev->source : "?", rep->jobs, rep->ev->nr);
	print_skip(f, rep);
	fprintf(f, "window %.3f s, mean concurrent writers %.3f\n",
		(s->to_ns - s->from_ns) / 1e9, s->mean_n);
	print_concurrency(f, rep);
	print_duty(f, rep);
	if (!rep->have_cycles) {
		fprintf(f, "\nno cycle completed by every job: no per-cycle analysis\n");
		print_cost(f, rep);
		return;
	}
	fprintf(f, "\ncycles %u..%u complete for every job, mean period %.3f ms\n",
		rep->cycles.first, rep->cycles.first + rep->cycles.cycles - 1,
		rep->period_ns / 1e6);
	fprintf(f, "firing order: %u transitions, %u changed, %llu swaps (max %llu in one)",
		rep->order.transitions, rep->order.changed,
		(unsigned long long)rep->order.swaps,
		(unsigned long long)rep->order.max_swaps);
	if (rep->order.swaps)
		fprintf(f, ", swapped jobs at most %.3f ms apart",
			rep->order.max_swap_gap_ns / 1e6);
	fprintf(f, "\n");
	print_pairs(f, rep);
	if (rep->nr_r) {
		r_stats(rep, &rmean, &rmin, &rmax);
		fprintf(f, "\nKuramoto r per cycle: mean %.4f min %.4f max %.4f (random phases ~ 1/sqrt(N) = %.4f)\n",
			rmean, rmin, rmax, 1 / sqrt(rep->jobs));
		if (rep->jobs <= TABLE_JOBS_MAX || rep->nr_r <= 64) {
			fprintf(f, "  r:");
			for (k = 0; k < rep->nr_r; k++)
				fprintf(f, " %.3f", rep->r[k]);
			fprintf(f, "\n");
		}
	}
	if (rep->ratios.jobs)
		print_ratios(f, rep);
	print_cost(f, rep);
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

static json_t *json_ci(const struct report *rep)
{
	const struct tail_ci *ci = &rep->ci;
	size_t n = rep->jobs + 1;

	if (!ci->resamples)
		return json_pack("{s:s}", "none", rep->ci_why ? rep->ci_why : "");
	return json_pack("{s:s, s:f, s:i, s:I, s:I, s:i, s:o, s:o}",
			 "method", "block bootstrap",
			 "level", ci->level, "resamples", ci->resamples,
			 "seed", (json_int_t)ci->seed,
			 "block_ns", (json_int_t)rep->conc.sweep.block_ns,
			 "blocks", (int)rep->conc.sweep.nr_blocks,
			 "ratio_lo", jarray(ci->lo, n),
			 "ratio_hi", jarray(ci->hi, n));
}

static json_t *json_concurrency(const struct report *rep)
{
	const struct concurrency *c = &rep->conc;
	const struct fnblk_concurrency *s = &c->sweep;
	size_t n = s->jobs + 1;

	return json_pack("{s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "from_ns", (json_int_t)s->from_ns,
			 "to_ns", (json_int_t)s->to_ns,
			 "mean_n", jnum(s->mean_n),
			 "duty", jarray(s->duty, s->jobs),
			 "measured", jarray(s->time_at, n),
			 "independent", jarray(c->baseline, n),
			 "measured_tail", jarray(c->measured_tail, n),
			 "independent_tail", jarray(c->baseline_tail, n),
			 "tail_ratio_ci", json_ci(rep));
}

json_t *report_json_pooled(const struct fnblk_linfit_result *p)
{
	return json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:o}",
			 "model", "step_ns = intercept_ns + slope * gap_ns",
			 "points", (json_int_t)p->n,
			 "intercept_ns", jnum(p->a), "slope", jnum(p->b),
			 "intercept_se_ns", jnum(p->se_a),
			 "slope_se", jnum(p->se_b),
			 "residual_rms_ns", jnum(p->resid_rms));
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

static json_t *json_cost_row(const struct fnblk_write_stats *w)
{
	int solo = w->solo_ns > 0 && w->writes;

	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "writes", (json_int_t)w->writes,
			 "mean_ns", jnum(w->mean_ns), "p50_ns", jnum(w->p50_ns),
			 "p99_ns", jnum(w->p99_ns), "max_ns", jnum(w->max_ns),
			 "solo_ns", solo ? jnum(w->solo_ns) : json_null(),
			 "slowdown", solo ? jnum(w->slowdown) : json_null());
}

static json_t *json_costs(const struct report *rep)
{
	json_t *a = json_array();
	unsigned int j;

	for (j = 0; a && j < rep->jobs; j++) {
		json_t *row = json_cost_row(&rep->cost.job[j]);

		json_object_set_new(row, "job", json_integer(j));
		json_array_append_new(a, row);
	}
	return a;
}

static json_t *json_ratios(const struct report *rep)
{
	const struct interval_ratios *ir = &rep->ratios;
	size_t nk = ir->jobs ? ir->jobs - 1 : 0, k;
	json_t *o, *geo = json_array(), *per = json_array();
	unsigned int t;

	for (k = 0; geo && ir->transitions && k < nk; k++)
		json_array_append_new(geo, jnum(exp(ir->log_mean[k])));
	for (t = 0; per && t < ir->transitions; t++)
		json_array_append_new(per, json_pack("{s:i, s:o}",
			"cycle", rep->cycles.first + ir->row[t],
			"ratios", jarray(ir->ratio + (size_t)t * nk, nk)));
	o = json_pack("{s:i, s:s, s:o, s:o, s:o, s:o, s:o}",
		      "transitions", ir->transitions,
		      "fn", rep->opt.fn ? rep->opt.fn : "constant",
		      "expected", jarray(ir->expected, nk),
		      "median", ir->transitions ? jarray(ir->median, nk) : json_array(),
		      "mean", ir->transitions ? jarray(ir->mean, nk) : json_array(),
		      "geomean", geo ? geo : json_null(),
		      "per_transition", per ? per : json_null());
	return o;
}

static json_t *json_cycles(const struct report *rep)
{
	if (!rep->have_cycles)
		return json_null();
	return json_pack("{s:i, s:i, s:o, s:{s:i, s:i, s:I, s:I, s:o}, s:s, s:o, s:o, s:o, s:f, s:o}",
		"first", rep->cycles.first,
		"complete", rep->cycles.cycles,
		"period_ns", jnum(rep->period_ns),
		"firing_order",
			"transitions", rep->order.transitions,
			"changed", rep->order.changed,
			"swaps", (json_int_t)rep->order.swaps,
			"max_swaps", (json_int_t)rep->order.max_swaps,
			"max_swap_gap_ns", jnum(rep->order.max_swap_gap_ns),
		"pairs", pair_set_name(rep->pairs),
		"return_maps", json_maps(rep),
		"return_map_pooled", report_json_pooled(&rep->pooled),
		"kuramoto_r", jarray(rep->r, rep->nr_r),
		"kuramoto_random_baseline", 1 / sqrt(rep->jobs),
		"interval_ratios", rep->ratios.jobs ? json_ratios(rep) : json_null());
}

static json_t *json_skip(const struct report *rep)
{
	const struct fnblk_concurrency *s = &rep->conc.sweep;

	return json_pack("{s:i, s:I, s:I, s:[s, s, s, s, s, s, s]}",
			 "cycles", rep->opt.skip,
			 "writes_left_out", (json_int_t)s->skipped,
			 "window_from_ns", (json_int_t)s->from_ns,
			 "applies_to", "concurrency", "duty", "independent",
			 "tail_ratio_ci", "write_cost", "cycles", "plots");
}

int report_print_json(FILE *f, const struct report *rep)
{
	json_t *root;
	int ret;

	root = json_pack("{s:s, s:s?, s:i, s:I, s:o, s:o, s:o, s:o, s:o}",
			 "file", rep->name, "source", rep->ev->source,
			 "jobs", rep->jobs, "writes", (json_int_t)rep->ev->nr,
			 "skip", json_skip(rep),
			 "concurrency", json_concurrency(rep),
			 "cycles", json_cycles(rep),
			 "write_cost", json_costs(rep),
			 "write_cost_all", json_cost_row(&rep->cost.all));
	if (root && rep->opt.hosts &&
	    json_object_set_new(root, "hosts", hosts_report_json(rep->ev, rep->opt.hosts, rep->opt.skip))) {
		json_decref(root);
		return -1;
	}
	if (!root)
		return -1;
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	fputc('\n', f);
	return ret || ferror(f) ? -1 : 0;
}
