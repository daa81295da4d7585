// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-sim sweep: rank replay policies (where jobs run, how they read
 * their input) by a figure of the replay, over many seeds, with confidence
 * intervals; then say how to check the best and the worst in emulation
 * (Documentation/replay.rst).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cli.h"
#include "commands.h"
#include "diag.h"
#include "replay_cli.h"
#include "replay_engine.h"
#include "replay_kpi.h"
#include "replay_locality.h"
#include "replay_sites.h"
#include "units.h"

struct sweep_args {
	struct replay_cli r;
	struct replay_site_specs sites;
	unsigned int seeds;
	const char *by;
	const char *assigns;
	const char *stageins;
	bool json;
};

struct policy {
	unsigned int assign, stagein;
	bool usable;
	char why[512];		/* when not usable */
	double *v;		/* the figure for each seed */
	double mean, sd, lo, hi;
};

static const char *const sweep_usage[] = {
	"[OPTIONS] --site NAME[,KEY=VALUE]... RECORDS.csv", NULL
};

static const char sweep_about[] =
	"Replay job records at simulated sites under every combination of "
	"the policies asked for (--assigns, --stageins), each with --seeds "
	"seeds from --seed on (seeds change random assignment and failure "
	"draws), and rank the combinations by the mean of one figure of all "
	"jobs (--by, lower is better), with a 95% confidence interval of "
	"that mean (Student's t over the seeds). The best and the worst "
	"are printed as fnblk-replay options, to check in emulation that the "
	"ranking holds.";

/* Student's t quantile t(0.975, df), for the interval of a mean. */
static double t975(unsigned int df)
{
	static const double t[] = {
		0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
		2.052, 2.048, 2.045, 2.042,
	};

	if (df < sizeof(t) / sizeof(*t))
		return t[df];
	return df < 60 ? 2.00 : df < 120 ? 1.98 : 1.96;
}

/* Indexes of the names in list (comma-separated) into mask; -1 if unknown. */
static int name_mask(const char *list, const char *const *names,
		     unsigned int nr, unsigned int *mask, char *err,
		     size_t errlen)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned int i;
	int ret = 0;

	if (!copy)
		return fnblk_seterr(err, errlen, "out of memory");
	*mask = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < nr; i++)
			if (!strcmp(tok, names[i]))
				break;
		if (i == nr) {
			ret = fnblk_seterr(err, errlen, "'%s' is not one of them", tok);
			break;
		}
		*mask |= 1U << i;
	}
	if (!ret && !*mask)
		ret = fnblk_seterr(err, errlen, "an empty list");
	free(copy);
	return ret;
}

static int add_kpi(void *ctx, const struct replay_result *r)
{
	return replay_kpi_add(ctx, r);
}

/* The figure of all jobs for one policy and seed; 0, or -1 with err. */
static int one_run(const struct sweep_args *a, const struct replay_site *sites,
		   const struct replay_locality *loc, struct jobrecs *t,
		   const struct policy *p, uint64_t seed, int figure, double *v,
		   char *err, size_t errlen)
{
	struct replay_config rc = a->r.rc;
	struct replay_kpi kpi;
	struct replay_sim_sink sink = { .ctx = &kpi, .result = add_kpi };
	struct replay_sim_stats st;
	struct replay_figures f;
	struct replay_sim sim = {
		.rc = &rc, .sites = sites, .nr_sites = a->sites.nr,
		.assign = (enum replay_assign)p->assign, .bs = a->r.bs,
		.qd = a->r.qd, .locality = loc,
	};
	int ret;

	rc.seed = seed;
	rc.stagein = (enum replay_stagein_policy)p->stagein;
	replay_kpi_init(&kpi);
	ret = replay_sim_run(&sim, t, &sink, &st, err, errlen);
	if (!ret) {
		replay_kpi_figures(&kpi, &kpi.all, &f);
		*v = replay_figure(&f, (unsigned int)figure);
	}
	replay_kpi_free(&kpi);
	return ret;
}

static void summarise(struct policy *p, unsigned int k)
{
	double s = 0, ss = 0, h;
	unsigned int i;

	for (i = 0; i < k; i++)
		s += p->v[i];
	p->mean = s / k;
	for (i = 0; i < k; i++)
		ss += (p->v[i] - p->mean) * (p->v[i] - p->mean);
	p->sd = k > 1 ? sqrt(ss / (k - 1)) : 0;
	h = k > 1 ? t975(k - 1) * p->sd / sqrt(k) : 0;
	p->lo = p->mean - h;
	p->hi = p->mean + h;
}

static int by_mean(const void *pa, const void *pb)
{
	const struct policy *a = pa, *b = pb;

	if (a->usable != b->usable)
		return a->usable ? -1 : 1;
	if (a->mean != b->mean)
		return a->mean < b->mean ? -1 : 1;
	return 0;
}

