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
#include "../lib/interrupt.h"
#include "ckpt.h"
#include "compute.h"
#include "run.h"
#include "crash.h"
#include "summary.h"
#include "../lib/cli.h"
#include "../lib/diag.h"
#include "../lib/print.h"


/* Everything the command line says, with the defaults --help shows. */
static struct fleet_run r = {
	.io = { .path = 0, .engine = CKPT_ENGINE_URING,
		.qd = FLEET_QD_DEFAULT, .bs = FLEET_BS_DEFAULT },
	.comp = { .mode = COMPUTE_SLEEP },
	.start_delay_ns = 50000000,
};
static bool json;

static int set_param(void *ctx, const struct cli_option *o, const char *arg,
		     char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	char name[128];

	(void)ctx;
	(void)o;
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name))
		return fnblk_seterr(err, errlen, "expected NAME=VALUE");
	snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
	if (fnblk_events_set_param(&r.user, name, eq + 1))
		return fnblk_seterr(err, errlen, "%s", strerror(errno));
	return 0;
}

/* --part I/N: 0 <= I < N. */
static int set_part(void *ctx, const struct cli_option *o, const char *arg,
		    char *err, size_t errlen)
{
	unsigned long i, n;
	char *end;

	(void)ctx;
	(void)o;
	errno = 0;
	i = strtoul(arg, &end, 10);
	if (end == arg || *end != '/' || arg[0] == '-')
		return fnblk_seterr(err, errlen, "expected I/N, e.g. 2/6");
	arg = end + 1;
	n = strtoul(arg, &end, 10);
	if (end == arg || *end || arg[0] == '-' || errno)
		return fnblk_seterr(err, errlen, "expected I/N, e.g. 2/6");
	if (n < 1 || n > FLEET_PARTS_MAX || i >= n)
		return fnblk_seterr(err, errlen,
				    "expected 0 <= I < N <= %u, got %lu/%lu",
				    FLEET_PARTS_MAX, i, n);
	r.io.part_index = (unsigned int)i;
	r.io.part_count = (unsigned int)n;
	return 0;
}

static const struct cli_option io_options[] = {
	{ .name = "compute-mode", .arg = "MODE", .type = CLI_CHOICE,
	  .var = &r.comp.mode, .choice = compute_mode_name,
	  .choice_help = compute_mode_help, .help = "how a job computes:" },
	{ .name = "path", .arg = "PATH", .type = CLI_CHOICE, .var = &r.io.path,
	  .choice = ckpt_path_name, .choice_help = ckpt_path_help,
	  .help = "how a job writes a checkpoint, durably:" },
	{ .name = "engine", .arg = "ENGINE", .type = CLI_CHOICE,
	  .var = &r.io.engine, .choice = ckpt_engine_name,
	  .choice_help = ckpt_engine_help,
	  .help = "how a queued path (direct) submits:" },
	FLEET_OPTION_QD(&r.io.qd, "requests in flight per job, with --engine "
			"uring (the other engine and paths have one)"),
	FLEET_OPTION_BS(&r.io.bs, "bytes per write call; 0 = the whole "
			"checkpoint in one"),
	{ .name = "dir", .arg = "DIR", .type = CLI_STRING, .var = &r.io.dir,
	  .help = "one file per job in DIR (job-NNNN.ckpt) instead of TARGET" },
	{ .name = "part", .arg = "I/N", .type = CLI_CALL, .set = set_part,
	  .help = "the jobs' regions in the I-th (from 0) of N equal slices "
		  "of TARGET, whose size is not changed: N fleets sharing a "
		  "target (the hosts of scripts/cluster) never write the same "
		  "bytes" },
	{ .name = "rotate", .type = CLI_FLAG, .var = &r.io.rotate,
	  .help = "with --dir: a new file each cycle (job-NNNN.CCCCCC.ckpt), "
		  "the previous one removed once the new one is durable" },
	{ .name = "cgroup", .arg = "NAME", .type = CLI_STRING, .var = &r.cgroup,
	  .help = "each job in /sys/fs/cgroup/NAME/job-NNNN (cgroup v2), "
		  "removed at the end, also when the fleet is interrupted; a job "
		  "killed by the OOM killer is reported as such" },
	{ .name = "memory-max", .arg = "SIZE", .type = CLI_SIZE,
	  .var = &r.memory_max, .dflt = "none",
	  .help = "with --cgroup: memory.max of each job's group" },
	{ .name = NULL },
};

