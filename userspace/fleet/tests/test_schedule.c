// SPDX-License-Identifier: GPL-2.0
/* Host tests of the fleet schedule (userspace/lib/fleet.c) and compute. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/fleet.h"
#include "../compute.h"
#include "tap.h"

static int set(struct fleet_config *c, const char *name, const char *value)
{
	char err[256];
	int ret = fleet_config_set(c, name, value, err, sizeof(err));

	if (ret < 0)
		printf("# %s=%s: %s\n", name, value, err);
	return ret;
}

static void test_rng(void)
{
	struct fleet_rng a, b;
	double sum = 0, sq = 0, mean, var;
	int i, same = 1, in_range = 1;
	const int n = 200000;

	fleet_rng_seed(&a, 42);
	fleet_rng_seed(&b, 42);
	for (i = 0; i < 100; i++)
		same &= fleet_rng_u64(&a) == fleet_rng_u64(&b);
	TAP_OK(same, "rng: one seed gives one sequence");
	fleet_rng_seed(&b, 43);
	TAP_OK(fleet_rng_u64(&a) != fleet_rng_u64(&b), "rng: seeds differ");
	for (i = 0; i < n; i++) {
		double u = fleet_rng_uniform(&a);

		in_range &= u >= 0 && u < 1;
		sum += u;
	}
	TAP_OK(in_range, "rng: uniform in [0, 1)");
	/* Standard error of the mean is 0.29/sqrt(n) = 0.00065: 6 sigma. */
	TAP_NEAR(sum / n, 0.5, 0.004, "rng: uniform mean 1/2");
	sum = 0;
	for (i = 0; i < n; i++) {
		double z = fleet_rng_normal(&a);

		sum += z;
		sq += z * z;
	}
	mean = sum / n;
	var = sq / n - mean * mean;
	TAP_NEAR(mean, 0, 0.014, "rng: normal mean 0");
	TAP_NEAR(var, 1, 0.02, "rng: normal variance 1");
	sum = 0;
	for (i = 0; i < n; i++)
		sum += fleet_rng_exponential(&a, 3.0);
	TAP_NEAR(sum / n, 3.0, 0.04, "rng: exponential mean");
}

static void test_dist(void)
{
	struct fleet_dist d = { 0 };
	char err[256];
	struct fleet_rng r;
	int i, ok = 1;

	fleet_rng_seed(&r, 1);
	TAP_OK(!fleet_dist_parse("1s,250ms,2s", FLEET_UNIT_TIME, &d, err, sizeof(err)),
	       "dist: list of durations parses");
	TAP_EQ_U(d.nr, 3, "dist: list has three values");
	TAP_NEAR(fleet_dist_draw(&d, 1, &r), 250e6, 0, "dist: job 1 takes the 2nd");
	TAP_NEAR(fleet_dist_draw(&d, 4, &r), 250e6, 0, "dist: job 4 wraps to the 2nd");
	TAP_NEAR(fleet_dist_mean(&d), (1e9 + 250e6 + 2e9) / 3, 1e-3, "dist: list mean");
	TAP_OK(!fleet_dist_parse("uniform:1MiB,3MiB", FLEET_UNIT_SIZE, &d, err, sizeof(err)),
	       "dist: uniform sizes parse");
	for (i = 0; i < 1000; i++) {
		double v = fleet_dist_draw(&d, i, &r);

		ok &= v >= 1048576 && v <= 3 * 1048576;
	}
	TAP_OK(ok, "dist: uniform draws stay in [a, b]");
	TAP_OK(!fleet_dist_parse("normal:10ms,100ms", FLEET_UNIT_TIME, &d, err, sizeof(err)),
	       "dist: normal parses");
	for (ok = 1, i = 0; i < 1000; i++)
		ok &= fleet_dist_draw(&d, i, &r) >= 0;
	TAP_OK(ok, "dist: normal clamped at 0");
	TAP_OK(fleet_dist_parse("uniform:2s,1s", FLEET_UNIT_TIME, &d, err, sizeof(err)) &&
	       strstr(err, "a <= b"), "dist: uniform with b < a is refused");
	TAP_OK(fleet_dist_parse("normal:1s", FLEET_UNIT_TIME, &d, err, sizeof(err)) &&
	       strstr(err, "2 values"), "dist: normal needs two values");
	TAP_OK(fleet_dist_parse("1s,,x", FLEET_UNIT_TIME, &d, err, sizeof(err)),
	       "dist: a bad list item is refused");
	TAP_OK(!strcmp(d.spec, "normal:10ms,100ms"), "dist: a failed parse keeps the old value");
	fleet_dist_free(&d);
}

