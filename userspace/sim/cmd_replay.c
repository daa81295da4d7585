// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-sim replay: predict what replaying job records on fnblk devices
 * does (Documentation/replay.rst): the queue time, wall time, I/O share,
 * error rate and remote access that fnblk-replay measures in the VM.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cli.h"
#include "commands.h"
#include "diag.h"
#include "print.h"
#include "replay_engine.h"
#include "replay_kpi.h"
#include "units.h"

#define MAX_SITES	1024

struct replay_args {
	struct replay_config rc;
	unsigned int stagein;		/* enum replay_stagein_policy */
	unsigned int assign;		/* enum replay_assign */
	const char *site_spec[MAX_SITES];
	unsigned int nr_sites;
	const char *events_path;
	bool keep_record_failures;
	bool json;
};

static const char *const replay_usage[] = {
	"[OPTIONS] --site NAME[,KEY=VALUE]... [-o EVENTS.csv] RECORDS.csv", NULL
};

static const char replay_about[] =
	"Replay job records (CSV, Documentation/replay.rst) at simulated "
	"fnblk sites and print the key figures fnblk-replay measures: queue "
	"time (mean, p50, p95, p99), wall time, the I/O share of wall time, "
	"the error rate and the fraction of input read remotely, for all "
	"jobs, per site and per job category.\n\n"
	"Each --site is a device with job slots; the device options below "
	"are every site's defaults, and a site overrides them with KEY=VALUE "
	"pairs: slots, bw, latency, overhead, grace, policy, users, and fn, "
	"which comes last and takes the rest of the text (a table holds "
	"commas): --site BNL,slots=8,bw=64MiB/s,fn=table:1,0.9,0.8.";

static const char *stagein_choice(unsigned int i)
{
	return i <= REPLAY_STAGEIN_COPY ? replay_stagein_names[i] : NULL;
}

static const char *assign_choice(unsigned int i)
{
	return i < REPLAY_NR_ASSIGN ? replay_assign_names[i] : NULL;
}

static int set_real(const char *arg, bool percent, double min, double max,
		    double *v, char *err, size_t errlen)
{
	const char *why;

	if (fnblk_parse_real(arg, percent, v, &why))
		return fnblk_seterr(err, errlen, "%s", why);
	if (!(*v >= min && *v <= max))
		return fnblk_seterr(err, errlen, "out of range (%g to %g)", min,
				    max);
	return 0;
}

static int set_scale(void *ctx, const struct cli_option *o, const char *arg,
		     char *err, size_t errlen)
{
	struct replay_args *a = ctx;
	double *v = !strcmp(o->name, "time-scale") ? &a->rc.time_scale :
		    &a->rc.byte_scale;

	if (set_real(arg, false, 0, 1e12, v, err, errlen))
		return -1;
	if (!(*v > 0))
		return fnblk_seterr(err, errlen, "must be above 0");
	return 0;
}

static const char *show_scale(void *ctx, const struct cli_option *o,
			      char *buf, size_t len)
{
	struct replay_args *a = ctx;

	snprintf(buf, len, "%g", !strcmp(o->name, "time-scale") ?
		 a->rc.time_scale : a->rc.byte_scale);
	return buf;
}

static int phase_of(const struct cli_option *o)
{
	return !strcmp(o->name, "fail-stagein") ? REPLAY_STAGEIN :
	       !strcmp(o->name, "fail-payload") ? REPLAY_PAYLOAD :
	       REPLAY_STAGEOUT;
}

static int set_fail(void *ctx, const struct cli_option *o, const char *arg,
		    char *err, size_t errlen)
{
	struct replay_args *a = ctx;

	return set_real(arg, true, 0, 1, &a->rc.fail[phase_of(o)], err, errlen);
}

static const char *show_fail(void *ctx, const struct cli_option *o,
			     char *buf, size_t len)
{
	struct replay_args *a = ctx;

	snprintf(buf, len, "%g%%", 100 * a->rc.fail[phase_of(o)]);
	return buf;
}

