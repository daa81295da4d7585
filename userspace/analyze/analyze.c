// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-analyze: the storm analysis of a fleet's checkpoint writes, from
 * fnblk-fleet or fnblk-sim event files (CSV or JSON lines).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/events.h"
#include "../lib/units.h"
#include "module/fnblk_sched.h"
#include "report.h"
#include "../lib/diag.h"

#define PROG "fnblk-analyze"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [OPTIONS] EVENTS\n"
"Analyse checkpoint writes (fnblk-fleet / fnblk-sim events, CSV or JSON lines;\n"
"'-' reads stdin): concurrent writers against independent phases, firing\n"
"order, phase-gap return maps, Kuramoto r, start-interval ratios, slowdown.\n"
"\n"
"  --json               print the analysis as JSON instead of tables\n"
"  --plot DIR           PNG figures (and their data and gnuplot script) in DIR\n"
"  --skip-cycles K      leave out each job's cycles 0..K-1 (start-up)\n"
"  --jobs N             number of jobs (default: param jobs, else largest+1)\n"
"  --solo-time DUR      a write's time alone, for every job (default: the\n"
"                       file's solo_ns.J params)\n"
"  --fn SPEC            the device's f(n) for the expected interval ratios\n"
"                       (default: the file's fn param, else constant)\n"
"  -h, --help\n");
}

enum { OPT_JSON = 0x100, OPT_PLOT, OPT_SKIP, OPT_JOBS, OPT_SOLO, OPT_FN };

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "skip-cycles", required_argument, NULL, OPT_SKIP },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "solo-time", required_argument, NULL, OPT_SOLO },
	{ "fn", required_argument, NULL, OPT_FN },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static unsigned int count_jobs(const struct fnblk_events *e)
{
	const char *p = fnblk_events_param(e, "jobs");
	unsigned int max = 0;
	size_t i;
	uint64_t v;
	const char *why;

	if (p && !fnblk_parse_uint(p, 1, 1000000, &v, &why))
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
		fprintf(stderr, PROG ": fn %s: %s\n", spec, why ? why : "invalid");
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
	const char *plot_dir = NULL, *why, *fn_spec = NULL;
	uint64_t skip = 0, jobs_opt = 0, solo_time = 0;
	struct fnblk_events ev;
	struct report rep;
	char err[512];
	unsigned int jobs;
	double *solo, *f;
	int c, json = 0, ret = 0;

	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = 1;
			break;
		case OPT_PLOT:
			plot_dir = optarg;
			break;
		case OPT_SKIP:
			if (fnblk_parse_uint(optarg, 0, UINT32_MAX, &skip, &why))
				return fnblk_usage_error(PROG, "skip-cycles: %s", why);
			break;
		case OPT_JOBS:
			if (fnblk_parse_uint(optarg, 1, 1000000, &jobs_opt, &why))
				return fnblk_usage_error(PROG, "jobs: %s", why);
			break;
		case OPT_SOLO:
			if (fnblk_parse_duration(optarg, &solo_time, &why))
				return fnblk_usage_error(PROG, "solo-time: %s", why);
			break;
		case OPT_FN:
			fn_spec = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return fnblk_usage_error(PROG, "unknown option");
		}
	}
	if (optind + 1 != argc)
		return fnblk_usage_error(PROG, "expected one EVENTS file");
	fnblk_events_init(&ev);
	if (fnblk_events_read_file(argv[optind], &ev, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	if (!ev.nr) {
		fprintf(stderr, PROG ": %s: no writes\n", argv[optind]);
		fnblk_events_free(&ev);
		return 1;
	}
	jobs = jobs_opt ? jobs_opt : count_jobs(&ev);
	solo = calloc(jobs, sizeof(*solo));
	f = calloc(jobs + 1, sizeof(*f));
	if (!fn_spec)
		fn_spec = fnblk_events_param(&ev, "fn");
	if (!solo || !f) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	solo_times(&ev, jobs, solo_time, solo);
	if (fn_spec && fn_values(fn_spec, jobs, f)) {
		ret = fn_spec == fnblk_events_param(&ev, "fn") ? 1 : 2;
		memset(&rep, 0, sizeof(rep));
		goto out;
	}
	if (report_compute(&rep, &ev, argv[optind], jobs, skip, solo,
			   fn_spec ? f : NULL)) {
		fprintf(stderr, PROG ": %s: analysis failed (out of memory, or no write in range)\n",
			argv[optind]);
		ret = 1;
		goto out;
	}
	rep.fn = fn_spec;
	if (json) {
		if (report_print_json(stdout, &rep)) {
			fprintf(stderr, PROG ": writing JSON failed\n");
			ret = 1;
		}
	} else {
		report_print_table(stdout, &rep);
	}
	if (plot_dir && report_plot(&rep, plot_dir))
		ret = 1;
out:
	report_free(&rep);
	free(solo);
	free(f);
	fnblk_events_free(&ev);
	return ret;
}
