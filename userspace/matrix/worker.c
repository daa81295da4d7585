// SPDX-License-Identifier: GPL-2.0
/* Worker threads: accesses, checks, updates, syncs (see worker.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "worker.h"

/* A segment larger than this is got and put in pieces. */
#define MAX_SEGMENT_ELEMS	((4u << 20) / MX_ELEM)

uint64_t mx_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void note_wrong(struct mx_worker *w, uint64_t i, uint64_t j, double x)
{
	if (w->wrong < MX_WRONG_KEPT)
		w->wrong_at[w->wrong] = (struct mx_element_ref){ i, j, x };
	w->wrong++;
}

static void note_update(struct mx_worker *w, uint64_t i, uint64_t j)
{
	w->recent[w->nr_recent++ % MX_RECENT_UPDATES] =
		(struct mx_element_ref){ i, j, 0 };
}

/* Check (or sum) the elements, pack them (xtx), update some. */
static void process(struct mx_worker *w, const struct mx_segment *seg,
		    uint64_t r0, double *x)
{
	const struct mx_work *wk = w->work;
	double sum = 0;

	if (wk->verify) {
		for (uint64_t e = 0; e < seg->n; e++) {
			if (!mx_check(wk->h, seg->row + e, seg->col, x[e], NULL))
				note_wrong(w, seg->row + e, seg->col, x[e]);
			sum += x[e];
		}
		w->verified += seg->n;
	} else {
		for (uint64_t e = 0; e < seg->n; e++)
			sum += x[e];
	}
	w->checksum += sum * 0x1.0p-52;
	if (wk->shape.pattern == MX_PATTERN_XTX)
		mx_gram_pack(&w->gram, seg->col, seg->row - r0, x, seg->n);
	for (uint64_t e; mx_updates_next(&w->updates_left, seg->n, &e);) {
		x[e] = mx_value(wk->h, seg->row + e, seg->col, wk->version);
		note_update(w, seg->row + e, seg->col);
		w->updates++;
		w->dirty = true;
	}
}

struct visit {
	struct mx_worker *w;
	uint64_t r0;		/* first row of the access (xtx packing) */
};

static int segment(void *arg, const struct mx_segment *seg)
{
	struct visit *v = arg;
	struct mx_worker *w = v->w;
	const struct mx_mode *m = w->work->mode->mode;
	uint64_t off = (seg->col * w->work->h->rows + seg->row) * MX_ELEM;
	size_t len = (size_t)seg->n * MX_ELEM;
	unsigned int flags = w->work->write_fraction > 0 ? MX_GET_WRITE : 0;
	void *p;

	if (m->get(&w->mt, off, len, flags, &p, w->error, sizeof(w->error)))
		return -1;
	w->dirty = false;
	process(w, seg, v->r0, p);
	w->elements += seg->n;
	w->access_wrote |= w->dirty;
	if (m->put && m->put(&w->mt, off, len, w->dirty, w->error, sizeof(w->error)))
		return -1;
	return 0;
}

static int timed_sync(struct mx_worker *w)
{
	const struct mx_mode *m = w->work->mode->mode;
	uint64_t t = mx_now_ns();

	if (m->sync(&w->mt, w->error, sizeof(w->error)))
		return -1;
	mx_hist_add(&w->sync_latency, mx_now_ns() - t);
	w->syncs++;
	return 0;
}

static int one_access(struct mx_worker *w, uint64_t k)
{
	struct mx_work *wk = w->work;
	struct visit v = { .w = w };
	uint64_t t = mx_now_ns();

	if (wk->shape.pattern == MX_PATTERN_XTX)
		v.r0 = k % mx_pattern_pass(&wk->shape) * wk->shape.block;
	mx_updates_start(&w->updates_left, &wk->shape, k, wk->write_fraction);
	w->access_wrote = false;
	if (mx_pattern_visit(&wk->shape, k, MAX_SEGMENT_ELEMS, segment, &v))
		return -1;
	if (wk->shape.pattern == MX_PATTERN_XTX)
		mx_gram_add(&w->gram, mx_pattern_elements(&wk->shape, k) / wk->h->cols);
	mx_hist_add(&w->latency, mx_now_ns() - t);
	w->accesses++;
	if (w->access_wrote && wk->sync_every &&
	    (w->accesses % wk->sync_every) == 0)
		return timed_sync(w);
	return 0;
}

static void run(struct mx_worker *w)
{
	struct mx_work *wk = w->work;

	while (!atomic_load(&wk->stop)) {
		uint64_t k;

		if (wk->deadline_ns && mx_now_ns() >= wk->deadline_ns)
			break;
		k = atomic_fetch_add(&wk->next, 1);
		if (wk->limit && k >= wk->limit)
			break;
		if (one_access(w, k)) {
			atomic_store(&wk->stop, true);
			break;
		}
	}
}

static void usage_now(struct rusage *ru)
{
	if (getrusage(RUSAGE_THREAD, ru))
		memset(ru, 0, sizeof(*ru));
}

static uint64_t tv_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000 + (uint64_t)tv->tv_usec;
}

