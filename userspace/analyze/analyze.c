// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-analyze: the storm analysis of a fleet's checkpoint writes, from
 * fnblk-fleet or fnblk-sim event files (CSV or JSON lines).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/cli.h"
#include "../lib/events.h"
#include "../lib/fleet.h"
#include "../lib/hosts.h"
#include "../lib/units.h"
#include "module/fnblk_sched.h"
#include "replay_analysis.h"
#include "report.h"
#include "../lib/diag.h"

#define PROG "fnblk-analyze"

/* What the command line says. */
static struct {
	const char *plot_dir;
	const char *fn_spec;
	uint64_t skip;
	uint64_t jobs;		/* 0: from the file */
	uint64_t solo_time;	/* 0: from the file */
	unsigned int pairs;	/* enum pair_set */
	unsigned int bootstrap;
	bool bootstrap_given;
	uint64_t seed;
	bool pool;
	bool hosts;
	const char *merged;
	bool json;
} args = { .pairs = PAIRS_AUTO, .bootstrap = REPORT_BOOTSTRAP, .seed = 1 };

/* --fn is checked at once, with the module's own parser. */
static int set_fn(void *ctx, const struct cli_option *o, const char *arg,
		  char *err, size_t errlen)
{
	static struct fnblk_fn fn;
	const char *why = NULL;

	(void)ctx;
	(void)o;
	if (fnblk_fn_parse(arg, &fn, &why))
		return fnblk_seterr(err, errlen, "%s", why ? why : "invalid f(n)");
	args.fn_spec = arg;
	return 0;
}

static const char *pairs_choice(unsigned int i)
{
	return i <= PAIRS_NONE ? pair_set_name(i) : NULL;
}

static const char *pairs_help(unsigned int i)
{
	static const char *const help[] = {
		[PAIRS_AUTO] = "all up to 64 jobs, neighbours beyond",
		[PAIRS_ALL] = "every pair: N(N-1)/2 return maps",
		[PAIRS_NEIGHBOURS] = "the N-1 pairs adjacent in the first cycle's firing order",
		[PAIRS_NONE] = "no return maps",
	};

	return i <= PAIRS_NONE ? help[i] : NULL;
}

/* --bootstrap: remembered as given, so it also applies above 256 jobs. */
static int set_bootstrap(void *ctx, const struct cli_option *o,
			 const char *arg, char *err, size_t errlen)
{
	const char *why;
	uint64_t v;

	(void)ctx;
	(void)o;
	if (fnblk_parse_uint(arg, 0, 1000000, &v, &why))
		return fnblk_seterr(err, errlen, "%s", why);
	args.bootstrap = v;
	args.bootstrap_given = true;
	return 0;
}

static const struct cli_option analysis_options[] = {
	{ .name = "plot", .arg = "DIR", .type = CLI_STRING, .var = &args.plot_dir,
	  .help = "draw PNG figures (with their data and gnuplot script) in DIR" },
	{ .name = "skip-cycles", .arg = "K", .type = CLI_U64, .var = &args.skip,
	  .max = UINT32_MAX,
	  .help = "leave out each job's cycles 0..K-1 (start-up) from every "
		  "figure: concurrency, duty cycles, baseline, write cost, "
		  "per-cycle structure, plots" },
	{ .name = "pairs", .arg = "SET", .type = CLI_CHOICE, .var = &args.pairs,
	  .choice = pairs_choice, .choice_help = pairs_help,
	  .help = "the pairs of jobs that get a phase-gap return map" },
	{ .name = "bootstrap", .arg = "N", .type = CLI_CALL, .set = set_bootstrap,
	  .dflt = "1000; above 256 jobs only when given",
	  .help = "resamples of the block bootstrap behind the tail ratios' "
		  "95% confidence intervals; 0 turns it off" },
	{ .name = "seed", .arg = "S", .type = CLI_U64, .var = &args.seed,
	  .help = "seed of the bootstrap's draws" },
	{ .name = "pool", .type = CLI_FLAG, .var = &args.pool,
	  .help = "regress the gap's step on the gap over the return maps of "
		  "every EVENTS file together, and print only that" },
	{ .name = "hosts", .type = CLI_FLAG, .var = &args.hosts,
	  .help = "the EVENTS files are the hosts of one run (scripts/cluster): "
		  "merge them, jobs numbered host by host and each file's times "
		  "moved by its clock_offset_ns param, analyse the whole, and "
		  "add how many hosts wrote at once and each host's writes" },
	{ .name = "merged", .arg = "FILE", .type = CLI_STRING, .var = &args.merged,
	  .help = "with --hosts: also write the merged events to FILE (CSV), "
		  "for fnblk-sim compare" },
	{ .name = "jobs", .arg = "N", .type = CLI_U64, .var = &args.jobs,
	  .min = 1, .max = FLEET_JOBS_MAX,
	  .dflt = "the file's jobs param, else the largest job + 1",
	  .help = "number of jobs" },
	{ .name = "solo-time", .arg = "DUR", .type = CLI_DURATION,
	  .var = &args.solo_time, .dflt = "the file's solo_ns.J params",
	  .help = "a write's time alone, for every job: the denominator of "
		  "the slowdown" },
	{ .name = "fn", .arg = "SPEC", .type = CLI_CALL, .set = set_fn,
	  .dflt = "the file's fn param, else constant",
	  .help = "the device's f(n), for the expected interval ratios" },
	{ .name = NULL },
};

