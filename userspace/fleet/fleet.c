// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-fleet: a fleet of checkpointing jobs, one process each, against a
 * block device (or regular file) or files in a directory on it.
 *
 * The parent plans the schedule, writes the run's parameters, forks the
 * jobs and then only listens: each job sends one fixed-size record per
 * checkpoint write down a shared pipe (atomic below PIPE_BUF), and the
 * parent writes them out as CSV / JSON lines and summarises at the end.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/events.h"
#include "../lib/fleet.h"
#include "../lib/units.h"
#include "cgroup.h"
#include "ckpt.h"
#include "compute.h"
#include "summary.h"

#define PROG "fnblk-fleet"
#define DEV_PARAMS_DIR "/sys/module/fnblk/parameters"

struct fleet_run {
	struct fleet_config cfg;
	struct fleet_job *plan;
	struct ckpt_opts io;
	struct compute_opts comp;
	const char *cgroup;
	uint64_t memory_max;
	const char *csv_path;
	const char *jsonl_path;
	bool solo_baseline;
	uint64_t solo_time_ns;
	uint64_t start_delay_ns;
	bool quiet;
	uint64_t region;		/* bytes per job on a raw target */
	double *solo_ns;		/* per job, 0 = unknown */
	uint64_t t0;
	struct fnblk_events ev;		/* header params and every write */
	struct fnblk_events user;	/* --param NAME=VALUE, applied last */
	struct compute_shared *shared;
};

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

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '" PROG " --help'.\n");
	return 2;
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
				return usage_error("%s", err);
			break;
		case OPT_COMPUTE_MODE:
			if (compute_mode_parse(optarg, &r->comp.mode))
				return usage_error("compute-mode: expected sleep or spin");
			break;
		case OPT_PATH:
			if (ckpt_path_parse(optarg, &r->io.path))
				return usage_error("path: expected direct, buffered, dsync or mmap");
			break;
		case OPT_ENGINE:
			if (ckpt_engine_parse(optarg, &r->io.engine))
				return usage_error("engine: expected uring or psync");
			break;
		case OPT_QD:
			if (fnblk_parse_uint(optarg, 1, 4096, &v, &why))
				return usage_error("qd: %s", why);
			r->io.qd = v;
			break;
		case OPT_BS:
			if (fnblk_parse_size(optarg, &v, &why))
				return usage_error("bs: %s", why);
			if (!v || v % 4096)
				return usage_error("bs: must be a positive multiple of 4KiB");
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
				return usage_error("memory-max: %s", why);
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
				return usage_error("solo-time: %s", why);
			break;
		case OPT_PARAM: {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg)
				return usage_error("param: expected NAME=VALUE");
			*eq = '\0';
			if (fnblk_events_set_param(&r->user, optarg, eq + 1))
				return usage_error("param: %s", strerror(errno));
			break;
		}
		case OPT_START_DELAY:
			if (fnblk_parse_duration(optarg, &r->start_delay_ns, &why))
				return usage_error("start-delay: %s", why);
			break;
		case 'q':
			r->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return usage_error("unknown option");
		}
	}
	if (r->io.dir) {
		if (optind != argc)
			return usage_error("--dir and a TARGET are exclusive");
	} else {
		if (optind + 1 != argc)
			return usage_error("expected one TARGET (or --dir DIR)");
		r->io.target = argv[optind];
	}
	if (r->io.rotate && !r->io.dir)
		return usage_error("--rotate needs --dir");
	if (r->memory_max && !r->cgroup)
		return usage_error("--memory-max needs --cgroup");
	if (fleet_config_check(&r->cfg, err, sizeof(err)))
		return usage_error("%s", err);
	return 0;
}

static void add_param(void *arg, const char *name, const char *value)
{
	fnblk_events_set_param(arg, name, value);
}

static void add_param_u64(struct fnblk_events *e, const char *name, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	fnblk_events_set_param(e, name, buf);
}

