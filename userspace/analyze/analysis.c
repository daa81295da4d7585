// SPDX-License-Identifier: GPL-2.0
/* The storm analysis (see analysis.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

/* ---- distributions ---- */

int poisson_binomial(const double *p, unsigned int n, double *pmf)
{
	unsigned int i, k;

	/* pmf over the first i trials, updated in place from the top down. */
	pmf[0] = 1;
	for (k = 1; k <= n; k++)
		pmf[k] = 0;
	for (i = 0; i < n; i++) {
		if (p[i] < 0 || p[i] > 1)
			return -1;
		for (k = i + 1; k > 0; k--)
			pmf[k] = pmf[k] * (1 - p[i]) + pmf[k - 1] * p[i];
		pmf[0] *= 1 - p[i];
	}
	return 0;
}

void binomial_pmf(unsigned int n, double p, double *pmf)
{
	unsigned int k;

	/* log-space terms: exact to rounding for any n we meet. */
	for (k = 0; k <= n; k++) {
		double lc = lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0);

		if ((p == 0 && k > 0) || (p == 1 && k < n))
			pmf[k] = 0;
		else if (p == 0 || p == 1)
			pmf[k] = 1;
		else
			pmf[k] = exp(lc + k * log(p) + (n - k) * log1p(-p));
	}
}

void upper_tail(const double *pmf, unsigned int n, double *tail)
{
	double s = 0;
	unsigned int k = n + 1;

	while (k-- > 0) {
		s += pmf[k];
		tail[k] = s;
	}
}

/* ---- concurrent writers ---- */

struct edge {
	uint64_t t;
	int delta;
};

static int cmp_edge(const void *pa, const void *pb)
{
	const struct edge *a = pa, *b = pb;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	/* An end and a start at one instant do not overlap. */
	return a->delta - b->delta;
}

void concurrency_free(struct concurrency *c)
{
	free(c->duty);
	free(c->measured);
	free(c->baseline);
	free(c->measured_tail);
	free(c->baseline_tail);
	memset(c, 0, sizeof(*c));
}

int concurrency_compute(const struct fnblk_events *e, unsigned int jobs,
			struct concurrency *c)
{
	struct edge *edges;
	size_t i, nr = 0;
	double window;
	int n = 0;

	memset(c, 0, sizeof(*c));
	if (!e->nr || !jobs)
		return -1;
	c->jobs = jobs;
	c->duty = calloc(jobs, sizeof(double));
	c->measured = calloc(jobs + 1, sizeof(double));
	c->baseline = calloc(jobs + 1, sizeof(double));
	c->measured_tail = calloc(jobs + 1, sizeof(double));
	c->baseline_tail = calloc(jobs + 1, sizeof(double));
	edges = malloc(2 * e->nr * sizeof(*edges));
	if (!c->duty || !c->measured || !c->baseline || !c->measured_tail ||
	    !c->baseline_tail || !edges)
		goto fail;
	c->from_ns = UINT64_MAX;
	for (i = 0; i < e->nr; i++) {
		const struct fnblk_event *ev = &e->ev[i];

		if (ev->job >= jobs)
			continue;
		c->from_ns = ev->start_ns < c->from_ns ? ev->start_ns : c->from_ns;
		c->to_ns = ev->end_ns > c->to_ns ? ev->end_ns : c->to_ns;
		c->duty[ev->job] += ev->end_ns - ev->start_ns;
		edges[nr++] = (struct edge){ ev->start_ns, +1 };
		edges[nr++] = (struct edge){ ev->end_ns, -1 };
	}
	if (!nr || c->to_ns <= c->from_ns)
		goto fail;
	window = c->to_ns - c->from_ns;
	qsort(edges, nr, sizeof(*edges), cmp_edge);
	for (i = 0; i + 1 < nr; i++) {
		n += edges[i].delta;
		/* Writes of one job never overlap, so n stays within 0..jobs. */
		if (n < 0 || n > (int)jobs)
			goto fail;
		c->measured[n] += edges[i + 1].t - edges[i].t;
	}
	for (i = 0; i <= jobs; i++) {
		c->measured[i] /= window;
		c->mean_n += i * c->measured[i];
	}
	for (i = 0; i < jobs; i++) {
		c->duty[i] /= window;
		if (c->duty[i] > 1)
			c->duty[i] = 1;
	}
	if (poisson_binomial(c->duty, jobs, c->baseline))
		goto fail;
	upper_tail(c->measured, jobs, c->measured_tail);
	upper_tail(c->baseline, jobs, c->baseline_tail);
	free(edges);
	return 0;
fail:
	free(edges);
	concurrency_free(c);
	return -1;
}

