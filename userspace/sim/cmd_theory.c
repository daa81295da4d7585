// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-sim theory: measure, in the discrete-event model, the maps the
 * phase-blindness paper predicts, and print them beside the formulas.
 *
 * (a) N jobs with overlapping write windows: the map of the intervals a_j
 *     between consecutive write starts, cycle c -> c+1, its Jacobian (by
 *     perturbing each interval), determinant and expanding directions;
 * (b) two jobs whose writes are shorter than their compute: the return map
 *     of the phase gap, with and without a power cap.
 * Exits 1 if a measurement misses its prediction by more than the core's
 * ns clock can explain.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cli.h"
#include "commands.h"
#include "diag.h"
#include "units.h"
#include "print.h"
#include "theory.h"

#define MAX_FNS		16
#define NSEC		1000000000ULL

static const char *const default_fns[] = {
	"constant", "linear:4", "power:0.5",
	"table:1,0.9,0.8,0.7,0.6,0.5,0.45,0.4",	/* decreasing */
	"table:1,1.6,0.7,1.3,0.9,2,0.5,1.1",	/* neither */
	NULL
};

struct theory_args {
	const char *fns[MAX_FNS];
	unsigned int nr_fns;
	unsigned int n_min, n_max;
	unsigned int cycles;
	bool json;
};

/* --fn, repeatable: checked with the module's own parser at once. */
static int set_fn(void *ctx, const struct cli_option *o, const char *arg,
		  char *err, size_t errlen)
{
	struct theory_args *a = ctx;
	static struct fnblk_fn fn;
	const char *why = NULL;

	(void)o;
	if (a->nr_fns == MAX_FNS)
		return fnblk_seterr(err, errlen, "at most %d --fn", MAX_FNS);
	if (fnblk_fn_parse(arg, &fn, &why))
		return fnblk_seterr(err, errlen, "%s", why);
	a->fns[a->nr_fns++] = arg;
	return 0;
}

static int set_jobs(void *ctx, const struct cli_option *o, const char *arg,
		    char *err, size_t errlen)
{
	struct theory_args *a = ctx;
	uint64_t lo, hi;
	const char *why;

	(void)o;
	if (fnblk_parse_uint_range(arg, 2, THEORY_MAX_JOBS, &lo, &hi, &why))
		return fnblk_seterr(err, errlen, "%s (N or MIN-MAX within 2 to %d)",
				    why, THEORY_MAX_JOBS);
	a->n_min = lo;
	a->n_max = hi;
	return 0;
}

static const char *show_jobs(void *ctx, const struct cli_option *o,
			     char *buf, size_t len)
{
	const struct theory_args *a = ctx;

	(void)o;
	snprintf(buf, len, "%u-%u", a->n_min, a->n_max);
	return buf;
}

static const char *const theory_usage[] = {
	"[--fn SPEC]... [--jobs N|MIN-MAX] [--cycles C]", NULL
};

static const char theory_about[] =
	"Measure in the simulator, beside the predictions, (a) the map of "
	"the intervals between the write starts of N jobs whose writes "
	"overlap, a_j -> (N-j) f(j) / (j f(N-j)) a_j with product 1, and (b) "
	"the return map of the gap between two jobs whose writes are shorter "
	"than their compute, the identity, with and without a power cap. "
	"Exits 1 if a measurement misses its prediction by more than the "
	"core's nanosecond clock explains.";
/* The scales of (a): writes of 64 s alone, intervals of about 1 s. */
static void overlap_setup(struct theory_setup *ts, const struct fnblk_fn *fn)
{
	*ts = (struct theory_setup){
		.fn = *fn,
		.bw = 1ULL << 30,
		.size = 64ULL << 30,
		.compute_ns = 10000 * NSEC,
	};
}

static uint64_t base_interval(unsigned int j)
{
	return NSEC + j * (NSEC / 10);	/* distinct, so no two coincide */
}

