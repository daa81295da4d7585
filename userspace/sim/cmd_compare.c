// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-sim compare: re-simulate a kernel fleet run from its event file
 * and set the predicted key figures beside the measured ones.
 *
 * The file's "# param" lines give every parameter (options given on the
 * command line override them); each job's first write starts at the same
 * offset from the fleet's start as in the run; from then on the jobs follow
 * the fleet's schedule (same seed, same draws), or with --replay-compute
 * the compute times the run measured. Only checkpoints present in both
 * runs are compared.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cli.h"
#include "commands.h"
#include "coverage.h"
#include "kpi.h"
#include "units.h"

struct compare_args {
	const char *output;	/* the re-simulated events, if asked */
	bool replay_compute;	/* measured compute times, not the schedule */
	bool strict;		/* exit 1 if the run has what is not modelled */
	bool json;
	const char *path_from;	/* a one-host run: the path's capacity */
};

static const char *const compare_usage[] = { "[OPTIONS] EVENTS", NULL };

static const char compare_about[] =
	"Simulate again the fleet run recorded in EVENTS (CSV or JSON lines) "
	"with its own parameters and initial phases, and print predicted "
	"against measured: mean and p99 write time, the time-weighted "
	"distribution of concurrent writers, and each job's write slowdown "
	"(mean write time over the simulated solo write time). Options "
	"override the file's parameters.\n"
	"\n"
	"What the run did that the model does not cover (the page cache, files "
	"on a file system, memory limits, users other than one per job, device "
	"settings not recorded) is a warning, on standard error and in the "
	"JSON. Synchronous paths (dsync, psync) are simulated with one request "
	"in flight, whatever queue depth the file holds.";

/* Parameters the re-simulation replaces with measured start times. */
static bool replaced_by_measurement(const char *name)
{
	return !strcmp(name, "phases") || !strcmp(name, "period") ||
	       !strcmp(name, "duration") || !strcmp(name, "cycles");
}

static int apply_params(const struct fnblk_events *e, struct sim_options *o,
			const char *path, struct coverage *cov)
{
	char err[512];
	size_t i;
	int ret;

	for (i = 0; i < e->nr_params; i++) {
		if (replaced_by_measurement(e->params[i].name))
			continue;
		ret = sim_options_set(o, e->params[i].name, e->params[i].value,
				      err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "fnblk-sim: compare: %s: param %s=%s: %s\n",
				path, e->params[i].name, e->params[i].value, err);
			return -1;
		}
	}
	coverage_check(e, o, cov);
	for (i = 0; i < cov->nr; i++)
		fprintf(stderr, "fnblk-sim: compare: warning: %s: %s\n", path,
			cov->note[i].text);
	return 0;
}

static void add_param(void *arg, const char *name, const char *value)
{
	fnblk_events_set_param(arg, name, value);
}

/*
 * The prediction as an event file: source sim, the options it ran with,
 * and the run's hosts (a merged multi-host run), so that fnblk-analyze
 * gives its hosts' view of the prediction as of the run.
 */
