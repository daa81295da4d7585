// SPDX-License-Identifier: GPL-2.0
/* The storm analysis (see analysis.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "fleet.h"

/* ---- concurrent writers ---- */

void concurrency_free(struct concurrency *c)
{
	fnblk_concurrency_free(&c->sweep);
	free(c->baseline);
	free(c->measured_tail);
	free(c->baseline_tail);
	memset(c, 0, sizeof(*c));
}

int concurrency_compute(const struct fnblk_events *e, unsigned int jobs,
			unsigned int skip, uint64_t block_ns,
			struct concurrency *c)
{
	memset(c, 0, sizeof(*c));
	if (fnblk_concurrency_compute(e, jobs, skip, block_ns, &c->sweep))
		return -1;
	c->baseline = calloc(jobs + 1, sizeof(double));
	c->measured_tail = calloc(jobs + 1, sizeof(double));
	c->baseline_tail = calloc(jobs + 1, sizeof(double));
	if (!c->baseline || !c->measured_tail || !c->baseline_tail ||
	    fnblk_poisson_binomial(c->sweep.duty, jobs, c->baseline)) {
		concurrency_free(c);
		return -1;
	}
	fnblk_upper_tail(c->sweep.time_at, jobs, c->measured_tail);
	fnblk_upper_tail(c->baseline, jobs, c->baseline_tail);
	return 0;
}

void tail_ci_free(struct tail_ci *ci)
{
	free(ci->lo);
	free(ci->hi);
	memset(ci, 0, sizeof(*ci));
}

/*
 * One resample: blocks drawn with replacement, their sums pooled into
 * pmf (time at n) and duty, then the tail ratio per k into ratio[].
 */
static int resample_ratio(const struct fnblk_concurrency *s,
			  struct fleet_rng *rng, double *pmf, double *duty,
			  double *base, double *mt, double *bt, double *ratio)
{
	unsigned int n = s->jobs, k;
	size_t d, b;
	double len = 0;

	memset(pmf, 0, (n + 1) * sizeof(double));
	memset(duty, 0, n * sizeof(double));
	for (d = 0; d < s->nr_blocks; d++) {
		b = fleet_rng_u64(rng) % s->nr_blocks;
		len += s->block_len[b];
		for (k = 0; k <= n; k++)
			pmf[k] += s->block_time[b * (n + 1) + k];
		for (k = 0; k < n; k++)
			duty[k] += s->block_busy[b * n + k];
	}
	for (k = 0; k <= n; k++)
		pmf[k] /= len;
	for (k = 0; k < n; k++)
		duty[k] = fmin(duty[k] / len, 1);
	if (fnblk_poisson_binomial(duty, n, base))
		return -1;
	fnblk_upper_tail(pmf, n, mt);
	fnblk_upper_tail(base, n, bt);
	for (k = 0; k <= n; k++)
		ratio[k] = bt[k] > 0 ? mt[k] / bt[k] : NAN;
	return 0;
}

