// SPDX-License-Identifier: GPL-2.0
/* The phase-blindness theory in the discrete-event model; see theory.h. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "theory.h"

double theory_f(const struct fnblk_fn *fn, unsigned int n)
{
	return (double)fnblk_fn_value(fn, n) / FNBLK_FN_ONE;
}

double theory_lambda(const struct fnblk_fn *fn, unsigned int n,
		     unsigned int j)
{
	return (double)(n - j) * theory_f(fn, j) /
	       ((double)j * theory_f(fn, n - j));
}

unsigned int theory_expanding(const struct fnblk_fn *fn, unsigned int n)
{
	unsigned int j, count = 0;

	/* lambda_j > 1 exactly when (N-j) f(j) > j f(N-j): compare integers. */
	for (j = 1; j < n; j++)
		if ((uint64_t)(n - j) * fnblk_fn_value(fn, j) >
		    (uint64_t)j * fnblk_fn_value(fn, n - j))
			count++;
	return count;
}

/* Jobs with given first write starts, then T, for a few cycles. */
struct fixed_fleet {
	const uint64_t *start;
	uint64_t compute_ns;
	uint64_t size;
	unsigned int jobs, cycles;
	uint64_t *starts, *ends;	/* [cycle * jobs + job] */
};

static uint64_t fixed_start(void *ctx, unsigned int job)
{
	return ((struct fixed_fleet *)ctx)->start[job];
}

static uint64_t fixed_compute(void *ctx, unsigned int job, uint64_t cycle)
{
	(void)job;
	return cycle ? ((struct fixed_fleet *)ctx)->compute_ns : 0;
}

static uint64_t fixed_size(void *ctx, unsigned int job, uint64_t cycle)
{
	(void)job;
	(void)cycle;
	return ((struct fixed_fleet *)ctx)->size;
}

static void fixed_write(void *ctx, const struct fnblk_event *ev)
{
	struct fixed_fleet *ff = ctx;

	ff->starts[ev->cycle * ff->jobs + ev->job] = ev->start_ns;
	ff->ends[ev->cycle * ff->jobs + ev->job] = ev->end_ns;
}

static int run_fixed(const struct theory_setup *ts, struct fixed_fleet *ff,
		     char *err, size_t errlen)
{
	struct fnblk_params dev = {
		.bw = ts->bw,
		.policy = ts->policy,
		.users = FNBLK_USERS_ALL,
		.fn = ts->fn,
	};
	struct sim_io io = { .bs = 0, .qd = 1 };	/* one request each */
	struct sim_workload w = {
		.jobs = ff->jobs,
		.cycles = ff->cycles,
		.power_cap = ts->power_cap,
		.ctx = ff,
		.start_ns = fixed_start,
		.compute_ns = fixed_compute,
		.size = fixed_size,
	};
	struct sim_sink sink = { .ctx = ff, .write = fixed_write };
	struct sim_result res;

	ff->compute_ns = ts->compute_ns;
	ff->size = ts->size;
	ff->starts = calloc((size_t)ff->jobs * ff->cycles, sizeof(uint64_t));
	ff->ends = calloc((size_t)ff->jobs * ff->cycles, sizeof(uint64_t));
	if (!ff->starts || !ff->ends) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (sim_run(&dev, &io, &w, &sink, &res, err, errlen))
		return -1;
	if (res.writes != (uint64_t)ff->jobs * ff->cycles) {
		snprintf(err, errlen, "%llu of %llu writes completed",
			 (unsigned long long)res.writes,
			 (unsigned long long)ff->jobs * ff->cycles);
		return -1;
	}
	return 0;
}

static void free_fixed(struct fixed_fleet *ff)
{
	free(ff->starts);
	free(ff->ends);
}

int theory_interval_map(const struct theory_setup *ts, unsigned int n,
			const uint64_t *a, double *a_next,
			struct theory_cycle *cyc, char *err, size_t errlen)
{
	struct fixed_fleet ff = { .jobs = n, .cycles = 2 };
	uint64_t *start = calloc(n, sizeof(*start)), first_end, last_end;
	unsigned int k;
	int ret = -1;

	if (!start) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (k = 1; k < n; k++)
		start[k] = start[k - 1] + a[k - 1];
	ff.start = start;
	if (run_fixed(ts, &ff, err, errlen))
		goto out;

	first_end = ff.ends[0];
	last_end = ff.ends[0];
	cyc->order_kept = true;
	for (k = 1; k < n; k++) {
		if (ff.ends[k] < first_end)
			first_end = ff.ends[k];
		if (ff.ends[k] > last_end)
			last_end = ff.ends[k];
		if (ff.starts[n + k] < ff.starts[n + k - 1])
			cyc->order_kept = false;
	}
	cyc->overlap = start[n - 1] < first_end;
	cyc->separated = ff.starts[n] >= last_end;
	for (k = 0; k + 1 < n; k++)
		a_next[k] = (double)ff.starts[n + k + 1] -
			    (double)ff.starts[n + k];
	ret = 0;
out:
	free_fixed(&ff);
	free(start);
	return ret;
}