static int write_prediction(const char *path, const struct sim_options *o,
			    struct fnblk_events *pred,
			    const struct fnblk_events *meas, const char *events)
{
	const char *host_jobs = fnblk_events_param(meas, "host_jobs");
	FILE *f = fopen(path, "w");
	int ret;

	if (!f) {
		fprintf(stderr, "fnblk-sim: compare: %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	fnblk_events_set_source(pred, "sim");
	sim_options_params(o, add_param, pred);
	fnblk_events_set_param(pred, "start_ns", "0");
	fnblk_events_set_param(pred, "predicts", events);
	if (host_jobs)
		fnblk_events_set_param(pred, "host_jobs", host_jobs);
	fnblk_events_sort(pred);
	ret = fnblk_events_write_csv(f, pred);
	if (fclose(f) || ret) {
		fprintf(stderr, "fnblk-sim: compare: writing %s failed\n", path);
		return -1;
	}
	return 0;
}

struct collect {
	struct fnblk_events *ev;
	bool failed;
};

static void collect_write(void *ctx, const struct fnblk_event *ev)
{
	struct collect *c = ctx;

	if (fnblk_events_add(c->ev, ev))
		c->failed = true;
}

/* Writes of each job in the measured run: cycles 0..count-1 compared. */
static uint64_t *cycles_per_job(const struct fnblk_events *e, unsigned int jobs)
{
	uint64_t *count = calloc(jobs, sizeof(*count));
	size_t i;

	if (!count)
		return NULL;
	for (i = 0; i < e->nr; i++)
		if (e->ev[i].job < jobs && e->ev[i].cycle + 1ULL > count[e->ev[i].job])
			count[e->ev[i].job] = e->ev[i].cycle + 1ULL;
	return count;
}

/* Keep the writes of e whose (job, cycle) the other run has too. */
static void keep_common(struct fnblk_events *e, const uint64_t *mine,
			const uint64_t *other, unsigned int jobs)
{
	size_t i, k = 0;
	uint64_t limit;

	for (i = 0; i < e->nr; i++) {
		const struct fnblk_event *ev = &e->ev[i];

		if (ev->job >= jobs)
			continue;
		limit = mine[ev->job] < other[ev->job] ? mine[ev->job] :
			other[ev->job];
		if (ev->cycle < limit)
			e->ev[k++] = *ev;
	}
	e->nr = k;
}

/*
 * First write start of each job relative to the fleet's start (param
 * start_ns), or to the earliest first write when the file does not say.
 */
static uint64_t *first_writes(const struct fnblk_events *e,
			      const struct fleet_workload *fw, unsigned int jobs)
{
	uint64_t *first = malloc(jobs * sizeof(*first)), t0 = UINT64_MAX;
	const char *start = fnblk_events_param(e, "start_ns"), *why;
	uint64_t fleet_t0;
	size_t i;
	unsigned int j;

	if (!first)
		return NULL;
	for (j = 0; j < jobs; j++)
		first[j] = UINT64_MAX;
	for (i = 0; i < e->nr; i++) {
		const struct fnblk_event *ev = &e->ev[i];

		if (ev->job < jobs && ev->start_ns < first[ev->job])
			first[ev->job] = ev->start_ns;
		if (ev->start_ns < t0)
			t0 = ev->start_ns;
	}
	if (start && !fnblk_parse_uint(start, 0, UINT64_MAX, &fleet_t0, &why) &&
	    fleet_t0 <= t0)
		t0 = fleet_t0;
	for (j = 0; j < jobs; j++)
		first[j] = first[j] == UINT64_MAX ?
			   fw->jobs[j].phase_ns + fw->jobs[j].compute_ns :
			   first[j] - t0;
	return first;
}

/* The path's capacity measured from a one-host run (--path-from). */
struct path_fit {
	const char *events;
	double write_s;		/* the run's mean write time, W1 */
	double device_s;	/* the simulated solo write without a path, W0 */
	uint64_t bytes;		/* its mean write size, S */
	uint64_t path_bw;	/* S / (W1 - W0) */
};

struct report {
	struct kpi pred, meas;
	struct path_fit fit;	/* events NULL: not asked */
	double *solo;		/* per job, s */
	unsigned int jobs;
	struct coverage cov;	/* what the model does not cover */
};

static double slowdown(const struct kpi *k, const struct report *r,
		       unsigned int j)
{
	const struct fnblk_write_stats *w = &k->times.job[j];

	return w->writes && r->solo[j] > 0 ? w->mean_ns * 1e-9 / r->solo[j] : NAN;
}

static unsigned int top_writers(const struct report *r)
{
	unsigned int k, top = 0;

	for (k = 0; k <= r->jobs; k++)
		if (r->pred.conc.time_at[k] > 0 || r->meas.conc.time_at[k] > 0)
			top = k;
	return top;
}

static void print_row(const char *name, double pred, double meas)
{
	printf("  %-26s %14.6g %14.6g %+9.2f%%\n", name, pred, meas,
	       100 * kpi_rel_error(pred, meas));
}

static void print_text(const struct report *r, const char *path)
{
	unsigned int k, j, top = top_writers(r);
	char name[64];

	printf("%s: %zu writes compared, %u jobs\n", path,
	       r->meas.times.all.writes, r->jobs);
	if (r->fit.events)
		printf("  path from %s: %.6g s a write of %llu bytes, %.6g s of it the device alone: %llu B/s\n",
		       r->fit.events, r->fit.write_s,
		       (unsigned long long)r->fit.bytes, r->fit.device_s,
		       (unsigned long long)r->fit.path_bw);
	printf("  %-26s %14s %14s %10s\n", "", "predicted", "measured",
	       "rel.err");
	print_row("write time mean (s)", r->pred.times.all.mean_ns * 1e-9,
		  r->meas.times.all.mean_ns * 1e-9);
	print_row("write time p99 (s)", r->pred.times.all.p99_ns * 1e-9,
		  r->meas.times.all.p99_ns * 1e-9);
	print_row("mean concurrent writers", r->pred.conc.mean_n,
		  r->meas.conc.mean_n);
	for (k = 0; k <= top; k++) {
		snprintf(name, sizeof(name), "P(writers = %u)", k);
		print_row(name, r->pred.conc.time_at[k], r->meas.conc.time_at[k]);
	}
	for (j = 0; j < r->jobs; j++) {
		snprintf(name, sizeof(name), "slowdown job %u", j);
		print_row(name, slowdown(&r->pred, r, j),
			  slowdown(&r->meas, r, j));
	}
}

static json_t *json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *json_row(double pred, double meas)
{
	return json_pack("{s:o, s:o, s:o}", "predicted", json_num(pred),
			 "measured", json_num(meas), "rel_error",
			 json_num(kpi_rel_error(pred, meas)));
}

static json_t *json_warnings(const struct coverage *c)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; a && i < c->nr; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s}",
			"code", c->note[i].code,
			"kind", coverage_kind_name(c->note[i].kind),
			"message", c->note[i].text));
	return a;
}