static void test_config(void)
{
	struct fleet_config c;
	struct fleet_job j[4], k[4];
	char err[256];
	int i, ok;

	TAP_OK(!fleet_config_init(&c), "config: defaults");
	TAP_EQ_U(set(&c, "nonsense", "1"), 1, "config: unknown names are the caller's");
	TAP_OK(set(&c, "jobs", "0") < 0, "config: zero jobs refused");
	TAP_OK(set(&c, "jitter", "1.5") < 0, "config: jitter >= 1 refused");
	TAP_OK(!set(&c, "jitter", "10%") && fabs(c.jitter - 0.1) < 1e-12,
	       "config: jitter as a percentage");
	TAP_OK(set(&c, "phases", "diagonal") < 0, "config: unknown phases refused");
	TAP_OK(!set(&c, "jobs", "4") && !set(&c, "compute", "1s,2s") &&
	       !set(&c, "size", "4MiB") && !set(&c, "phases", "stagger") &&
	       !set(&c, "period", "400ms"), "config: stagger fleet set");
	TAP_OK(!fleet_plan(&c, j, err, sizeof(err)), "plan: stagger");
	for (ok = 1, i = 0; i < 4; i++)
		ok &= j[i].phase_ns == (uint64_t)i * 100000000;
	TAP_OK(ok, "plan: stagger puts job j at j * period / N");
	TAP_OK(j[0].compute_ns == 1000000000 && j[1].compute_ns == 2000000000 &&
	       j[2].compute_ns == 1000000000, "plan: list T per job");
	TAP_EQ_U(j[3].size, 4 << 20, "plan: size");
	set(&c, "phases", "sync");
	fleet_plan(&c, j, err, sizeof(err));
	TAP_OK(!j[0].phase_ns && !j[3].phase_ns, "plan: sync starts everyone at 0");

	set(&c, "phases", "random");
	set(&c, "seed", "7");
	fleet_plan(&c, j, err, sizeof(err));
	fleet_plan(&c, k, err, sizeof(err));
	for (ok = 1, i = 0; i < 4; i++)
		ok &= j[i].phase_ns == k[i].phase_ns && j[i].phase_ns < 400000000;
	TAP_OK(ok, "plan: random phases reproducible and within the period");
	set(&c, "compute", "uniform:1s,2s");
	fleet_plan(&c, k, err, sizeof(err));
	for (ok = 1, i = 0; i < 4; i++)
		ok &= j[i].phase_ns == k[i].phase_ns;
	TAP_OK(ok, "plan: changing T leaves the phase draws alone");
	set(&c, "seed", "8");
	fleet_plan(&c, k, err, sizeof(err));
	TAP_OK(memcmp(j, k, sizeof(j)), "plan: another seed, another fleet");

	/* Jitter: bounded, deterministic per (job, cycle), not constant. */
	set(&c, "jitter", "0.1");
	for (ok = 1, i = 0; i < 100; i++) {
		uint64_t t = fleet_cycle_compute_ns(&c, &k[0], 0, i);

		ok &= t >= 0.9 * k[0].compute_ns - 1 && t <= 1.1 * k[0].compute_ns + 1 &&
		      t == fleet_cycle_compute_ns(&c, &k[0], 0, i);
	}
	TAP_OK(ok, "jitter: within T(1 +- jitter), same draw twice");
	TAP_OK(fleet_cycle_compute_ns(&c, &k[0], 0, 1) !=
	       fleet_cycle_compute_ns(&c, &k[0], 0, 2), "jitter: cycles differ");
	set(&c, "jitter", "0");
	TAP_EQ_U(fleet_cycle_compute_ns(&c, &k[0], 0, 5), k[0].compute_ns,
		 "jitter: none leaves T");

	set(&c, "cycles", "0");
	TAP_OK(fleet_config_check(&c, err, sizeof(err)), "config: no cycles and no duration refused");
	fleet_config_free(&c);
}

