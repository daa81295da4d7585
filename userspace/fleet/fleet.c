// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-fleet: a fleet of checkpointing jobs, one process each, against a
 * block device (or regular file) or files in a directory on it. This file
 * is the command: options, plan, target preparation, cgroups, the solo
 * baseline and the summary; run.c runs the jobs, params.c records the
 * parameters, ckpt.c writes, compute.c computes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/fleet.h"
#include "../lib/stats.h"
#include "../lib/units.h"
#include "cgroup.h"
#include "ckpt.h"
#include "compute.h"
#include "run.h"
#include "summary.h"
#include "../lib/diag.h"

#define PROG "fnblk-fleet"


static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [OPTIONS] TARGET\n"
"       " PROG " [OPTIONS] --dir DIR\n"
"Run N checkpointing jobs: each computes for T, then writes S bytes, per cycle.\n"
"TARGET is a block device or a regular file; job j writes at j * max(S).\n"
"\n"
"Schedule (shared with fnblk-sim):\n"
"  --jobs N                number of jobs (2)\n"
"  --compute SPEC          T per job: 1s | 1s,2s,... | uniform:a,b |\n"
"                          normal:mu,sigma | exponential:mean (1s)\n"
"  --size SPEC             S per job, same forms with sizes (4MiB)\n"
"  --jitter F              each cycle T*(1+F*U[-1,1]); 0.05 or 5%% (0)\n"
"  --phases KIND           sync | random | stagger | file:PATH (sync)\n"
"  --period DUR            span of random/stagger phases (mean T)\n"
"  --seed N                seed of every draw (1)\n"
"  --cycles N              checkpoints per job, 0 = until --duration (10)\n"
"  --duration DUR          stop after this long (none)\n"
"  --power-cap P           computing jobs run at min(1, P/m) (0 = none)\n"
"  --power-step DUR        progress integration step under a cap (5ms)\n"
"Jobs and I/O:\n"
"  --compute-mode M        sleep | spin (sleep)\n"
"  --path P                direct | buffered | dsync | mmap (direct)\n"
"  --engine E              uring | psync, for direct (uring)\n"
"  --qd N                  io_uring queue depth (4)\n"
"  --bs SIZE               bytes per write call (1MiB)\n"
"  --dir DIR               one file per job in DIR instead of TARGET\n"
"  --rotate                with --dir: a new file each cycle, old one removed\n"
"  --cgroup NAME           each job in /sys/fs/cgroup/NAME/job-NNNN\n"
"  --memory-max SIZE       memory.max of each job's cgroup\n"
"Output:\n"
"  -o, --output FILE       events as CSV ('-' = stdout)\n"
"  --jsonl FILE            events as JSON lines\n"
"  --solo-baseline         time each job's write alone first\n"
"  --solo-time DUR         a write's time alone, for the slowdown column\n"
"  --param NAME=VALUE      record an extra parameter (e.g. device settings)\n"
"  --start-delay DUR       from every job ready to the fleet's time 0 (50ms)\n"
"  -q, --quiet             no progress line and no summary\n"
"  -h, --help\n");
}

enum {
	OPT_SCHEDULE = 0x100,	/* fleet_config_set handles it */
	OPT_COMPUTE_MODE,
	OPT_PATH,
	OPT_ENGINE,
	OPT_QD,
	OPT_BS,
	OPT_DIR,
	OPT_ROTATE,
	OPT_CGROUP,
	OPT_MEMORY_MAX,
	OPT_JSONL,
	OPT_SOLO_BASELINE,
	OPT_SOLO_TIME,
	OPT_PARAM,
	OPT_START_DELAY,
};