static const struct cli_option output_options[] = {
	FLEET_OPTION_CSV(&r.csv_path, NULL),
	FLEET_OPTION_JSONL(&r.jsonl_path),
	{ .name = "solo-baseline", .type = CLI_FLAG, .var = &r.solo_baseline,
	  .help = "time a write alone first (median of three after a "
		  "warm-up, per distinct size), for the slowdown" },
	{ .name = "solo-time", .arg = "DUR", .type = CLI_DURATION,
	  .var = &r.solo_time_ns, .dflt = "unknown",
	  .help = "a write's time alone, for the slowdown" },
	{ .name = "param", .arg = "NAME=VALUE", .type = CLI_CALL,
	  .set = set_param,
	  .help = "record a parameter in the events (e.g. the settings of a "
		  "device made over netlink), or replace one; repeatable" },
	{ .name = "start-delay", .arg = "DUR", .type = CLI_DURATION,
	  .var = &r.start_delay_ns,
	  .help = "from every job ready to the fleet's time 0" },
	{ .name = "start-at", .arg = "T", .type = CLI_DURATION,
	  .var = &r.start_at_ns, .dflt = "none",
	  .help = "the fleet's time 0 at T on CLOCK_MONOTONIC (a duration "
		  "since boot, e.g. 123456789ns), instead of --start-delay "
		  "after the jobs are ready: fleets on one kernel given the "
		  "same T (the hosts of scripts/cluster -M ns) share one "
		  "schedule" },
	{ .name = "crash-at", .arg = "DUR", .type = CLI_DURATION,
	  .var = &r.crash_at_ns, .dflt = "never",
	  .help = "power loss DUR after time 0: the jobs are killed and the "
		  "fnblk device TARGET crashes (fnblkctl dev crash); then each "
		  "job's region is read back and judged: kept (its last "
		  "completed checkpoint), torn (partly one being written), "
		  "lost (older than its last completed one) or empty. Needs "
		  "CAP_NET_ADMIN; exits 1 if a path that flushes lost a "
		  "checkpoint" },
	{ .name = "quiet", .key = 'q', .type = CLI_FLAG, .var = &r.quiet,
	  .help = "no progress line and no summary" },
	{ .name = NULL },
};

static const struct cli_group groups[] = {
	{ .title = "Schedule (as fnblk-sim takes it)",
	  .options = fleet_schedule_options, .ctx = &r.cfg },
	{ .title = "Jobs and I/O", .options = io_options },
	{ .title = "Output", .options = output_options },
	{ .title = NULL },
};

static const char *const usage[] = {
	"[OPTIONS] TARGET", "[OPTIONS] --dir DIR", NULL
};

static const struct cli_program prog = {
	.name = PROG,
	.usage = usage,
	.about = "Run a fleet of checkpointing jobs, each its own process: "
		 "after its phase, a job computes for T, then writes a "
		 "checkpoint of S bytes durably, every cycle. TARGET is a "
		 "block device or a regular file (grown to fit); job j writes "
		 "its region at j * max(S), from the start of its slice with "
		 "--part. Every write is an event: its job, "
		 "cycle, start, end and bytes, kept with -o or --jsonl. At the "
		 "end a summary gives each job's write times and slowdown.",
	.groups = groups,
	.json = &json,
	.json_help = "print the summary as JSON",
};