int tail_ratio_bootstrap(const struct concurrency *c, unsigned int resamples,
			 uint64_t seed, double level, struct tail_ci *ci)
{
	const struct fnblk_concurrency *s = &c->sweep;
	unsigned int n = s->jobs, k, r;
	double *work = NULL, *ratios = NULL, *col = NULL;
	struct fleet_rng rng;
	int ret = -1;

	memset(ci, 0, sizeof(*ci));
	if (!s->nr_blocks || !resamples)
		return -1;
	ci->resamples = resamples;
	ci->seed = seed;
	ci->level = level;
	ci->lo = malloc((n + 1) * sizeof(double));
	ci->hi = malloc((n + 1) * sizeof(double));
	/* pmf, duty, baseline and both tails of one resample */
	work = malloc((5 * (size_t)n + 4) * sizeof(double));
	ratios = malloc((size_t)resamples * (n + 1) * sizeof(double));
	col = malloc((size_t)resamples * sizeof(double));
	if (!ci->lo || !ci->hi || !work || !ratios || !col)
		goto out;
	fleet_rng_seed(&rng, seed);
	for (r = 0; r < resamples; r++) {
		double *pmf = work, *duty = pmf + n + 1, *base = duty + n;
		double *mt = base + n + 1, *bt = mt + n + 1;

		if (resample_ratio(s, &rng, pmf, duty, base, mt, bt,
				   ratios + (size_t)r * (n + 1)))
			goto out;
	}
	for (k = 0; k <= n; k++) {
		size_t m = 0;

		for (r = 0; r < resamples; r++) {
			double v = ratios[(size_t)r * (n + 1) + k];

			if (isfinite(v))
				col[m++] = v;
		}
		ci->lo[k] = ci->hi[k] = NAN;
		if (2 * m < resamples)
			continue;
		ci->lo[k] = fnblk_percentile(col, m, (1 - level) / 2);
		ci->hi[k] = fnblk_percentile(col, m, (1 + level) / 2);
	}
	ret = 0;
out:
	free(work);
	free(ratios);
	free(col);
	if (ret)
		tail_ci_free(ci);
	return ret;
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
 * Inversions of r[0..n-1] (pairs p < q with r[p] > r[q]), by merge sort;
 * r is left sorted, tmp has n entries.
 */
static uint64_t count_inversions(unsigned int *r, unsigned int *tmp,
				 unsigned int n)
{
	unsigned int width, lo, i, j, k, mid, hi;
	uint64_t inv = 0;

	for (width = 1; width < n; width *= 2) {
		for (lo = 0; lo < n; lo += 2 * width) {
			mid = lo + width < n ? lo + width : n;
			hi = lo + 2 * width < n ? lo + 2 * width : n;
			for (i = lo, j = mid, k = lo; k < hi; k++) {
				if (j >= hi || (i < mid && r[i] <= r[j])) {
					tmp[k] = r[i++];
				} else {
					inv += mid - i;	/* r[j] jumps these */
					tmp[k] = r[j++];
				}
			}
		}
		memcpy(r, tmp, n * sizeof(*r));
	}
	return inv;
}

/*
 * The widest start gap (in the earlier row, whose starts s are in firing
 * order) of a swapped pair: for each q the earliest p < q ranked after it
 * in the later row, found on the running maximum of the ranks r.
 */
static double widest_swap(const unsigned int *r, const double *s,
			  unsigned int *runmax, unsigned int n)
{
	unsigned int q, lo, hi;
	double gap = 0;

	for (q = 0; q < n; q++)
		runmax[q] = q && runmax[q - 1] > r[q] ? runmax[q - 1] : r[q];
	for (q = 1; q < n; q++) {
		if (runmax[q - 1] <= r[q])
			continue;
		for (lo = 0, hi = q - 1; lo < hi;) {
			unsigned int mid = (lo + hi) / 2;

			if (runmax[mid] > r[q])
				hi = mid;
			else
				lo = mid + 1;
		}
		gap = fmax(gap, s[q] - s[lo]);
	}
	return gap;
}

int order_changes_compute(const struct cycle_table *t, struct order_changes *o)
{
	unsigned int n = t->jobs, c, k;
	unsigned int *prev = malloc(n * sizeof(*prev));
	unsigned int *cur = malloc(n * sizeof(*cur));
	unsigned int *rank = malloc(n * sizeof(*rank));
	unsigned int *r = malloc(n * sizeof(*r));
	unsigned int *tmp = malloc(n * sizeof(*tmp));
	double *s = malloc(n * sizeof(*s));
	int ret = -1;

	memset(o, 0, sizeof(*o));
	if (!prev || !cur || !rank || !r || !tmp || !s)
		goto out;
	for (c = 0; c < t->cycles; c++) {
		unsigned int *swap;
		uint64_t d;

		firing_order(t, c, cur);
		if (c > 0) {
			/* Rank in row c of each job, listed in row c-1's order. */
			for (k = 0; k < n; k++)
				rank[cur[k]] = k;
			for (k = 0; k < n; k++) {
				r[k] = rank[prev[k]];
				s[k] = (double)t->start[(size_t)(c - 1) * n + prev[k]];
			}
			o->max_swap_gap_ns = fmax(o->max_swap_gap_ns,
						  widest_swap(r, s, tmp, n));
			d = count_inversions(r, tmp, n);
			o->transitions++;
			o->changed += d > 0;
			o->swaps += d;
			if (d > o->max_swaps)
				o->max_swaps = d;
		}
		swap = prev;
		prev = cur;
		cur = swap;
	}
	ret = 0;
out:
	free(prev);
	free(cur);
	free(rank);
	free(r);
	free(tmp);
	free(s);
	return ret;
}

static const char *const pair_set_names[] = {
	[PAIRS_AUTO] = "auto", [PAIRS_ALL] = "all",
	[PAIRS_NEIGHBOURS] = "neighbours", [PAIRS_NONE] = "none",
};

const char *pair_set_name(enum pair_set set)
{
	return pair_set_names[set];
}

enum pair_set pair_set_resolve(enum pair_set set, const struct cycle_table *t)
{
	if (set != PAIRS_AUTO)
		return set;
	return t->jobs <= PAIRS_ALL_MAX_JOBS ? PAIRS_ALL : PAIRS_NEIGHBOURS;
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
	struct fnblk_linfit fit;
	struct fnblk_linfit_result res;
	double ss = 0, s = 0, mx = 0;
	unsigned int c;

	fnblk_linfit_init(&fit);
	for (c = 0; c < m->points; c++) {
		double d = m->gap[c + 1] - m->gap[c];

		fnblk_linfit_add(&fit, m->gap[c], m->gap[c + 1]);
		s += d;
		ss += d * d;
		mx = fmax(mx, fabs(d));
	}
	m->mean_step = m->points ? s / m->points : 0;
	m->rms_step = m->points ? sqrt(ss / m->points) : 0;
	m->max_step = mx;
	fnblk_linfit_solve(&fit, &res);
	m->slope = res.b;
	m->intercept = res.a;
}

static int pair_map_fill(const struct cycle_table *t, unsigned int i,
			 unsigned int j, struct pair_map *m)
{
	unsigned int c, n = t->jobs;

	m->i = i;
	m->j = j;
	m->points = t->cycles ? t->cycles - 1 : 0;
	m->gap = malloc((t->cycles ? t->cycles : 1) * sizeof(double));
	if (!m->gap)
		return -1;
	for (c = 0; c < t->cycles; c++)
		m->gap[c] = (double)t->start[(size_t)c * n + j] -
			    (double)t->start[(size_t)c * n + i];
	fit_map(m);
	return 0;
}

int pair_maps_compute(const struct cycle_table *t, enum pair_set set,
		      struct pair_map **maps, size_t *nr)
{
	unsigned int i, j, n = t->jobs, *order = NULL;
	size_t k = 0, total;
	struct pair_map *m;

	*maps = NULL;
	*nr = 0;
	set = pair_set_resolve(set, t);
	if (set == PAIRS_NONE || n < 2 || !t->cycles)
		return 0;
	total = set == PAIRS_ALL ? (size_t)n * (n - 1) / 2 : n - 1;
	m = calloc(total, sizeof(*m));
	if (set == PAIRS_NEIGHBOURS) {
		order = malloc(n * sizeof(*order));
		if (order)
			firing_order(t, 0, order);
	}
	if (!m || (set == PAIRS_NEIGHBOURS && !order))
		goto fail;
	if (set == PAIRS_ALL) {
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++, k++)
				if (pair_map_fill(t, i, j, &m[k]))
					goto fail;
	} else {
		for (k = 0; k + 1 < n; k++)
			if (pair_map_fill(t, order[k], order[k + 1], &m[k]))
				goto fail;
	}
	free(order);
	*maps = m;
	*nr = total;
	return 0;
fail:
	pair_maps_free(m, k);
	free(order);
	return -1;
}

void pair_maps_pool(const struct pair_map *maps, size_t nr,
		    struct fnblk_linfit *fit)
{
	size_t i;
	unsigned int c;

	for (i = 0; i < nr; i++)
		for (c = 0; c < maps[i].points; c++)
			fnblk_linfit_add(fit, maps[i].gap[c],
					 maps[i].gap[c + 1] - maps[i].gap[c]);
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
		r->median[k] = fnblk_median(v, used);
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