static int add_site(void *ctx, const struct cli_option *o, const char *arg,
		    char *err, size_t errlen)
{
	struct replay_args *a = ctx;

	(void)o;
	if (a->nr_sites == MAX_SITES)
		return fnblk_seterr(err, errlen, "at most %d sites", MAX_SITES);
	a->site_spec[a->nr_sites++] = arg;
	return 0;
}

/*
 * "NAME[,KEY=VALUE]..." into site s, from the defaults in o. fn takes the
 * rest of the text, commas included.
 */
static int parse_site(const char *spec, const struct sim_options *dflt,
		      struct replay_site *s, char *err, size_t errlen)
{
	struct sim_options o = *dflt;
	char *copy = strdup(spec), *p, *next, msg[256];
	size_t name_len = strcspn(spec, ",");
	int ret = -1;

	if (!copy)
		return fnblk_seterr(err, errlen, "out of memory");
	memset(s, 0, sizeof(*s));
	s->slots = 1;
	if (!name_len || name_len >= sizeof(s->name) ||
	    strcspn(spec, "\"") < name_len) {
		fnblk_seterr(err, errlen, "site '%s': a name of 1 to %zu characters first",
			     spec, sizeof(s->name) - 1);
		goto out;
	}
	memcpy(s->name, spec, name_len);
	for (p = copy[name_len] ? copy + name_len + 1 : NULL; p; p = next) {
		char *eq = strchr(p, '=');
		const char *why;
		uint64_t v;

		if (!eq) {
			fnblk_seterr(err, errlen, "site %s: '%s' is not KEY=VALUE",
				     s->name, p);
			goto out;
		}
		*eq = '\0';
		next = NULL;
		if (strcmp(p, "fn")) {
			next = strchr(eq + 1, ',');
			if (next)
				*next++ = '\0';
		}
		if (!strcmp(p, "slots")) {
			if (fnblk_parse_uint(eq + 1, 1, 1000000, &v, &why)) {
				fnblk_seterr(err, errlen, "site %s: slots '%s': %s (1 to 1000000)",
					     s->name, eq + 1, why);
				goto out;
			}
			s->slots = (unsigned int)v;
			continue;
		}
		if (!strcmp(p, "bs") || !strcmp(p, "qd") ||
		    sim_options_set(&o, p, eq + 1, msg, sizeof(msg))) {
			fnblk_seterr(err, errlen, "site %s: %s '%s': %s", s->name,
				     p, eq + 1,
				     !strcmp(p, "bs") || !strcmp(p, "qd") ?
				     "the request size and depth are every job's (--bs, --qd)" :
				     msg);
			goto out;
		}
	}
	s->dev = o.dev;
	ret = 0;
out:
	free(copy);
	return ret;
}

struct replay_out {
	FILE *events;
	struct replay_kpi kpi;
	bool failed;
};

static int out_rows(void *ctx, const struct replay_row *rows, size_t nr)
{
	struct replay_out *ro = ctx;
	size_t i;

	for (i = 0; ro->events && i < nr; i++)
		if (replay_events_row(ro->events, &rows[i]))
			return -1;
	return 0;
}

static int out_result(void *ctx, const struct replay_result *r)
{
	struct replay_out *ro = ctx;

	return replay_kpi_add(&ro->kpi, r);
}

static void add_param(void *arg, const char *name, const char *value)
{
	fnblk_events_set_param(arg, name, value);
}