/* What the options say together; a usage error otherwise. */
static int check_args(int argc, char **argv, int first)
{
	char err[256];

	if (r.io.dir) {
		if (first != argc)
			return cli_usage_error(&prog, "--dir and a TARGET are exclusive");
	} else {
		if (first + 1 != argc)
			return cli_usage_error(&prog, "expected one TARGET (or --dir DIR)");
		r.io.target = argv[first];
	}
	if (r.io.part_count && r.io.dir)
		return cli_usage_error(&prog, "--part needs a TARGET (with --dir each job has a file of its own)");
	if (r.io.rotate && !r.io.dir)
		return cli_usage_error(&prog, "--rotate needs --dir");
	if (r.crash_at_ns && r.io.dir)
		return cli_usage_error(&prog, "--crash-at needs a raw TARGET "
				       "(with --dir, crash it with fnblkctl dev "
				       "crash, unmount, mount and check)");
	if (r.crash_at_ns && crash_device(r.io.target, r.crash_dev,
					  sizeof(r.crash_dev), err,
					  sizeof(err)))
		return cli_usage_error(&prog, "%s", err);
	if (r.memory_max && !r.cgroup)
		return cli_usage_error(&prog, "--memory-max needs --cgroup");
	if (r.csv_path && r.jsonl_path && !strcmp(r.csv_path, "-") &&
	    !strcmp(r.jsonl_path, "-"))
		return cli_usage_error(&prog, "-o and --jsonl cannot both write to standard output");
	if (fleet_config_check(&r.cfg, err, sizeof(err)))
		return cli_usage_error(&prog, "%s", err);
	if (!r.csv_path && !r.jsonl_path)
		cli_warn(&prog, "no -o or --jsonl: the events of this run are not kept");
	return CLI_CONTINUE;
}

