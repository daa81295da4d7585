// SPDX-License-Identifier: GPL-2.0
/* The generative model of job streams (see tracemodel.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "tracemodel.h"

#define TM_FORMAT	"fnblk-tracemodel 1"
#define TM_HOUR_PRIOR	0.1

static const char *const feature_names[TM_NR_FEATURES] = {
	[TM_CPU] = "cpu_s", [TM_IN_BYTES] = "in_bytes",
	[TM_OUT_BYTES] = "out_bytes",
};

void trace_model_init(struct trace_model *m)
{
	memset(m, 0, sizeof(*m));
}

void trace_model_free(struct trace_model *m)
{
	size_t i;

	for (i = 0; i < m->nr_categories; i++)
		free(m->categories[i].jobs);
	free(m->categories);
	free(m->batch_sizes);
	trace_model_init(m);
}

static double feature(const struct tm_job *j, enum tm_feature f)
{
	return f == TM_CPU ? j->cpu_s : f == TM_IN_BYTES ? j->in_bytes :
	       j->out_bytes;
}

static void set_feature(struct tm_job *j, enum tm_feature f, double v)
{
	if (f == TM_CPU)
		j->cpu_s = v;
	else if (f == TM_IN_BYTES)
		j->in_bytes = v;
	else
		j->out_bytes = v;
}

static struct tm_category *category(struct trace_model *m, const char *name)
{
	struct tm_category *c;
	size_t i;

	for (i = 0; i < m->nr_categories; i++)
		if (!strcmp(m->categories[i].name, name))
			return &m->categories[i];
	c = realloc(m->categories, (m->nr_categories + 1) * sizeof(*c));
	if (!c)
		return NULL;
	m->categories = c;
	c = &c[m->nr_categories++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	return c;
}

static int add_job(struct tm_category *c, const struct jobrec *r)
{
	struct tm_job *j = realloc(c->jobs, (c->nr_jobs + 1) * sizeof(*j));

	if (!j)
		return -1;
	c->jobs = j;
	c->jobs[c->nr_jobs++] = (struct tm_job) {
		.cpu_s = r->cpu_s, .in_bytes = (double)r->in_bytes,
		.out_bytes = (double)r->out_bytes, .cores = r->cores,
		.in_files = r->in_files, .out_files = r->out_files,
		.stagein = (uint8_t)r->stagein, .failed = r->failed,
	};
	return 0;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/*
 * Silverman's robust rule, 0.9 min(sd, IQR / 1.34) n^(-1/5), on log1p of
 * the category's non-zero values: zeros stay zeros, and would otherwise
 * widen the kernel of the rest by orders of magnitude.
 */
static void bandwidths(struct tm_category *c)
{
	double *v = malloc((c->nr_jobs ? c->nr_jobs : 1) * sizeof(*v));
	int f;

	for (f = 0; f < TM_NR_FEATURES; f++) {
		double m = 0, ss = 0, sd, iqr;
		size_t i, n = 0;

		c->bandwidth[f] = 0;
		for (i = 0; v && i < c->nr_jobs; i++)
			if (feature(&c->jobs[i], f) > 0)
				v[n++] = log1p(feature(&c->jobs[i], f));
		if (n < 2)
			continue;
		for (i = 0; i < n; i++)
			m += v[i];
		m /= n;
		for (i = 0; i < n; i++)
			ss += (v[i] - m) * (v[i] - m);
		sd = sqrt(ss / (n - 1));
		qsort(v, n, sizeof(*v), cmp_double);
		iqr = (v[(3 * n) / 4] - v[n / 4]) / 1.34;
		if (iqr > 0 && iqr < sd)
			sd = iqr;
		c->bandwidth[f] = 0.9 * sd * pow((double)n, -0.2);
	}
	free(v);
}