static void print_text(const struct sweep_args *a, struct policy *p,
		       unsigned int nr)
{
	unsigned int i, usable = 0;

	printf("%-4s %-13s %-9s %14s %14s %14s %12s\n", "rank", "assign",
	       "stagein", a->by, "ci95_low", "ci95_high", "sd");
	for (i = 0; i < nr; i++) {
		if (!p[i].usable) {
			printf("%-4s %-13s %-9s %s\n", "-",
			       replay_assign_names[p[i].assign],
			       replay_stagein_names[p[i].stagein], p[i].why);
			continue;
		}
		usable++;
		printf("%-4u %-13s %-9s %14.6f %14.6f %14.6f %12.6f\n", usable,
		       replay_assign_names[p[i].assign],
		       replay_stagein_names[p[i].stagein], p[i].mean, p[i].lo,
		       p[i].hi, p[i].sd);
	}
	if (usable < 2)
		return;
	printf("\nbest:  fnblk-replay --assign %s --stagein %s ...\n",
	       replay_assign_names[p[0].assign], replay_stagein_names[p[0].stagein]);
	printf("worst: fnblk-replay --assign %s --stagein %s ...\n",
	       replay_assign_names[p[usable - 1].assign],
	       replay_stagein_names[p[usable - 1].stagein]);
	printf("the best is %s the second (95%% intervals %s)\n",
	       p[0].hi < p[1].lo ? "ahead of" : "not separated from",
	       p[0].hi < p[1].lo ? "apart" : "overlap");
}

static void print_json(const struct sweep_args *a, struct policy *p,
		       unsigned int nr)
{
	json_t *arr = json_array(), *o;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (p[i].usable)
			o = json_pack("{ss ss sf sf sf sf}",
				      "assign", replay_assign_names[p[i].assign],
				      "stagein", replay_stagein_names[p[i].stagein],
				      "mean", p[i].mean, "ci95_low", p[i].lo,
				      "ci95_high", p[i].hi, "sd", p[i].sd);
		else
			o = json_pack("{ss ss ss}",
				      "assign", replay_assign_names[p[i].assign],
				      "stagein", replay_stagein_names[p[i].stagein],
				      "unusable", p[i].why);
		json_array_append_new(arr, o);
	}
	o = json_pack("{ss sI so}", "by", a->by, "seeds", (json_int_t)a->seeds,
		      "policies", arr);
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
	putchar('\n');
	json_decref(o);
}