/* Median of three timed writes after one warm-up, per distinct size. */
static int measure_solo(struct fleet_run *r)
{
	struct ckpt_writer *w;
	char err[256];
	unsigned int j, k;

	if (ckpt_open(&w, &r->io, 0, r->region, err, sizeof(err))) {
		cli_error(&prog, "solo baseline: %s", err);
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
				cli_error(&prog, "solo baseline: %s", err);
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
		cli_error(&prog, "%s: %s", path, strerror(errno));
	return f;
}

/* The fnblk device under the target, as it is when the run starts. */
static void read_device(struct fleet_run *r)
{
	const char *path = r->io.dir ? r->io.dir : r->io.target;

	if (fleet_device_read(path, &r->dev) == 0 && !r->dev.known)
		cli_warn(&prog, "%s is on %s, whose settings could not be read (%s): the events will not record them",
			 path, r->dev.name, r->dev.why);
}

/* A device changed during the run makes the recorded settings wrong. */
static void check_device(struct fleet_run *r)
{
	const char *path = r->io.dir ? r->io.dir : r->io.target;
	struct fleet_device now;
	char diff[512];

	if (!r->dev.known || fleet_device_read(path, &now))
		return;
	fleet_device_diff(&r->dev, &now, diff, sizeof(diff));
	if (*diff)
		cli_warn(&prog, "%s changed during the run (%s): the events record its settings at the start",
			 r->dev.name, diff);
}

/*
 * After --crash-at: what each job's region holds, printed. 1 if a path
 * that makes its checkpoints durable lost one, 0 otherwise, -1 on error.
 */
static int check_crash(struct fleet_run *r)
{
	bool durable = ckpt_path_at(r->io.path)->flushes;
	struct crash_job *c = calloc(r->cfg.jobs, sizeof(*c));
	uint64_t *sizes = calloc(r->cfg.jobs, sizeof(*sizes));
	unsigned int j, lost;
	char err[256];
	int ret = -1;

	if (!c || !sizes) {
		cli_error(&prog, "out of memory");
		goto out;
	}
	for (j = 0; j < r->cfg.jobs; j++)
		sizes[j] = ckpt_write_size(&r->io, r->plan[j].size);
	/* The device comes back once every job's file is closed. */
	if (crash_verify(r->io.target, r->cfg.jobs, r->io.base, r->region,
			 sizes, &r->ev, r->crash_ns, 10000000000ULL, c, err,
			 sizeof(err))) {
		cli_error(&prog, "%s", err);
		goto out;
	}
	lost = crash_report(c, r->cfg.jobs, r->crash_ns - r->t0, durable);
	ret = lost && durable;
out:
	free(c);
	free(sizes);
	return ret;
}

/*
 * The summary and, after a crash, what survived it: one document on
 * stdout, unless the events go there. 1 on any failure.
 */
static int report(struct fleet_run *r)
{
	bool on_stdout = (r->csv_path && !strcmp(r->csv_path, "-")) ||
			 (r->jsonl_path && !strcmp(r->jsonl_path, "-"));
	struct fnblk_write_times w;
	int ret = 0;

	if (r->quiet && !r->crash_ns)
		return 0;
	pr_init(json);
	pr_set_file(on_stdout ? stderr : stdout);
	pr_open_object(NULL);
	if (!r->quiet) {
		if (fnblk_write_times_compute(&r->ev, r->cfg.jobs, 0,
					      r->solo_ns, &w))
			return 1;
		job_summary_print(&w);
		fnblk_write_times_free(&w);
	}
	if (r->crash_ns && check_crash(r))
		ret = 1;
	pr_close_object();
	return pr_end() || ret;
}

int main(int argc, char **argv)
{
	struct outputs o = { 0 };
	uint64_t largest = 0;
	char err[256];
	unsigned int j;
	int first, ret;

	fnblk_events_init(&r.ev);
	fnblk_events_init(&r.user);
	if (fleet_config_init(&r.cfg)) {
		cli_error(&prog, "out of memory");
		return 1;
	}
	ret = cli_parse(&prog, argc, argv, &first);
	if (ret == CLI_CONTINUE)
		ret = check_args(argc, argv, first);
	if (ret != CLI_CONTINUE) {
		fleet_config_free(&r.cfg);
		fnblk_events_free(&r.user);
		return ret;
	}
	r.comp.power_cap = r.cfg.power_cap;
	r.comp.step_ns = r.cfg.power_step_ns;
	r.plan = calloc(r.cfg.jobs, sizeof(*r.plan));
	r.solo_ns = calloc(r.cfg.jobs, sizeof(*r.solo_ns));
	if (!r.plan || !r.solo_ns) {
		cli_error(&prog, "out of memory");
		return 1;
	}
	if (fleet_plan(&r.cfg, r.plan, err, sizeof(err)))
		return cli_usage_error(&prog, "%s", err);
	for (j = 0; j < r.cfg.jobs; j++) {
		uint64_t b = ckpt_write_size(&r.io, r.plan[j].size);

		largest = b > largest ? b : largest;
		r.solo_ns[j] = r.solo_time_ns;
	}
	r.region = (largest + 4095) / 4096 * 4096;
	if (ckpt_prepare(&r.io, r.cfg.jobs, r.region, err, sizeof(err))) {
		cli_error(&prog, "%s", err);
		return 1;
	}
	/* From here an interruption stops the jobs and removes the groups. */
	if (fnblk_interrupt_init()) {
		cli_error(&prog, "signals: %s", strerror(errno));
		return 1;
	}
	if (r.cgroup && fnblk_cgroup_create(&r.cgset, r.cgroup, r.cfg.jobs, 0,
					    r.memory_max, err, sizeof(err))) {
		cli_error(&prog, "cgroup: %s", err);
		return 1;
	}
	if (r.solo_baseline && measure_solo(&r)) {
		ret = 1;
		goto out;
	}
	if (r.cfg.power_cap > 0) {
		r.shared = compute_shared_create();
		if (!r.shared) {
			cli_error(&prog, "shared segment: %s", strerror(errno));
			ret = 1;
			goto out;
		}
	}
	if ((r.csv_path && !(o.csv = open_output(r.csv_path))) ||
	    (r.jsonl_path && !(o.jsonl = open_output(r.jsonl_path)))) {
		ret = 1;
		goto out;
	}
	read_device(&r);
	ret = run_fleet(&r, &o);
	check_device(&r);
	if (report(&r))
		ret = 1;
	if (r.crash_at_ns && !r.crash_ns) {
		cli_error(&prog, "the run ended before --crash-at");
		ret = 1;
	}
out:
	if (o.csv && (fflush(o.csv) || (o.csv != stdout && fclose(o.csv)))) {
		cli_error(&prog, "%s: %s", r.csv_path, strerror(errno));
		ret = 1;
	}
	if (o.jsonl && (fflush(o.jsonl) || (o.jsonl != stdout && fclose(o.jsonl)))) {
		cli_error(&prog, "%s: %s", r.jsonl_path, strerror(errno));
		ret = 1;
	}
	if (fnblk_cgroup_remove(&r.cgset))
		ret = 1;
	compute_shared_destroy(r.shared);
	fnblk_events_free(&r.ev);
	fnblk_events_free(&r.user);
	fleet_config_free(&r.cfg);
	free(r.plan);
	free(r.solo_ns);
	if (fnblk_interrupted()) {
		cli_warn(&prog, "interrupted: jobs stopped%s",
			 r.cgroup ? ", cgroups removed" : "");
		fnblk_interrupt_reraise();
	}
	return ret;
}