/* ---- per-cycle structure ---- */

void cycle_table_free(struct cycle_table *t)
{
	free(t->start);
	free(t->end);
	memset(t, 0, sizeof(*t));
}

int cycle_table_build(const struct fnblk_events *e, unsigned int jobs,
		      unsigned int skip, struct cycle_table *t)
{
	unsigned int max_cycle = 0, c, j, first, last;
	unsigned char *seen;
	uint64_t *start, *end;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (!jobs)
		return -1;
	for (i = 0; i < e->nr; i++)
		if (e->ev[i].job < jobs && e->ev[i].cycle > max_cycle)
			max_cycle = e->ev[i].cycle;
	seen = calloc((size_t)(max_cycle + 1) * jobs, 1);
	start = calloc((size_t)(max_cycle + 1) * jobs, sizeof(*start));
	end = calloc((size_t)(max_cycle + 1) * jobs, sizeof(*end));
	if (!seen || !start || !end)
		goto fail;
	for (i = 0; i < e->nr; i++) {
		const struct fnblk_event *ev = &e->ev[i];
		size_t at = (size_t)ev->cycle * jobs + ev->job;

		if (ev->job >= jobs)
			continue;
		seen[at] = 1;
		start[at] = ev->start_ns;
		end[at] = ev->end_ns;
	}
	/* The longest run of complete cycles from the first one at or past skip. */
	for (first = skip; first <= max_cycle; first++) {
		for (j = 0; j < jobs && seen[(size_t)first * jobs + j]; j++)
			;
		if (j == jobs)
			break;
	}
	if (first > max_cycle)
		goto fail;
	for (last = first; last + 1 <= max_cycle; last++) {
		for (j = 0; j < jobs && seen[(size_t)(last + 1) * jobs + j]; j++)
			;
		if (j < jobs)
			break;
	}
	t->jobs = jobs;
	t->first = first;
	t->cycles = last - first + 1;
	t->start = malloc((size_t)t->cycles * jobs * sizeof(uint64_t));
	t->end = malloc((size_t)t->cycles * jobs * sizeof(uint64_t));
	if (!t->start || !t->end)
		goto fail;
	for (c = 0; c < t->cycles; c++) {
		size_t from = (size_t)(first + c) * jobs, to = (size_t)c * jobs;

		memcpy(t->start + to, start + from, jobs * sizeof(uint64_t));
		memcpy(t->end + to, end + from, jobs * sizeof(uint64_t));
	}
	free(seen);
	free(start);
	free(end);
	return 0;
fail:
	free(seen);
	free(start);
	free(end);
	cycle_table_free(t);
	return -1;
}

double cycle_table_period(const struct cycle_table *t)
{
	double sum = 0;
	unsigned int j;

	if (t->cycles < 2)
		return 0;
	for (j = 0; j < t->jobs; j++)
		sum += (double)t->start[(size_t)(t->cycles - 1) * t->jobs + j] -
		       (double)t->start[j];
	return sum / t->jobs / (t->cycles - 1);
}

static const uint64_t *sort_key;

static int cmp_by_start(const void *pa, const void *pb)
{
	unsigned int a = *(const unsigned int *)pa, b = *(const unsigned int *)pb;

	if (sort_key[a] != sort_key[b])
		return sort_key[a] < sort_key[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

void firing_order(const struct cycle_table *t, unsigned int row,
		  unsigned int *order)
{
	unsigned int j;

	for (j = 0; j < t->jobs; j++)
		order[j] = j;
	sort_key = t->start + (size_t)row * t->jobs;
	qsort(order, t->jobs, sizeof(*order), cmp_by_start);
}

/*
 * Pairs ordered one way in rank a and the other in rank b; *gap grows to
 * the widest start gap (in starts, the row of rank a) of such a pair.
 */
static unsigned int kendall_distance(const unsigned int *ra,
				     const unsigned int *rb, unsigned int n,
				     const uint64_t *starts, double *gap)
{
	unsigned int i, j, d = 0;

	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			if ((ra[i] < ra[j]) == (rb[i] < rb[j]))
				continue;
			d++;
			*gap = fmax(*gap, fabs((double)starts[i] - (double)starts[j]));
		}
	}
	return d;
}

