// SPDX-License-Identifier: GPL-2.0
/*
 * The phase-blindness theory in the simulator (theory.h): the two-job
 * identity, the (N-j)/j spectrum, the general-f spectrum and its unit
 * product, and order freezing. The only tolerance is the core's clock:
 * every end is rounded up to the next ns (theory_clock_error_ns).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "options.h"
#include "tap.h"
#include "theory.h"

#define NSEC	1000000000ULL

static struct fnblk_fn fn_of(const char *spec)
{
	struct fnblk_fn fn;
	const char *why;

	if (fnblk_fn_parse(spec, &fn, &why)) {
		diag("bad f in a test: %s: %s", spec, why);
		exit(2);
	}
	return fn;
}

/* Writes of 64 s alone, intervals of about 1 s, compute long past them. */
static struct theory_setup overlap_setup(const char *fn)
{
	return (struct theory_setup){
		.fn = fn_of(fn), .bw = 1ULL << 30, .size = 64ULL << 30,
		.compute_ns = 10000 * NSEC,
	};
}

static void intervals(uint64_t *a, unsigned int n)
{
	unsigned int j;

	for (j = 0; j + 1 < n; j++)
		a[j] = NSEC + j * (NSEC / 7);
}

static void test_spectrum_constant(void)
{
	struct theory_setup ts = overlap_setup("constant");
	uint64_t a[16];
	double next[16];
	struct theory_cycle cyc;
	char err[256];
	unsigned int n, j, worst_j;
	double tol, dev, worst;

	for (n = 3; n <= 8; n++) {
		intervals(a, n);
		if (!ok(!theory_interval_map(&ts, n, a, next, &cyc, err,
					     sizeof(err)),
			"N=%u: simulated one cycle", n)) {
			diag("%s", err);
			continue;
		}
		ok(cyc.overlap && cyc.separated,
		   "N=%u: all write windows overlap, cycles apart", n);
		tol = theory_clock_error_ns(n);
		worst = 0;
		worst_j = 1;
		for (j = 1; j < n; j++) {
			dev = fabs(next[j - 1] - (double)(n - j) / j * a[j - 1]);
			if (dev > worst) {
				worst = dev;
				worst_j = j;
			}
		}
		ok(worst <= tol, "N=%u: a_j' = ((N-j)/j) a_j for every j (worst j=%u off by %.0f ns, clock bound %.0f)",
		   n, worst_j, worst, tol);
	}
}

static void test_spectrum_general(void)
{
	static const char *const fns[] = {
		"linear:3", "power:0.5", "power:-0.5",
		"table:1,0.9,0.8,0.7,0.6,0.5,0.45,0.4",	/* decreasing */
		"table:1,0.5,0.25,0.125",		/* steeply decreasing */
		"table:1,1.6,0.7,1.3,0.9,2,0.5,1.1",	/* neither */
		"table:1,3,2.5,6",			/* f(n) > n */
		NULL
	};
	uint64_t a[16];
	double next[16], jac[15 * 15];
	struct theory_cycle cyc;
	char err[256];
	unsigned int i, n, j, expanding;
	double tol, prod, bound, worst, det;

	for (i = 0; fns[i]; i++) {
		struct theory_setup ts = overlap_setup(fns[i]);

		for (n = 3; n <= 8; n += 5) {
			intervals(a, n);
			if (theory_interval_map(&ts, n, a, next, &cyc, err,
						sizeof(err)) ||
			    theory_jacobian(&ts, n, a, NSEC / 10, jac, err,
					    sizeof(err))) {
				ok(false, "f=%s N=%u: simulated", fns[i], n);
				diag("%s", err);
				continue;
			}
			tol = theory_clock_error_ns(n);
			prod = 1;
			bound = 0;
			worst = 0;
			expanding = 0;
			for (j = 1; j < n; j++) {
				double lambda = theory_lambda(&ts.fn, n, j);
				double dev = fabs(next[j - 1] - lambda * a[j - 1]);

				if (dev > worst)
					worst = dev;
				prod *= next[j - 1] / a[j - 1];
				bound += tol / (lambda * a[j - 1]);
				if (next[j - 1] / a[j - 1] > 1 + tol / a[j - 1])
					expanding++;
			}
			ok(worst <= tol,
			   "f=%s N=%u: a_j' = (N-j)f(j)/(j f(N-j)) a_j (worst %.0f ns, bound %.0f)",
			   fns[i], n, worst, tol);
			near(prod, 1.0, bound,
			     "f=%s N=%u: the product of the spectrum is 1",
			     fns[i], n);
			is_u64(expanding, theory_expanding(&ts.fn, n),
			       "f=%s N=%u: expanding directions as predicted",
			       fns[i], n);
			det = theory_det(jac, n - 1);
			/* Each entry is off by at most 2 tol / delta. */
			near(det, 1.0, 2.0 * n * n * tol / (NSEC / 10),
			     "f=%s N=%u: det of the perturbed Jacobian is 1",
			     fns[i], n);
		}
	}
}

