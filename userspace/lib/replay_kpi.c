// SPDX-License-Identifier: GPL-2.0
/* Replay KPIs (see replay_kpi.h). */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "replay_kpi.h"
#include "stats.h"

void replay_kpi_init(struct replay_kpi *k)
{
	memset(k, 0, sizeof(*k));
	strcpy(k->all.name, "all");
	k->first_arrival_ns = UINT64_MAX;
}

static void group_free(struct replay_group *g)
{
	free(g->queue_s);
	free(g->wall_s);
}

void replay_kpi_free(struct replay_kpi *k)
{
	size_t i;

	group_free(&k->all);
	for (i = 0; i < k->nr_sites; i++)
		group_free(&k->sites[i]);
	for (i = 0; i < k->nr_categories; i++)
		group_free(&k->categories[i]);
	free(k->sites);
	free(k->categories);
	replay_kpi_init(k);
}

/* The group called name in *groups, added if new; NULL when out of memory. */
static struct replay_group *group_of(struct replay_group **groups, size_t *nr,
				     const char *name)
{
	struct replay_group *g;
	size_t i;

	for (i = 0; i < *nr; i++)
		if (!strcmp((*groups)[i].name, name))
			return &(*groups)[i];
	g = realloc(*groups, (*nr + 1) * sizeof(*g));
	if (!g)
		return NULL;
	*groups = g;
	g = &g[(*nr)++];
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%s", name);
	return g;
}

static int group_add(struct replay_group *g, const struct replay_result *r)
{
	if (g->jobs == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		double *q = realloc(g->queue_s, cap * sizeof(*q));
		double *w;

		if (!q)
			return -1;
		g->queue_s = q;
		w = realloc(g->wall_s, cap * sizeof(*w));
		if (!w)
			return -1;
		g->wall_s = w;
		g->cap = cap;
	}
	g->queue_s[g->jobs] = (double)r->queue_ns / 1e9;
	g->wall_s[g->jobs] = (double)r->wall_ns / 1e9;
	g->jobs++;
	g->failed += r->failed;
	g->attempts += r->attempts;
	g->failed_attempts += r->failed_attempts;
	g->io_s += (double)r->io_ns / 1e9;
	g->wall_sum_s += (double)r->wall_ns / 1e9;
	g->in_bytes += r->in_bytes;
	g->remote_bytes += r->remote_bytes;
	if (r->end_ns > g->end_ns)
		g->end_ns = r->end_ns;
	return 0;
}

int replay_kpi_add(struct replay_kpi *k, const struct replay_result *r)
{
	struct replay_group *site, *cat;

	site = group_of(&k->sites, &k->nr_sites, r->site);
	if (!site)
		return -1;
	cat = group_of(&k->categories, &k->nr_categories, r->category);
	if (!cat)
		return -1;
	if (r->arrival_ns < k->first_arrival_ns)
		k->first_arrival_ns = r->arrival_ns;
	return group_add(&k->all, r) || group_add(site, r) ||
	       group_add(cat, r) ? -1 : 0;
}