static int print_json(const struct report *r, const char *path)
{
	json_t *root, *writers, *jobs, *row;
	unsigned int k, j, top = top_writers(r);
	int ret;

	writers = json_array();
	for (k = 0; k <= top; k++) {
		row = json_row(r->pred.conc.time_at[k], r->meas.conc.time_at[k]);
		json_object_set_new(row, "writers", json_integer(k));
		json_array_append_new(writers, row);
	}
	jobs = json_array();
	for (j = 0; j < r->jobs; j++) {
		row = json_row(slowdown(&r->pred, r, j), slowdown(&r->meas, r, j));
		json_object_set_new(row, "job", json_integer(j));
		json_object_set_new(row, "solo_write_s", json_num(r->solo[j]));
		json_array_append_new(jobs, row);
	}
	root = json_pack("{s:s, s:i, s:o, s:I, s:o, s:o, s:o, s:o, s:o}",
			 "events", path, "jobs", (int)r->jobs,
			 "warnings", json_warnings(&r->cov),
			 "writes", (json_int_t)r->meas.times.all.writes,
			 "write_time_mean_s",
			 json_row(r->pred.times.all.mean_ns * 1e-9,
				  r->meas.times.all.mean_ns * 1e-9),
			 "write_time_p99_s",
			 json_row(r->pred.times.all.p99_ns * 1e-9,
				  r->meas.times.all.p99_ns * 1e-9),
			 "mean_writers", json_row(r->pred.conc.mean_n,
						  r->meas.conc.mean_n),
			 "writers", writers, "slowdown", jobs);
	if (root && r->fit.events)
		json_object_set_new(root, "path_from", json_pack(
			"{s:s, s:o, s:o, s:I, s:I}", "events", r->fit.events,
			"write_time_mean_s", json_num(r->fit.write_s),
			"device_solo_s", json_num(r->fit.device_s),
			"bytes", (json_int_t)r->fit.bytes,
			"path_bw", (json_int_t)r->fit.path_bw));
	if (!root)
		return -1;
	ret = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	putchar('\n');
	json_decref(root);
	return ret;
}

