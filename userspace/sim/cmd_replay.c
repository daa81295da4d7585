// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-sim replay: predict what replaying job records on fnblk devices
 * does (Documentation/replay.rst): the queue time, wall time, I/O share,
 * error rate and remote access that fnblk-replay measures in the VM.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cli.h"
#include "commands.h"
#include "diag.h"
#include "replay_engine.h"
#include "replay_sites.h"
#include "replay_cli.h"
#include "kpi.h"
#include "replay_kpi.h"
#include "replay_locality.h"
#include "units.h"

struct replay_args {
	struct replay_cli r;
	struct replay_site_specs sites;
	/* --compare: the emulated run's locality map, by category. */
	const char *loc_category[REPLAY_MAX_SITES];
	const char *loc_sites[REPLAY_MAX_SITES];
	unsigned int nr_loc;
	const char *events_path;
	const char *compare_path;
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
	"pairs: slots, fail-stagein, fail-payload, fail-stageout (the "
	"site's own failure probabilities), bw, latency, overhead, grace, "
	"policy, users, and fn, "
	"which comes last and takes the rest of the text (a table holds "
	"commas): --site BNL,slots=8,bw=64MiB/s,fn=table:1,0.9,0.8.";

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

/* Every setting as a "# param" line, so a file says how it was made. */
static int make_params(const struct replay_args *a,
		       const struct replay_site *sites, const char *const *names,
		       const struct replay_locality *loc, struct fnblk_events *p)
{
	char name[96], value[FNBLK_FN_SPEC_LEN + 256];
	unsigned int i;

	fnblk_events_init(p);
	if (replay_cli_params(&a->r, p) || replay_locality_params(loc, names, p))
		return -1;
	for (i = 0; i < a->sites.nr; i++) {
		const struct replay_site *s = &sites[i];
		char fn[FNBLK_FN_SPEC_LEN];

		snprintf(name, sizeof(name), "site.%s", s->name);
		fnblk_fn_format(&s->dev.fn, fn, sizeof(fn));
		replay_site_param(value, sizeof(value), s->slots, s->fail,
				  s->dev.bw,
				  s->dev.latency_ns, s->dev.overhead,
				  s->dev.grace_ns,
				  fnblk_policy_names[s->dev.policy],
				  fnblk_users_names[s->dev.users], fn);
		if (fnblk_events_set_param(p, name, value))
			return -1;
	}
	return 0;
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

/*
 * --compare: the emulated run's settings and sites (its # param lines;
 * sites given on the command line win) and its figures.
 */
static int load_emulated(struct replay_args *a, char **owned,
			 struct replay_kpi *emulated, char *err, size_t errlen)
{
	struct fnblk_events p;
	bool own_sites = !a->sites.nr;
	size_t i;
	int ret = -1;

	fnblk_events_init(&p);
	if (replay_events_read_file(a->compare_path, &p, replay_kpi_add_fn, NULL,
				    emulated, err, errlen))
		goto out;
	for (i = 0; i < p.nr_params; i++) {
		const char *name = p.params[i].name, *value = p.params[i].value;
		char msg[256];

		if (!strncmp(name, "locality.", 9)) {
			if (a->nr_loc == REPLAY_MAX_SITES ||
			    asprintf(&owned[REPLAY_MAX_SITES + 2 * a->nr_loc], "%s", name + 9) < 0 ||
			    asprintf(&owned[REPLAY_MAX_SITES + 2 * a->nr_loc + 1], "%s", value) < 0) {
				fnblk_seterr(err, errlen, "too many locality lines");
				goto out;
			}
			a->loc_category[a->nr_loc] = owned[REPLAY_MAX_SITES + 2 * a->nr_loc];
			a->loc_sites[a->nr_loc] = owned[REPLAY_MAX_SITES + 2 * a->nr_loc + 1];
			a->nr_loc++;
			continue;
		}
		if (!strncmp(name, "site.", 5)) {
			if (!own_sites)
				continue;
			if (!strstr(value, "bw=")) {
				fnblk_seterr(err, errlen, "%s: site %s has no device settings (not an fnblk device?): give the sites with --site",
					     a->compare_path, name + 5);
				goto out;
			}
			if (a->sites.nr == REPLAY_MAX_SITES ||
			    asprintf(&owned[a->sites.nr], "%s,%s", name + 5, value) < 0) {
				fnblk_seterr(err, errlen, "too many sites");
				goto out;
			}
			a->sites.spec[a->sites.nr] = owned[a->sites.nr];
			a->sites.nr++;
			continue;
		}
		if (replay_cli_set(&a->r, name, value, msg, sizeof(msg)) < 0) {
			fnblk_seterr(err, errlen, "%s: param %s=%s: %s",
				     a->compare_path, name, value, msg);
			goto out;
		}
	}
	if (!a->sites.nr) {
		fnblk_seterr(err, errlen, "%s: no site.NAME param: not a replay's events?",
			     a->compare_path);
		goto out;
	}
	ret = 0;
out:
	fnblk_events_free(&p);
	return ret;
}

static struct replay_group *find_group(struct replay_group *g, size_t nr,
				       const char *name)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(g[i].name, name))
			return &g[i];
	return NULL;
}

