// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-analyze: the storm analysis of a fleet's checkpoint writes, from
 * fnblk-fleet or fnblk-sim event files (CSV or JSON lines).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/cli.h"
#include "../lib/events.h"
#include "../lib/fleet.h"
#include "../lib/units.h"
#include "module/fnblk_sched.h"
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
	bool json;
} args;

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

static const struct cli_option analysis_options[] = {
	{ .name = "plot", .arg = "DIR", .type = CLI_STRING, .var = &args.plot_dir,
	  .help = "draw PNG figures (with their data and gnuplot script) in DIR" },
	{ .name = "skip-cycles", .arg = "K", .type = CLI_U64, .var = &args.skip,
	  .max = UINT32_MAX,
	  .help = "leave out each job's cycles 0..K-1 (start-up)" },
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

static const char *const usage[] = { "[OPTIONS] EVENTS", NULL };

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
		 "order parameter, start-interval ratios and write slowdown.",
	.groups = groups,
	.json = &args.json,
	.json_help = "print the analysis as JSON instead of tables",
};

static unsigned int count_jobs(const struct fnblk_events *e)
{
	const char *p = fnblk_events_param(e, "jobs");
	unsigned int max = 0;
	size_t i;
	uint64_t v;
	const char *why;

	if (p && !fnblk_parse_uint(p, 1, FLEET_JOBS_MAX, &v, &why))
		return v;
	for (i = 0; i < e->nr; i++)
		if (e->ev[i].job + 1 > max)
			max = e->ev[i].job + 1;
	return max;
}

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

int main(int argc, char **argv)
{
	const char *fn_spec, *path;
	struct fnblk_events ev;
	struct report rep;
	char err[512];
	unsigned int jobs;
	double *solo, *f;
	int first, ret;

	ret = cli_parse(&prog, argc, argv, &first);
	if (ret != CLI_CONTINUE)
		return ret;
	if (first + 1 != argc)
		return cli_usage_error(&prog, first == argc ? "no EVENTS file" :
				       "expected one EVENTS file, not %d",
				       argc - first);
	path = argv[first];
	ret = 0;
	fn_spec = args.fn_spec;
	fnblk_events_init(&ev);
	if (fnblk_events_read_file(path, &ev, err, sizeof(err))) {
		cli_error(&prog, "%s", err);
		return 1;
	}
	if (!ev.nr) {
		cli_error(&prog, "%s: no writes", path);
		fnblk_events_free(&ev);
		return 1;
	}
	jobs = args.jobs ? args.jobs : count_jobs(&ev);
	solo = calloc(jobs, sizeof(*solo));
	f = calloc(jobs + 1, sizeof(*f));
	if (!fn_spec)
		fn_spec = fnblk_events_param(&ev, "fn");
	if (!solo || !f) {
		cli_error(&prog, "out of memory");
		return 1;
	}
	solo_times(&ev, jobs, args.solo_time, solo);
	if (fn_spec && fn_values(fn_spec, jobs, f)) {
		ret = 1;
		memset(&rep, 0, sizeof(rep));
		goto out;
	}
	if (report_compute(&rep, &ev, path, jobs, args.skip, solo,
			   fn_spec ? f : NULL)) {
		cli_error(&prog, "%s: analysis failed (out of memory, or no write in range)",
			  path);
		ret = 1;
		goto out;
	}
	rep.fn = fn_spec;
	if (args.json) {
		if (report_print_json(stdout, &rep)) {
			cli_error(&prog, "writing JSON failed");
			ret = 1;
		}
	} else {
		report_print_table(stdout, &rep);
	}
	if (args.plot_dir && report_plot(&rep, args.plot_dir))
		ret = 1;
out:
	report_free(&rep);
	free(solo);
	free(f);
	fnblk_events_free(&ev);
	return ret;
}
