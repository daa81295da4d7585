// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-replay: job records replayed on fnblk devices, as sites with job
 * slots; it measures what fnblk-sim replay predicts (queue time, wall
 * time, I/O share, error rate, remote access). Documentation/replay.rst.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fs.h>

#include "cli.h"
#include "diag.h"
#include "fnblk.h"
#include "interrupt.h"
#include "replay_cli.h"
#include "replay_kpi.h"
#include "replay_locality.h"
#include "run.h"

#define MAX_SITES	64

struct args {
	struct replay_cli r;
	const char *site_spec[MAX_SITES];
	unsigned int nr_sites;
	const char *events_path;
	bool buffered;
	bool json;
};

static struct args a;

static const char *const usage[] = {
	"[OPTIONS] --site NAME=DEVICE[,KEY=VALUE]... [-o EVENTS.csv] RECORDS.csv",
	NULL
};

static const char about[] =
	"Replay job records (CSV, Documentation/replay.rst) on fnblk devices: "
	"each --site is a device with job slots, every attempt of a job is "
	"one process (one user of its site's device), and the key figures "
	"are printed as fnblk-sim replay predicts them: queue time, wall "
	"time, the I/O share of wall time, the error rate and the fraction "
	"of input read remotely, for all jobs, per site and per category.\n\n"
	"Reads and writes go to the device with O_DIRECT through io_uring, "
	"each slot in its own region of the device (data are not kept: this "
	"overwrites the device). A device I/O error (see fnblkctl fault) "
	"fails the phase it happens in, as a drawn failure does.";

static int add_site(void *ctx, const struct cli_option *o, const char *arg,
		    char *err, size_t errlen)
{
	(void)ctx;
	(void)o;
	if (a.nr_sites == MAX_SITES)
		return fnblk_seterr(err, errlen, "at most %d sites", MAX_SITES);
	a.site_spec[a.nr_sites++] = arg;
	return 0;
}

/* "NAME=DEVICE[,KEY=VALUE]...": slots=N, fail-PHASE=P */
static int parse_site(const char *spec, struct run_site *s, char *path,
		      size_t path_len, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '='), *why;
	size_t name_len = eq ? (size_t)(eq - spec) : 0, dev_len;
	char *copy, *p, *next;
	unsigned int i;
	uint64_t v;
	int ret = -1;

	memset(s, 0, sizeof(*s));
	s->slots = 1;
	for (i = 0; i < REPLAY_NR_PHASES; i++)
		s->fail[i] = -1;
	if (!name_len || name_len >= sizeof(s->name) ||
	    strcspn(spec, ",\"") < name_len)
		return fnblk_seterr(err, errlen, "site '%s': NAME=DEVICE[,KEY=VALUE]... (a name of 1 to %zu characters)",
				    spec, sizeof(s->name) - 1);
	memcpy(s->name, spec, name_len);
	dev_len = strcspn(eq + 1, ",");
	if (!dev_len || dev_len >= path_len)
		return fnblk_seterr(err, errlen, "site %s: no device", s->name);
	snprintf(path, path_len, "%.*s", (int)dev_len, eq + 1);
	s->path = path;
	if (!eq[1 + dev_len])
		return 0;
	copy = strdup(eq + 2 + dev_len);
	if (!copy)
		return fnblk_seterr(err, errlen, "out of memory");
	for (p = copy; p; p = next) {
		char *val = strchr(p, '=');

		next = strchr(p, ',');
		if (next)
			*next++ = '\0';
		if (!val) {
			fnblk_seterr(err, errlen, "site %s: '%s' is not KEY=VALUE", s->name, p);
			goto out;
		}
		*val++ = '\0';
		if (!strcmp(p, "slots")) {
			if (fnblk_parse_uint(val, 1, 4096, &v, &why)) {
				fnblk_seterr(err, errlen, "site %s: slots '%s': %s (1 to 4096)",
					     s->name, val, why);
				goto out;
			}
			s->slots = (unsigned int)v;
			continue;
		}
		switch (replay_site_fail_set(s->fail, p, val, &why)) {
		case 0:
			continue;
		case 1:
			fnblk_seterr(err, errlen, "site %s: '%s' is not slots or fail-stagein, fail-payload, fail-stageout",
				     s->name, p);
			goto out;
		default:
			fnblk_seterr(err, errlen, "site %s: %s '%s': %s", s->name, p, val, why);
			goto out;
		}
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

static int device_size(const char *path, uint64_t *size, char *err,
		       size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY), ret = 0;

	if (fd < 0)
		return fnblk_seterr(err, errlen, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st))
		ret = fnblk_seterr(err, errlen, "%s: %s", path, strerror(errno));
	else if (S_ISBLK(st.st_mode))
		ret = ioctl(fd, BLKGETSIZE64, size) ?
		      fnblk_seterr(err, errlen, "%s: BLKGETSIZE64: %s", path,
				   strerror(errno)) : 0;
	else if (S_ISREG(st.st_mode))
		*size = (uint64_t)st.st_size;
	else
		ret = fnblk_seterr(err, errlen, "%s: not a block device or regular file",
				   path);
	close(fd);
	return ret;
}