static const char *const usage[] = {
	"[OPTIONS] EVENTS", "--hosts [OPTIONS] EVENTS...",
	"--pool [OPTIONS] EVENTS...", NULL,
};

static const struct cli_group groups[] = {
	{ .title = "Options", .options = analysis_options },
	{ .title = NULL },
};

static const struct cli_program prog = {
	.name = PROG,
	.usage = usage,
	.about = "Analyse the checkpoint writes of a fleet run (the events "
		 "fnblk-fleet or fnblk-sim wrote, CSV or JSON lines; '-' reads "
		 "standard input): concurrent writers against independent "
		 "phases, firing order, phase-gap return maps, the Kuramoto "
		 "order parameter, start-interval ratios and write slowdown.\n"
		 "\n"
		 "With --hosts: the files of one run's hosts, merged into one "
		 "fleet (Documentation/cluster.rst).\n"
		 "\n"
		 "With --pool: one regression of the phase gap's step on the "
		 "gap, with standard errors, pooled over the return maps of "
		 "every file.",
	.groups = groups,
	.json = &args.json,
	.json_help = "print the analysis as JSON instead of tables",
};

static void solo_times(const struct fnblk_events *e, unsigned int jobs,
		       uint64_t solo_time, double *solo)
{
	unsigned int j;

	for (j = 0; j < jobs; j++) {
		char name[32];
		const char *p, *why;
		uint64_t v;

		solo[j] = solo_time;
		if (solo_time)
			continue;
		snprintf(name, sizeof(name), "solo_ns.%u", j);
		p = fnblk_events_param(e, name);
		if (!p)
			p = fnblk_events_param(e, "solo_ns");
		if (p && !fnblk_parse_uint(p, 0, UINT64_MAX, &v, &why))
			solo[j] = v;
	}
}

/* f(0..jobs) as doubles, through the module's own f(n) parser. */
static int fn_values(const char *spec, unsigned int jobs, double *f)
{
	static struct fnblk_fn fn;
	const char *why = NULL;
	unsigned int n;

	if (fnblk_fn_parse(spec, &fn, &why)) {
		cli_error(&prog, "fn %s: %s", spec, why ? why : "invalid");
		return -1;
	}
	f[0] = 0;
	/* As struct fnblk_fn defines it: past the table the last value holds. */
	for (n = 1; n <= jobs; n++)
		f[n] = (double)fn.val[(n < fn.nr ? n : fn.nr) - 1] / FNBLK_FN_ONE;
	return 0;
}

/*
 * The number of jobs: --jobs, which must cover every write in the file
 * (reported, not dropped), or the file's own. 0, or 2 after a message.
 */
