// SPDX-License-Identifier: GPL-2.0
/*
 * Checkpoint fleet schedules (see fleet.h): option parsing, seeded draws
 * of phases, compute times and checkpoint sizes, and the power-cap rate.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* getline, strdup under -std=c11 */
#endif
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "units.h"
#include "diag.h"
#include "cli.h"

/* Salts that give phases, T, S and jitter their own streams of one seed. */
#define SALT_PHASE	0x70686173655f5f31ULL
#define SALT_COMPUTE	0x636f6d707574655fULL
#define SALT_SIZE	0x73697a655f5f5f5fULL
#define SALT_JITTER	0x6a69747465725f5fULL

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void fleet_rng_seed(struct fleet_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t fleet_rng_u64(struct fleet_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

static double unit_interval(uint64_t x)
{
	return (double)(x >> 11) * 0x1.0p-53;
}

double fleet_rng_uniform(struct fleet_rng *r)
{
	return unit_interval(fleet_rng_u64(r));
}

double fleet_rng_normal(struct fleet_rng *r)
{
	/* Box-Muller; 1 - u keeps the logarithm away from 0. */
	double u = 1.0 - fleet_rng_uniform(r);
	double v = fleet_rng_uniform(r);

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

double fleet_rng_exponential(struct fleet_rng *r, double mean)
{
	return -mean * log(1.0 - fleet_rng_uniform(r));
}

/* ---- distributions ---- */

static int parse_quantity(const char *s, enum fleet_unit unit, double *v,
			  const char **why)
{
	uint64_t x;
	int ret = unit == FLEET_UNIT_TIME ? fnblk_parse_duration(s, &x, why)
					  : fnblk_parse_size(s, &x, why);

	if (!ret)
		*v = (double)x;
	return ret;
}

/* Split "a,b,c" into doubles of the given unit. */
static int parse_list(const char *s, enum fleet_unit unit, double **out,
		      size_t *nr, char *err, size_t errlen)
{
	char *copy = strdup(s), *tok, *save = NULL;
	double *v = NULL;
	size_t n = 0;

	if (!copy)
		return fnblk_seterr(err, errlen, "%s", strerror(ENOMEM));
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		const char *why;
		double *nv = realloc(v, (n + 1) * sizeof(*v));

		if (!nv) {
			fnblk_seterr(err, errlen, "%s", strerror(ENOMEM));
			goto fail;
		}
		v = nv;
		if (parse_quantity(tok, unit, &v[n], &why)) {
			fnblk_seterr(err, errlen, "\"%s\": %s", tok, why);
			goto fail;
		}
		n++;
	}
	if (!n) {
		fnblk_seterr(err, errlen, "empty list");
		goto fail;
	}
	free(copy);
	*out = v;
	*nr = n;
	return 0;
fail:
	free(copy);
	free(v);
	return -1;
}

int fleet_dist_parse(const char *spec, enum fleet_unit unit,
		     struct fleet_dist *d, char *err, size_t errlen)
{
	static const struct {
		const char *prefix;
		enum fleet_dist_kind kind;
		size_t args;
	} kinds[] = {
		{ "uniform:", FLEET_DIST_UNIFORM, 2 },
		{ "normal:", FLEET_DIST_NORMAL, 2 },
		{ "exponential:", FLEET_DIST_EXPONENTIAL, 1 },
	};
	struct fleet_dist n = { .kind = FLEET_DIST_LIST };
	double *args = NULL;
	size_t i, nr;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t len = strlen(kinds[i].prefix);

		if (strncmp(spec, kinds[i].prefix, len))
			continue;
		if (parse_list(spec + len, unit, &args, &nr, err, errlen))
			return -1;
		if (nr != kinds[i].args) {
			free(args);
			return fnblk_seterr(err, errlen, "%s takes %zu value%s",
				      kinds[i].prefix, kinds[i].args,
				      kinds[i].args > 1 ? "s" : "");
		}
		n.kind = kinds[i].kind;
		n.a = args[0];
		n.b = nr > 1 ? args[1] : 0;
		free(args);
		if (n.kind == FLEET_DIST_UNIFORM && n.b < n.a)
			return fnblk_seterr(err, errlen, "uniform:a,b needs a <= b");
		if (n.kind == FLEET_DIST_EXPONENTIAL && n.a <= 0)
			return fnblk_seterr(err, errlen, "exponential mean must be > 0");
		goto done;
	}
	if (parse_list(spec, unit, &n.list, &n.nr, err, errlen))
		return -1;
done:
	n.spec = strdup(spec);
	if (!n.spec) {
		free(n.list);
		return fnblk_seterr(err, errlen, "%s", strerror(ENOMEM));
	}
	fleet_dist_free(d);
	*d = n;
	return 0;
}

void fleet_dist_free(struct fleet_dist *d)
{
	free(d->list);
	free(d->spec);
	memset(d, 0, sizeof(*d));
}

double fleet_dist_draw(const struct fleet_dist *d, unsigned int job,
		       struct fleet_rng *r)
{
	double v = 0;

	switch (d->kind) {
	case FLEET_DIST_LIST:
		v = d->nr ? d->list[job % d->nr] : 0;
		break;
	case FLEET_DIST_UNIFORM:
		v = d->a + (d->b - d->a) * fleet_rng_uniform(r);
		break;
	case FLEET_DIST_NORMAL:
		v = d->a + d->b * fleet_rng_normal(r);
		break;
	case FLEET_DIST_EXPONENTIAL:
		v = fleet_rng_exponential(r, d->a);
		break;
	}
	return v < 0 ? 0 : v;
}

double fleet_dist_mean(const struct fleet_dist *d)
{
	double sum = 0;
	size_t i;

	switch (d->kind) {
	case FLEET_DIST_LIST:
		for (i = 0; i < d->nr; i++)
			sum += d->list[i];
		return d->nr ? sum / d->nr : 0;
	case FLEET_DIST_UNIFORM:
		return (d->a + d->b) / 2;
	case FLEET_DIST_NORMAL:
	case FLEET_DIST_EXPONENTIAL:
		return d->a;
	}
	return 0;
}

/* ---- configuration ---- */

int fleet_config_init(struct fleet_config *c)
{
	char err[128];

	memset(c, 0, sizeof(*c));
	c->jobs = 2;
	c->phases = FLEET_PHASE_SYNC;
	c->seed = 1;
	c->cycles = 10;
	c->power_step_ns = 5000000;
	if (fleet_dist_parse("1s", FLEET_UNIT_TIME, &c->compute, err,
			     sizeof(err)) ||
	    fleet_dist_parse("4MiB", FLEET_UNIT_SIZE, &c->size, err,
			     sizeof(err))) {
		fleet_config_free(c);
		return -1;
	}
	return 0;
}

void fleet_config_free(struct fleet_config *c)
{
	fleet_dist_free(&c->compute);
	fleet_dist_free(&c->size);
	free(c->phase_file);
	free(c->phase_offsets);
	memset(c, 0, sizeof(*c));
}

/* A phase file: one duration per line; blank lines and '#' comments skipped. */
static int read_phase_file(struct fleet_config *c, const char *path,
			   char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	uint64_t *off = NULL;
	size_t n = 0, cap = 0, line = 0;
	char *buf = NULL, *s, *end;
	size_t bufcap = 0;

	if (!f)
		return fnblk_seterr(err, errlen, "%s: %s", path, strerror(errno));
	while (getline(&buf, &bufcap, f) >= 0) {
		const char *why;

		line++;
		for (s = buf; *s == ' ' || *s == '\t'; s++)
			;
		end = s + strcspn(s, "#\r\n");
		while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		*end = '\0';
		if (!*s)
			continue;
		if (n == cap) {
			uint64_t *no;

			cap = cap ? 2 * cap : 64;
			no = realloc(off, cap * sizeof(*off));
			if (!no) {
				fnblk_seterr(err, errlen, "%s", strerror(ENOMEM));
				goto fail;
			}
			off = no;
		}
		if (fnblk_parse_duration(s, &off[n], &why)) {
			fnblk_seterr(err, errlen, "%s:%zu: \"%s\": %s", path, line, s,
			       why);
			goto fail;
		}
		n++;
	}
	fclose(f);
	free(buf);
	if (!n) {
		free(off);
		return fnblk_seterr(err, errlen, "%s: no offsets", path);
	}
	free(c->phase_file);
	free(c->phase_offsets);
	c->phase_file = strdup(path);
	c->phase_offsets = off;
	c->nr_phase_offsets = n;
	c->phases = FLEET_PHASE_FILE;
	return c->phase_file ? 0 : fnblk_seterr(err, errlen, "%s", strerror(ENOMEM));
fail:
	fclose(f);
	free(buf);
	free(off);
	return -1;
}

/* ---- the schedule options, one setter each ---- */

static int set_jobs(void *ctx, const struct cli_option *o, const char *arg,
		    char *err, size_t errlen)
{
	struct fleet_config *c = ctx;
	const char *why;
	uint64_t v;

	(void)o;
	if (fnblk_parse_uint(arg, 1, FLEET_JOBS_MAX, &v, &why))
		return fnblk_seterr(err, errlen, "%s (expected 1 to %u)", why,
				    FLEET_JOBS_MAX);
	c->jobs = v;
	return 0;
}

static int set_dist(void *ctx, const struct cli_option *o, const char *arg,
		    char *err, size_t errlen)
{
	struct fleet_config *c = ctx;
	bool size = !strcmp(o->name, "size");

	return fleet_dist_parse(arg, size ? FLEET_UNIT_SIZE : FLEET_UNIT_TIME,
				size ? &c->size : &c->compute, err, errlen);
}

static int set_jitter(void *ctx, const struct cli_option *o, const char *arg,
		      char *err, size_t errlen)
{
	struct fleet_config *c = ctx;
	const char *why;
	double x;

	(void)o;
	if (fnblk_parse_real(arg, true, &x, &why))
		return fnblk_seterr(err, errlen, "%s", why);
	if (x >= 1)
		return fnblk_seterr(err, errlen, "must be below 1 (100%%)");
	c->jitter = x;
	return 0;
}

static int set_phases(void *ctx, const struct cli_option *o, const char *arg,
		      char *err, size_t errlen)
{
	struct fleet_config *c = ctx;

	(void)o;
	if (!strcmp(arg, "sync"))
		c->phases = FLEET_PHASE_SYNC;
	else if (!strcmp(arg, "random"))
		c->phases = FLEET_PHASE_RANDOM;
	else if (!strcmp(arg, "stagger"))
		c->phases = FLEET_PHASE_STAGGER;
	else if (!strncmp(arg, "file:", 5) && arg[5])
		return read_phase_file(c, arg + 5, err, errlen);
	else
		return fnblk_seterr(err, errlen,
				    "expected sync, random, stagger or file:PATH");
	return 0;
}

static int set_duration(void *ctx, const struct cli_option *o,
			const char *arg, char *err, size_t errlen)
{
	struct fleet_config *c = ctx;
	uint64_t *v = !strcmp(o->name, "period") ? &c->period_ns :
		      !strcmp(o->name, "duration") ? &c->duration_ns :
		      &c->power_step_ns;
	const char *why;
	uint64_t x;

	if (fnblk_parse_duration(arg, &x, &why))
		return fnblk_seterr(err, errlen, "%s", why);
	if (!x && v == &c->power_step_ns)
		return fnblk_seterr(err, errlen, "must be positive");
	*v = x;
	return 0;
}

static int set_count(void *ctx, const struct cli_option *o, const char *arg,
		     char *err, size_t errlen)
{
	struct fleet_config *c = ctx;
	bool seed = !strcmp(o->name, "seed");
	const char *why;

	if (fnblk_parse_uint(arg, 0, seed ? UINT64_MAX : UINT32_MAX,
			     seed ? &c->seed : &c->cycles, &why))
		return fnblk_seterr(err, errlen, "%s", why);
	return 0;
}

static int set_power_cap(void *ctx, const struct cli_option *o,
			 const char *arg, char *err, size_t errlen)
{
	struct fleet_config *c = ctx;
	const char *why;

	(void)o;
	if (fnblk_parse_real(arg, false, &c->power_cap, &why))
		return fnblk_seterr(err, errlen,
				    "%s (a number of jobs' worth of power; 0 = none)",
				    why);
	return 0;
}

struct lookup {
	const char *name;
	char *buf;
	size_t len;
	bool found;
};

static void lookup_param(void *arg, const char *name, const char *value)
{
	struct lookup *l = arg;

	if (!l->found && !strcmp(name, l->name)) {
		snprintf(l->buf, l->len, "%s", value);
		l->found = true;
	}
}

/* The default --help shows: the setting's canonical text. */
static const char *show_param(void *ctx, const struct cli_option *o,
			      char *buf, size_t len)
{
	struct lookup l = { o->name, buf, len, false };

	fleet_config_params(ctx, lookup_param, &l);
	return l.found ? buf : NULL;
}

const struct cli_option fleet_schedule_options[] = {
	{ .name = "jobs", .arg = "N", .type = CLI_CALL, .set = set_jobs,
	  .show = show_param, .help = "number of jobs, at most 100000" },
	{ .name = "compute", .arg = "SPEC", .type = CLI_CALL, .set = set_dist,
	  .show = show_param,
	  .help = "compute time T of a cycle, per job: one value (10s), a "
		  "list taken in job order and repeated (1s,2s,4s), or a draw "
		  "per job: uniform:a,b, normal:mu,sigma (clamped at 0) or "
		  "exponential:mean" },
	{ .name = "size", .arg = "SPEC", .type = CLI_CALL, .set = set_dist,
	  .show = show_param,
	  .help = "checkpoint size S per job, in the forms of --compute "
		  "(64MiB, 1MiB,4MiB, uniform:1MiB,8MiB)" },
	{ .name = "jitter", .arg = "F", .type = CLI_CALL, .set = set_jitter,
	  .show = show_param,
	  .help = "each cycle computes T*(1+F*U), U uniform in [-1, 1] and "
		  "drawn from (seed, job, cycle) alone; F below 1, as 0.05 or "
		  "5%" },
	{ .name = "phases", .arg = "KIND", .type = CLI_CALL, .set = set_phases,
	  .show = show_param,
	  .help = "first start of each job: sync (all at 0), random "
		  "(uniform in one period), stagger (job j at j*period/N) or "
		  "file:PATH (one duration a line; '#' comments)" },
	{ .name = "period", .arg = "DUR", .type = CLI_CALL,
	  .set = set_duration, .dflt = "the mean compute time",
	  .help = "the span random and stagger phases spread over" },
	{ .name = "seed", .arg = "N", .type = CLI_CALL, .set = set_count,
	  .show = show_param,
	  .help = "seed of every draw; phases, T, S and jitter have their "
		  "own streams of it" },
	{ .name = "cycles", .arg = "N", .type = CLI_CALL, .set = set_count,
	  .show = show_param,
	  .help = "checkpoints per job; 0 = until --duration" },
	{ .name = "duration", .arg = "DUR", .type = CLI_CALL,
	  .set = set_duration, .dflt = "none",
	  .help = "end of the run: a job stops there, even computing, and "
		  "never starts a write after it" },
	{ .name = "power-cap", .arg = "P", .type = CLI_CALL,
	  .set = set_power_cap, .show = show_param,
	  .help = "shared power cap: with m jobs computing, each progresses "
		  "at min(1, P/m); 0 = none" },
	{ .name = "power-step", .arg = "DUR", .type = CLI_CALL,
	  .set = set_duration, .show = show_param,
	  .help = "a job under the cap re-reads m at least this often (the "
		  "simulator integrates the cap exactly)" },
	{ .name = NULL },
};

int fleet_config_set(struct fleet_config *c, const char *name,
		     const char *value, char *err, size_t errlen)
{
	const struct cli_option *o;

	for (o = fleet_schedule_options; o->name; o++)
		if (!strcmp(o->name, name))
			return o->set(c, o, value, err, errlen) ? -1 : 0;
	return 1;
}

int fleet_config_check(const struct fleet_config *c, char *err, size_t errlen)
{
	if (!c->cycles && !c->duration_ns)
		return fnblk_seterr(err, errlen,
			      "cycles 0 needs a duration to stop the run");
	if (c->phases == FLEET_PHASE_FILE && c->nr_phase_offsets < c->jobs)
		return fnblk_seterr(err, errlen, "phase file %s has %zu offsets for %u jobs",
			      c->phase_file, c->nr_phase_offsets, c->jobs);
	return 0;
}

/* x in the fewest decimals that parse back to x (fnblk_parse_real). */
static const char *real_text(double x, char *buf, size_t len)
{
	const char *why;
	double back;

	for (int d = 0; d <= 20; d++) {
		snprintf(buf, len, "%.*f", d, x);
		if (!fnblk_parse_real(buf, false, &back, &why) && back == x)
			break;
	}
	return buf;
}

void fleet_config_params(const struct fleet_config *c,
			 void (*emit)(void *arg, const char *name,
				      const char *value),
			 void *arg)
{
	static const char *const phase_names[] = {
		[FLEET_PHASE_SYNC] = "sync", [FLEET_PHASE_RANDOM] = "random",
		[FLEET_PHASE_STAGGER] = "stagger", [FLEET_PHASE_FILE] = "file",
	};
	char buf[FNBLK_UNIT_BUFLEN + 4200];

	snprintf(buf, sizeof(buf), "%u", c->jobs);
	emit(arg, "jobs", buf);
	emit(arg, "compute", c->compute.spec ? c->compute.spec : "");
	emit(arg, "size", c->size.spec ? c->size.spec : "");
	emit(arg, "jitter", real_text(c->jitter, buf, sizeof(buf)));
	if (c->phases == FLEET_PHASE_FILE)
		snprintf(buf, sizeof(buf), "file:%s", c->phase_file);
	else
		snprintf(buf, sizeof(buf), "%s", phase_names[c->phases]);
	emit(arg, "phases", buf);
	emit(arg, "period",
	     fnblk_format_duration_exact(c->period_ns, buf, sizeof(buf)));
	snprintf(buf, sizeof(buf), "%" PRIu64, c->seed);
	emit(arg, "seed", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, c->cycles);
	emit(arg, "cycles", buf);
	emit(arg, "duration",
	     fnblk_format_duration_exact(c->duration_ns, buf, sizeof(buf)));
	emit(arg, "power-cap", real_text(c->power_cap, buf, sizeof(buf)));
	emit(arg, "power-step",
	     fnblk_format_duration_exact(c->power_step_ns, buf, sizeof(buf)));
}

/* ---- schedule ---- */

int fleet_plan(const struct fleet_config *c, struct fleet_job *jobs,
	       char *err, size_t errlen)
{
	struct fleet_rng rp, rt, rs;
	double period, sum = 0;
	unsigned int j;

	if (fleet_config_check(c, err, errlen))
		return -1;
	fleet_rng_seed(&rp, c->seed ^ SALT_PHASE);
	fleet_rng_seed(&rt, c->seed ^ SALT_COMPUTE);
	fleet_rng_seed(&rs, c->seed ^ SALT_SIZE);
	for (j = 0; j < c->jobs; j++) {
		double s = fleet_dist_draw(&c->size, j, &rs);

		jobs[j].compute_ns = llround(fleet_dist_draw(&c->compute, j, &rt));
		jobs[j].size = s < 1 ? 1 : llround(s);
		sum += jobs[j].compute_ns;
	}
	period = c->period_ns ? (double)c->period_ns : sum / c->jobs;
	for (j = 0; j < c->jobs; j++) {
		switch (c->phases) {
		case FLEET_PHASE_SYNC:
			jobs[j].phase_ns = 0;
			break;
		case FLEET_PHASE_RANDOM:
			jobs[j].phase_ns = llround(period * fleet_rng_uniform(&rp));
			break;
		case FLEET_PHASE_STAGGER:
			jobs[j].phase_ns = llround(period * j / c->jobs);
			break;
		case FLEET_PHASE_FILE:
			jobs[j].phase_ns = c->phase_offsets[j];
			break;
		}
	}
	return 0;
}

uint64_t fleet_cycle_compute_ns(const struct fleet_config *c,
				const struct fleet_job *j, unsigned int job,
				uint64_t cycle)
{
	uint64_t x = c->seed ^ SALT_JITTER;
	double u, t;

	if (c->jitter <= 0)
		return j->compute_ns;
	/* Hash (seed, job, cycle) so any cycle's draw stands on its own. */
	x = splitmix64(&x) ^ job;
	x = splitmix64(&x) ^ cycle;
	u = 2 * unit_interval(splitmix64(&x)) - 1;
	t = j->compute_ns * (1 + c->jitter * u);
	return t < 0 ? 0 : llround(t);
}

double fleet_power_rate(double cap, unsigned int m)
{
	if (cap <= 0 || m == 0 || cap >= m)
		return 1.0;
	return cap / m;
}