static void test_expanding_constant(void)
{
	struct fnblk_fn fn = fn_of("constant");
	unsigned int n;
	bool all = true;

	for (n = 2; n <= 64; n++)
		all = all && theory_expanding(&fn, n) == (n + 1) / 2 - 1;
	ok(all, "constant f: ceil(N/2) - 1 expanding directions for N = 2..64");
	fn = fn_of("table:1,0.5");
	is_u64(theory_expanding(&fn, 3), 1,
	       "table:1,0.5 N=3: lambda_1 = 2*1/(1*0.5) = 4 > 1, lambda_2 = 1/4");
	near(theory_lambda(&fn, 3, 1) * theory_lambda(&fn, 3, 2), 1.0, 1e-15,
	     "the predicted spectrum multiplies to 1");
}

/*
 * The derivation in floating point, without the core: the formula holds to
 * rounding, for any f, and the core agrees with it to its ns clock.
 */
static void test_fluid(void)
{
	static const char *const fns[] = {
		"constant", "linear:3", "power:0.5", "power:-1",
		"table:1,0.9,0.8,0.7,0.6,0.5,0.45,0.4",
		"table:1,1.6,0.7,1.3,0.9,2,0.5,1.1", NULL
	};
	uint64_t a[THEORY_MAX_JOBS];
	double ad[THEORY_MAX_JOBS], fluid[THEORY_MAX_JOBS];
	double core[THEORY_MAX_JOBS];
	struct theory_cycle cyc;
	char err[256];
	unsigned int i, n, j;

	for (i = 0; fns[i]; i++) {
		struct theory_setup ts = overlap_setup(fns[i]);
		double worst = 0, worst_core = 0, dev_bound = 0, end;

		for (n = 2; n <= 32; n++) {
			intervals(a, n);
			for (j = 0; j + 1 < n; j++)
				ad[j] = (double)a[j];
			end = theory_fluid_map(&ts, n, ad, fluid);
			for (j = 1; j < n; j++) {
				double lambda = theory_lambda(&ts.fn, n, j);
				double dev = fabs(fluid[j - 1] - lambda * ad[j - 1]);

				if (dev / lambda / ad[j - 1] > worst)
					worst = dev / lambda / ad[j - 1];
				/* In units of the rounding bound. */
				if (dev / theory_fluid_error_ns(n, end) > dev_bound)
					dev_bound = dev / theory_fluid_error_ns(n, end);
			}
			if (n > 8)
				continue;
			if (theory_interval_map(&ts, n, a, core, &cyc, err,
						sizeof(err))) {
				diag("%s", err);
				worst_core = INFINITY;
				continue;
			}
			for (j = 0; j + 1 < n; j++)
				if (fabs(core[j] - fluid[j]) /
				    theory_clock_error_ns(n) > worst_core)
					worst_core = fabs(core[j] - fluid[j]) /
						     theory_clock_error_ns(n);
		}
		ok(dev_bound <= 1,
		   "f=%s N=2..32: fluid model matches (N-j)f(j)/(j f(N-j)) to rounding (worst rel. %.1e)",
		   fns[i], worst);
		ok(worst_core <= 1,
		   "f=%s N=2..8: the core matches the fluid model within its clock bound",
		   fns[i]);
	}
}