/* The measured run's start offsets and checkpoint sizes. */
static int measured_workload(struct fleet_workload *fw,
			     const struct fnblk_events *meas, unsigned int jobs)
{
	bool *sized = calloc(jobs, sizeof(*sized));
	size_t i;

	fw->first_write = first_writes(meas, fw, jobs);
	if (!fw->first_write || !sized) {
		free(sized);
		return -1;
	}
	/* The fleet may round S up (O_DIRECT alignment): take what it wrote. */
	for (i = 0; i < meas->nr; i++) {
		const struct fnblk_event *ev = &meas->ev[i];

		if (ev->job < jobs && !sized[ev->job] && ev->bytes) {
			fw->jobs[ev->job].size = ev->bytes;
			sized[ev->job] = true;
		}
	}
	free(sized);
	return 0;
}

/* Each job's measured compute before cycle c: start(c) - end(c - 1). */
static int replay_compute(struct fleet_workload *fw,
			  const struct fnblk_events *meas, unsigned int jobs,
			  const uint64_t *count)
{
	uint64_t stride = 0, *end;
	size_t i, n;
	unsigned int j;

	for (j = 0; j < jobs; j++)
		if (count[j] > stride)
			stride = count[j];
	n = (size_t)jobs * stride;
	fw->compute = malloc(n * sizeof(*fw->compute));
	end = malloc(n * sizeof(*end));
	if (!fw->compute || !end) {
		free(end);
		return -1;
	}
	fw->stride = stride;
	for (i = 0; i < n; i++) {
		fw->compute[i] = FLEET_WORKLOAD_SCHEDULED;
		end[i] = FLEET_WORKLOAD_SCHEDULED;
	}
	for (i = 0; i < meas->nr; i++)
		if (meas->ev[i].job < jobs)
			end[meas->ev[i].job * stride + meas->ev[i].cycle] =
				meas->ev[i].end_ns;
	for (i = 0; i < meas->nr; i++) {
		const struct fnblk_event *ev = &meas->ev[i];
		uint64_t prev;

		if (ev->job >= jobs || !ev->cycle)
			continue;
		prev = end[ev->job * stride + ev->cycle - 1];
		if (prev != FLEET_WORKLOAD_SCHEDULED && ev->start_ns >= prev)
			fw->compute[ev->job * stride + ev->cycle] =
				ev->start_ns - prev;
	}
	free(end);
	return 0;
}

static int simulate(const struct sim_options *o, struct fleet_workload *fw,
		    struct fnblk_events *pred, uint64_t *count_meas)
{
	struct collect c = { .ev = pred };
	struct sim_sink sink = { .ctx = &c, .write = collect_write };
	struct sim_workload w;
	struct sim_result res;
	char err[512];
	uint64_t most = 0;
	unsigned int j;

	fleet_workload_fill(fw, &w);
	for (j = 0; j < o->fleet.jobs; j++)
		if (count_meas[j] > most)
			most = count_meas[j];
	w.cycles = most;
	w.duration_ns = 0;
	if (sim_run(&o->dev, &o->io, &w, &sink, &res, err, sizeof(err))) {
		fprintf(stderr, "fnblk-sim: compare: %s\n", err);
		return -1;
	}
	return c.failed ? -1 : 0;
}

/*
 * The path's capacity from a run of one host alone: its mean write time
 * W1 of S bytes, less the simulated solo write W0 of S on the device and
 * write path of o without a path, is the path's time: C = S / (W1 - W0).
 */