static int jobs_of(const char *path, const struct fnblk_events *ev,
		   uint64_t jobs_opt, unsigned int *jobs)
{
	char err[256];

	if (!jobs_opt) {
		*jobs = fnblk_events_jobs(ev, FLEET_JOBS_MAX);
		return 0;
	}
	if (fnblk_events_check_jobs(ev, jobs_opt, err, sizeof(err)))
		return cli_usage_error(&prog, "--jobs %" PRIu64 ": %s %s",
				       jobs_opt, path, err);
	*jobs = jobs_opt;
	return 0;
}

/* Read one event file; 0, or 1 after a message. */
static int read_events(const char *path, struct fnblk_events *ev)
{
	char err[512];

	fnblk_events_init(ev);
	if (fnblk_events_read_file(path, ev, err, sizeof(err))) {
		cli_error(&prog, "%s", err);
		fnblk_events_free(ev);
		return 1;
	}
	if (!ev->nr) {
		cli_error(&prog, "%s: no writes", path);
		fnblk_events_free(ev);
		return 1;
	}
	return 0;
}

/*
 * --pool: the regression of step on gap over the return maps of every
 * file (each with its own cycle table and pairs), as experiment 1 needs
 * it across runs at different gaps.
 */
static int pool_files(char **paths, int nr, const struct report_opts *o,
		      uint64_t jobs_opt, bool json)
{
	struct fnblk_linfit fit;
	struct fnblk_linfit_result res;
	json_t *files = json_array(), *root;
	int i, ret = 0;

	fnblk_linfit_init(&fit);
	for (i = 0; i < nr && !ret; i++) {
		struct fnblk_events ev;
		struct cycle_table t;
		struct pair_map *maps = NULL;
		size_t nr_maps = 0, before = fit.n;
		unsigned int jobs;

		if (read_events(paths[i], &ev))
			return 1;
		ret = jobs_of(paths[i], &ev, jobs_opt, &jobs);
		if (ret) {
			fnblk_events_free(&ev);
			break;
		}
		if (cycle_table_build(&ev, jobs, o->skip, &t)) {
			cli_error(&prog, "%s: no cycle completed by every job past --skip-cycles",
				  paths[i]);
			ret = 1;
		} else if (pair_maps_compute(&t, o->pairs, &maps, &nr_maps)) {
			cli_error(&prog, "%s: out of memory", paths[i]);
			ret = 1;
		} else {
			pair_maps_pool(maps, nr_maps, &fit);
			if (json)
				json_array_append_new(files, json_pack("{s:s, s:i, s:I}",
					"file", paths[i], "pairs", (int)nr_maps,
					"points", (json_int_t)(fit.n - before)));
			else
				printf("%s: %zu pairs, %zu points from cycle %u\n",
				       paths[i], nr_maps, fit.n - before, t.first);
			cycle_table_free(&t);
		}
		pair_maps_free(maps, nr_maps);
		fnblk_events_free(&ev);
	}
	if (!ret) {
		fnblk_linfit_solve(&fit, &res);
		if (json) {
			root = json_pack("{s:o, s:i, s:s, s:o}", "files", files,
					 "skip_cycles", o->skip,
					 "pairs", pair_set_name(o->pairs),
					 "pooled", report_json_pooled(&res));
			files = NULL;
			if (!root || json_dumpf(root, stdout, JSON_INDENT(2) |
						JSON_PRESERVE_ORDER))
				ret = 1;
			json_decref(root);
			putchar('\n');
		} else {
			report_print_pooled(stdout, &res);
		}
	}
	json_decref(files);
	return ret;
}

/*
 * --hosts: every file is one host of the run; merged into ev, the hosts
 * into h. 0, or 1 after a message.
 */
static int merge_hosts(char **paths, int nr, struct fnblk_events *ev,
		       struct fnblk_hosts *h)
{
	struct fnblk_events *in = calloc(nr, sizeof(*in));
	char err[512];
	int i, ret = 0;
	FILE *f;