/* One group side by side: text rows, or a JSON object. */
static json_t *compare_group(FILE *f, bool json, const char *kind,
			     struct replay_kpi *em, struct replay_group *ge,
			     struct replay_kpi *pr, struct replay_group *gp)
{
	struct replay_figures fe, fp;
	json_t *o = json ? json_object() : NULL;
	size_t i;

	replay_kpi_figures(em, ge, &fe);
	if (gp)
		replay_kpi_figures(pr, gp, &fp);
	if (!json)
		fprintf(f, "%s%s%s: %" PRIu64 " jobs emulated, %" PRIu64 " predicted\n",
			ge == &em->all ? "" : kind, ge == &em->all ? "" : " ",
			ge->name, fe.jobs, gp ? fp.jobs : 0);
	for (i = 0; i < REPLAY_NR_FIGURES; i++) {
		double e = replay_figure(&fe, i), p = gp ? replay_figure(&fp, i) : 0;

		if (json)
			json_object_set_new(o, replay_figure_names[i],
					    json_pack("{sf sf sf}", "emulated", e,
						      "predicted", p, "rel_error",
						      kpi_rel_error(p, e)));
		else
			fprintf(f, "  %-20s %12.4f %12.4f %+9.1f%%\n",
				replay_figure_names[i], e, p, 100 * kpi_rel_error(p, e));
	}
	return o;
}

static json_t *compare_groups(FILE *f, bool json, const char *kind,
			      struct replay_kpi *em, struct replay_group *ge,
			      size_t nre, struct replay_kpi *pr,
			      struct replay_group *gp, size_t nrp)
{
	json_t *o = json ? json_object() : NULL;
	size_t i;

	for (i = 0; i < nre; i++) {
		json_t *g = compare_group(f, json, kind, em, &ge[i], pr,
					  find_group(gp, nrp, ge[i].name));

		if (o)
			json_object_set_new(o, ge[i].name, g);
	}
	return o;
}

static void print_compare(FILE *f, bool json, struct replay_kpi *em,
			  struct replay_kpi *pr)
{
	json_t *o, *all, *sites, *cats;