/*
 * site.NAME: the device's settings over netlink when it is an fnblk
 * device (so fnblk-sim can replay the run again), else only its slots.
 */
static int site_params(struct fnblk_events *p, const struct run_site *s,
		       struct fnblk **h)
{
	const char *base = strrchr(s->path, '/');
	char name[96], value[FNBLK_FN_SPEC_LEN + 256];
	struct fnblk_dev_info info;

	base = base ? base + 1 : s->path;
	snprintf(name, sizeof(name), "site_device.%.63s", s->name);
	if (fnblk_events_set_param(p, name, s->path))
		return -1;
	snprintf(name, sizeof(name), "site.%.63s", s->name);
	if (!strncmp(base, "fnblk", 5) && (*h || (*h = fnblk_open())) &&
	    !fnblk_dev_get(*h, base, &info)) {
		replay_site_param(value, sizeof(value), s->slots, s->fail,
				  info.cfg.bw, info.cfg.latency_ns,
				  info.cfg.overhead, info.cfg.grace_ns,
				  fnblk_policy_name(info.cfg.policy),
				  fnblk_users_name(info.cfg.users), info.cfg.fn);
	} else {
		replay_site_param(value, sizeof(value), s->slots, s->fail, 0,
				  0, 0, 0, NULL, NULL, NULL);
	}
	return fnblk_events_set_param(p, name, value);
}

struct out {
	FILE *events;
	struct replay_kpi kpi;
};

static int out_rows(void *ctx, const struct replay_row *rows, size_t nr)
{
	struct out *o = ctx;
	size_t i;

	for (i = 0; o->events && i < nr; i++)
		if (replay_events_row(o->events, &rows[i]))
			return -1;
	return 0;
}

static int out_result(void *ctx, const struct replay_result *r)
{
	return replay_kpi_add(&((struct out *)ctx)->kpi, r);
}

/* Seconds per attempt that reported its end. */
static double per_end(const struct run_stats *st, uint64_t ns)
{
	return st->ended ? (double)ns * 1e-9 / (double)st->ended : 0;
}