	if (!in) {
		cli_error(&prog, "out of memory");
		return 1;
	}
	for (i = 0; i < nr && !ret; i++)
		ret = read_events(paths[i], &in[i]);
	fnblk_events_init(ev);
	if (!ret && fnblk_hosts_merge(ev, h, in, (const char *const *)paths, nr,
				      err, sizeof(err))) {
		cli_error(&prog, "--hosts: %s", err);
		ret = 1;
	}
	while (i-- > 0)
		fnblk_events_free(&in[i]);
	free(in);
	if (ret || !args.merged)
		return ret;
	f = fopen(args.merged, "w");
	if (!f || fnblk_events_write_csv(f, ev) || fclose(f)) {
		cli_error(&prog, "--merged %s: cannot write it", args.merged);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct report_opts opt = { 0 };
	const char *fn_spec, *path;
	struct fnblk_hosts hosts = { 0 };
	struct fnblk_events ev;
	struct report rep;
	unsigned int jobs;
	double *solo, *f;
	char err[512], name[4200];
	int first, ret;

	ret = cli_parse(&prog, argc, argv, &first);
	if (ret != CLI_CONTINUE)
		return ret;
	opt.skip = args.skip;
	opt.pairs = (enum pair_set)args.pairs;
	opt.bootstrap = args.bootstrap;
	opt.bootstrap_given = args.bootstrap_given;
	opt.seed = args.seed;
	if (args.pool) {
		if (first == argc)
			return cli_usage_error(&prog, "--pool: no EVENTS file");
		if (args.plot_dir)
			return cli_usage_error(&prog, "--plot does not apply to --pool");
		return pool_files(argv + first, argc - first, &opt, args.jobs,
				  args.json);
	}
	if (args.merged && !args.hosts)
		return cli_usage_error(&prog, "--merged needs --hosts");
	if (first == argc)
		return cli_usage_error(&prog, "no EVENTS file");
	if (first + 1 != argc && !args.hosts)
		return cli_usage_error(&prog, "expected one EVENTS file, not %d (several only with --hosts or --pool)",
				       argc - first);
	path = argv[first];
	/* A replay's events (fnblk-replay, fnblk-sim replay) have their own analysis. */
	if (!args.hosts && replay_is_events(path))
		return replay_analyze(path, args.plot_dir, args.json);
	ret = 0;
	fn_spec = args.fn_spec;
	if (args.hosts ? merge_hosts(argv + first, argc - first, &ev, &hosts) :
	    read_events(path, &ev))
		return 1;
	ret = jobs_of(path, &ev, args.jobs, &jobs);
	if (!ret && !args.hosts &&
	    fnblk_hosts_from_params(&ev, jobs, &hosts, err, sizeof(err))) {
		cli_error(&prog, "%s: %s", path, err);
		ret = 1;
	}
	if (ret) {
		fnblk_hosts_free(&hosts);
		fnblk_events_free(&ev);
		return ret;
	}
	if (hosts.nr)
		opt.hosts = &hosts;
	if (args.hosts) {
		snprintf(name, sizeof(name), "%s and %d more hosts", path,
			 argc - first - 1);
		path = name;
	}
	solo = calloc(jobs, sizeof(*solo));
	f = calloc(jobs + 1, sizeof(*f));
	if (!fn_spec)
		fn_spec = fnblk_events_param(&ev, "fn");
	if (!solo || !f) {
		cli_error(&prog, "out of memory");
		return 1;
	}
	solo_times(&ev, jobs, args.solo_time, solo);
	memset(&rep, 0, sizeof(rep));
	if (fn_spec && fn_values(fn_spec, jobs, f)) {
		ret = 1;
		goto out;
	}
	opt.solo_ns = solo;
	opt.f = fn_spec ? f : NULL;
	opt.fn = fn_spec;
	if (report_compute(&rep, &ev, path, jobs, &opt)) {
		cli_error(&prog, "%s: analysis failed (out of memory, or no write at or past --skip-cycles)",
			  path);
		ret = 1;
		goto out;
	}
	if (args.json) {
		if (report_print_json(stdout, &rep)) {
			cli_error(&prog, "writing JSON failed");
			ret = 1;
		}
	} else {
		report_print_table(stdout, &rep);
		if (opt.hosts && hosts_report_table(stdout, &ev, opt.hosts, opt.skip)) {
			cli_error(&prog, "out of memory");
			ret = 1;
		}
	}
	if (args.plot_dir && report_plot(&rep, args.plot_dir))
		ret = 1;
out:
	report_free(&rep);
	free(solo);
	free(f);
	fnblk_hosts_free(&hosts);
	fnblk_events_free(&ev);
	return ret;
}
