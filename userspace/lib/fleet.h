/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checkpoint fleets: what each job does, shared by fnblk-fleet (which runs
 * the jobs as processes against a device) and fnblk-sim (which runs them
 * against the scheduler core in simulated time).
 *
 * A fleet is N jobs. Job j starts at its phase offset and then loops:
 * compute for T_j (times a per-cycle jitter factor), write a checkpoint of
 * S_j bytes. Both tools take the same option names and draw the same
 * schedule from the same seed, so a simulated run and a real run of one
 * command line are the same fleet.
 *
 * Units: times in ns, sizes in bytes. Option values are written as
 * libfnblk's units.h parses them ("1.5s", "250ms", "64MiB").
 */
#ifndef FNBLK_FLEET_H
#define FNBLK_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"

/* xoshiro256** seeded through splitmix64: small, fast, reproducible. */
struct fleet_rng {
	uint64_t s[4];
};

void fleet_rng_seed(struct fleet_rng *r, uint64_t seed);
uint64_t fleet_rng_u64(struct fleet_rng *r);
double fleet_rng_uniform(struct fleet_rng *r);	/* in [0, 1) */
double fleet_rng_normal(struct fleet_rng *r);	/* N(0, 1) */
double fleet_rng_exponential(struct fleet_rng *r, double mean);

/*
 * Per-job value of T or S:
 *   "1s" or "1s,2s,4s"     list: job j takes list[j mod length]
 *   "uniform:a,b"          uniform in [a, b]
 *   "normal:mu,sigma"      normal, clamped at 0
 *   "exponential:mean"     exponential
 */
enum fleet_dist_kind {
	FLEET_DIST_LIST,
	FLEET_DIST_UNIFORM,
	FLEET_DIST_NORMAL,
	FLEET_DIST_EXPONENTIAL,
};

/* What a distribution's numbers mean: a time or a size. */
enum fleet_unit {
	FLEET_UNIT_TIME,	/* ns (fnblk_parse_duration) */
	FLEET_UNIT_SIZE,	/* bytes (fnblk_parse_size) */
};

struct fleet_dist {
	enum fleet_dist_kind kind;
	double a, b;		/* uniform: a, b; normal: mu, sigma; exp: mean */
	double *list;		/* list kind only */
	size_t nr;
	char *spec;		/* the text it was parsed from */
};

/* Parse spec into d (free with fleet_dist_free). 0, or -1 with err. */
int fleet_dist_parse(const char *spec, enum fleet_unit unit,
		     struct fleet_dist *d, char *err, size_t errlen);
void fleet_dist_free(struct fleet_dist *d);
/* Job j's value; list kinds ignore r. Never negative. */
double fleet_dist_draw(const struct fleet_dist *d, unsigned int job,
		       struct fleet_rng *r);
/* Mean of the distribution (of the list for list kinds). */
double fleet_dist_mean(const struct fleet_dist *d);

/* How start times are spread over one period. */
enum fleet_phase_kind {
	FLEET_PHASE_SYNC,	/* every job at 0 */
	FLEET_PHASE_RANDOM,	/* uniform in [0, period), seeded */
	FLEET_PHASE_STAGGER,	/* job j at j * period / N */
	FLEET_PHASE_FILE,	/* one offset per line, job order */
};

/* Most jobs a fleet may have (--jobs), in every tool. */
#define FLEET_JOBS_MAX	100000

/*
 * The write path, as both tools take it: bytes per request (0 = the whole
 * checkpoint in one) and requests in flight per job. Same defaults, same
 * ranges; each tool says in its own words what they mean there.
 */
#define FLEET_BS_DEFAULT	(1ULL << 20)
#define FLEET_BS_MAX		(1ULL << 30)
#define FLEET_QD_DEFAULT	4
#define FLEET_QD_MAX		1024

#define FLEET_OPTION_BS(bytes, text) {					\
	.name = "bs", .arg = "SIZE", .type = CLI_SIZE, .var = (bytes),	\
	.max = FLEET_BS_MAX, .align = 4096, .help = (text) }
