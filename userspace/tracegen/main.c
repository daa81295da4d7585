// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-tracegen: learn a generative model of job streams from job
 * records, write synthetic traces of any length, and report how close a
 * synthetic trace is to real records it was not trained on
 * (Documentation/tracegen.rst).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "rankstats.h"
#include "replay_cli.h"
#include "replay_engine.h"
#include "replay_kpi.h"
#include "tracemodel.h"
#include "units.h"

#define MAX_SITES	256

static FILE *open_out(const struct cli_program *p, const char *path)
{
	FILE *f;

	if (!path || !strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f)
		cli_error(p, "%s: %s", path, strerror(errno));
	return f;
}

static int close_out(const struct cli_program *p, FILE *f, const char *path)
{
	if (f == stdout ? fflush(f) : fclose(f))
		return cli_error(p, "writing %s failed", path ? path : "standard output");
	return CLI_EXIT_OK;
}

/* One operand, the records; 0 with them read, or the exit status. */
static int read_records(const struct cli_program *p, int argc, char **argv,
			int first, int want, struct jobrecs *t)
{
	char err[512];

	if (argc - first != want)
		return cli_usage_error(p, argc - first < want ? "a file is missing" :
				       "unexpected operand '%s'", argv[first + want]);
	if (jobrecs_read_file(argv[first], t, err, sizeof(err)))
		return cli_error(p, "%s", err);
	return 0;
}

/* ---- split ---- */