/* A module parameter's value, or NULL. */
static const char *module_param(const char *name, char *buf, size_t len)
{
	char path[256];
	FILE *f;
	const char *ret = NULL;

	snprintf(path, sizeof(path), "%s/%s", DEV_PARAMS_DIR, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	if (fgets(buf, len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = buf;
	}
	fclose(f);
	return ret;
}

/*
 * The module's load-time device settings, in the names and units
 * fnblk-sim takes (bw, fn, latency, ...), so "fnblk-sim compare" can
 * replay the run. They describe the device only when it was made at load
 * time: a device made or changed over netlink needs --param.
 */
static void add_device_params(struct fnblk_events *e)
{
	static const struct {
		const char *module, *name, *fmt;
	} map[] = {
		{ "bw_mbps", "bw", "%sMiB/s" },
		{ "fn", "fn", "%s" },
		{ "latency_us", "latency", "%sus" },
		{ "overhead_kb", "overhead", "%sKiB" },
		{ "grace_us", "grace", "%sus" },
		{ "policy", "policy", "%s" },
		{ "users", "users", "%s" },
		{ "key", "key", "%s" },
		{ "store", "store", "%s" },
	};
	char val[FNBLK_UNIT_BUFLEN * 8], text[sizeof(val) + 16];
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (!module_param(map[i].module, val, sizeof(val)))
			continue;
		if (!strcmp(map[i].module, "bw_mbps") && !strcmp(val, "0"))
			snprintf(text, sizeof(text), "unlimited");
		else
			snprintf(text, sizeof(text), map[i].fmt, val);
		fnblk_events_set_param(e, map[i].name, text);
	}
}

static void record_params(struct fleet_run *r)
{
	struct fnblk_events *e = &r->ev;
	char buf[128], name[64];
	unsigned int j;

	fnblk_events_set_source(e, "fleet");
	fleet_config_params(&r->cfg, add_param, e);
	fnblk_events_set_param(e, "target", r->io.dir ? "" : r->io.target);
	fnblk_events_set_param(e, "dir", r->io.dir ? r->io.dir : "");
	fnblk_events_set_param(e, "rotate", r->io.rotate ? "1" : "0");
	fnblk_events_set_param(e, "path", ckpt_path_name(r->io.path));
	fnblk_events_set_param(e, "engine", ckpt_engine_name(r->io.engine));
	add_param_u64(e, "qd", r->io.qd);
	add_param_u64(e, "bs", r->io.bs);
	fnblk_events_set_param(e, "compute-mode", compute_mode_name(r->comp.mode));
	fnblk_events_set_param(e, "cgroup", r->cgroup ? r->cgroup : "");
	add_param_u64(e, "memory-max", r->memory_max);
	add_param_u64(e, "region", r->region);
	add_param_u64(e, "start_ns", r->t0);
	for (j = 0; j < r->cfg.jobs; j++) {
		snprintf(name, sizeof(name), "plan.%u", j);
		snprintf(buf, sizeof(buf), "phase_ns=%" PRIu64 ";compute_ns=%"
			 PRIu64 ";size=%" PRIu64, r->plan[j].phase_ns,
			 r->plan[j].compute_ns, r->plan[j].size);
		fnblk_events_set_param(e, name, buf);
		if (r->solo_ns[j] > 0) {
			snprintf(name, sizeof(name), "solo_ns.%u", j);
			add_param_u64(e, name, (uint64_t)r->solo_ns[j]);
		}
	}
	if (!r->io.dir && !strncmp(r->io.target, "/dev/fnblk", 10))
		add_device_params(e);
	for (j = 0; j < r->user.nr_params; j++)
		fnblk_events_set_param(e, r->user.params[j].name,
				       r->user.params[j].value);
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
		uint64_t bytes = ckpt_write_size(&r->io, r->plan[j].size), t[4];

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
		r->solo_ns[j] = percentile_ns(t + 1, 3, 0.5);
	}
	ckpt_close(w);
	return 0;
}