/* Jacobian off the diagonal: perturbing a_i moves no other a_j. */
static void test_diagonal(void)
{
	struct theory_setup ts = overlap_setup("table:1,0.8,0.6,0.5,0.4");
	uint64_t a[8];
	double jac[7 * 7], off = 0;
	char err[256];
	unsigned int n = 6, r, c;

	intervals(a, n);
	if (theory_jacobian(&ts, n, a, NSEC / 10, jac, err, sizeof(err))) {
		ok(false, "Jacobian of N=6 simulated");
		diag("%s", err);
		return;
	}
	for (r = 0; r + 1 < n; r++)
		for (c = 0; c + 1 < n; c++)
			if (r != c && fabs(jac[r * (n - 1) + c]) > off)
				off = fabs(jac[r * (n - 1) + c]);
	near(off, 0, 2 * theory_clock_error_ns(n) / (NSEC / 10),
	     "the interval map is diagonal: perturbing a_i moves only a_i'");
}

/*
 * Control: without anonymity (fifo serves one checkpoint at a time) the
 * same measurement must miss (N-j)/j by far more than the clock bound,
 * or the checks above could not fail.
 */
static void test_fifo_control(void)
{
	struct theory_setup ts = overlap_setup("constant");
	uint64_t a[8];
	double next[8], worst = 0;
	struct theory_cycle cyc;
	char err[256];
	unsigned int n = 4, j;

	ts.policy = FNBLK_POLICY_FIFO;
	intervals(a, n);
	if (theory_interval_map(&ts, n, a, next, &cyc, err, sizeof(err))) {
		ok(false, "fifo control simulated");
		diag("%s", err);
		return;
	}
	for (j = 1; j < n; j++)
		if (fabs(next[j - 1] - (double)(n - j) / j * a[j - 1]) > worst)
			worst = fabs(next[j - 1] - (double)(n - j) / j * a[j - 1]);
	ok(worst > 1e6 * theory_clock_error_ns(n),
	   "control: under fifo the interval map is not (N-j)/j (off by %.3f s)",
	   worst * 1e-9);
	/* One at a time in arrival order: ends, hence next starts, S/B apart. */
	for (j = 1; j < n; j++)
		if (fabs(next[j - 1] - 64.0 * NSEC) > theory_clock_error_ns(n))
			break;
	ok(j == n, "control: under fifo every a_j' = S/B = 64 s, whatever a_j");
}

/* Two jobs, write shorter than compute: the gap never changes. */
static void test_two_job_identity(void)
{
	static const char *const fns[] = { "constant", "linear:2",
					   "table:1,0.6", NULL };
	static const double caps[] = { 0, 1, 1.5 };
	int64_t gaps[12], drift;
	char err[256];
	unsigned int i, ci, g, c;

	for (i = 0; fns[i]; i++) {
		for (ci = 0; ci < 3; ci++) {
			struct theory_setup ts = {
				.fn = fn_of(fns[i]), .bw = 100ULL << 20,
				.size = 64ULL << 20, .compute_ns = 2 * NSEC,
				.power_cap = caps[ci],
			};
			int64_t worst = 0;
			bool ran = true;

			for (g = 1; g < 8; g++) {
				if (theory_gap_map(&ts, g * 330000000ULL + 777,
						   12, gaps, err, sizeof(err))) {
					ran = false;
					diag("%s", err);
					break;
				}
				for (c = 2; c < 12; c++) {
					drift = llabs(gaps[c] - gaps[c - 1]);
					if (drift > worst)
						worst = drift;
				}
			}
			ok(ran && worst <= (int64_t)theory_clock_error_ns(2),
			   "f=%s cap=%g: two-job gap return map is the identity (largest step %lld ns)",
			   fns[i], caps[ci], (long long)worst);
		}
	}
}

/* Order freezing on a random fleet, through the fleet's own schedule. */
struct order_log {
	unsigned int jobs, cycles;
	uint64_t *start;	/* [cycle * jobs + job] */
};

