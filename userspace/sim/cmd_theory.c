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

#include "cli.h"
#include "commands.h"
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
	bool help;
};

static const struct option theory_own[] = {
	{ "fn", required_argument, NULL, 'f' },
	{ "jobs", required_argument, NULL, 'n' },
	{ "cycles", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void theory_usage(FILE *f)
{
	fputs("usage: fnblk-sim theory [--fn SPEC]... [--jobs N|MIN-MAX] [--cycles C]\n"
	      "Measure the interval map of N jobs with overlapping writes and the\n"
	      "two-job gap map in the simulator, beside the predictions:\n"
	      "  a_j -> (N-j) f(j) / (j f(N-j)) a_j, product 1; gap -> gap.\n"
	      "  --fn SPEC   f(n) to check, repeatable (default: constant, linear:4,\n"
	      "              power:0.5 and two tables, one decreasing)\n"
	      "  --jobs N    fleet sizes for (a), one or a range (3-8)\n"
	      "  --cycles C  cycles of the gap map in (b) (20)\n",
	      f);
}

static int theory_on(void *ctx, int val, const char *arg)
{
	struct theory_args *a = ctx;
	unsigned long long v;
	unsigned int lo, hi;
	char tail;

	switch (val) {
	case 'f':
		if (a->nr_fns == MAX_FNS) {
			fprintf(stderr, "fnblk-sim theory: at most %d --fn\n",
				MAX_FNS);
			return -1;
		}
		a->fns[a->nr_fns++] = arg;
		return 0;
	case 'n':
		if (sscanf(arg, "%u-%u%c", &lo, &hi, &tail) != 2) {
			if (sscanf(arg, "%u%c", &lo, &tail) != 1)
				lo = 0;
			hi = lo;
		}
		if (lo >= 2 && hi >= lo && hi <= THEORY_MAX_JOBS) {
			a->n_min = lo;
			a->n_max = hi;
			return 0;
		}
		fprintf(stderr,
			"fnblk-sim theory: --jobs: expected N or MIN-MAX within 2..64\n");
		return -1;
	case 'c':
		if (cli_uint("theory", "cycles", arg, 3, 100000, &v))
			return -1;
		a->cycles = (unsigned int)v;
		return 0;
	case 'h':
		a->help = true;
		return 0;
	}
	return -1;
}

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
		fprintf(stderr, "fnblk-sim theory: out of memory\n");
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
		fprintf(stderr, "fnblk-sim theory: N=%u: %s\n", n, err);
		failed = 1;
		goto out;
	}
	printf("  N=%u  windows overlap: %s, order kept: %s\n", n,
	       cyc.overlap ? "yes" : "NO", cyc.order_kept ? "yes" : "NO");
	printf("    %3s %17s %17s %17s %8s %8s %15s\n", "j", "a_j'/a_j core",
	       "fluid model", "(N-j)f(j)/jf(N-j)", "err core",
	       "err fluid", "J_jj perturbed");
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
		printf("    %3u %17.12f %17.12f %17.12f %8.1e %8.1e %15.9f\n", j,
		       measured, fluid[j - 1] / ad[j - 1], lambda, rel,
		       fluid_rel, jac[(j - 1) * k + (j - 1)]);
		for (i = 0; i < k; i++)
			if (i != j - 1 && fabs(jac[(j - 1) * k + i]) > off)
				off = fabs(jac[(j - 1) * k + i]);
	}
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
	printf("    product of spectrum: %.12f (theory 1)   det J: %.9f   max |off-diagonal J|: %.1e\n",
	       prod, det, off);
	printf("    expanding directions: %u (theory %u%s)   worst rel.err core %.1e, fluid %.1e   %s\n",
	       expanding, theory_expanding(fn, n),
	       fn->nr == 1 ? ", ceil(N/2)-1" : "", worst, fluid_worst,
	       failed ? "FAIL" : "ok");
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
		printf("    power cap %-4g gap_1 -> gap_%u (ms):", caps[ci],
		       cycles - 1);
		for (g = 1; g <= 7; g++) {
			gap = period * g / 8 + 12345;
			if (theory_gap_map(&ts, gap, cycles, gaps, err,
					   sizeof(err))) {
				fprintf(stderr, "fnblk-sim theory: %s\n", err);
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
			printf(" %.3f->%.3f", gaps[1] * 1e-6,
			       gaps[cycles - 1] * 1e-6);
		}
		/* Two jobs, two ends per cycle, each rounded up to a ns. */
		if (worst > (int64_t)theory_clock_error_ns(2))
			failed++;
		printf("\n      largest |gap_{c+1} - gap_c|: %lld ns   %s\n",
		       (long long)worst, worst > (int64_t)theory_clock_error_ns(2) ?
		       "FAIL" : "identity");
	}
	free(gaps);
	return failed;
}

int cmd_theory(int argc, char **argv)
{
	struct theory_args a = { .n_min = 3, .n_max = 8, .cycles = 20 };
	struct cli_command cmd = { .name = "theory", .own = theory_own,
				   .shortopts = "h", .on = theory_on, .ctx = &a,
				   .own_only = true };
	struct fnblk_fn fn;
	const char *why;
	unsigned int i, n;
	int first, failed = 0;

	first = cli_parse(&cmd, NULL, argc, argv);
	if (first < 0 || a.help || first < argc) {
		if (a.help)
			theory_usage(stdout);
		else
			cli_hint("theory");
		return a.help ? EXIT_OK : EXIT_USAGE;
	}
	if (!a.nr_fns)
		for (i = 0; default_fns[i]; i++)
			a.fns[a.nr_fns++] = default_fns[i];
	for (i = 0; i < a.nr_fns; i++) {
		if (fnblk_fn_parse(a.fns[i], &fn, &why)) {
			fprintf(stderr, "fnblk-sim theory: --fn %s: %s\n",
				a.fns[i], why);
			return EXIT_USAGE;
		}
	}
	for (i = 0; i < a.nr_fns; i++) {
		fnblk_fn_parse(a.fns[i], &fn, &why);
		printf("f = %s\n", a.fns[i]);
		printf(" (a) overlapping windows: one cycle of the interval map\n");
		for (n = a.n_min; n <= a.n_max; n++)
			failed += check_overlap(&fn, n);
		printf(" (b) two jobs, write shorter than compute: gap return map\n");
		failed += check_gap(&fn, a.cycles);
	}
	printf("%s: %d check%s failed\n", failed ? "FAIL" : "ok", failed,
	       failed == 1 ? "" : "s");
	return failed ? EXIT_RUNTIME : EXIT_OK;
}