/* Every setting as a "# param" line, so a file says how it was made. */
static int make_params(const struct replay_args *a, const struct sim_options *o,
		       const struct replay_site *sites, struct fnblk_events *p)
{
	char name[96], value[FNBLK_FN_SPEC_LEN + 256], buf[64];
	unsigned int i;

	fnblk_events_init(p);
	snprintf(value, sizeof(value), "%g", a->rc.time_scale);
	add_param(p, "time_scale", value);
	snprintf(value, sizeof(value), "%g", a->rc.byte_scale);
	add_param(p, "byte_scale", value);
	add_param(p, "stagein", replay_stagein_names[a->rc.stagein]);
	add_param(p, "assign", replay_assign_names[a->assign]);
	snprintf(value, sizeof(value), "%u", a->rc.max_chunks);
	add_param(p, "chunks", value);
	add_param(p, "ckpt_period", fnblk_format_duration_exact(a->rc.ckpt_period_ns, buf, sizeof(buf)));
	add_param(p, "ckpt_size", fnblk_format_size_exact(a->rc.ckpt_bytes, buf, sizeof(buf)));
	for (i = 0; i < REPLAY_NR_PHASES; i++) {
		snprintf(name, sizeof(name), "fail_%s", replay_phase_names[i]);
		snprintf(value, sizeof(value), "%g", a->rc.fail[i]);
		add_param(p, name, value);
	}
	add_param(p, "record_failures", a->rc.fail_from_records ? "yes" : "no");
	snprintf(value, sizeof(value), "%u", a->rc.max_attempts);
	add_param(p, "attempts", value);
	add_param(p, "backoff", fnblk_format_duration_exact(a->rc.backoff_ns, buf, sizeof(buf)));
	snprintf(value, sizeof(value), "%" PRIu64, a->rc.seed);
	add_param(p, "seed", value);
	add_param(p, "bs", fnblk_format_size_exact(o->io.bs, buf, sizeof(buf)));
	snprintf(value, sizeof(value), "%u", o->io.qd);
	add_param(p, "qd", value);
	for (i = 0; i < a->nr_sites; i++) {
		const struct replay_site *s = &sites[i];
		char fn[FNBLK_FN_SPEC_LEN];
		char lat[32], ovh[32], gr[32];

		snprintf(name, sizeof(name), "site.%s", s->name);
		if (s->dev.bw) {
			fnblk_format_size_exact(s->dev.bw, buf, sizeof(buf) - 2);
			strcat(buf, "/s");
		} else {
			snprintf(buf, sizeof(buf), "unlimited");
		}
		fnblk_fn_format(&s->dev.fn, fn, sizeof(fn));
		snprintf(value, sizeof(value),
			 "slots=%u,bw=%s,latency=%s,overhead=%s,grace=%s,policy=%s,users=%s,fn=%s",
			 s->slots, buf,
			 fnblk_format_duration_exact(s->dev.latency_ns, lat, sizeof(lat)),
			 fnblk_format_size_exact(s->dev.overhead, ovh, sizeof(ovh)),
			 fnblk_format_duration_exact(s->dev.grace_ns, gr, sizeof(gr)),
			 fnblk_policy_names[s->dev.policy],
			 fnblk_users_names[s->dev.users], fn);
		add_param(p, name, value);
	}
	return p->nr_params ? 0 : -1;
}