/* (a) for one f and one N; returns the number of failed checks. */
static int check_overlap(const struct fnblk_fn *fn, unsigned int n)
{
	unsigned int k = n - 1, j, i, expanding = 0;
	uint64_t *a = calloc(k, sizeof(*a));
	double *next = calloc(k, sizeof(*next)), *jac = calloc(k * k, sizeof(*jac));
	double *ad = calloc(k, sizeof(*ad)), *fluid = calloc(k, sizeof(*fluid));
	double fluid_rel, fluid_worst = 0, fluid_end, fluid_dev = 0;
	double prod = 1, tol_clock = theory_clock_error_ns(n), off = 0, det;
	double lambda, measured, rel, worst = 0;
	uint64_t delta = NSEC / 10;
	struct theory_setup ts;
	struct theory_cycle cyc;
	char err[256];
	int failed = 0;

	overlap_setup(&ts, fn);
	if (!a || !next || !jac || !ad || !fluid) {
		fprintf(stderr, "fnblk-sim: theory: out of memory\n");
		failed = 1;
		goto out;
	}
	for (j = 0; j < k; j++) {
		a[j] = base_interval(j);
		ad[j] = (double)a[j];
	}
	fluid_end = theory_fluid_map(&ts, n, ad, fluid);
	if (theory_interval_map(&ts, n, a, next, &cyc, err, sizeof(err)) ||
	    theory_jacobian(&ts, n, a, delta, jac, err, sizeof(err))) {
		fprintf(stderr, "fnblk-sim: theory: N=%u: %s\n", n, err);
		failed = 1;
		goto out;
	}
	pr_open_object(NULL);
	pr_u64("jobs", "  N=%llu", n);
	pr_bool("windows_overlap", "  windows overlap: %s", cyc.overlap);
	pr_bool("order_kept", ", order kept: %s\n", cyc.order_kept);
	pr_text("    %3s %17s %17s %17s %8s %8s %15s\n", "j", "a_j'/a_j core",
		"fluid model", "(N-j)f(j)/jf(N-j)", "err core", "err fluid",
		"J_jj perturbed");
	pr_open_array("intervals");
	for (j = 1; j <= k; j++) {
		lambda = theory_lambda(fn, n, j);
		measured = next[j - 1] / (double)a[j - 1];
		rel = fabs(measured - lambda) / lambda;
		if (rel > worst)
			worst = rel;
		/* The clock moves a_j' by at most tol_clock ns. */
		if (fabs(next[j - 1] - lambda * a[j - 1]) > tol_clock)
			failed++;
		prod *= measured;
		if (measured > 1 + tol_clock / (double)a[j - 1])
			expanding++;
		fluid_rel = fabs(fluid[j - 1] / ad[j - 1] - lambda) / lambda;
		if (fluid_rel > fluid_worst)
			fluid_worst = fluid_rel;
		if (fabs(fluid[j - 1] - lambda * ad[j - 1]) > fluid_dev)
			fluid_dev = fabs(fluid[j - 1] - lambda * ad[j - 1]);
		pr_open_object(NULL);
		pr_u64("j", "    %3llu", j);
		pr_double("ratio_core", " %17.12f", measured);
		pr_double("ratio_fluid", " %17.12f", fluid[j - 1] / ad[j - 1]);
		pr_double("ratio_theory", " %17.12f", lambda);
		pr_double("rel_err_core", " %8.1e", rel);
		pr_double("rel_err_fluid", " %8.1e", fluid_rel);
		pr_double("jacobian_jj", " %15.9f\n", jac[(j - 1) * k + (j - 1)]);
		pr_close_object();
		for (i = 0; i < k; i++)
			if (i != j - 1 && fabs(jac[(j - 1) * k + i]) > off)
				off = fabs(jac[(j - 1) * k + i]);
	}
	pr_close_array();
	det = theory_det(jac, k);
	if (!cyc.overlap || !cyc.order_kept)
		failed++;
	if (expanding != theory_expanding(fn, n))
		failed++;
	/* The fluid model is the derivation in floating point: rounding only. */
	if (fluid_dev > theory_fluid_error_ns(n, fluid_end))
		failed++;
	/* Each J entry is off by at most 2 tol_clock / delta. */
	if (off > 2 * tol_clock / delta ||
	    fabs(det - 1) > 2 * k * tol_clock / delta * n)
		failed++;
	pr_double("spectrum_product", "    product of spectrum: %.12f (theory 1)", prod);
	pr_double("det_jacobian", "   det J: %.9f", det);
	pr_double("max_off_diagonal", "   max |off-diagonal J|: %.1e\n", off);
	pr_u64("expanding", "    expanding directions: %llu", expanding);
	pr_u64("expanding_theory", " (theory %llu", theory_expanding(fn, n));
	pr_text("%s)", fn->nr == 1 ? ", ceil(N/2)-1" : "");
	pr_double("worst_rel_err_core", "   worst rel.err core %.1e", worst);
	pr_double("worst_rel_err_fluid", ", fluid %.1e", fluid_worst);
	pr_bool("ok", NULL, !failed);
	pr_text("   %s\n", failed ? "FAIL" : "ok");
	pr_close_object();
out:
	free(a);
	free(next);
	free(jac);
	free(ad);
	free(fluid);
	return failed;
}