int cmd_sweep(int argc, char **argv)
{
	static struct sweep_args a;
	static struct sim_options o;
	const struct cli_option site_options[] = {
		REPLAY_SITE_OPTION,
		{ .name = NULL },
	};
	const struct cli_option sweep_options[] = {
		{ .name = "seeds", .arg = "N", .type = CLI_UINT, .var = &a.seeds,
		  .min = 1, .max = 100000,
		  .help = "runs of each policy, seeds --seed, --seed + 1, ..." },
		{ .name = "by", .arg = "FIGURE", .type = CLI_STRING, .var = &a.by,
		  .help = "the figure of all jobs to rank by: queue_mean_s, "
			  "queue_p95_s, wall_mean_s, error_rate, ... (as "
			  "fnblk-sim replay -j names them)" },
		{ .name = "assigns", .arg = "LIST", .type = CLI_STRING,
		  .var = &a.assigns,
		  .dflt = "all (data-local only with --locality)",
		  .help = "assignment policies to try: recorded, random, "
			  "least-loaded, data-local" },
		{ .name = "stageins", .arg = "LIST", .type = CLI_STRING,
		  .var = &a.stageins,
		  .help = "stage-in modes to try: recorded, direct, copy" },
		{ .name = NULL },
	};
	const struct cli_option replay_options[] = {
		REPLAY_CLI_OPTIONS(&a.r),
		{ .name = NULL },
	};
	const struct cli_group groups[] = {
		{ .title = "Sites", .options = site_options, .ctx = &a.sites },
		{ .title = "Sweep", .options = sweep_options },
		{ .title = "Replay (--assign and --stagein are swept)",
		  .options = replay_options, .ctx = &a.r },
		{ .title = "Every site's device (a --site may override)",
		  .options = sim_device_cli_options, .ctx = &o },
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblk-sim sweep", .usage = sweep_usage,
		.about = sweep_about, .groups = groups, .json = &a.json,
		.json_help = "print the ranking as JSON",
	};
	unsigned int amask, smask, i, k, nr = 0;
	struct replay_site *sites = NULL;
	struct replay_locality loc;
	const char **names = NULL;
	struct policy *p = NULL;
	struct jobrecs t;
	char err[512];
	const char *why;
	int ret, first = 0, figure = -1;

	jobrecs_init(&t);
	replay_locality_init(&loc);
	replay_cli_init(&a.r);
	a.seeds = 20;
	a.by = "queue_mean_s";
	a.assigns = NULL;
	a.stageins = "recorded,direct,copy";
	if (sim_options_init(&o))
		return cli_error(&prog, "out of memory");
	ret = cli_parse(&prog, argc, argv, &first);
	if (ret == CLI_CONTINUE && first == argc)
		ret = cli_usage_error(&prog, "no RECORDS file");
	if (ret == CLI_CONTINUE && argc - first > 1)
		ret = cli_usage_error(&prog, "unexpected operand '%s'", argv[first + 1]);
	if (ret == CLI_CONTINUE && !a.sites.nr)
		ret = cli_usage_error(&prog, "no --site");
	if (ret == CLI_CONTINUE && replay_cli_finish(&a.r, &why))
		ret = cli_usage_error(&prog, "%s", why);
	if (ret == CLI_CONTINUE) {
		figure = replay_figure_index(a.by);
		if (figure < 0)
			ret = cli_usage_error(&prog, "--by %s: not a figure (queue_mean_s, wall_mean_s, error_rate, ...)",
					      a.by);
	}
	/* data-local without a map is least-loaded: tried only with one. */
	if (!a.assigns)
		a.assigns = a.r.locality_path ? "recorded,random,least-loaded,data-local" :
			    "recorded,random,least-loaded";
	if (ret == CLI_CONTINUE &&
	    name_mask(a.assigns, replay_assign_names, REPLAY_NR_ASSIGN, &amask,
		      err, sizeof(err)))
		ret = cli_usage_error(&prog, "--assigns: %s", err);
	if (ret == CLI_CONTINUE &&
	    name_mask(a.stageins, replay_stagein_names, REPLAY_STAGEIN_COPY + 1,
		      &smask, err, sizeof(err)))
		ret = cli_usage_error(&prog, "--stageins: %s", err);
	if (ret == CLI_CONTINUE &&
	    replay_sites_parse(&a.sites, &o, &sites, err, sizeof(err)))
		ret = cli_usage_error(&prog, "%s", err);
	if (ret == CLI_CONTINUE) {
		names = calloc(a.sites.nr, sizeof(*names));
		for (i = 0; names && i < a.sites.nr; i++)
			names[i] = sites[i].name;
		if (!names)
			ret = cli_error(&prog, "out of memory");
		else if (replay_cli_locality(&a.r, names, a.sites.nr, &loc, err,
					     sizeof(err)))
			ret = cli_usage_error(&prog, "--locality: %s", err);
	}
	if (ret != CLI_CONTINUE)
		goto out;
	ret = CLI_EXIT_FAILURE;
	if (jobrecs_read_file(argv[first], &t, err, sizeof(err))) {
		cli_error(&prog, "%s", err);
		goto out;
	}
	p = calloc(REPLAY_NR_ASSIGN * (REPLAY_STAGEIN_COPY + 1), sizeof(*p));
	if (!p) {
		cli_error(&prog, "out of memory");
		goto out;
	}
	for (i = 0; i < REPLAY_NR_ASSIGN; i++) {
		unsigned int m;

		for (m = 0; m <= REPLAY_STAGEIN_COPY; m++) {
			if (!(amask & 1U << i) || !(smask & 1U << m))
				continue;
			p[nr].assign = i;
			p[nr].stagein = m;
			p[nr].usable = true;
			p[nr].v = calloc(a.seeds, sizeof(double));
			if (!p[nr].v) {
				cli_error(&prog, "out of memory");
				goto out;
			}
			nr++;
		}
	}
	for (i = 0; i < nr; i++) {
		for (k = 0; k < a.seeds && p[i].usable; k++) {
			if (one_run(&a, sites, &loc, &t, &p[i], a.r.rc.seed + k, figure,
				    &p[i].v[k], err, sizeof(err))) {
				/* A policy the records cannot follow is reported, not fatal. */
				p[i].usable = false;
				snprintf(p[i].why, sizeof(p[i].why), "%s", err);
			}
		}
		if (p[i].usable)
			summarise(&p[i], a.seeds);
	}
	qsort(p, nr, sizeof(*p), by_mean);
	if (a.json)
		print_json(&a, p, nr);
	else
		print_text(&a, p, nr);
	ret = CLI_EXIT_OK;
out:
	for (i = 0; p && i < nr; i++)
		free(p[i].v);
	free(p);
	free(sites);
	free(names);
	replay_locality_free(&loc);
	jobrecs_free(&t);
	sim_options_free(&o);
	return ret;
}