int main(int argc, char **argv)
{
	const struct cli_option site_options[] = {
		{ .name = "site", .arg = "NAME=DEVICE[,KEY=VALUE]...",
		  .type = CLI_CALL, .set = add_site, .dflt = "",
		  .help = "a site: the device its jobs use, slots=N job slots "
			  "(1 unless given), and its own failure probabilities "
			  "fail-stagein=P, fail-payload=P, fail-stageout=P; "
			  "repeat for more sites" },
		{ .name = "buffered", .type = CLI_FLAG, .var = &a.buffered,
		  .help = "no O_DIRECT (for a target that cannot, e.g. a file "
			  "on tmpfs; the page cache then takes part)" },
		{ .name = NULL },
	};
	const struct cli_option replay_options[] = {
		REPLAY_CLI_OPTIONS(&a.r),
		{ .name = NULL },
	};
	const struct cli_option out_options[] = {
		{ .name = "output", .key = 'o', .arg = "FILE", .type = CLI_STRING,
		  .var = &a.events_path, .dflt = "none",
		  .help = "write every job's events (replay event format)" },
		{ .name = NULL },
	};
	const struct cli_group groups[] = {
		{ .title = "Sites", .options = site_options },
		{ .title = "Replay, as fnblk-sim replay takes it",
		  .options = replay_options, .ctx = &a.r },
		{ .title = "Output", .options = out_options },
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblk-replay", .usage = usage, .about = about,
		.groups = groups, .json = &a.json,
		.json_help = "print the figures as JSON (seconds of replayed "
			     "time, fractions)",
	};
	static char paths[MAX_SITES][256];
	struct run_site sites[MAX_SITES];
	const char *names[MAX_SITES];
	struct replay_locality loc;
	struct out out = { 0 };
	struct run_sink sink = { .ctx = &out, .rows = out_rows,
				 .result = out_result };
	struct run_config cfg;
	struct run_stats st;
	struct fnblk_events params;
	struct fnblk *h = NULL;
	struct jobrecs t;
	char err[512];
	const char *why;
	int ret, first = 0;
	unsigned int i, k;

	replay_cli_init(&a.r);
	replay_locality_init(&loc);
	jobrecs_init(&t);
	fnblk_events_init(&params);
	replay_kpi_init(&out.kpi);
	ret = cli_parse(&prog, argc, argv, &first);
	if (ret == CLI_CONTINUE && first == argc)
		ret = cli_usage_error(&prog, "no RECORDS file");
	if (ret == CLI_CONTINUE && argc - first > 1)
		ret = cli_usage_error(&prog, "unexpected operand '%s'", argv[first + 1]);
	if (ret == CLI_CONTINUE && !a.nr_sites)
		ret = cli_usage_error(&prog, "no --site");
	if (ret == CLI_CONTINUE && replay_cli_finish(&a.r, &why))
		ret = cli_usage_error(&prog, "%s", why);
	for (i = 0; ret == CLI_CONTINUE && i < a.nr_sites; i++) {
		if (parse_site(a.site_spec[i], &sites[i], paths[i],
			       sizeof(paths[i]), err, sizeof(err)))
			ret = cli_usage_error(&prog, "%s", err);
		for (k = 0; ret == CLI_CONTINUE && k < i; k++)
			if (!strcmp(sites[k].name, sites[i].name))
				ret = cli_usage_error(&prog, "site %s given twice",
						      sites[i].name);
	}
	for (i = 0; i < a.nr_sites; i++)
		names[i] = sites[i].name;
	if (ret == CLI_CONTINUE &&
	    replay_cli_locality(&a.r, names, a.nr_sites, &loc, err, sizeof(err)))
		ret = cli_usage_error(&prog, "--locality: %s", err);
	if (ret != CLI_CONTINUE)
		goto out;
	ret = CLI_EXIT_FAILURE;
	for (i = 0; i < a.nr_sites; i++) {
		if (device_size(sites[i].path, &sites[i].size, err, sizeof(err))) {
			cli_error(&prog, "site %s: %s", sites[i].name, err);
			goto out;
		}
	}
	if (jobrecs_read_file(argv[first], &t, err, sizeof(err))) {
		cli_error(&prog, "%s", err);
		goto out;
	}
	if (replay_cli_params(&a.r, &params) ||
	    replay_locality_params(&loc, names, &params)) {
		cli_error(&prog, "out of memory");
		goto out;
	}
	for (i = 0; i < a.nr_sites; i++) {
		if (site_params(&params, &sites[i], &h)) {
			cli_error(&prog, "out of memory");
			goto out;
		}
	}
	if (a.events_path) {
		out.events = fopen(a.events_path, "w");
		if (!out.events) {
			cli_error(&prog, "%s: %s", a.events_path, strerror(errno));
			goto out;
		}
		replay_events_header(out.events, "replay", &params);
	}
	if (fnblk_interrupt_init()) {
		cli_error(&prog, "signals: %s", strerror(errno));
		goto out;
	}
	cfg = (struct run_config) {
		.rc = &a.r.rc, .assign = (enum replay_assign)a.r.assign,
		.locality = &loc,
		.sites = sites, .nr_sites = a.nr_sites, .bs = a.r.bs,
		.qd = a.r.qd, .buffered = a.buffered,
	};
	if (run_replay(&cfg, &t, &sink, &st, err, sizeof(err))) {
		cli_error(&prog, "%s", err);
		goto out;
	}
	if (out.events) {
		if (fclose(out.events)) {
			out.events = NULL;
			cli_error(&prog, "writing %s failed", a.events_path);
			goto out;
		}
		out.events = NULL;
	}
	if (a.json) {
		json_t *o = replay_kpi_json(&out.kpi);

		json_object_set_new(o, "attempts", json_integer((json_int_t)st.attempts));
		json_object_set_new(o, "died", json_integer((json_int_t)st.died));
		json_object_set_new(o, "waited", json_integer((json_int_t)st.waited));
		json_object_set_new(o, "replayed_s", json_real(st.end_ns * 1e-9));
		json_object_set_new(o, "notice_mean_s", json_real(per_end(&st, st.notice_ns)));
		json_object_set_new(o, "notice_max_s", json_real(st.notice_max_ns * 1e-9));
		json_object_set_new(o, "late_mean_s", json_real(per_end(&st, st.late_ns)));
		json_object_set_new(o, "late_max_s", json_real(st.late_max_ns * 1e-9));
		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
		putchar('\n');
		json_decref(o);
	} else {
		replay_kpi_print(stdout, &out.kpi);
		printf("\n%" PRIu64 " attempts (%" PRIu64 " died unreported, %" PRIu64
		       " waited for their process to prepare), %.3f s replayed\n",
		       st.attempts, st.died, st.waited, st.end_ns * 1e-9);
		printf("ends noticed %.3f ms late (max %.3f); not caught up by compute %.3f ms (max %.3f)\n",
		       per_end(&st, st.notice_ns) * 1e3, st.notice_max_ns * 1e-6,
		       per_end(&st, st.late_ns) * 1e3, st.late_max_ns * 1e-6);
	}
	ret = fflush(stdout) ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
out:
	if (out.events)
		fclose(out.events);
	if (h)
		fnblk_close(h);
	replay_kpi_free(&out.kpi);
	replay_locality_free(&loc);
	fnblk_events_free(&params);
	jobrecs_free(&t);
	fnblk_interrupt_reraise();
	return ret;
}