void *mx_worker_main(void *arg)
{
	struct mx_worker *w = arg;
	struct mx_work *wk = w->work;
	const struct mx_mode *m = wk->mode->mode;
	struct mx_delays d0, d1;
	struct rusage r0, r1;
	char name[16];
	bool ready = true;

	w->tid = (pid_t)syscall(SYS_gettid);
	snprintf(name, sizeof(name), "mx-worker-%u", w->mt.id);
	pthread_setname_np(pthread_self(), name);
	mx_hist_init(&w->latency);
	mx_hist_init(&w->sync_latency);
	if (m->thread_init && m->thread_init(&w->mt, w->error, sizeof(w->error)))
		ready = false;
	if (ready && wk->shape.pattern == MX_PATTERN_XTX &&
	    mx_gram_init(&w->gram, wk->h->cols, wk->shape.block)) {
		snprintf(w->error, sizeof(w->error), "out of memory for the xtx sums");
		ready = false;
	}
	if (!ready)
		atomic_store(&wk->stop, true);
	pthread_mutex_lock(&wk->lock);
	wk->ready++;
	pthread_cond_broadcast(&wk->cond);
	while (!wk->go)
		pthread_cond_wait(&wk->cond, &wk->lock);
	pthread_mutex_unlock(&wk->lock);
	if (ready) {
		mx_delays_self(&d0);
		usage_now(&r0);
		w->start_ns = mx_now_ns();
		run(w);
		w->end_ns = mx_now_ns();
		usage_now(&r1);
		mx_delays_self(&d1);
		mx_delays_sub(&w->delays, &d1, &d0, w->end_ns - w->start_ns,
			      &w->delays_implausible);
		w->minflt = (uint64_t)(r1.ru_minflt - r0.ru_minflt);
		w->majflt = (uint64_t)(r1.ru_majflt - r0.ru_majflt);
		w->nvcsw = (uint64_t)(r1.ru_nvcsw - r0.ru_nvcsw);
		w->nivcsw = (uint64_t)(r1.ru_nivcsw - r0.ru_nivcsw);
		w->utime_us = tv_us(&r1.ru_utime) - tv_us(&r0.ru_utime);
		w->stime_us = tv_us(&r1.ru_stime) - tv_us(&r0.ru_stime);
	}
	if (m->thread_exit)
		m->thread_exit(&w->mt);
	return NULL;
}

void mx_work_wait_ready(struct mx_work *wk, unsigned int n)
{
	pthread_mutex_lock(&wk->lock);
	while (wk->ready < n)
		pthread_cond_wait(&wk->cond, &wk->lock);
	pthread_mutex_unlock(&wk->lock);
}

void mx_work_go(struct mx_work *wk)
{
	pthread_mutex_lock(&wk->lock);
	wk->go = true;
	pthread_cond_broadcast(&wk->cond);
	pthread_mutex_unlock(&wk->lock);
}

static json_t *refs_json(const struct mx_element_ref *r, unsigned int n,
			 bool with_value)
{
	json_t *a = json_array();

	for (unsigned int k = 0; k < n; k++) {
		json_t *o = json_pack("{s:I, s:I}", "i", (json_int_t)r[k].i,
				      "j", (json_int_t)r[k].j);

		if (with_value)
			json_object_set_new(o, "found", json_real(r[k].found));
		json_array_append_new(a, o);
	}
	return a;
}

json_t *mx_worker_json(const struct mx_worker *w)
{
	unsigned int kept = w->wrong < MX_WRONG_KEPT ? (unsigned int)w->wrong :
			    MX_WRONG_KEPT;
	json_t *o = json_object();

	json_object_set_new(o, "id", json_integer(w->mt.id));
	json_object_set_new(o, "tid", json_integer(w->tid));
	json_object_set_new(o, "accesses", json_integer((json_int_t)w->accesses));
	json_object_set_new(o, "elements", json_integer((json_int_t)w->elements));
	json_object_set_new(o, "updates", json_integer((json_int_t)w->updates));
	json_object_set_new(o, "verified", json_integer((json_int_t)w->verified));
	json_object_set_new(o, "wrong", json_integer((json_int_t)w->wrong));
	json_object_set_new(o, "wrong_at", refs_json(w->wrong_at, kept, true));
	json_object_set_new(o, "syncs", json_integer((json_int_t)w->syncs));
	json_object_set_new(o, "checksum", json_real(w->checksum));
	json_object_set_new(o, "elapsed_ns", json_integer((json_int_t)(w->end_ns - w->start_ns)));
	json_object_set_new(o, "latency", mx_hist_json(&w->latency));
	json_object_set_new(o, "sync_latency", mx_hist_json(&w->sync_latency));
	json_object_set_new(o, "minflt", json_integer((json_int_t)w->minflt));
	json_object_set_new(o, "majflt", json_integer((json_int_t)w->majflt));
	json_object_set_new(o, "nvcsw", json_integer((json_int_t)w->nvcsw));
	json_object_set_new(o, "nivcsw", json_integer((json_int_t)w->nivcsw));
	json_object_set_new(o, "utime_us", json_integer((json_int_t)w->utime_us));
	json_object_set_new(o, "stime_us", json_integer((json_int_t)w->stime_us));
	json_object_set_new(o, "delays", mx_delays_json(&w->delays));
	if (w->delays_implausible)
		json_object_set_new(o, "delays_implausible", json_true());
	if (w->gram.panels)
		json_object_set_new(o, "xtx_trace", json_real(mx_gram_trace(&w->gram)));
	if (w->error[0])
		json_object_set_new(o, "error", json_string(w->error));
	return o;
}
