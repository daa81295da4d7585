// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk-analyze on a replay's events (Documentation/replay.rst): the KPIs
 * of libfnblk's replay_kpi, the same tables fnblk-replay and fnblk-sim
 * replay print, and over time, per site, how many jobs ran and waited;
 * with --plot, those series and the distribution of queue times per
 * category as figures.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plot.h"
#include "replay.h"
#include "replay_events.h"
#include "replay_kpi.h"
#include "replay_analysis.h"

/* A change of a site's counts at t: running and queued jobs. */
struct step {
	uint64_t t;
	uint32_t site;
	int running, queued;
};

struct replay_analysis {
	struct replay_kpi kpi;
	struct step *steps;
	size_t nr_steps, cap_steps;
	char (*sites)[REPLAY_NAME_MAX];
	size_t nr_sites;
	/* The attempt being read: its slot's site and when it began. */
	bool running;
	uint32_t run_site;
	uint64_t run_from, run_to;
};

static int site_index(struct replay_analysis *ra, const char *name,
		      uint32_t *idx)
{
	size_t i;
	void *n;

	for (i = 0; i < ra->nr_sites; i++) {
		if (!strcmp(ra->sites[i], name)) {
			*idx = (uint32_t)i;
			return 0;
		}
	}
	n = realloc(ra->sites, (ra->nr_sites + 1) * sizeof(*ra->sites));
	if (!n)
		return -1;
	ra->sites = n;
	snprintf(ra->sites[ra->nr_sites], REPLAY_NAME_MAX, "%s", name);
	*idx = (uint32_t)ra->nr_sites++;
	return 0;
}

static int add_step(struct replay_analysis *ra, uint64_t t, uint32_t site,
		    int running, int queued)
{
	if (ra->nr_steps == ra->cap_steps) {
		size_t cap = ra->cap_steps ? 2 * ra->cap_steps : 1024;
		struct step *s = realloc(ra->steps, cap * sizeof(*s));

		if (!s)
			return -1;
		ra->steps = s;
		ra->cap_steps = cap;
	}
	ra->steps[ra->nr_steps++] = (struct step) { t, site, running, queued };
	return 0;
}

/* The attempt in progress held its slot from run_from to run_to. */
static int close_attempt(struct replay_analysis *ra)
{
	if (!ra->running)
		return 0;
	ra->running = false;
	return add_step(ra, ra->run_from, ra->run_site, 1, 0) ||
	       add_step(ra, ra->run_to, ra->run_site, -1, 0);
}

static int take_row(void *ctx, const struct replay_row *r)
{
	struct replay_analysis *ra = ctx;
	uint32_t s;

	if (r->what == REPLAY_WHAT_JOB)
		return close_attempt(ra);
	if (r->what != REPLAY_WHAT_QUEUE) {
		if (r->end_ns > ra->run_to)
			ra->run_to = r->end_ns;
		return 0;
	}
	if (close_attempt(ra) || site_index(ra, r->site, &s) ||
	    add_step(ra, r->start_ns, s, 0, 1) || add_step(ra, r->end_ns, s, 0, -1))
		return -1;
	ra->running = true;
	ra->run_site = s;
	ra->run_from = ra->run_to = r->end_ns;
	return 0;
}

static int take_result(void *ctx, const struct replay_result *r)
{
	return replay_kpi_add(&((struct replay_analysis *)ctx)->kpi, r);
}

static int by_time(const void *pa, const void *pb)
{
	const struct step *a = pa, *b = pb;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	/* Leaving before arriving at one instant: no phantom peaks. */
	return (a->running + a->queued) - (b->running + b->queued);
}

/* Walk the steps of site s in time order: peaks and time-weighted means. */
static void site_series(const struct replay_analysis *ra, uint32_t s,
			FILE *dat, unsigned int *peak_run,
			unsigned int *peak_queue, double *mean_queue)
{
	int run = 0, queue = 0;
	uint64_t last = 0, first = 0;
	double area = 0;
	bool started = false;
	size_t i;

	*peak_run = *peak_queue = 0;
	for (i = 0; i < ra->nr_steps; i++) {
		const struct step *st = &ra->steps[i];

		if (st->site != s)
			continue;
		if (!started) {
			first = last = st->t;
			started = true;
		}
		area += (double)queue * (double)(st->t - last);
		last = st->t;
		run += st->running;
		queue += st->queued;
		if ((unsigned int)run > *peak_run)
			*peak_run = (unsigned int)run;
		if ((unsigned int)queue > *peak_queue)
			*peak_queue = (unsigned int)queue;
		if (dat)
			fprintf(dat, "%.9f %d %d\n", st->t / 1e9, run, queue);
	}
	*mean_queue = last > first ? area / (double)(last - first) : 0;
}