static const struct option long_opts[] = {
	{ "jobs", required_argument, NULL, OPT_SCHEDULE },
	{ "compute", required_argument, NULL, OPT_SCHEDULE },
	{ "size", required_argument, NULL, OPT_SCHEDULE },
	{ "jitter", required_argument, NULL, OPT_SCHEDULE },
	{ "phases", required_argument, NULL, OPT_SCHEDULE },
	{ "period", required_argument, NULL, OPT_SCHEDULE },
	{ "seed", required_argument, NULL, OPT_SCHEDULE },
	{ "cycles", required_argument, NULL, OPT_SCHEDULE },
	{ "duration", required_argument, NULL, OPT_SCHEDULE },
	{ "power-cap", required_argument, NULL, OPT_SCHEDULE },
	{ "power-step", required_argument, NULL, OPT_SCHEDULE },
	{ "compute-mode", required_argument, NULL, OPT_COMPUTE_MODE },
	{ "path", required_argument, NULL, OPT_PATH },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "qd", required_argument, NULL, OPT_QD },
	{ "bs", required_argument, NULL, OPT_BS },
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "rotate", no_argument, NULL, OPT_ROTATE },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "memory-max", required_argument, NULL, OPT_MEMORY_MAX },
	{ "output", required_argument, NULL, 'o' },
	{ "jsonl", required_argument, NULL, OPT_JSONL },
	{ "solo-baseline", no_argument, NULL, OPT_SOLO_BASELINE },
	{ "solo-time", required_argument, NULL, OPT_SOLO_TIME },
	{ "param", required_argument, NULL, OPT_PARAM },
	{ "start-delay", required_argument, NULL, OPT_START_DELAY },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_args(struct fleet_run *r, int argc, char **argv)
{
	const char *why;
	char err[256];
	uint64_t v;
	int c, idx;

	while ((c = getopt_long(argc, argv, "o:qh", long_opts, &idx)) != -1) {
		switch (c) {
		case OPT_SCHEDULE:
			if (fleet_config_set(&r->cfg, long_opts[idx].name, optarg,
					     err, sizeof(err)))
				return fnblk_usage_error(PROG, "%s", err);
			break;
		case OPT_COMPUTE_MODE:
			if (compute_mode_parse(optarg, &r->comp.mode))
				return fnblk_usage_error(PROG, "compute-mode: expected sleep or spin");
			break;
		case OPT_PATH:
			if (ckpt_path_parse(optarg, &r->io.path))
				return fnblk_usage_error(PROG, "path: expected direct, buffered, dsync or mmap");
			break;
		case OPT_ENGINE:
			if (ckpt_engine_parse(optarg, &r->io.engine))
				return fnblk_usage_error(PROG, "engine: expected uring or psync");
			break;
		case OPT_QD:
			if (fnblk_parse_uint(optarg, 1, 4096, &v, &why))
				return fnblk_usage_error(PROG, "qd: %s", why);
			r->io.qd = v;
			break;
		case OPT_BS:
			if (fnblk_parse_size(optarg, &v, &why))
				return fnblk_usage_error(PROG, "bs: %s", why);
			if (!v || v % 4096)
				return fnblk_usage_error(PROG, "bs: must be a positive multiple of 4KiB");
			r->io.bs = v;
			break;
		case OPT_DIR:
			r->io.dir = optarg;
			break;
		case OPT_ROTATE:
			r->io.rotate = true;
			break;
		case OPT_CGROUP:
			r->cgroup = optarg;
			break;
		case OPT_MEMORY_MAX:
			if (fnblk_parse_size(optarg, &r->memory_max, &why))
				return fnblk_usage_error(PROG, "memory-max: %s", why);
			break;
		case 'o':
			r->csv_path = optarg;
			break;
		case OPT_JSONL:
			r->jsonl_path = optarg;
			break;
		case OPT_SOLO_BASELINE:
			r->solo_baseline = true;
			break;
		case OPT_SOLO_TIME:
			if (fnblk_parse_duration(optarg, &r->solo_time_ns, &why))
				return fnblk_usage_error(PROG, "solo-time: %s", why);
			break;
		case OPT_PARAM: {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg)
				return fnblk_usage_error(PROG, "param: expected NAME=VALUE");
			*eq = '\0';
			if (fnblk_events_set_param(&r->user, optarg, eq + 1))
				return fnblk_usage_error(PROG, "param: %s", strerror(errno));
			break;
		}
		case OPT_START_DELAY:
			if (fnblk_parse_duration(optarg, &r->start_delay_ns, &why))
				return fnblk_usage_error(PROG, "start-delay: %s", why);
			break;
		case 'q':
			r->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return fnblk_usage_error(PROG, "unknown option");
		}
	}
	if (r->io.dir) {
		if (optind != argc)
			return fnblk_usage_error(PROG, "--dir and a TARGET are exclusive");
	} else {
		if (optind + 1 != argc)
			return fnblk_usage_error(PROG, "expected one TARGET (or --dir DIR)");
		r->io.target = argv[optind];
	}
	if (r->io.rotate && !r->io.dir)
		return fnblk_usage_error(PROG, "--rotate needs --dir");
	if (r->memory_max && !r->cgroup)
		return fnblk_usage_error(PROG, "--memory-max needs --cgroup");
	if (fleet_config_check(&r->cfg, err, sizeof(err)))
		return fnblk_usage_error(PROG, "%s", err);
	return 0;
}