static int cmd_split(int argc, char **argv)
{
	static const char *train_path, *test_path;
	static const char *const usage[] = { "--train FILE --test FILE RECORDS.csv", NULL };
	const struct cli_option opts[] = {
		{ .name = "train", .arg = "FILE", .type = CLI_STRING, .var = &train_path,
		  .help = "the earlier half of the records (by creation time)" },
		{ .name = "test", .arg = "FILE", .type = CLI_STRING, .var = &test_path,
		  .help = "the later half" },
		{ .name = NULL },
	};
	const struct cli_group groups[] = {
		{ .title = "Options", .options = opts }, { .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblk-tracegen split", .usage = usage, .groups = groups,
		.about = "Split records in two by creation time, the first half "
			 "to train a model on and the second to test it against: "
			 "a model must predict a stream it has not seen.",
	};
	struct jobrecs t, half;
	FILE *f;
	int ret, first = 0;

	jobrecs_init(&t);
	ret = cli_parse(&prog, argc, argv, &first);
	if (ret != CLI_CONTINUE)
		return ret;
	if (!train_path || !test_path)
		return cli_usage_error(&prog, "--train and --test are both needed");
	ret = read_records(&prog, argc, argv, first, 1, &t);
	if (ret)
		goto out;
	jobrecs_sort(&t);
	half = t;
	half.nr = t.nr / 2;
	f = open_out(&prog, train_path);
	ret = !f || jobrecs_write_csv(f, &half) ? CLI_EXIT_FAILURE :
	      close_out(&prog, f, train_path);
	if (ret)
		goto out;
	half.r = t.r + t.nr / 2;
	half.nr = t.nr - t.nr / 2;
	f = open_out(&prog, test_path);
	ret = !f || jobrecs_write_csv(f, &half) ? CLI_EXIT_FAILURE :
	      close_out(&prog, f, test_path);
out:
	jobrecs_free(&t);
	return ret;
}

/* ---- fit ---- */

static int cmd_fit(int argc, char **argv)
{
	static const char *out_path;
	static uint64_t window_ns = 60000000000ULL;
	static const char *const usage[] = { "[-o MODEL.json] [--batch-window DUR] RECORDS.csv", NULL };
	const struct cli_option opts[] = {
		{ .name = "output", .key = 'o', .arg = "FILE", .type = CLI_STRING,
		  .var = &out_path, .dflt = "standard output",
		  .help = "where the model goes (JSON)" },
		{ .name = "batch-window", .arg = "DUR", .type = CLI_DURATION,
		  .var = &window_ns,
		  .help = "records created within DUR of the previous one arrive "
			  "in its batch" },
		{ .name = NULL },
	};
	const struct cli_group groups[] = {
		{ .title = "Options", .options = opts }, { .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblk-tracegen fit", .usage = usage, .groups = groups,
		.about = "Learn a model of the job stream of RECORDS.csv: batch "
			 "arrivals by hour of day, batch sizes, categories, and "
			 "each category's jobs for a smoothed bootstrap of their "
			 "features (Documentation/tracegen.rst).",
	};
	struct trace_model m;
	struct jobrecs t;
	char err[512];
	json_t *j;
	FILE *f;
	int ret, first = 0;

	jobrecs_init(&t);
	trace_model_init(&m);
	ret = cli_parse(&prog, argc, argv, &first);
	if (ret != CLI_CONTINUE)
		return ret;
	ret = read_records(&prog, argc, argv, first, 1, &t);
	if (ret)
		goto out;
	if (trace_model_fit(&m, &t, window_ns / 1e9, err, sizeof(err))) {
		ret = cli_error(&prog, "%s", err);
		goto out;
	}
	j = trace_model_to_json(&m);
	f = open_out(&prog, out_path);
	ret = !f || !j || json_dumpf(j, f, JSON_INDENT(1) | JSON_REAL_PRECISION(12)) ?
	      CLI_EXIT_FAILURE : (fputc('\n', f), close_out(&prog, f, out_path));
	json_decref(j);
out:
	trace_model_free(&m);
	jobrecs_free(&t);
	return ret;
}

/* ---- generate ---- */

static int load_model(const struct cli_program *p, const char *path,
		      struct trace_model *m)
{
	json_error_t je;
	char err[512];
	json_t *j = json_load_file(path, 0, &je);
	int ret = 0;

	if (!j)
		return cli_error(p, "%s:%d: %s", path, je.line, je.text);
	if (trace_model_from_json(m, j, err, sizeof(err)))
		ret = cli_error(p, "%s: %s", path, err);
	json_decref(j);
	return ret;
}

static int set_scale(void *ctx, const struct cli_option *o, const char *arg,
		     char *err, size_t errlen)
{
	const char *why;

	(void)o;
	if (fnblk_parse_real(arg, false, ctx, &why))
		return fnblk_seterr(err, errlen, "%s", why);
	if (!(*(double *)ctx > 0) || *(double *)ctx > 1e6)
		return fnblk_seterr(err, errlen, "above 0, at most 1000000");
	return 0;
}

static const char *show_scale(void *ctx, const struct cli_option *o,
			      char *buf, size_t len)
{
	(void)o;
	snprintf(buf, len, "%g", *(double *)ctx);
	return buf;
}

static int cmd_generate(int argc, char **argv)
{
	static const char *out_path;
	static uint64_t jobs = 1000, seed = 1;
	static unsigned int sites = 1;
	static double scale = 1;
	static const char *const usage[] = {
		"[--jobs N] [--sites N] [--scale X] [--seed N] [-o TRACE.csv] MODEL.json", NULL
	};
	const struct cli_option opts[] = {
		{ .name = "jobs", .arg = "N", .type = CLI_U64, .var = &jobs,
		  .min = 1, .max = 100000000, .help = "jobs to write" },
		{ .name = "sites", .arg = "N", .type = CLI_UINT, .var = &sites,
		  .min = 1, .max = 100000,
		  .help = "jobs are spread uniformly over sites S0..S(N-1)" },
		{ .name = "scale", .arg = "X", .type = CLI_CALL, .set = set_scale,
		  .show = show_scale,
		  .help = "the arrival rate times X (more load for X > 1)" },
		{ .name = "seed", .arg = "N", .type = CLI_U64, .var = &seed,
		  .help = "the same seed writes the same trace" },
		{ .name = "output", .key = 'o', .arg = "FILE", .type = CLI_STRING,
		  .var = &out_path, .dflt = "standard output",
		  .help = "the trace, in the job-record format" },
		{ .name = NULL },
	};
	const struct cli_group groups[] = {
		{ .title = "Options", .options = opts, .ctx = &scale },
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblk-tracegen generate", .usage = usage, .groups = groups,
		.about = "Write a synthetic trace drawn from a model (fnblk-tracegen "
			 "fit), as job records that fnblk-replay and fnblk-sim "
			 "replay read. Arrivals start at 2025-01-01 00:00:00 UTC.",
	};
	struct trace_model m;
	struct jobrecs t;
	char err[512];
	FILE *f;
	int ret, first = 0;

	jobrecs_init(&t);
	trace_model_init(&m);
	ret = cli_parse(&prog, argc, argv, &first);
	if (ret != CLI_CONTINUE)
		return ret;
	if (argc - first != 1)
		return cli_usage_error(&prog, argc == first ? "no MODEL file" :
				       "unexpected operand '%s'", argv[first + 1]);
	ret = load_model(&prog, argv[first], &m);
	if (ret)
		goto out;
	if (trace_model_generate(&m, jobs, sites, scale, 1735689600, seed, &t,
				 err, sizeof(err))) {
		ret = cli_error(&prog, "%s", err);
		goto out;
	}
	f = open_out(&prog, out_path);
	ret = !f || jobrecs_write_csv(f, &t) ? CLI_EXIT_FAILURE :
	      close_out(&prog, f, out_path);
out:
	trace_model_free(&m);
	jobrecs_free(&t);
	return ret;
}

/* ---- fidelity ---- */

enum marginal { M_CPU, M_IN, M_OUT, M_IN_FILES, M_CORES, M_GAP, NR_MARGINALS };

static const char *const marginal_names[NR_MARGINALS] = {
	"cpu_s", "in_bytes", "out_bytes", "in_files", "cores", "interarrival_s",
};

static double value(const struct jobrecs *t, size_t i, int m)
{
	const struct jobrec *r = &t->r[i];

	switch (m) {
	case M_CPU: return r->cpu_s;
	case M_IN: return (double)r->in_bytes;
	case M_OUT: return (double)r->out_bytes;
	case M_IN_FILES: return r->in_files;
	case M_CORES: return r->cores;
	default: return (double)(t->r[i + 1].created_s - r->created_s);
	}
}

/* The values of marginal m (gaps: n - 1 of them); NULL when out of memory. */
static double *column(const struct jobrecs *t, int m, size_t *n)
{
	double *v;
	size_t i;

	*n = m == M_GAP ? (t->nr ? t->nr - 1 : 0) : t->nr;
	v = malloc((*n ? *n : 1) * sizeof(*v));
	for (i = 0; v && i < *n; i++)
		v[i] = value(t, i, m);
	return v;
}

struct burst {
	double cv, dispersion;
};

static struct burst burstiness(const struct jobrecs *t, double window_s)
{
	struct burst b = { NAN, NAN };
	size_t n, i;
	double *gaps = column(t, M_GAP, &n), *times = malloc((t->nr ? t->nr : 1) * sizeof(double));

	if (gaps && times) {
		for (i = 0; i < t->nr; i++)
			times[i] = (double)(t->r[i].created_s - t->r[0].created_s);
		b.cv = fnblk_cv(gaps, n);
		b.dispersion = fnblk_dispersion(times, t->nr, window_s);
	}
	free(gaps);
	free(times);
	return b;
}

static double pair_rho(const struct jobrecs *t, int a, int b)
{
	size_t n;
	double *x = column(t, a, &n), *y = column(t, b, &n), rho = NAN;

	if (x && y)
		rho = fnblk_spearman(x, y, n);
	free(x);
	free(y);
	return rho;
}

static int kpi_result(void *ctx, const struct replay_result *r)
{
	return replay_kpi_add(ctx, r);
}

/* Replay t at the sites; its figures of all jobs into f. */
static int replay_kpis(const struct replay_cli *rcli, const struct replay_site *sites,
		       unsigned int nr, struct jobrecs *t, struct replay_figures *f,
		       char *err, size_t errlen)
{
	struct replay_kpi k;
	struct replay_sim_sink sink = { .ctx = &k, .result = kpi_result };
	struct replay_sim_stats st;
	struct replay_sim sim = {
		.rc = &rcli->rc, .sites = sites, .nr_sites = nr,
		.assign = (enum replay_assign)rcli->assign, .bs = rcli->bs,
		.qd = rcli->qd,
	};
	int ret;

	replay_kpi_init(&k);
	ret = replay_sim_run(&sim, t, &sink, &st, err, errlen);
	if (!ret)
		replay_kpi_figures(&k, &k.all, f);
	replay_kpi_free(&k);
	return ret;
}

struct fidelity_args {
	struct replay_cli r;
	unsigned int sites, slots;
	uint64_t bw;
	uint64_t window_ns;
	bool json;
};

static int cmd_fidelity(int argc, char **argv)
{
	static struct fidelity_args a;
	static const char *const usage[] = {
		"[OPTIONS] REAL.csv SYNTHETIC.csv", NULL
	};
	const struct cli_option opts[] = {
		{ .name = "window", .arg = "DUR", .type = CLI_DURATION,
		  .var = &a.window_ns, .min = 1,
		  .help = "window of the index of dispersion of arrivals" },
		{ .name = "sites", .arg = "N", .type = CLI_UINT, .var = &a.sites,
		  .min = 0, .max = MAX_SITES,
		  .help = "replay both traces on N simulated sites S0.. (0: no "
			  "KPI comparison), jobs assigned least-loaded" },
		{ .name = "slots", .arg = "N", .type = CLI_UINT, .var = &a.slots,
		  .min = 1, .max = 100000, .help = "job slots per site" },
		{ .name = "bw", .arg = "RATE", .type = CLI_RATE, .var = &a.bw,
		  .help = "each site's bandwidth (f constant, no latency)" },
		{ .name = NULL },
	};
	const struct cli_option replay_options[] = {
		REPLAY_CLI_OPTIONS(&a.r),
		{ .name = NULL },
	};
	const struct cli_group groups[] = {
		{ .title = "Fidelity", .options = opts },
		{ .title = "Replay of both traces (as fnblk-sim replay)",
		  .options = replay_options, .ctx = &a.r },
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblk-tracegen fidelity", .usage = usage, .groups = groups,
		.json = &a.json, .json_help = "print the report as JSON",
		.about = "Compare a synthetic trace with real records it was not "
			 "trained on: the two-sample Kolmogorov-Smirnov distance "
			 "(and p-value) of each marginal, Spearman's rank "
			 "correlation of key pairs in each, the burstiness of "
			 "arrivals (CV of the gaps, index of dispersion), and "
			 "with --sites the KPIs of both replayed in the "
			 "simulator. The traces' time spans may differ: the "
			 "arrival figures are rates, not counts.",
	};
	static const int pairs[][2] = {
		{ M_IN, M_CPU }, { M_CORES, M_CPU }, { M_IN, M_OUT }, { M_IN_FILES, M_IN },
	};
	struct jobrecs real, syn;
	struct replay_site *sites = NULL;
	json_t *out = NULL, *marg, *rho, *burst, *kpis;
	struct burst br, bs;
	char err[512];
	int ret, first = 0, m;
	size_t i;

	jobrecs_init(&real);
	jobrecs_init(&syn);
	replay_cli_init(&a.r);
	a.r.assign = REPLAY_ASSIGN_LEAST_LOADED;
	a.sites = 0;
	a.slots = 8;
	a.bw = 64ULL << 20;
	a.window_ns = 3600ULL * 1000000000ULL;
	ret = cli_parse(&prog, argc, argv, &first);
	if (ret != CLI_CONTINUE)
		return ret;
	if (argc - first != 2)
		return cli_usage_error(&prog, "REAL.csv and SYNTHETIC.csv are needed");
	{
		const char *why;

		if (replay_cli_finish(&a.r, &why))
			return cli_usage_error(&prog, "%s", why);
	}
	ret = CLI_EXIT_FAILURE;
	if (jobrecs_read_file(argv[first], &real, err, sizeof(err)) ||
	    jobrecs_read_file(argv[first + 1], &syn, err, sizeof(err))) {
		cli_error(&prog, "%s", err);
		goto out;
	}
	if (real.nr < 3 || syn.nr < 3) {
		cli_error(&prog, "at least 3 records in each trace");
		goto out;
	}
	jobrecs_sort(&real);
	jobrecs_sort(&syn);
	out = json_object();
	marg = json_object();
	rho = json_object();
	if (!a.json)
		printf("%-16s %10s %10s %10s\n", "marginal", "ks", "p", "n");
	for (m = 0; m < NR_MARGINALS; m++) {
		size_t na, nb;
		double *x = column(&real, m, &na), *y = column(&syn, m, &nb), d, p = 1;

		if (!x || !y) {
			free(x);
			free(y);
			cli_error(&prog, "out of memory");
			goto out;
		}
		d = fnblk_ks2(x, na, y, nb, &p);
		json_object_set_new(marg, marginal_names[m],
				    json_pack("{sf sf}", "ks", d, "p", p));
		if (!a.json)
			printf("%-16s %10.4f %10.4f %5zu/%zu\n", marginal_names[m], d,
			       p, na, nb);
		free(x);
		free(y);
	}
	if (!a.json)
		printf("\n%-26s %10s %10s\n", "rank correlation", "real", "synthetic");
	for (i = 0; i < sizeof(pairs) / sizeof(*pairs); i++) {
		double r1 = pair_rho(&real, pairs[i][0], pairs[i][1]);
		double r2 = pair_rho(&syn, pairs[i][0], pairs[i][1]);
		char name[64];

		snprintf(name, sizeof(name), "%s~%s", marginal_names[pairs[i][0]],
			 marginal_names[pairs[i][1]]);
		json_object_set_new(rho, name, json_pack("{so so}",
				    "real", isnan(r1) ? json_null() : json_real(r1),
				    "synthetic", isnan(r2) ? json_null() : json_real(r2)));
		if (!a.json)
			printf("%-26s %10.3f %10.3f\n", name, r1, r2);
	}
	br = burstiness(&real, a.window_ns / 1e9);
	bs = burstiness(&syn, a.window_ns / 1e9);
	burst = json_pack("{s{sf sf} s{sf sf}}", "real", "cv", br.cv,
			  "dispersion", br.dispersion, "synthetic", "cv", bs.cv,
			  "dispersion", bs.dispersion);
	if (!a.json)
		printf("\n%-26s %10s %10s\n%-26s %10.3f %10.3f\n%-26s %10.3f %10.3f\n",
		       "arrivals", "real", "synthetic", "gap CV", br.cv, bs.cv,
		       "index of dispersion", br.dispersion, bs.dispersion);
	json_object_set_new(out, "marginals", marg);
	json_object_set_new(out, "rank_correlations", rho);
	json_object_set_new(out, "arrivals", burst);
	if (a.sites) {
		struct replay_figures fr, fs;
		unsigned int s;

		sites = calloc(a.sites, sizeof(*sites));
		if (!sites) {
			cli_error(&prog, "out of memory");
			goto out;
		}
		for (s = 0; s < a.sites; s++) {
			snprintf(sites[s].name, sizeof(sites[s].name), "S%u", s);
			fnblk_params_default(&sites[s].dev);
			sites[s].dev.bw = a.bw;
			sites[s].slots = a.slots;
		}
		if (replay_kpis(&a.r, sites, a.sites, &real, &fr, err, sizeof(err)) ||
		    replay_kpis(&a.r, sites, a.sites, &syn, &fs, err, sizeof(err))) {
			cli_error(&prog, "replay: %s", err);
			goto out;
		}
		kpis = json_object();
		if (!a.json)
			printf("\n%-20s %12s %12s %10s\n", "replayed", "real",
			       "synthetic", "difference");
		for (m = 0; m < REPLAY_NR_FIGURES; m++) {
			double x = replay_figure(&fr, (unsigned int)m);
			double y = replay_figure(&fs, (unsigned int)m);
			double d = x != 0 ? (y - x) / x : 0;

			json_object_set_new(kpis, replay_figure_names[m],
					    json_pack("{sf sf sf}", "real", x,
						      "synthetic", y, "rel_difference", d));
			if (!a.json)
				printf("%-20s %12.4f %12.4f %+9.1f%%\n",
				       replay_figure_names[m], x, y, 100 * d);
		}
		json_object_set_new(out, "kpis", kpis);
	}
	if (a.json) {
		json_dumpf(out, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
		putchar('\n');
	}
	ret = fflush(stdout) ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
out:
	json_decref(out);
	free(sites);
	jobrecs_free(&real);
	jobrecs_free(&syn);
	return ret;
}

/* ---- the program ---- */

static const struct cli_command commands[] = {
	{ .name = "split", .run = cmd_split,
	  .help = "split records by time into a training and a test half" },
	{ .name = "fit", .run = cmd_fit,
	  .help = "learn a model of a job stream from records" },
	{ .name = "generate", .run = cmd_generate,
	  .help = "write a synthetic trace from a model" },
	{ .name = "fidelity", .run = cmd_fidelity,
	  .help = "compare a synthetic trace with real records" },
	{ .name = NULL },
};

int main(int argc, char **argv)
{
	return cli_command_main("fnblk-tracegen",
				"Learn job streams from records, write synthetic traces, "
				"and measure how close they are to real ones. "
				"'fnblk-tracegen COMMAND --help' describes a command.",
				commands, argc, argv);
}