int trace_model_fit(struct trace_model *m, struct jobrecs *t,
		    double batch_window_s, char *err, size_t errlen)
{
	unsigned int hours[24] = { 0 };
	size_t i, start = 0;

	trace_model_free(m);
	m->batch_window_s = batch_window_s;
	if (t->nr < 2)
		return fnblk_seterr(err, errlen, "at least 2 records are needed, not %zu",
				    t->nr);
	jobrecs_sort(t);
	m->span_s = (double)(t->r[t->nr - 1].created_s - t->r[0].created_s);
	if (m->span_s <= 0)
		return fnblk_seterr(err, errlen, "every record was created at the same second: no arrival process to learn");
	m->batch_sizes = calloc(t->nr, sizeof(*m->batch_sizes));
	if (!m->batch_sizes)
		return fnblk_seterr(err, errlen, "out of memory");
	for (i = 0; i < t->nr; i++) {
		const struct jobrec *r = &t->r[i];
		struct tm_category *c = category(m, r->category);

		if (!c || add_job(c, r))
			return fnblk_seterr(err, errlen, "out of memory");
		/* A batch ends where the next record comes too late. */
		if (i + 1 < t->nr &&
		    (double)(t->r[i + 1].created_s - r->created_s) <= batch_window_s)
			continue;
		m->batch_sizes[m->nr_batches++] = (uint32_t)(i + 1 - start);
		c = category(m, t->r[start].category);
		c->share += 1;
		hours[(t->r[start].created_s % 86400) / 3600]++;
		start = i + 1;
	}
	m->nr_jobs = t->nr;
	m->batch_rate = m->nr_batches / m->span_s;
	/* A tenth of a batch per hour: an hour never seen stays possible. */
	for (i = 0; i < 24; i++)
		m->hour_weight[i] = (hours[i] + TM_HOUR_PRIOR) /
				    (m->nr_batches + 24 * TM_HOUR_PRIOR) * 24;
	for (i = 0; i < m->nr_categories; i++) {
		m->categories[i].share /= m->nr_batches;
		bandwidths(&m->categories[i]);
	}
	return 0;
}

/* ---- generation ---- */

struct rng {
	uint64_t s;
};