static void job_fail(unsigned int job, const char *what)
{
	fprintf(stderr, PROG ": job %u: %s\n", job, what);
	_exit(1);
}

/*
 * Jobs set up first (cgroup, device, io_uring: slow on a fresh device in a
 * slow guest), say so on ready, and only then learn time 0 from go, so a
 * slow start-up cannot eat into the planned phases.
 */
static void job_main(struct fleet_run *r, unsigned int job, int out,
		     int ready, int go)
{
	const struct fleet_job *p = &r->plan[job];
	uint64_t bytes = ckpt_write_size(&r->io, p->size), cycle, deadline;
	struct ckpt_writer *w;
	char err[256];

	if (r->cgroup && fleet_cgroup_enter(r->cgroup, job, err, sizeof(err)))
		job_fail(job, err);
	if (ckpt_open(&w, &r->io, job, r->region, err, sizeof(err)))
		job_fail(job, err);
	if (write(ready, "", 1) != 1)
		job_fail(job, "ready pipe closed");
	if (read(go, &r->t0, sizeof(r->t0)) != sizeof(r->t0))
		_exit(1);	/* the parent gave up: it says why */
	close(ready);
	close(go);
	deadline = r->cfg.duration_ns ? r->t0 + r->cfg.duration_ns : 0;
	wait_until_ns(COMPUTE_SLEEP, r->t0 + p->phase_ns);
	for (cycle = 0; !r->cfg.cycles || cycle < r->cfg.cycles; cycle++) {
		uint64_t t = fleet_cycle_compute_ns(&r->cfg, p, job, cycle);
		struct fnblk_event ev = { .job = job, .cycle = cycle,
					  .bytes = bytes };

		if (!compute_run(&r->comp, r->shared, t, deadline))
			break;
		if (deadline && now_ns() >= deadline)
			break;
		ev.start_ns = now_ns();
		if (ckpt_write(w, bytes, cycle, err, sizeof(err)))
			job_fail(job, err);
		ev.end_ns = now_ns();
		if (write(out, &ev, sizeof(ev)) != sizeof(ev))
			job_fail(job, "event pipe closed");
	}
	ckpt_close(w);
	_exit(0);
}

struct outputs {
	FILE *csv;
	FILE *jsonl;
};

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

static void progress(const struct fleet_run *r, uint64_t expected, bool last)
{
	double el = (now_ns() - r->t0) / 1e9;

	if (now_ns() < r->t0)
		el = 0;
	fprintf(stderr, "\r" PROG ": %7.1fs  writes %zu", el, r->ev.nr);
	if (expected)
		fprintf(stderr, "/%" PRIu64, expected);
	if (r->ev.nr) {
		const struct fnblk_event *e = &r->ev.ev[r->ev.nr - 1];

		fprintf(stderr, "  last %.1fms   ", (e->end_ns - e->start_ns) / 1e6);
	}
	if (last)
		fputc('\n', stderr);
}

/* Read events until every job has closed its end of the pipe. */
static int collect(struct fleet_run *r, int in, struct outputs *o)
{
	bool show = !r->quiet && isatty(STDERR_FILENO);
	uint64_t expected = r->cfg.cycles && !r->cfg.duration_ns ?
			    r->cfg.cycles * r->cfg.jobs : 0;
	struct pollfd pfd = { .fd = in, .events = POLLIN };
	int ret = 0;

	for (;;) {
		struct fnblk_event ev;
		ssize_t n;

		if (poll(&pfd, 1, 500) < 0 && errno != EINTR)
			return -1;
		if (show)
			progress(r, expected, false);
		if (!(pfd.revents & (POLLIN | POLLHUP)))
			continue;
		n = read(in, &ev, sizeof(ev));
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n != sizeof(ev)) {
			fprintf(stderr, PROG ": torn event record\n");
			return -1;
		}
		if (fnblk_events_add(&r->ev, &ev))
			return -1;
		if (o->csv && fnblk_events_csv_row(o->csv, &ev))
			ret = -1;
		if (o->jsonl && fnblk_events_jsonl_row(o->jsonl, &ev))
			ret = -1;
	}
	if (show)
		progress(r, expected, true);
	return ret;
}