int replay_kpi_add_fn(void *ctx, const struct replay_result *r)
{
	return replay_kpi_add(ctx, r);
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

void replay_kpi_figures(const struct replay_kpi *k, struct replay_group *g,
			struct replay_figures *f)
{
	size_t n = g->jobs;
	double qsum = 0;
	size_t i;

	memset(f, 0, sizeof(*f));
	f->jobs = g->jobs;
	f->failed = g->failed;
	f->attempts = g->attempts;
	if (!n)
		return;
	for (i = 0; i < n; i++)
		qsum += g->queue_s[i];
	f->error_rate = ratio((double)g->failed, (double)n);
	f->attempt_error_rate = ratio((double)g->failed_attempts,
				      (double)g->attempts);
	f->queue_mean_s = qsum / (double)n;
	f->queue_p50_s = fnblk_percentile(g->queue_s, n, 0.50);
	f->queue_p95_s = fnblk_percentile(g->queue_s, n, 0.95);
	f->queue_p99_s = fnblk_percentile(g->queue_s, n, 0.99);
	f->wall_mean_s = g->wall_sum_s / (double)n;
	f->wall_p50_s = fnblk_percentile(g->wall_s, n, 0.50);
	f->wall_p95_s = fnblk_percentile(g->wall_s, n, 0.95);
	f->io_share = ratio(g->io_s, g->wall_sum_s);
	f->remote_fraction = ratio((double)g->remote_bytes,
				   (double)g->in_bytes);
	f->makespan_s = (double)(g->end_ns - k->first_arrival_ns) / 1e9;
}

#define FIGURE(f)	[REPLAY_FIG_##f] = offsetof(struct replay_figures, f)

enum {
	REPLAY_FIG_queue_mean_s, REPLAY_FIG_queue_p50_s, REPLAY_FIG_queue_p95_s,
	REPLAY_FIG_queue_p99_s, REPLAY_FIG_wall_mean_s, REPLAY_FIG_wall_p95_s,
	REPLAY_FIG_io_share, REPLAY_FIG_error_rate,
	REPLAY_FIG_attempt_error_rate, REPLAY_FIG_remote_fraction,
	REPLAY_FIG_makespan_s,
};

static const size_t figure_offset[REPLAY_NR_FIGURES] = {
	FIGURE(queue_mean_s), FIGURE(queue_p50_s), FIGURE(queue_p95_s),
	FIGURE(queue_p99_s), FIGURE(wall_mean_s), FIGURE(wall_p95_s),
	FIGURE(io_share), FIGURE(error_rate), FIGURE(attempt_error_rate),
	FIGURE(remote_fraction), FIGURE(makespan_s),
};

const char *const replay_figure_names[REPLAY_NR_FIGURES] = {
	"queue_mean_s", "queue_p50_s", "queue_p95_s", "queue_p99_s",
	"wall_mean_s", "wall_p95_s", "io_share", "error_rate",
	"attempt_error_rate", "remote_fraction", "makespan_s",
};

double replay_figure(const struct replay_figures *f, unsigned int i)
{
	return *(const double *)((const char *)f + figure_offset[i]);
}

int replay_figure_index(const char *name)
{
	int i;

	for (i = 0; i < REPLAY_NR_FIGURES; i++)
		if (!strcmp(replay_figure_names[i], name))
			return i;
	return -1;
}

static void print_row(FILE *out, const struct replay_kpi *k,
		      struct replay_group *g)
{
	struct replay_figures f;

	replay_kpi_figures(k, g, &f);
	fprintf(out, "%-16s %7" PRIu64 " %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %6.3f %6.3f %6.3f\n",
		g->name, f.jobs, f.queue_mean_s, f.queue_p50_s, f.queue_p95_s,
		f.queue_p99_s, f.wall_mean_s, f.wall_p95_s, f.io_share,
		f.error_rate, f.remote_fraction);
}

static void print_table(FILE *out, const struct replay_kpi *k,
			const char *title, struct replay_group *g, size_t nr)
{
	size_t i;

	fprintf(out, "%-16s %7s %8s %8s %8s %8s %8s %8s %6s %6s %6s\n", title,
		"jobs", "queue_s", "q_p50", "q_p95", "q_p99", "wall_s",
		"w_p95", "io", "error", "remote");
	for (i = 0; i < nr; i++)
		print_row(out, k, &g[i]);
}

void replay_kpi_print(FILE *out, struct replay_kpi *k)
{
	print_table(out, k, "jobs", &k->all, 1);
	fputc('\n', out);
	print_table(out, k, "site", k->sites, k->nr_sites);
	fputc('\n', out);
	print_table(out, k, "category", k->categories, k->nr_categories);
}

static json_t *group_json(const struct replay_kpi *k, struct replay_group *g)
{
	struct replay_figures f;

	replay_kpi_figures(k, g, &f);
	return json_pack("{sI sI sI sI sf sf sf sf sf sf sf sf sf sf sf sf}",
			 "jobs", (json_int_t)f.jobs,
			 "failed", (json_int_t)f.failed,
			 "attempts", (json_int_t)f.attempts,
			 "failed_attempts", (json_int_t)g->failed_attempts,
			 "error_rate", f.error_rate,
			 "attempt_error_rate", f.attempt_error_rate,
			 "queue_mean_s", f.queue_mean_s,
			 "queue_p50_s", f.queue_p50_s,
			 "queue_p95_s", f.queue_p95_s,
			 "queue_p99_s", f.queue_p99_s,
			 "wall_mean_s", f.wall_mean_s,
			 "wall_p50_s", f.wall_p50_s,
			 "wall_p95_s", f.wall_p95_s,
			 "io_share", f.io_share,
			 "remote_fraction", f.remote_fraction,
			 "makespan_s", f.makespan_s);
}

static json_t *groups_json(const struct replay_kpi *k, struct replay_group *g,
			   size_t nr)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; o && i < nr; i++)
		json_object_set_new(o, g[i].name, group_json(k, &g[i]));
	return o;
}

json_t *replay_kpi_json(struct replay_kpi *k)
{
	return json_pack("{so so so}", "all", group_json(k, &k->all),
			 "sites", groups_json(k, k->sites, k->nr_sites),
			 "categories",
			 groups_json(k, k->categories, k->nr_categories));
}