double theory_fluid_map(const struct theory_setup *ts, unsigned int n,
			const double *a, double *a_next)
{
	/*
	 * long double: the intervals come out as differences of end times
	 * a hundred times larger, so double would leave 1e-12 of cancellation.
	 */
	long double bw = (long double)ts->bw * 1e-9L;	/* bytes per ns */
	long double t = 0, v = 0, rate, left, next_start = 0;
	long double mark[THEORY_MAX_JOBS], end[THEORY_MAX_JOBS];
	bool done[THEORY_MAX_JOBS] = { false };
	unsigned int started = 0, writing = 0, k, first;

	/*
	 * Job k starts at a[0] + ... + a[k-1] and ends when V, the bytes each
	 * writer has received, has grown by S since its start.
	 */
	while (started < n || writing) {
		rate = writing ? theory_f(&ts->fn, writing) * bw / writing : 0;
		first = n;
		for (k = 0; k < started; k++)
			if (!done[k] && (first == n || mark[k] < mark[first]))
				first = k;
		left = first < n ? (mark[first] - v) / rate : (long double)INFINITY;
		if (started < n && next_start <= t + left) {
			v += (next_start - t) * rate;
			t = next_start;
			mark[started] = v + (long double)ts->size;
			if (started + 1 < n)
				next_start += a[started];
			started++;
			writing++;
		} else {
			t += left;
			v = mark[first];
			end[first] = t;
			done[first] = true;
			writing--;
		}
	}
	/* Each job computes T, so the next starts are the ends plus T. */
	for (k = 0; k + 1 < n; k++)
		a_next[k] = (double)(end[k + 1] - end[k]);
	return (double)t;
}

double theory_fluid_error_ns(unsigned int n, double last_end)
{
	/* Two end times, each after 2n rounded steps of relative LDBL_EPSILON. */
	return 4.0 * n * LDBL_EPSILON * last_end + 2 * DBL_EPSILON * last_end;
}

int theory_jacobian(const struct theory_setup *ts, unsigned int n,
		    const uint64_t *a, uint64_t delta, double *jac,
		    char *err, size_t errlen)
{
	unsigned int k = n - 1, i, r;
	uint64_t *ap = malloc(k * sizeof(*ap));
	double *base = malloc(k * sizeof(*base));
	double *moved = malloc(k * sizeof(*moved));
	struct theory_cycle cyc;
	int ret = -1;

	if (!ap || !base || !moved) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (theory_interval_map(ts, n, a, base, &cyc, err, errlen))
		goto out;
	for (i = 0; i < k; i++) {
		memcpy(ap, a, k * sizeof(*ap));
		ap[i] += delta;
		if (theory_interval_map(ts, n, ap, moved, &cyc, err, errlen))
			goto out;
		if (!cyc.overlap || !cyc.separated) {
			snprintf(err, errlen,
				 "perturbed interval %u leaves the overlapping regime",
				 i + 1);
			goto out;
		}
		for (r = 0; r < k; r++)
			jac[r * k + i] = (moved[r] - base[r]) / (double)delta;
	}
	ret = 0;
out:
	free(ap);
	free(base);
	free(moved);
	return ret;
}

double theory_det(double *m, unsigned int k)
{
	unsigned int col, row, best, c;
	double det = 1.0, t, factor;

	for (col = 0; col < k; col++) {
		best = col;
		for (row = col + 1; row < k; row++)
			if (fabs(m[row * k + col]) > fabs(m[best * k + col]))
				best = row;
		if (m[best * k + col] == 0.0)
			return 0.0;
		if (best != col) {
			for (c = 0; c < k; c++) {
				t = m[col * k + c];
				m[col * k + c] = m[best * k + c];
				m[best * k + c] = t;
			}
			det = -det;
		}
		det *= m[col * k + col];
		for (row = col + 1; row < k; row++) {
			factor = m[row * k + col] / m[col * k + col];
			for (c = col; c < k; c++)
				m[row * k + c] -= factor * m[col * k + c];
		}
	}
	return det;
}

int theory_gap_map(const struct theory_setup *ts, uint64_t gap,
		   unsigned int cycles, int64_t *gaps, char *err,
		   size_t errlen)
{
	uint64_t start[2] = { 0, gap };
	/*
	 * One cycle more than reported: a job that has written its last
	 * checkpoint stops computing, which frees power for the other.
	 */
	struct fixed_fleet ff = { .start = start, .jobs = 2,
				  .cycles = cycles + 1 };
	unsigned int c;
	int ret = -1;

	if (run_fixed(ts, &ff, err, errlen))
		goto out;
	for (c = 0; c < cycles; c++)
		gaps[c] = (int64_t)(ff.starts[2 * c + 1] - ff.starts[2 * c]);
	ret = 0;
out:
	free_fixed(&ff);
	return ret;
}

double theory_clock_error_ns(unsigned int n)
{
	/*
	 * Each of the 2n ends of a cycle is rounded up to the next ns, and a
	 * rate change at a rounded time shifts later ends by at most as much.
	 */
	return 2.0 * n + 2.0;
}