	if (!json)
		fprintf(f, "%-22s %12s %12s %10s\n", "", "emulated", "predicted",
			"error");
	/* One after the other: the text comes out in this order. */
	all = compare_group(f, json, "all", em, &em->all, pr, &pr->all);
	sites = compare_groups(f, json, "site", em, em->sites, em->nr_sites,
			       pr, pr->sites, pr->nr_sites);
	cats = compare_groups(f, json, "category", em, em->categories,
			      em->nr_categories, pr, pr->categories,
			      pr->nr_categories);
	o = json ? json_pack("{so so so}", "all", all, "sites", sites,
			     "categories", cats) : NULL;
	if (json && o) {
		json_dumpf(o, f, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
		fputc('\n', f);
	}
	json_decref(o);
}

int cmd_replay(int argc, char **argv)
{
	static struct replay_args a;
	static struct sim_options o;
	const struct cli_option site_options[] = {
		REPLAY_SITE_OPTION,
		{ .name = NULL },
	};
	const struct cli_option replay_options[] = {
		REPLAY_CLI_OPTIONS(&a.r),
		{ .name = NULL },
	};
	const struct cli_option out_options[] = {
		{ .name = "compare", .arg = "EVENTS", .type = CLI_STRING,
		  .var = &a.compare_path, .dflt = "none",
		  .help = "the events of fnblk-replay's run of the same records: "
			  "simulate it with its settings and sites (its param "
			  "lines win over options; --site overrides its sites) "
			  "and print emulated, predicted and their relative "
			  "error" },
		{ .name = "output", .key = 'o', .arg = "FILE", .type = CLI_STRING,
		  .var = &a.events_path, .dflt = "none",
		  .help = "write every job's events (replay event format; "
			  "'-': standard output, the figures then go to "
			  "standard error)" },
		{ .name = NULL },
	};
	const struct cli_group groups[] = {
		{ .title = "Sites", .options = site_options, .ctx = &a.sites },
		{ .title = "Replay, as fnblk-replay takes it",
		  .options = replay_options, .ctx = &a.r },
		{ .title = "Every site's device (a --site may override)",
		  .options = sim_device_cli_options, .ctx = &o },
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
	struct replay_kpi emulated;
	/* Strings from the --compare file: sites, then locality pairs. */
	static char *owned[3 * REPLAY_MAX_SITES];
	struct replay_locality loc;
	const char **names = NULL;
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
	replay_kpi_init(&emulated);
	replay_locality_init(&loc);
	replay_cli_init(&a.r);
	if (sim_options_init(&o))
		return cli_error(&prog, "out of memory");
	ret = cli_parse(&prog, argc, argv, &first);
	if (ret == CLI_CONTINUE && a.compare_path &&
	    load_emulated(&a, owned, &emulated, err, sizeof(err)))
		ret = cli_error(&prog, "%s", err);
	if (ret == CLI_CONTINUE && first == argc)
		ret = cli_usage_error(&prog, "no RECORDS file");
	if (ret == CLI_CONTINUE && argc - first > 1)
		ret = cli_usage_error(&prog, "unexpected operand '%s'", argv[first + 1]);
	if (ret == CLI_CONTINUE && !a.sites.nr)
		ret = cli_usage_error(&prog, "no --site");
	if (ret == CLI_CONTINUE) {
		const char *why;

		if (replay_cli_finish(&a.r, &why))
			ret = cli_usage_error(&prog, "%s", why);
	}
	if (ret == CLI_CONTINUE &&
	    replay_sites_parse(&a.sites, &o, &sites, err, sizeof(err)))
		ret = cli_usage_error(&prog, "%s", err);
	if (ret == CLI_CONTINUE) {
		names = calloc(a.sites.nr, sizeof(*names));
		for (i = 0; names && i < a.sites.nr; i++)
			names[i] = sites[i].name;
		if (!names)
			ret = cli_error(&prog, "out of memory");
	}
	if (ret == CLI_CONTINUE &&
	    replay_cli_locality(&a.r, names, a.sites.nr, &loc, err, sizeof(err)))
		ret = cli_usage_error(&prog, "--locality: %s", err);
	for (i = 0; ret == CLI_CONTINUE && !a.r.locality_path && i < a.nr_loc; i++)
		if (replay_locality_add(&loc, a.loc_category[i], a.loc_sites[i],
					names, a.sites.nr, err, sizeof(err)))
			ret = cli_error(&prog, "%s: locality: %s", a.compare_path, err);
	if (ret != CLI_CONTINUE)
		goto out;
	ret = CLI_EXIT_FAILURE;
	if (jobrecs_read_file(argv[first], &t, err, sizeof(err))) {
		cli_error(&prog, "%s", err);
		goto out;
	}
	if (make_params(&a, sites, names, &loc, &params)) {
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
		.rc = &a.r.rc, .sites = sites, .nr_sites = a.sites.nr,
		.assign = (enum replay_assign)a.r.assign, .bs = a.r.bs,
		.qd = a.r.qd, .locality = &loc,
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
	if (a.compare_path)
		print_compare(events_on_stdout ? stderr : stdout, a.json,
			      &emulated, &ro.kpi);
	else
		print_kpi(events_on_stdout ? stderr : stdout, &a, &ro, &st, wall);
	ret = CLI_EXIT_OK;
out:
	for (i = 0; i < 3 * REPLAY_MAX_SITES; i++) {
		free(owned[i]);
		owned[i] = NULL;
	}
	replay_locality_free(&loc);
	free(names);
	replay_kpi_free(&emulated);
	if (ro.events && ro.events != stdout)
		fclose(ro.events);
	free(sites);
	replay_kpi_free(&ro.kpi);
	fnblk_events_free(&params);
	jobrecs_free(&t);
	sim_options_free(&o);
	return ret;
}