static void print_kpi(FILE *f, const struct replay_args *a,
		      struct replay_out *ro, const struct replay_sim_stats *st,
		      double wall)
{
	json_t *o;

	if (!a->json) {
		replay_kpi_print(f, &ro->kpi);
		fprintf(f, "\n%" PRIu64 " events, %.3f s simulated in %.3f s\n",
			st->events, st->end_ns * 1e-9, wall);
		return;
	}
	o = replay_kpi_json(&ro->kpi);
	json_object_set_new(o, "events", json_integer((json_int_t)st->events));
	json_object_set_new(o, "simulated_s", json_real(st->end_ns * 1e-9));
	json_object_set_new(o, "wall_s", json_real(wall));
	json_dumpf(o, f, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
	fputc('\n', f);
	json_decref(o);
}

int cmd_replay(int argc, char **argv)
{
	static struct replay_args a;
	static struct sim_options o;
	const struct cli_option replay_options[] = {
		{ .name = "site", .arg = "NAME[,KEY=VALUE]...", .type = CLI_CALL,
		  .set = add_site, .dflt = "",
		  .help = "a site: a device with job slots (slots=1 unless "
			  "given); repeat for more sites" },
		{ .name = "assign", .arg = "POLICY", .type = CLI_CHOICE,
		  .var = &a.assign, .choice = assign_choice,
		  .help = "where a job runs: recorded (its record's site), "
			  "random, or least-loaded (fewest running and queued "
			  "jobs per slot when it arrives)" },
		{ .name = "stagein", .arg = "MODE", .type = CLI_CHOICE,
		  .var = &a.stagein, .choice = stagein_choice,
		  .help = "recorded (the record's transfertype; empty = copy), "
			  "direct (read input during the payload) or copy "
			  "(read it all first)" },
		{ .name = "time-scale", .arg = "X", .type = CLI_CALL,
		  .set = set_scale, .show = show_scale,
		  .help = "record seconds per replayed second" },
		{ .name = "byte-scale", .arg = "X", .type = CLI_CALL,
		  .set = set_scale, .show = show_scale,
		  .help = "record bytes per replayed byte (then rounded up to "
			  "4KiB)" },
		{ .name = "chunks", .arg = "N", .type = CLI_UINT,
		  .var = &a.rc.max_chunks, .min = 1, .max = REPLAY_MAX_CHUNKS,
		  .help = "a direct job reads its input in as many pieces as "
			  "it has files, at most N, each followed by its "
			  "share of the payload" },
		{ .name = "ckpt-period", .arg = "DUR", .type = CLI_DURATION,
		  .var = &a.rc.ckpt_period_ns,
		  .help = "payload compute between checkpoints (replayed "
			  "time); 0 = none" },
		{ .name = "ckpt-size", .arg = "SIZE", .type = CLI_SIZE,
		  .var = &a.rc.ckpt_bytes, .align = 4096,
		  .help = "bytes of each checkpoint" },
		{ .name = "fail-stagein", .arg = "P", .type = CLI_CALL,
		  .set = set_fail, .show = show_fail,
		  .help = "probability that an attempt's stage-in fails (0.05 "
			  "or 5%)" },
		{ .name = "fail-payload", .arg = "P", .type = CLI_CALL,
		  .set = set_fail, .show = show_fail,
		  .help = "probability that an attempt's payload fails" },
		{ .name = "fail-stageout", .arg = "P", .type = CLI_CALL,
		  .set = set_fail, .show = show_fail,
		  .help = "probability that an attempt's stage-out fails" },
		{ .name = "ignore-record-failures", .type = CLI_FLAG,
		  .var = &a.keep_record_failures,
		  .help = "replay failed records as if they had succeeded "
			  "(by default every attempt of a job whose record "
			  "failed fails in its payload)" },
		{ .name = "attempts", .arg = "N", .type = CLI_UINT,
		  .var = &a.rc.max_attempts, .min = 1, .max = 100,
		  .help = "attempts per job before it counts as failed" },
		{ .name = "backoff", .arg = "DUR", .type = CLI_DURATION,
		  .var = &a.rc.backoff_ns,
		  .help = "wait before the second attempt; doubles for each "
			  "further one" },
		{ .name = "seed", .arg = "N", .type = CLI_U64, .var = &a.rc.seed,
		  .help = "seed of the failure and random-site draws" },
		{ .name = NULL },
	};
	const struct cli_option out_options[] = {
		{ .name = "output", .key = 'o', .arg = "FILE", .type = CLI_STRING,
		  .var = &a.events_path, .dflt = "none",
		  .help = "write every job's events (replay event format; "
			  "'-': standard output, the figures then go to "
			  "standard error)" },
		{ .name = NULL },
	};
	const struct cli_group groups[] = {
		{ .title = "Replay", .options = replay_options, .ctx = &a },
		{ .title = "Every site's device (a --site may override)",
		  .options = sim_device_cli_options, .ctx = &o },
		{ .title = "Requests of every job's reads and writes",
		  .options = sim_io_cli_options, .ctx = &o },
		{ .title = "Output", .options = out_options },
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblk-sim replay", .usage = replay_usage,
		.about = replay_about, .groups = groups, .json = &a.json,
		.json_help = "print the figures as JSON (seconds of replayed "
			     "time, fractions)",
	};
	struct replay_site *sites = NULL;
	struct replay_out ro = { 0 };
	struct replay_sim_sink sink = {
		.ctx = &ro, .rows = out_rows, .result = out_result,
	};
	struct replay_sim_stats st;
	struct replay_sim sim;
	struct fnblk_events params;
	struct jobrecs t;
	char err[512];
	bool events_on_stdout = false;
	double t0, wall;
	int ret, first = 0;
	unsigned int i;

	jobrecs_init(&t);
	fnblk_events_init(&params);
	replay_kpi_init(&ro.kpi);
	replay_config_default(&a.rc);
	a.stagein = REPLAY_STAGEIN_RECORDED;
	a.assign = REPLAY_ASSIGN_RECORDED;
	if (sim_options_init(&o))
		return cli_error(&prog, "out of memory");
	ret = cli_parse(&prog, argc, argv, &first);
	if (ret == CLI_CONTINUE && first == argc)
		ret = cli_usage_error(&prog, "no RECORDS file");
	if (ret == CLI_CONTINUE && argc - first > 1)
		ret = cli_usage_error(&prog, "unexpected operand '%s'", argv[first + 1]);
	if (ret == CLI_CONTINUE && !a.nr_sites)
		ret = cli_usage_error(&prog, "no --site");
	if (ret == CLI_CONTINUE && !o.io.bs)
		ret = cli_usage_error(&prog, "--bs 0 has no meaning here: every read and write is split into requests");
	a.rc.stagein = (enum replay_stagein_policy)a.stagein;
	a.rc.fail_from_records = !a.keep_record_failures;
	if (ret == CLI_CONTINUE) {
		const char *why;

		if (replay_config_check(&a.rc, &why))
			ret = cli_usage_error(&prog, "%s", why);
	}
	if (ret == CLI_CONTINUE) {
		sites = calloc(a.nr_sites, sizeof(*sites));
		if (!sites)
			ret = cli_error(&prog, "out of memory");
	}
	for (i = 0; ret == CLI_CONTINUE && i < a.nr_sites; i++) {
		unsigned int k;

		if (parse_site(a.site_spec[i], &o, &sites[i], err, sizeof(err)))
			ret = cli_usage_error(&prog, "%s", err);
		for (k = 0; ret == CLI_CONTINUE && k < i; k++)
			if (!strcmp(sites[k].name, sites[i].name))
				ret = cli_usage_error(&prog, "site %s given twice",
						      sites[i].name);
	}
	if (ret != CLI_CONTINUE)
		goto out;
	ret = CLI_EXIT_FAILURE;
	if (jobrecs_read_file(argv[first], &t, err, sizeof(err))) {
		cli_error(&prog, "%s", err);
		goto out;
	}
	if (make_params(&a, &o, sites, &params)) {
		cli_error(&prog, "out of memory");
		goto out;
	}
	if (a.events_path) {
		if (!strcmp(a.events_path, "-")) {
			ro.events = stdout;
			events_on_stdout = true;
		} else {
			ro.events = fopen(a.events_path, "w");
			if (!ro.events) {
				cli_error(&prog, "%s: %s", a.events_path,
					  strerror(errno));
				goto out;
			}
		}
		replay_events_header(ro.events, "sim", &params);
	}
	sim = (struct replay_sim) {
		.rc = &a.rc, .sites = sites, .nr_sites = a.nr_sites,
		.assign = (enum replay_assign)a.assign, .bs = o.io.bs,
		.qd = o.io.qd,
	};
	t0 = sim_wall_seconds();
	if (replay_sim_run(&sim, &t, &sink, &st, err, sizeof(err))) {
		cli_error(&prog, "%s", err);
		goto out;
	}
	wall = sim_wall_seconds() - t0;
	if (ro.events && (ro.events == stdout ? fflush(stdout) :
			  fclose(ro.events))) {
		ro.events = NULL;
		cli_error(&prog, "writing %s failed", a.events_path);
		goto out;
	}
	ro.events = NULL;
	/* When the events took standard output, the figures go to stderr. */
	print_kpi(events_on_stdout ? stderr : stdout, &a, &ro, &st, wall);
	ret = CLI_EXIT_OK;
out:
	if (ro.events && ro.events != stdout)
		fclose(ro.events);
	free(sites);
	replay_kpi_free(&ro.kpi);
	fnblk_events_free(&params);
	jobrecs_free(&t);
	sim_options_free(&o);
	return ret;
}