static void test_phase_file(void)
{
	char path[] = "/tmp/fleet-phases-XXXXXX";
	struct fleet_config c;
	struct fleet_job j[3];
	char err[256];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fprintf(f, "# offsets\n0\n250ms\n\n1.5s  # last\n");
	fclose(f);
	fleet_config_init(&c);
	set(&c, "jobs", "3");
	TAP_OK(set(&c, "phases", "file:") < 0, "phases: file: without a path refused");
	TAP_OK(set(&c, "phases", "file:/nonexistent/phases") < 0, "phases: a missing file refused");
	{
		char spec[300];

		snprintf(spec, sizeof(spec), "file:%s", path);
		TAP_OK(!set(&c, "phases", spec), "phases: file parses");
	}
	TAP_OK(!fleet_plan(&c, j, err, sizeof(err)) && j[0].phase_ns == 0 &&
	       j[1].phase_ns == 250000000 && j[2].phase_ns == 1500000000,
	       "phases: file offsets in job order");
	set(&c, "jobs", "4");
	TAP_OK(fleet_plan(&c, j, err, sizeof(err)) && strstr(err, "3 offsets"),
	       "phases: a short file is refused");
	fleet_config_free(&c);
	unlink(path);
}

static void test_power(void)
{
	struct compute_opts o = { .mode = COMPUTE_SLEEP, .power_cap = 1,
				  .step_ns = 2000000 };
	struct compute_shared *sh = compute_shared_create();
	uint64_t t0, el;

	TAP_NEAR(fleet_power_rate(0, 5), 1, 0, "power: no cap, full speed");
	TAP_NEAR(fleet_power_rate(4, 3), 1, 0, "power: cap above m does not bind");
	TAP_NEAR(fleet_power_rate(2, 8), 0.25, 0, "power: P/m when binding");
	TAP_NEAR(fleet_power_rate(1.5, 0), 1, 0, "power: nobody computing");
	TAP_OK(sh != NULL, "power: shared segment");
	if (!sh)
		return;
	/* Another job is computing for the whole run: we get half speed. */
	atomic_store(&sh->computing, 1);
	t0 = now_ns();
	TAP_OK(compute_run(&o, sh, 50000000, 0), "power: work completes");
	el = now_ns() - t0;
	TAP_OK(el >= 99000000, "power: 50ms of work under cap 1 with 2 computing takes >= 100ms");
	TAP_EQ_U(atomic_load(&sh->computing), 1, "power: the job deregisters");
	t0 = now_ns();
	TAP_OK(!compute_run(&o, sh, 500000000, t0 + 30000000), "power: a deadline stops the work");
	el = now_ns() - t0;
	TAP_OK(el >= 30000000 && el < 400000000, "power: stopped at the deadline, not at the work");
	compute_shared_destroy(sh);
}

/* Every recorded parameter sets back the value it was recorded from. */
static void copy_param(void *arg, const char *name, const char *value)
{
	char err[256];

	if (strcmp(name, "phases") && fleet_config_set(arg, name, value, err,
							sizeof(err)))
		printf("# %s=%s does not set back: %s\n", name, value, err);
}

static void test_params_round_trip(void)
{
	struct fleet_config a, b;

	fleet_config_init(&a);
	fleet_config_init(&b);
	set(&a, "period", "1234567ns");
	set(&a, "duration", "10.000001s");
	set(&a, "power-step", "2500us");
	set(&a, "jitter", "0.1234567");
	set(&a, "power-cap", "1.0000001");
	fleet_config_params(&a, copy_param, &b);
	TAP_EQ_U(b.period_ns, 1234567, "params: period recorded exactly");
	TAP_EQ_U(b.duration_ns, 10000001000ULL, "params: duration recorded exactly");
	TAP_EQ_U(b.power_step_ns, 2500000, "params: power-step recorded exactly");
	TAP_OK(b.jitter == a.jitter && b.power_cap == a.power_cap,
	       "params: jitter and power-cap recorded exactly");
	fleet_config_free(&a);
	fleet_config_free(&b);
}

int main(void)
{
	test_rng();
	test_dist();
	test_config();
	test_phase_file();
	test_power();
	test_params_round_trip();
	return tap_done();
}