/* (b) for one f, with and without a power cap. */
static int check_gap(const struct fnblk_fn *fn, unsigned int cycles)
{
	static const double caps[] = { 0, 1, 1.5 };
	/* 64 MiB at 100 MiB/s: 0.64 s alone, 1.28 s together; compute 2 s. */
	struct theory_setup ts = {
		.fn = *fn, .bw = 100ULL << 20, .size = 64ULL << 20,
		.compute_ns = 2 * NSEC,
	};
	int64_t *gaps = calloc(cycles, sizeof(*gaps)), drift, worst;
	uint64_t gap, period = ts.compute_ns + 640 * (NSEC / 1000);
	unsigned int ci, g, c;
	char err[256];
	int failed = 0;

	if (!gaps)
		return 1;
	for (ci = 0; ci < sizeof(caps) / sizeof(caps[0]); ci++) {
		ts.power_cap = caps[ci];
		worst = 0;
		pr_open_object(NULL);
		pr_double("power_cap", "    power cap %-4g", caps[ci]);
		pr_text(" gap_1 -> gap_%u (ms):", cycles - 1);
		pr_open_array("gaps");
		for (g = 1; g <= 7; g++) {
			gap = period * g / 8 + 12345;
			if (theory_gap_map(&ts, gap, cycles, gaps, err,
					   sizeof(err))) {
				fprintf(stderr, "fnblk-sim: theory: %s\n", err);
				pr_close_array();
				pr_close_object();
				free(gaps);
				return 1;
			}
			/*
			 * From cycle 1: before its first write a job has
			 * neither written nor computed beside the other, a
			 * state the dynamics never produce again.
			 */
			for (c = 2; c < cycles; c++) {
				drift = llabs(gaps[c] - gaps[c - 1]);
				if (drift > worst)
					worst = drift;
			}
			pr_open_object(NULL);
			pr_double("first_ms", " %.3f", gaps[1] * 1e-6);
			pr_double("last_ms", "->%.3f", gaps[cycles - 1] * 1e-6);
			pr_close_object();
		}
		/* Two jobs, two ends per cycle, each rounded up to a ns. */
		if (worst > (int64_t)theory_clock_error_ns(2))
			failed++;
		pr_close_array();
		pr_int("largest_step_ns", "\n      largest |gap_{c+1} - gap_c|: %lld ns", worst);
		pr_bool("ok", NULL, worst <= (int64_t)theory_clock_error_ns(2));
		pr_text("   %s\n", worst > (int64_t)theory_clock_error_ns(2) ?
			"FAIL" : "identity");
		pr_close_object();
	}
	free(gaps);
	return failed;
}

int cmd_theory(int argc, char **argv)
{
	static struct theory_args a = { .n_min = 3, .n_max = 8, .cycles = 20 };
	static const struct cli_option own[] = {
		{ .name = "fn", .arg = "SPEC", .type = CLI_CALL, .set = set_fn,
		  .dflt = "constant, linear:4, power:0.5 and two tables, one "
			  "decreasing",
		  .help = "an f(n) to check; repeatable" },
		{ .name = "jobs", .arg = "N|MIN-MAX", .type = CLI_CALL,
		  .set = set_jobs, .show = show_jobs,
		  .help = "the fleet sizes N of (a), one or a range" },
		{ .name = "cycles", .arg = "C", .type = CLI_UINT, .var = &a.cycles,
		  .min = 3, .max = 100000, .help = "cycles of the gap map (b)" },
		{ .name = NULL },
	};
	static const struct cli_group groups[] = {
		{ .title = "Options", .options = own, .ctx = &a },
		{ .title = NULL },
	};
	static const struct cli_program prog = {
		.name = "fnblk-sim theory", .usage = theory_usage,
		.about = theory_about, .groups = groups, .json = &a.json,
		.json_help = "print the measurements as JSON",
	};
	struct fnblk_fn fn;
	const char *why;
	unsigned int i, n;
	int first, failed = 0, ret;

	ret = cli_parse(&prog, argc, argv, &first);
	if (ret == CLI_CONTINUE && first < argc)
		ret = cli_usage_error(&prog, "unexpected operand '%s'", argv[first]);
	if (ret != CLI_CONTINUE)
		return ret;
	if (!a.nr_fns)
		for (i = 0; default_fns[i]; i++)
			a.fns[a.nr_fns++] = default_fns[i];
	pr_init(a.json);
	pr_open_object(NULL);
	pr_open_array("fns");
	for (i = 0; i < a.nr_fns; i++) {
		fnblk_fn_parse(a.fns[i], &fn, &why);
		pr_open_object(NULL);
		pr_str("fn", "f = %s\n", a.fns[i]);
		pr_text(" (a) overlapping windows: one cycle of the interval map\n");
		pr_open_array("overlap");
		for (n = a.n_min; n <= a.n_max; n++)
			failed += check_overlap(&fn, n);
		pr_close_array();
		pr_text(" (b) two jobs, write shorter than compute: gap return map\n");
		pr_open_array("gap");
		failed += check_gap(&fn, a.cycles);
		pr_close_array();
		pr_close_object();
	}
	pr_close_array();
	pr_text("%s: ", failed ? "FAIL" : "ok");
	pr_u64("failed", "%llu", failed);
	pr_text(" check%s failed\n", failed == 1 ? "" : "s");
	pr_close_object();
	if (pr_end())
		return cli_error(&prog, "writing the report failed");
	return failed ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