static int write_plots(struct replay_analysis *ra, const char *dir)
{
	unsigned int pr, pq;
	double mq;
	char name[REPLAY_NAME_MAX + 16];
	FILE *gp, *f;
	size_t i, k;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "fnblk-analyze: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	gp = plot_file(dir, "plots.gp");
	if (!gp)
		return -1;
	fprintf(gp, "set terminal %s\nset grid\nset offsets 0, 0, 1, 0\n", plot_terminal());
	for (i = 0; i < ra->nr_sites; i++) {
		snprintf(name, sizeof(name), "site-%zu.dat", i);
		f = plot_file(dir, name);
		if (!f) {
			fclose(gp);
			return -1;
		}
		fprintf(f, "# site %s: t_s running queued\n", ra->sites[i]);
		site_series(ra, (uint32_t)i, f, &pr, &pq, &mq);
		fclose(f);
		fprintf(gp, "set output 'site-%zu.png'\nset title 'site %s: jobs running and queued'\n"
			"set xlabel 'replayed time (s)'\nset ylabel 'jobs'\n"
			"plot 'site-%zu.dat' using 1:2 with steps title 'running', "
			"'' using 1:3 with steps title 'queued'\n", i, ra->sites[i], i);
	}
	/* Queue-time distribution per category (sorted samples). */
	f = plot_file(dir, "queue-cdf.dat");
	if (!f) {
		fclose(gp);
		return -1;
	}
	fprintf(gp, "set offsets 0, 0, 0, 0\nset yrange [0:1.05]\n"
		"set output 'queue-cdf.png'\nset title 'queue time per category'\n"
		"set xlabel 'queue time (s)'\nset ylabel 'fraction of jobs'\nset key bottom right\nplot ");
	for (i = 0; i < ra->kpi.nr_categories; i++) {
		struct replay_group *g = &ra->kpi.categories[i];
		struct replay_figures fig;

		/* replay_kpi_figures sorts the samples. */
		replay_kpi_figures(&ra->kpi, g, &fig);
		for (k = 0; k < g->jobs; k++)
			fprintf(f, "%.9f %.6f\n", g->queue_s[k], (k + 1.0) / g->jobs);
		fprintf(f, "\n\n");
		fprintf(gp, "%s'queue-cdf.dat' index %zu using 1:2 with steps title '%s'",
			i ? ", " : "", i, g->name);
	}
	fprintf(gp, "\n");
	fclose(f);
	if (fclose(gp))
		return -1;
	return plot_script_run(dir);
}

int replay_analyze(const char *path, const char *plot_dir, bool json)
{
	struct replay_analysis ra = { 0 };
	struct fnblk_events params;
	char err[512];
	int ret = 1;
	size_t i;

	replay_kpi_init(&ra.kpi);
	fnblk_events_init(&params);
	if (replay_events_read_file(path, &params, take_result, take_row, &ra,
				    err, sizeof(err))) {
		fprintf(stderr, "fnblk-analyze: %s\n", err);
		goto out;
	}
	if (!ra.kpi.all.jobs) {
		fprintf(stderr, "fnblk-analyze: %s: no job\n", path);
		goto out;
	}
	qsort(ra.steps, ra.nr_steps, sizeof(*ra.steps), by_time);
	if (json) {
		json_t *o = replay_kpi_json(&ra.kpi), *series = json_object();

		for (i = 0; i < ra.nr_sites; i++) {
			unsigned int pr, pq;
			double mq;

			site_series(&ra, (uint32_t)i, NULL, &pr, &pq, &mq);
			json_object_set_new(series, ra.sites[i],
					    json_pack("{si si sf}", "peak_running", pr,
						      "peak_queued", pq,
						      "mean_queued", mq));
		}
		json_object_set_new(o, "site_series", series);
		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
		putchar('\n');
		json_decref(o);
	} else {
		printf("%s: replay events (source %s)\n\n", path,
		       params.source ? params.source : "unsaid");
		replay_kpi_print(stdout, &ra.kpi);
		printf("\n%-16s %12s %12s %12s\n", "site", "peak_running",
		       "peak_queued", "mean_queued");
		for (i = 0; i < ra.nr_sites; i++) {
			unsigned int pr, pq;
			double mq;

			site_series(&ra, (uint32_t)i, NULL, &pr, &pq, &mq);
			printf("%-16s %12u %12u %12.3f\n", ra.sites[i], pr, pq, mq);
		}
	}
	ret = 0;
	if (plot_dir && write_plots(&ra, plot_dir))
		ret = 1;
out:
	replay_kpi_free(&ra.kpi);
	fnblk_events_free(&params);
	free(ra.steps);
	free(ra.sites);
	return ret;
}

bool replay_is_events(const char *path)
{
	char line[64] = "";
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : NULL;
	bool yes;

	if (!f)
		return false;
	yes = fgets(line, sizeof(line), f) &&
	      !strncmp(line, REPLAY_EVENTS_MAGIC, strlen(REPLAY_EVENTS_MAGIC));
	fclose(f);
	return yes;
}