static int start_outputs(struct fleet_run *r, struct outputs *o);

/* Wait for one ready byte per job; false if a job died during set-up. */
static bool all_ready(int ready, unsigned int jobs)
{
	unsigned int got = 0;
	char buf[256];

	while (got < jobs) {
		ssize_t n = read(ready, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		got += n;
	}
	return true;
}

static int send_t0(int go, uint64_t t0, unsigned int jobs)
{
	unsigned int j;

	for (j = 0; j < jobs; j++)
		if (write(go, &t0, sizeof(t0)) != sizeof(t0))
			return -1;
	return 0;
}

static int run_fleet(struct fleet_run *r, struct outputs *o)
{
	unsigned int j, started = 0;
	pid_t *pids = calloc(r->cfg.jobs, sizeof(*pids));
	int ev[2], ready[2], go[2], ret = 0, status;

	if (!pids || pipe(ev) || pipe(ready) || pipe(go)) {
		fprintf(stderr, PROG ": %s\n", strerror(errno));
		free(pids);
		return 1;
	}
	/* Jobs inherit stdio buffers: empty them so nothing is written twice. */
	fflush(NULL);
	for (j = 0; j < r->cfg.jobs; j++) {
		pids[j] = fork();
		if (pids[j] < 0) {
			fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
			ret = 1;
			break;
		}
		if (pids[j] == 0) {
			close(ev[0]);
			close(ready[0]);
			close(go[1]);
			job_main(r, j, ev[1], ready[1], go[0]);
		}
		started++;
	}
	close(ev[1]);
	close(ready[1]);
	close(go[0]);
	if (!ret && !all_ready(ready[0], r->cfg.jobs)) {
		fprintf(stderr, PROG ": a job failed to start\n");
		ret = 1;
	}
	if (!ret) {
		r->t0 = now_ns() + r->start_delay_ns;
		if (start_outputs(r, o) || send_t0(go[1], r->t0, r->cfg.jobs))
			ret = 1;
		else if (now_ns() > r->t0)
			fprintf(stderr, PROG ": warning: start-up overran --start-delay by %.1fms; early phases are late\n",
				(now_ns() - r->t0) / 1e6);
	}
	close(go[1]);
	close(ready[0]);
	if (!ret && collect(r, ev[0], o)) {
		fprintf(stderr, PROG ": collecting events: %s\n", strerror(errno));
		ret = 1;
	}
	close(ev[0]);
	for (j = 0; j < started; j++) {
		if (ret)
			kill(pids[j], SIGTERM);
		if (waitpid(pids[j], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			ret = 1;
	}
	free(pids);
	return ret;
}

/* Parameters (t0 included) and the file headers, once every job is ready. */
static int start_outputs(struct fleet_run *r, struct outputs *o)
{
	record_params(r);
	if ((o->csv && (fnblk_events_csv_header(o->csv, &r->ev) || fflush(o->csv))) ||
	    (o->jsonl && (fnblk_events_jsonl_header(o->jsonl, &r->ev) ||
			  fflush(o->jsonl)))) {
		fprintf(stderr, PROG ": writing events: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int summarise(struct fleet_run *r)
{
	struct job_summary *s = calloc(r->cfg.jobs, sizeof(*s));
	FILE *f = r->csv_path && !strcmp(r->csv_path, "-") ? stderr : stdout;
	unsigned int j;

	if (!s)
		return -1;
	for (j = 0; j < r->cfg.jobs; j++) {
		if (job_summary_compute(&r->ev, j, r->solo_ns[j], &s[j])) {
			free(s);
			return -1;
		}
	}
	job_summary_print(f, r->cfg.jobs, s);
	free(s);
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
		return usage_error("%s", err);
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