int order_changes_compute(const struct cycle_table *t, struct order_changes *o)
{
	unsigned int n = t->jobs, c, k;
	unsigned int *order = malloc(n * sizeof(*order));
	unsigned int *ra = malloc(n * sizeof(*ra));
	unsigned int *rb = malloc(n * sizeof(*rb));

	memset(o, 0, sizeof(*o));
	if (!order || !ra || !rb) {
		free(order);
		free(ra);
		free(rb);
		return -1;
	}
	for (c = 0; c < t->cycles; c++) {
		unsigned int *tmp;

		firing_order(t, c, order);
		for (k = 0; k < n; k++)
			rb[order[k]] = k;
		if (c > 0) {
			unsigned int d = kendall_distance(ra, rb, n,
					t->start + (size_t)(c - 1) * n,
					&o->max_swap_gap_ns);

			o->transitions++;
			o->changed += d > 0;
			o->swaps += d;
			if (d > o->max_swaps)
				o->max_swaps = d;
		}
		tmp = ra;
		ra = rb;
		rb = tmp;
	}
	free(order);
	free(ra);
	free(rb);
	return 0;
}

void pair_maps_free(struct pair_map *maps, size_t nr)
{
	size_t i;

	for (i = 0; maps && i < nr; i++)
		free(maps[i].gap);
	free(maps);
}

static void fit_map(struct pair_map *m)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, n = m->points;
	double ss = 0, s = 0, mx = 0;
	unsigned int c;

	for (c = 0; c < m->points; c++) {
		double x = m->gap[c], y = m->gap[c + 1], d = y - x;

		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		s += d;
		ss += d * d;
		if (fabs(d) > mx)
			mx = fabs(d);
	}
	m->mean_step = n ? s / n : 0;
	m->rms_step = n ? sqrt(ss / n) : 0;
	m->max_step = mx;
	m->slope = m->intercept = NAN;
	if (n >= 2) {
		double var = sxx - sx * sx / n;

		/* Gaps that barely vary leave the slope undetermined. */
		if (var > 1e-9 * (sxx + 1)) {
			m->slope = (sxy - sx * sy / n) / var;
			m->intercept = (sy - m->slope * sx) / n;
		}
	}
}

int pair_maps_compute(const struct cycle_table *t, struct pair_map **maps,
		      size_t *nr)
{
	unsigned int i, j, c, n = t->jobs;
	size_t k = 0, total = (size_t)n * (n - 1) / 2;
	struct pair_map *m = calloc(total ? total : 1, sizeof(*m));

	*maps = NULL;
	*nr = 0;
	if (!m)
		return -1;
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++, k++) {
			m[k].i = i;
			m[k].j = j;
			m[k].points = t->cycles ? t->cycles - 1 : 0;
			m[k].gap = malloc((t->cycles ? t->cycles : 1) * sizeof(double));
			if (!m[k].gap) {
				pair_maps_free(m, k);
				return -1;
			}
			for (c = 0; c < t->cycles; c++)
				m[k].gap[c] = (double)t->start[(size_t)c * n + j] -
					      (double)t->start[(size_t)c * n + i];
			fit_map(&m[k]);
		}
	}
	*maps = m;
	*nr = total;
	return 0;
}

double kuramoto_r(const struct cycle_table *t, unsigned int row)
{
	const uint64_t *s = t->start + (size_t)row * t->jobs;
	double period = 0, re = 0, im = 0;
	unsigned int j;

	if (row + 1 >= t->cycles)
		return NAN;
	for (j = 0; j < t->jobs; j++)
		period += (double)s[t->jobs + j] - (double)s[j];
	period /= t->jobs;
	if (period <= 0)
		return NAN;
	for (j = 0; j < t->jobs; j++) {
		double th = 2 * M_PI * ((double)s[j] - (double)s[0]) / period;

		re += cos(th);
		im += sin(th);
	}
	return hypot(re, im) / t->jobs;
}

static uint64_t row_first_start(const struct cycle_table *t, unsigned int row)
{
	const uint64_t *s = t->start + (size_t)row * t->jobs;
	uint64_t v = UINT64_MAX;
	unsigned int j;

	for (j = 0; j < t->jobs; j++)
		v = s[j] < v ? s[j] : v;
	return v;
}

static uint64_t row_last_end(const struct cycle_table *t, unsigned int row)
{
	const uint64_t *e = t->end + (size_t)row * t->jobs;
	uint64_t v = 0;
	unsigned int j;

	for (j = 0; j < t->jobs; j++)
		v = e[j] > v ? e[j] : v;
	return v;
}

int row_overlaps(const struct cycle_table *t, unsigned int row)
{
	const uint64_t *s = t->start + (size_t)row * t->jobs;
	const uint64_t *e = t->end + (size_t)row * t->jobs;
	uint64_t last_start = 0, first_end = UINT64_MAX;
	unsigned int j;

	for (j = 0; j < t->jobs; j++) {
		last_start = s[j] > last_start ? s[j] : last_start;
		first_end = e[j] < first_end ? e[j] : first_end;
	}
	return last_start < first_end;
}

