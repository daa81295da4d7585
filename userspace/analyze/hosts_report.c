// SPDX-License-Identifier: GPL-2.0
/* Per-host tables of a merged multi-host run (see hosts_report.h). */
#include <stdlib.h>

#include "hosts_report.h"

struct host_view {
	double *busy_ns;		/* h->nr + 1 */
	struct fnblk_host_stats *st;	/* h->nr */
	double window_ns, any_ns, mean_active;
};

static int view(const struct fnblk_events *e, const struct fnblk_hosts *h,
		unsigned int skip, struct host_view *v)
{
	unsigned int k;

	v->busy_ns = calloc(h->nr + 1, sizeof(*v->busy_ns));
	v->st = calloc(h->nr, sizeof(*v->st));
	if (!v->busy_ns || !v->st ||
	    fnblk_hosts_concurrency(e, h, skip, v->busy_ns, v->st)) {
		free(v->busy_ns);
		free(v->st);
		return -1;
	}
	v->window_ns = v->any_ns = v->mean_active = 0;
	for (k = 0; k <= h->nr; k++) {
		v->window_ns += v->busy_ns[k];
		if (k)
			v->any_ns += v->busy_ns[k];
		v->mean_active += k * v->busy_ns[k];
	}
	v->mean_active = v->any_ns > 0 ? v->mean_active / v->any_ns : 0;
	return 0;
}

static void view_free(struct host_view *v)
{
	free(v->busy_ns);
	free(v->st);
}

static double mean_ms(const struct fnblk_host_stats *s)
{
	return s->writes ? s->write_ns / s->writes / 1e6 : 0;
}

/* Bytes per second of writing: what the host got while it wrote. */
static double mib_s(const struct fnblk_host_stats *s)
{
	return s->write_ns > 0 ? s->bytes / 1048576.0 / (s->write_ns / 1e9) : 0;
}

int hosts_report_table(FILE *f, const struct fnblk_events *e,
		       const struct fnblk_hosts *h, unsigned int skip)
{
	struct host_view v;
	unsigned int k;

	if (view(e, h, skip, &v))
		return -1;
	fprintf(f, "\nhosts: %u, writing at once (share of the %.3f s window):",
		h->nr, v.window_ns / 1e9);
	for (k = 0; k <= h->nr; k++)
		fprintf(f, " %u: %.1f%%", k,
			v.window_ns > 0 ? 100 * v.busy_ns[k] / v.window_ns : 0);
	fprintf(f, "\nmean hosts writing while any writes: %.3f\n", v.mean_active);
	fprintf(f, "%-6s %6s %8s %12s %14s %12s\n", "host", "jobs", "writes",
		"MiB", "mean write ms", "MiB/s writing");
	for (k = 0; k < h->nr; k++)
		fprintf(f, "%-6u %6u %8llu %12.1f %14.3f %12.2f\n", k, v.st[k].jobs,
			(unsigned long long)v.st[k].writes,
			v.st[k].bytes / 1048576.0, mean_ms(&v.st[k]), mib_s(&v.st[k]));
	view_free(&v);
	return 0;
}

json_t *hosts_report_json(const struct fnblk_events *e,
			  const struct fnblk_hosts *h, unsigned int skip)
{
	json_t *root = NULL, *at_once = json_array(), *rows = json_array();
	struct host_view v;
	unsigned int k;

	if (!at_once || !rows || view(e, h, skip, &v))
		goto out;
	for (k = 0; k <= h->nr; k++)
		json_array_append_new(at_once, json_real(v.busy_ns[k] / 1e9));
	for (k = 0; k < h->nr; k++)
		json_array_append_new(rows, json_pack("{s:i, s:i, s:I, s:I, s:f, s:f}",
			"host", (int)k, "jobs", (int)v.st[k].jobs,
			"writes", (json_int_t)v.st[k].writes,
			"bytes", (json_int_t)v.st[k].bytes,
			"mean_write_ms", mean_ms(&v.st[k]),
			"mib_s_writing", mib_s(&v.st[k])));
	root = json_pack("{s:i, s:f, s:O, s:f, s:O}", "hosts", (int)h->nr,
			 "window_s", v.window_ns / 1e9, "writing_at_once_s", at_once,
			 "mean_writing", v.mean_active, "per_host", rows);
	view_free(&v);
out:
	json_decref(at_once);
	json_decref(rows);
	return root;
}