static void log_write(void *ctx, const struct fnblk_event *ev)
{
	struct order_log *l = ctx;

	if (ev->cycle < l->cycles)
		l->start[ev->cycle * l->jobs + ev->job] = ev->start_ns;
}

static const uint64_t *sort_key;

static int by_key(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	if (sort_key[x] != sort_key[y])
		return sort_key[x] < sort_key[y] ? -1 : 1;
	return (int)x - (int)y;
}

static void order_case(const char *const (*opts)[2], const char *name)
{
	struct sim_options o;
	struct fleet_workload fw;
	struct sim_workload w;
	struct sim_result res;
	struct order_log l;
	struct sim_sink sink = { .ctx = &l, .write = log_write };
	unsigned int *first, *now, c, j, changes = 0;
	char err[256];

	sim_options_init(&o);
	for (; (*opts)[0]; opts++)
		if (sim_options_set(&o, (*opts)[0], (*opts)[1], err, sizeof(err)))
			diag("%s", err);
	l.jobs = o.fleet.jobs;
	l.cycles = (unsigned int)o.fleet.cycles;
	l.start = calloc((size_t)l.jobs * l.cycles, sizeof(*l.start));
	first = calloc(l.jobs, sizeof(*first));
	now = calloc(l.jobs, sizeof(*now));
	if (fleet_workload_init(&fw, &o.fleet, err, sizeof(err))) {
		ok(false, "%s: fleet planned", name);
		diag("%s", err);
		goto out;
	}
	fleet_workload_fill(&fw, &w);
	if (sim_run(&o.dev, &o.io, &w, &sink, &res, err, sizeof(err))) {
		ok(false, "%s: simulated", name);
		diag("%s", err);
		fleet_workload_free(&fw);
		goto out;
	}
	for (c = 0; c < l.cycles; c++) {
		for (j = 0; j < l.jobs; j++)
			now[j] = j;
		sort_key = &l.start[c * l.jobs];
		qsort(now, l.jobs, sizeof(*now), by_key);
		if (!c)
			memcpy(first, now, l.jobs * sizeof(*first));
		else if (memcmp(first, now, l.jobs * sizeof(*first)))
			changes++;
	}
	ok(res.peak_active > 1 && changes == 0,
	   "%s: firing order never changes over %u cycles (peak n %u)", name,
	   l.cycles, res.peak_active);
	fleet_workload_free(&fw);
out:
	free(l.start);
	free(first);
	free(now);
	sim_options_free(&o);
}

static void test_order_freezing(void)
{
	static const char *const plain[][2] = {
		{ "jobs", "16" }, { "cycles", "40" }, { "compute", "4s" },
		{ "size", "64MiB" }, { "bw", "100MiB/s" }, { "phases", "random" },
		{ "seed", "7" }, { NULL, NULL }
	};
	static const char *const decreasing[][2] = {
		{ "jobs", "12" }, { "cycles", "40" }, { "compute", "4s" },
		{ "size", "32MiB" }, { "bw", "100MiB/s" }, { "phases", "random" },
		{ "fn", "table:1,0.9,0.8,0.7,0.6" }, { "seed", "3" },
		{ NULL, NULL }
	};
	static const char *const capped[][2] = {
		{ "jobs", "16" }, { "cycles", "40" }, { "compute", "4s" },
		{ "size", "64MiB" }, { "bw", "100MiB/s" }, { "phases", "random" },
		{ "power-cap", "6" }, { "qd", "4" }, { "seed", "11" },
		{ NULL, NULL }
	};

	order_case(plain, "16 random jobs, constant f");
	order_case(decreasing, "12 random jobs, decreasing f");
	order_case(capped, "16 random jobs, power cap 6, qd 4");
}

int main(void)
{
	test_spectrum_constant();
	test_spectrum_general();
	test_expanding_constant();
	test_fluid();
	test_diagonal();
	test_fifo_control();
	test_two_job_identity();
	test_order_freezing();
	return tap_done();
}