void interval_ratios_free(struct interval_ratios *r)
{
	free(r->expected);
	free(r->median);
	free(r->mean);
	free(r->log_mean);
	free(r->row);
	free(r->ratio);
	memset(r, 0, sizeof(*r));
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

double median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Sorted starts of a row. */
static void row_starts(const struct cycle_table *t, unsigned int row,
		       uint64_t *out, unsigned int *order)
{
	unsigned int k;

	firing_order(t, row, order);
	for (k = 0; k < t->jobs; k++)
		out[k] = t->start[(size_t)row * t->jobs + order[k]];
}

int interval_ratios_compute(const struct cycle_table *t, const double *f,
			    struct interval_ratios *r)
{
	unsigned int n = t->jobs, k, c, used = 0;
	size_t trans = t->cycles ? t->cycles - 1 : 0;
	double *ratios = malloc((trans ? trans : 1) * (n ? n : 1) * sizeof(double));
	uint64_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	unsigned int *order = malloc(n * sizeof(*order));
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (n < 2 || !ratios || !a || !b || !order)
		goto out;
	r->jobs = n;
	r->expected = calloc(n - 1, sizeof(double));
	r->median = calloc(n - 1, sizeof(double));
	r->mean = calloc(n - 1, sizeof(double));
	r->log_mean = calloc(n - 1, sizeof(double));
	r->row = calloc(trans ? trans : 1, sizeof(unsigned int));
	r->ratio = calloc((trans ? trans : 1) * (n - 1), sizeof(double));
	if (!r->expected || !r->median || !r->mean || !r->log_mean ||
	    !r->row || !r->ratio)
		goto out;
	for (k = 1; k < n; k++)
		r->expected[k - 1] = (double)(n - k) / k *
				     (f ? f[k] / f[n - k] : 1.0);
	for (c = 0; c + 1 < t->cycles; c++) {
		/*
		 * The map holds for a row whose N writes all overlap one another
		 * and nothing else: no write of the row before or after runs
		 * at the same time.
		 */
		if (!row_overlaps(t, c) || row_last_end(t, c) > row_first_start(t, c + 1) ||
		    (c > 0 && row_last_end(t, c - 1) > row_first_start(t, c)))
			continue;
		row_starts(t, c, a, order);
		row_starts(t, c + 1, b, order);
		for (k = 1; k < n; k++) {
			double before = (double)(a[k] - a[k - 1]);
			double after = (double)(b[k] - b[k - 1]);

			/* A zero interval has no ratio: skip the whole row. */
			if (before <= 0 || after <= 0)
				break;
		}
		if (k < n)
			continue;
		for (k = 1; k < n; k++) {
			double q = (double)(b[k] - b[k - 1]) / (double)(a[k] - a[k - 1]);

			ratios[(size_t)(k - 1) * trans + used] = q;
			r->ratio[(size_t)used * (n - 1) + k - 1] = q;
		}
		r->row[used++] = c;
	}
	r->transitions = used;
	for (k = 0; k + 1 < n && used; k++) {
		double *v = ratios + (size_t)k * trans, s = 0, ls = 0;
		unsigned int i;

		for (i = 0; i < used; i++) {
			s += v[i];
			ls += log(v[i]);
		}
		r->mean[k] = s / used;
		r->log_mean[k] = ls / used;
		r->median[k] = median(v, used);
	}
	ret = 0;
out:
	if (ret)
		interval_ratios_free(r);
	free(ratios);
	free(a);
	free(b);
	free(order);
	return ret;
}

/* ---- cost ---- */

int job_costs_compute(const struct fnblk_events *e, unsigned int jobs,
		      const double *solo_ns, struct job_cost *costs)
{
	double *sum = calloc(jobs ? jobs : 1, sizeof(double));
	unsigned int j;
	size_t i;

	if (!sum)
		return -1;
	memset(costs, 0, jobs * sizeof(*costs));
	for (i = 0; i < e->nr; i++) {
		if (e->ev[i].job >= jobs)
			continue;
		costs[e->ev[i].job].writes++;
		sum[e->ev[i].job] += e->ev[i].end_ns - e->ev[i].start_ns;
	}
	for (j = 0; j < jobs; j++) {
		costs[j].mean_ns = costs[j].writes ? sum[j] / costs[j].writes : 0;
		costs[j].solo_ns = solo_ns ? solo_ns[j] : 0;
		if (costs[j].solo_ns > 0 && costs[j].writes)
			costs[j].slowdown = costs[j].mean_ns / costs[j].solo_ns;
	}
	free(sum);
	return 0;
}