static int fit_path(struct path_fit *fit, const char *events,
		    struct sim_options *o)
{
	struct sim_io io = o->io;
	struct fnblk_events e;
	double sum_ns = 0, sum_bytes = 0;
	uint64_t w0;
	char err[512];
	size_t i;
	int ret = -1;

	fnblk_events_init(&e);
	fit->events = events;
	if (fnblk_events_read_file(events, &e, err, sizeof(err))) {
		fprintf(stderr, "fnblk-sim: compare: --path-from: %s\n", err);
		goto out;
	}
	for (i = 0; i < e.nr; i++) {
		sum_ns += (double)(e.ev[i].end_ns - e.ev[i].start_ns);
		sum_bytes += (double)e.ev[i].bytes;
	}
	if (!e.nr || sum_bytes < 1) {
		fprintf(stderr, "fnblk-sim: compare: --path-from: %s holds no writes\n",
			events);
		goto out;
	}
	fit->write_s = sum_ns / (double)e.nr * 1e-9;
	fit->bytes = (uint64_t)llround(sum_bytes / (double)e.nr);
	io.path_bw = 0;
	io.path_iops = 0;
	w0 = sim_solo_write_ns(&o->dev, &io, fit->bytes);
	fit->device_s = w0 * 1e-9;
	if (!w0 || fit->write_s <= fit->device_s) {
		fprintf(stderr, "fnblk-sim: compare: --path-from: %s: its writes (%.6g s) are not slower than the device alone (%.6g s): no path to measure\n",
			events, fit->write_s, fit->device_s);
		goto out;
	}
	fit->path_bw = (uint64_t)llround((double)fit->bytes /
					 (fit->write_s - fit->device_s));
	o->io.path_bw = fit->path_bw ? fit->path_bw : 1;
	ret = 0;
out:
	fnblk_events_free(&e);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	static struct compare_args a;
	static struct sim_options o;
	const struct cli_option own[] = {
		{ .name = "output", .key = 'o', .arg = "FILE", .type = CLI_STRING,
		  .var = &a.output,
		  .help = "write the re-simulated run as an event file (CSV), "
			  "for fnblk-analyze" },
		{ .name = "replay-compute", .type = CLI_FLAG,
		  .var = &a.replay_compute,
		  .help = "take each compute time from the run (a job's next "
			  "write start minus its write end) instead of the "
			  "schedule, so what is left to compare is the storage "
			  "alone, without the guest's timer noise" },
		{ .name = "path-from", .arg = "SOLO", .type = CLI_STRING,
		  .var = &a.path_from,
		  .help = "set --path-bw from SOLO, an event file of one host "
			  "alone on the same device: its mean write time less "
			  "the simulated solo write without a path is the "
			  "path's time (use the hosts' --qd, 1 for nbd's sync "
			  "export)" },
		{ .name = "strict", .type = CLI_FLAG, .var = &a.strict,
		  .help = "exit 1, after the report, when the run holds what the "
			  "model does not cover (a warning of kind unmodelled)" },
		{ .name = NULL },
	};
	const struct cli_group groups[] = {
		{ .title = "Comparison", .options = own },
		SIM_GROUPS(&o, " (EVENTS' own unless given; else the default)"),
		{ .title = NULL },
	};
	const struct cli_program prog = {
		.name = "fnblk-sim compare", .usage = compare_usage,
		.about = compare_about, .groups = groups, .json = &a.json,
		.json_help = "print the comparison as JSON",
	};
	struct fnblk_events meas, pred;
	struct report r = { 0 };
	uint64_t *count_meas = NULL, *count_pred = NULL;
	struct fleet_workload fw = { 0 };
	const char *path;
	char err[512];
	unsigned int j;
	int first, ret;