/* Median of three timed writes after one warm-up, per distinct size. */
static int measure_solo(struct fleet_run *r)
{
	struct ckpt_writer *w;
	char err[256];
	unsigned int j, k;

	if (ckpt_open(&w, &r->io, 0, r->region, err, sizeof(err))) {
		fprintf(stderr, PROG ": solo baseline: %s\n", err);
		return -1;
	}
	for (j = 0; j < r->cfg.jobs; j++) {
		uint64_t bytes = ckpt_write_size(&r->io, r->plan[j].size);
		double t[4];

		for (k = 0; k < j; k++) {
			if (r->plan[k].size == r->plan[j].size) {
				r->solo_ns[j] = r->solo_ns[k];
				break;
			}
		}
		if (k < j)
			continue;
		for (k = 0; k < 4; k++) {
			uint64_t t1 = now_ns();

			if (ckpt_write(w, bytes, k, err, sizeof(err))) {
				fprintf(stderr, PROG ": solo baseline: %s\n", err);
				ckpt_close(w);
				return -1;
			}
			t[k] = now_ns() - t1;
		}
		r->solo_ns[j] = fnblk_median(t + 1, 3);
	}
	ckpt_close(w);
	return 0;
}

static FILE *open_output(const char *path)
{
	FILE *f;

	if (!strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
	return f;
}

static int summarise(struct fleet_run *r)
{
	FILE *f = r->csv_path && !strcmp(r->csv_path, "-") ? stderr : stdout;
	struct fnblk_write_times w;

	if (fnblk_write_times_compute(&r->ev, r->cfg.jobs, 0, r->solo_ns, &w))
		return -1;
	job_summary_print(f, &w);
	fnblk_write_times_free(&w);
	return 0;
}

int main(int argc, char **argv)
{
	struct fleet_run r = {
		.io = { .path = CKPT_DIRECT, .engine = CKPT_ENGINE_URING,
			.qd = 4, .bs = 1 << 20 },
		.comp = { .mode = COMPUTE_SLEEP },
		.start_delay_ns = 50000000,
	};
	struct outputs o = { 0 };
	uint64_t largest = 0;
	char err[256];
	unsigned int j;
	int ret;

	fnblk_events_init(&r.ev);
	fnblk_events_init(&r.user);
	if (fleet_config_init(&r.cfg)) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	ret = parse_args(&r, argc, argv);
	if (ret)
		return ret;
	r.comp.power_cap = r.cfg.power_cap;
	r.comp.step_ns = r.cfg.power_step_ns;
	r.plan = calloc(r.cfg.jobs, sizeof(*r.plan));
	r.solo_ns = calloc(r.cfg.jobs, sizeof(*r.solo_ns));
	if (!r.plan || !r.solo_ns) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	if (fleet_plan(&r.cfg, r.plan, err, sizeof(err)))
		return fnblk_usage_error(PROG, "%s", err);
	for (j = 0; j < r.cfg.jobs; j++) {
		uint64_t b = ckpt_write_size(&r.io, r.plan[j].size);

		largest = b > largest ? b : largest;
		r.solo_ns[j] = r.solo_time_ns;
	}
	r.region = (largest + 4095) / 4096 * 4096;
	if (ckpt_prepare(&r.io, r.cfg.jobs, r.region, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	if (r.cgroup && fleet_cgroup_create(r.cgroup, r.cfg.jobs, r.memory_max,
					    err, sizeof(err))) {
		fprintf(stderr, PROG ": cgroup: %s\n", err);
		return 1;
	}
	if (r.solo_baseline && measure_solo(&r)) {
		ret = 1;
		goto out;
	}
	if (r.cfg.power_cap > 0) {
		r.shared = compute_shared_create();
		if (!r.shared) {
			fprintf(stderr, PROG ": shared segment: %s\n", strerror(errno));
			ret = 1;
			goto out;
		}
	}
	if ((r.csv_path && !(o.csv = open_output(r.csv_path))) ||
	    (r.jsonl_path && !(o.jsonl = open_output(r.jsonl_path)))) {
		ret = 1;
		goto out;
	}
	ret = run_fleet(&r, &o);
	if (!r.quiet && summarise(&r))
		ret = 1;
out:
	if (o.csv && (fflush(o.csv) || (o.csv != stdout && fclose(o.csv)))) {
		fprintf(stderr, PROG ": %s: %s\n", r.csv_path, strerror(errno));
		ret = 1;
	}
	if (o.jsonl && (fflush(o.jsonl) || (o.jsonl != stdout && fclose(o.jsonl)))) {
		fprintf(stderr, PROG ": %s: %s\n", r.jsonl_path, strerror(errno));
		ret = 1;
	}
	if (r.cgroup)
		fleet_cgroup_remove(r.cgroup, r.cfg.jobs);
	compute_shared_destroy(r.shared);
	fnblk_events_free(&r.ev);
	fnblk_events_free(&r.user);
	fleet_config_free(&r.cfg);
	free(r.plan);
	free(r.solo_ns);
	return ret;
}