static uint64_t next_u64(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static double uniform(struct rng *r)
{
	return ((double)(next_u64(r) >> 11) + 0.5) * 0x1.0p-53;
}

static double normal(struct rng *r)
{
	return sqrt(-2 * log(uniform(r))) * cos(2 * M_PI * uniform(r));
}

static const struct tm_category *pick_category(const struct trace_model *m,
					       struct rng *r)
{
	double u = uniform(r), acc = 0;
	size_t i;

	for (i = 0; i < m->nr_categories; i++) {
		acc += m->categories[i].share;
		if (u < acc)
			return &m->categories[i];
	}
	return &m->categories[m->nr_categories - 1];
}

static int add_record(struct jobrecs *out, const struct tm_category *c,
		      const struct tm_job *j, uint64_t id, int64_t created,
		      unsigned int site)
{
	struct jobrec rec = {
		.id = id, .created_s = created, .started_s = JOBREC_NO_TIME,
		.ended_s = JOBREC_NO_TIME, .cpu_s = j->cpu_s, .cores = j->cores,
		.in_bytes = (uint64_t)llround(j->in_bytes),
		.out_bytes = (uint64_t)llround(j->out_bytes),
		.in_files = j->in_files, .out_files = j->out_files,
		.stagein = (enum jobrec_stagein)j->stagein, .failed = j->failed,
	};
	char site_name[32];
	struct jobrec *n;

	snprintf(site_name, sizeof(site_name), "S%u", site);
	rec.site = strdup(site_name);
	rec.name = strdup("");
	rec.category = strdup(c->name);
	if (!rec.site || !rec.name || !rec.category)
		goto fail;
	if (out->nr == out->cap) {
		size_t cap = out->cap ? 2 * out->cap : 1024;

		n = realloc(out->r, cap * sizeof(*n));
		if (!n)
			goto fail;
		out->r = n;
		out->cap = cap;
	}
	out->r[out->nr++] = rec;
	if (created < out->first_created_s)
		out->first_created_s = created;
	return 0;
fail:
	free(rec.site);
	free(rec.name);
	free(rec.category);
	return -1;
}

int trace_model_generate(const struct trace_model *m, size_t jobs,
			 unsigned int sites, double scale, int64_t start_s,
			 uint64_t seed, struct jobrecs *out, char *err,
			 size_t errlen)
{
	struct rng r = { seed * 0x2545f4914f6cdd1dULL + 1 };
	double wmax = 0, t = (double)start_s, rate;
	size_t made = 0, i;
	uint64_t id = 1;

	if (!m->nr_batches || !m->nr_categories)
		return fnblk_seterr(err, errlen, "an empty model");
	if (!sites || !(scale > 0))
		return fnblk_seterr(err, errlen, "at least one site and a scale above 0");
	for (i = 0; i < 24; i++)
		if (m->hour_weight[i] > wmax)
			wmax = m->hour_weight[i];
	rate = m->batch_rate * scale * wmax;
	while (made < jobs) {
		const struct tm_category *c;
		uint32_t size;

		/* Thinning: a Poisson process of rate w(hour) * batch_rate. */
		t += -log(uniform(&r)) / rate;
		if (uniform(&r) * wmax >
		    m->hour_weight[((int64_t)t % 86400) / 3600])
			continue;
		size = m->batch_sizes[next_u64(&r) % m->nr_batches];
		c = pick_category(m, &r);
		for (i = 0; i < size && made < jobs; i++, made++) {
			struct tm_job j = c->jobs[next_u64(&r) % c->nr_jobs];
			int f;

			for (f = 0; f < TM_NR_FEATURES; f++) {
				double v = feature(&j, f);

				/* Zero stays zero: a job without input has none. */
				/*
				 * A log-normal factor of mean 1: the jitter
				 * must not inflate the totals a replay sees.
				 */
				if (v > 0 && c->bandwidth[f] > 0) {
					double b = c->bandwidth[f];

					set_feature(&j, f, v * exp(b * normal(&r) - b * b / 2));
				}
			}
			if (add_record(out, c, &j, id++, (int64_t)t,
				       (unsigned int)(next_u64(&r) % sites)))
				return fnblk_seterr(err, errlen, "out of memory");
		}
	}
	return 0;
}

/* ---- JSON ---- */

json_t *trace_model_to_json(const struct trace_model *m)
{
	json_t *hours = json_array(), *sizes = json_array(), *cats = json_array();
	size_t i, k;
	int f;

	for (i = 0; i < 24; i++)
		json_array_append_new(hours, json_real(m->hour_weight[i]));
	for (i = 0; i < m->nr_batches; i++)
		json_array_append_new(sizes, json_integer(m->batch_sizes[i]));
	for (i = 0; i < m->nr_categories; i++) {
		const struct tm_category *c = &m->categories[i];
		json_t *bw = json_object(), *jobs = json_array();

		for (f = 0; f < TM_NR_FEATURES; f++)
			json_object_set_new(bw, feature_names[f],
					    json_real(c->bandwidth[f]));
		for (k = 0; k < c->nr_jobs; k++) {
			const struct tm_job *j = &c->jobs[k];

			json_array_append_new(jobs, json_pack("[f f f i i i i i]",
				j->cpu_s, j->in_bytes, j->out_bytes,
				(int)j->cores, (int)j->in_files, (int)j->out_files,
				(int)j->stagein, (int)j->failed));
		}
		json_array_append_new(cats, json_pack("{ss sf so so}", "name",
				      c->name, "share", c->share, "bandwidth",
				      bw, "jobs", jobs));
	}
	return json_pack("{ss sf sf sf si so so so}", "format", TM_FORMAT,
			 "batch_window_s", m->batch_window_s, "span_s", m->span_s,
			 "batch_rate", m->batch_rate, "jobs", (int)m->nr_jobs,
			 "hour_weight", hours, "batch_sizes", sizes,
			 "categories", cats);
}

int trace_model_from_json(struct trace_model *m, const json_t *j, char *err,
			  size_t errlen)
{
	json_t *hours, *sizes, *cats, *c, *v;
	const char *format;
	json_error_t je;
	size_t i, k;
	int jobs, f;

	trace_model_free(m);
	if (json_unpack_ex((json_t *)j, &je, 0, "{ss sF sF sF si so so so}",
			   "format", &format, "batch_window_s", &m->batch_window_s,
			   "span_s", &m->span_s, "batch_rate", &m->batch_rate,
			   "jobs", &jobs, "hour_weight", &hours,
			   "batch_sizes", &sizes, "categories", &cats))
		return fnblk_seterr(err, errlen, "not a trace model: %s", je.text);
	if (strcmp(format, TM_FORMAT))
		return fnblk_seterr(err, errlen, "format '%s', not '%s'", format,
				    TM_FORMAT);
	m->nr_jobs = (size_t)jobs;
	if (json_array_size(hours) != 24 || !json_array_size(sizes) ||
	    !json_array_size(cats))
		return fnblk_seterr(err, errlen, "24 hour weights, batch sizes and categories are needed");
	json_array_foreach(hours, i, v)
		m->hour_weight[i] = json_number_value(v);
	m->batch_sizes = calloc(json_array_size(sizes), sizeof(*m->batch_sizes));
	m->categories = calloc(json_array_size(cats), sizeof(*m->categories));
	if (!m->batch_sizes || !m->categories)
		return fnblk_seterr(err, errlen, "out of memory");
	json_array_foreach(sizes, i, v) {
		if (json_integer_value(v) < 1)
			return fnblk_seterr(err, errlen, "batch size %zu below 1", i);
		m->batch_sizes[m->nr_batches++] = (uint32_t)json_integer_value(v);
	}
	json_array_foreach(cats, i, c) {
		struct tm_category *tc = &m->categories[m->nr_categories++];
		json_t *bw, *jl, *row;
		const char *name;

		if (json_unpack_ex(c, &je, 0, "{ss sF so so}", "name", &name,
				   "share", &tc->share, "bandwidth", &bw,
				   "jobs", &jl) || !json_array_size(jl))
			return fnblk_seterr(err, errlen, "category %zu: %s", i,
					    json_array_size(jl) ? je.text : "no job");
		snprintf(tc->name, sizeof(tc->name), "%s", name);
		for (f = 0; f < TM_NR_FEATURES; f++)
			tc->bandwidth[f] = json_number_value(json_object_get(bw, feature_names[f]));
		tc->jobs = calloc(json_array_size(jl), sizeof(*tc->jobs));
		if (!tc->jobs)
			return fnblk_seterr(err, errlen, "out of memory");
		json_array_foreach(jl, k, row) {
			struct tm_job *tj = &tc->jobs[tc->nr_jobs++];
			int cores, inf, outf, st, failed;

			if (json_unpack_ex(row, &je, 0, "[F F F i i i i i]", &tj->cpu_s,
					   &tj->in_bytes, &tj->out_bytes, &cores,
					   &inf, &outf, &st, &failed) || cores < 1 ||
			    inf < 0 || outf < 0 || st < 0 ||
			    st > JOBREC_STAGEIN_COPY)
				return fnblk_seterr(err, errlen, "category %s, job %zu: not [cpu_s, in_bytes, out_bytes, cores, in_files, out_files, stagein, failed]",
						    tc->name, k);
			tj->cores = (uint32_t)cores;
			tj->in_files = (uint32_t)inf;
			tj->out_files = (uint32_t)outf;
			tj->stagein = (uint8_t)st;
			tj->failed = failed != 0;
		}
	}
	return 0;
}