#define FLEET_OPTION_QD(depth, text) {					\
	.name = "qd", .arg = "N", .type = CLI_UINT, .var = (depth),	\
	.min = 1, .max = FLEET_QD_MAX, .help = (text) }

/* The event files both tools write: -o FILE (CSV) and --jsonl FILE. */
#define FLEET_OPTION_CSV(path, deflt) {					\
	.name = "output", .key = 'o', .arg = "FILE", .type = CLI_STRING,	\
	.var = (path), .dflt = (deflt),					\
	.help = "write the events as CSV ('-': standard output)" }
#define FLEET_OPTION_JSONL(path) {					\
	.name = "jsonl", .arg = "FILE", .type = CLI_STRING, .var = (path),	\
	.help = "write the events as JSON lines ('-': standard output)" }

struct fleet_config {
	unsigned int jobs;		/* N */
	struct fleet_dist compute;	/* T_j, ns */
	struct fleet_dist size;		/* S_j, bytes */
	double jitter;			/* each cycle: T * (1 + jitter * U[-1,1]) */
	enum fleet_phase_kind phases;
	char *phase_file;		/* FLEET_PHASE_FILE: its path */
	uint64_t *phase_offsets;	/* FLEET_PHASE_FILE: ns, one per job */
	size_t nr_phase_offsets;
	uint64_t period_ns;		/* random/stagger span; 0 = mean T */
	uint64_t seed;
	uint64_t cycles;		/* checkpoints per job; 0 = until duration */
	uint64_t duration_ns;		/* run length; 0 = until cycles */
	double power_cap;		/* P in jobs' worth of power; 0 = none */
	uint64_t power_step_ns;		/* longest step between progress updates */
};

/* Defaults: 2 jobs, compute 1s, size 4MiB, sync, seed 1, 10 cycles. */
int fleet_config_init(struct fleet_config *c);
void fleet_config_free(struct fleet_config *c);

/*
 * The schedule options of both tools (jobs, compute, size, jitter, phases,
 * period, seed, cycles, duration, power-cap, power-step): one table for
 * their parsing, their --help and their man pages. The group's ctx is the
 * struct fleet_config they set.
 */
extern const struct cli_option fleet_schedule_options[];

/*
 * One schedule option by its long option name. Returns 0 when set, -1
 * with err (what was wrong, not the name) when the value is bad, 1 when
 * name is not a schedule option. "phases=file:PATH" reads PATH at once.
 */
int fleet_config_set(struct fleet_config *c, const char *name,
		     const char *value, char *err, size_t errlen);

/* Cross-option checks (e.g. a phase file with fewer lines than jobs). */
int fleet_config_check(const struct fleet_config *c, char *err,
		       size_t errlen);

/* Call emit(arg, name, value) for every schedule option, canonical text. */
void fleet_config_params(const struct fleet_config *c,
			 void (*emit)(void *arg, const char *name,
				      const char *value),
			 void *arg);

/* A job's drawn schedule. */
struct fleet_job {
	uint64_t phase_ns;	/* first compute starts here */
	uint64_t compute_ns;	/* nominal T_j */
	uint64_t size;		/* S_j, at least 1 */
};

/*
 * Draw every job's phase, T and S (jobs[c->jobs]). Phases, T and S come
 * from separate streams of the seed, so changing one option leaves the
 * other draws as they were.
 */
int fleet_plan(const struct fleet_config *c, struct fleet_job *jobs,
	       char *err, size_t errlen);

/* T of (job, cycle) with jitter: a pure function of seed, job and cycle. */
uint64_t fleet_cycle_compute_ns(const struct fleet_config *c,
				const struct fleet_job *j, unsigned int job,
				uint64_t cycle);

/* Progress rate of a computing job when m jobs compute: min(1, P/m). */
double fleet_power_rate(double cap, unsigned int m);

#endif /* FNBLK_FLEET_H */