	fnblk_events_init(&meas);
	fnblk_events_init(&pred);
	if (sim_options_init(&o))
		return cli_error(&prog, "out of memory");
	/* First pass for the operand; the options are applied again below. */
	ret = cli_parse(&prog, argc, argv, &first);
	if (ret == CLI_CONTINUE && first != argc - 1)
		ret = cli_usage_error(&prog, "expected one EVENTS file");
	if (ret != CLI_CONTINUE) {
		sim_options_free(&o);
		return ret;
	}
	ret = CLI_EXIT_FAILURE;
	path = argv[first];
	if (fnblk_events_read_file(path, &meas, err, sizeof(err))) {
		fprintf(stderr, "fnblk-sim: compare: %s\n", err);
		goto out;
	}
	if (!meas.nr) {
		fprintf(stderr, "fnblk-sim: compare: %s holds no writes\n", path);
		goto out;
	}
	sim_options_free(&o);
	if (sim_options_init(&o))
		goto oom;
	if (apply_params(&meas, &o, path, &r.cov) ||
	    cli_parse(&prog, argc, argv, &first) != CLI_CONTINUE)
		goto out;
	/* A write of a job beyond the simulated ones is reported, not dropped. */
	if (fnblk_events_check_jobs(&meas, o.fleet.jobs, err, sizeof(err))) {
		ret = cli_usage_error(&prog, "%s %s (simulating %u jobs: %s)",
				      path, err, o.fleet.jobs,
				      fnblk_events_param(&meas, "jobs") ?
				      "--jobs says so" : "the file has no jobs param; give --jobs");
		goto out;
	}
	if (a.path_from && fit_path(&r.fit, a.path_from, &o))
		goto out;
	/* Phases come from the measured first writes; sync draws nothing. */
	fleet_config_set(&o.fleet, "phases", "sync", err, sizeof(err));
	o.fleet.cycles = 1;	/* replaced below by the measured counts */

	r.jobs = o.fleet.jobs;
	count_meas = cycles_per_job(&meas, r.jobs);
	r.solo = calloc(r.jobs, sizeof(*r.solo));
	if (!count_meas || !r.solo)
		goto oom;
	if (fleet_workload_init(&fw, &o.fleet, err, sizeof(err))) {
		fprintf(stderr, "fnblk-sim: compare: %s\n", err);
		goto out;
	}
	if (measured_workload(&fw, &meas, r.jobs) ||
	    (a.replay_compute &&
	     replay_compute(&fw, &meas, r.jobs, count_meas)))
		goto oom;
	if (simulate(&o, &fw, &pred, count_meas))
		goto out;
	count_pred = cycles_per_job(&pred, r.jobs);
	if (!count_pred)
		goto oom;
	keep_common(&meas, count_meas, count_pred, r.jobs);
	keep_common(&pred, count_pred, count_meas, r.jobs);

	for (j = 0; j < r.jobs; j++)
		r.solo[j] = sim_solo_write_ns(&o.dev, &o.io,
					      fw.jobs[j].size) * 1e-9;
	if (a.output && write_prediction(a.output, &o, &pred, &meas, path))
		goto out;
	if (kpi_compute(&pred, r.jobs, &r.pred) ||
	    kpi_compute(&meas, r.jobs, &r.meas))
		goto oom;
	if (a.json && print_json(&r, path))
		goto oom;
	if (!a.json)
		print_text(&r, path);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "fnblk-sim: compare: writing the report failed\n");
		goto out;
	}
	ret = CLI_EXIT_OK;
	if (a.strict && r.cov.unmodelled)
		ret = cli_error(&prog, "--strict: %s holds %u setting%s the model does not cover (warnings above)",
				path, r.cov.unmodelled,
				r.cov.unmodelled > 1 ? "s" : "");
	goto out;
oom:
	fprintf(stderr, "fnblk-sim: compare: out of memory\n");
out:
	kpi_free(&r.pred);
	kpi_free(&r.meas);
	free(r.solo);
	free(count_meas);
	free(count_pred);
	fleet_workload_free(&fw);
	fnblk_events_free(&meas);
	fnblk_events_free(&pred);
	sim_options_free(&o);
	return ret;
}
