// SPDX-License-Identifier: GPL-2.0
/* Several hosts' event files as one run (see hosts.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "concurrency.h"
#include "fleet.h"
#include "hosts.h"
#include "units.h"


static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* names[k], or "host K" without names. */
static const char *host_name(const char *const *names, unsigned int k,
			     char *buf, size_t len)
{
	if (names)
		return names[k];
	snprintf(buf, len, "host %u", k);
	return buf;
}

static int offset_of(const struct fnblk_events *e, int64_t *off)
{
	const char *p = fnblk_events_param(e, "clock_offset_ns");
	char *end;
	long long v;

	*off = 0;
	if (!p)
		return 0;
	errno = 0;
	v = strtoll(p, &end, 10);
	if (errno || end == p || *end)
		return -1;
	*off = v;
	return 0;
}

/* t + off, or -1 if it leaves the clock's range. */
static int shift(uint64_t t, int64_t off, uint64_t *out)
{
	if (off < 0 && t < (uint64_t)-(off + 1) + 1)
		return -1;
	if (off > 0 && t > UINT64_MAX - (uint64_t)off)
		return -1;
	*out = t + (uint64_t)off;
	return 0;
}

/* Parameters that are per host or per job, never kept as they are. */
static int per_host_param(const char *name)
{
	static const char *const names[] = {
		"jobs", "start_ns", "clock_offset_ns", "host_jobs", "solo_ns",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return !strncmp(name, "solo_ns.", 8) || !strncmp(name, "plan.", 5);
}

static int keep_common_params(struct fnblk_events *out,
			      const struct fnblk_events *in, unsigned int nr)
{
	size_t i;
	unsigned int k;

	for (i = 0; i < in[0].nr_params; i++) {
		const char *name = in[0].params[i].name;
		const char *value = in[0].params[i].value;
		int same = 1;

		if (per_host_param(name))
			continue;
		for (k = 1; k < nr && same; k++) {
			const char *v = fnblk_events_param(&in[k], name);

			same = v && !strcmp(v, value);
		}
		if (same && fnblk_events_set_param(out, name, value))
			return -1;
	}
	return 0;
}

/* solo_ns.J and plan.J of one host, renumbered from first. */
static int job_params(struct fnblk_events *out, const struct fnblk_events *in,
		      unsigned int jobs, unsigned int first)
{
	const char *all = fnblk_events_param(in, "solo_ns"), *v;
	char name[48];
	unsigned int j;

	for (j = 0; j < jobs; j++) {
		snprintf(name, sizeof(name), "solo_ns.%u", j);
		v = fnblk_events_param(in, name);
		if (!v)
			v = all;
		snprintf(name, sizeof(name), "solo_ns.%u", first + j);
		if (v && fnblk_events_set_param(out, name, v))
			return -1;
		snprintf(name, sizeof(name), "plan.%u", j);
		v = fnblk_events_param(in, name);
		snprintf(name, sizeof(name), "plan.%u", first + j);
		if (v && fnblk_events_set_param(out, name, v))
			return -1;
	}
	return 0;
}

/* The comma list of jobs per host. */
static char *host_jobs_list(const struct fnblk_hosts *h)
{
	size_t len = (size_t)h->nr * 12 + 1, at = 0;
	char *s = malloc(len);
	unsigned int k;

	if (!s)
		return NULL;
	s[0] = '\0';
	for (k = 0; k < h->nr; k++)
		at += snprintf(s + at, len - at, "%s%u", k ? "," : "",
			       h->first_job[k + 1] - h->first_job[k]);
	return s;
}

static int merge_meta(struct fnblk_events *out, const struct fnblk_hosts *h,
		      const struct fnblk_events *in, uint64_t start)
{
	char buf[32], *list;
	int ret;

	if (in[0].source && fnblk_events_set_source(out, in[0].source))
		return -1;
	snprintf(buf, sizeof(buf), "%u", h->first_job[h->nr]);
	if (fnblk_events_set_param(out, "jobs", buf))
		return -1;
	snprintf(buf, sizeof(buf), "%u", h->nr);
	if (fnblk_events_set_param(out, "hosts", buf))
		return -1;
	list = host_jobs_list(h);
	if (!list)
		return -1;
	ret = fnblk_events_set_param(out, "host_jobs", list);
	free(list);
	if (ret || start == UINT64_MAX)
		return ret;
	snprintf(buf, sizeof(buf), "%" PRIu64, start);
	return fnblk_events_set_param(out, "start_ns", buf);
}

int fnblk_hosts_merge(struct fnblk_events *out, struct fnblk_hosts *h,
		      const struct fnblk_events *in, const char *const *names,
		      unsigned int nr, char *err, size_t errlen)
{
	uint64_t start = UINT64_MAX, t;
	unsigned int k, total = 0;
	char nb[32];
	const char *why;
	int64_t off;
	size_t i;

	memset(h, 0, sizeof(*h));
	if (!nr || nr > FNBLK_HOSTS_MAX)
		return fail(err, errlen, "%u hosts: 1 to %u", nr, FNBLK_HOSTS_MAX);
	h->first_job = calloc(nr + 1, sizeof(*h->first_job));
	if (!h->first_job)
		return fail(err, errlen, "out of memory");
	h->nr = nr;
	for (k = 0; k < nr; k++) {
		unsigned int jobs = fnblk_events_jobs(&in[k], FLEET_JOBS_MAX);

		if (!jobs)
			goto bad_jobs;
		if (total + jobs > FLEET_JOBS_MAX)
			return fnblk_hosts_free(h),
			       fail(err, errlen, "%s: more than %u jobs in all hosts",
				    host_name(names, k, nb, sizeof(nb)), FLEET_JOBS_MAX);
		h->first_job[k] = total;
		total += jobs;
		if (fnblk_events_check_jobs(&in[k], jobs, nb, sizeof(nb)))
			return fnblk_hosts_free(h),
			       fail(err, errlen, "%s: has writes beyond its %u jobs",
				    host_name(names, k, nb, sizeof(nb)), jobs);
	}
	h->first_job[nr] = total;
	if (keep_common_params(out, in, nr))
		goto oom;
	for (k = 0; k < nr; k++) {
		const char *s = fnblk_events_param(&in[k], "start_ns");
		uint64_t v;

		if (offset_of(&in[k], &off))
			return fnblk_hosts_free(h),
			       fail(err, errlen, "%s: clock_offset_ns=%s is not a whole number of ns",
				    host_name(names, k, nb, sizeof(nb)),
				    fnblk_events_param(&in[k], "clock_offset_ns"));
		if (job_params(out, &in[k], h->first_job[k + 1] - h->first_job[k],
			       h->first_job[k]))
			goto oom;
		if (s && !fnblk_parse_uint(s, 0, UINT64_MAX, &v, &why) &&
		    !shift(v, off, &t) && t < start)
			start = t;
		for (i = 0; i < in[k].nr; i++) {
			struct fnblk_event ev = in[k].ev[i];

			ev.job += h->first_job[k];
			if (shift(ev.start_ns, off, &ev.start_ns) ||
			    shift(ev.end_ns, off, &ev.end_ns))
				return fnblk_hosts_free(h),
				       fail(err, errlen, "%s: clock_offset_ns=%" PRId64
					    " moves a time out of range",
					    host_name(names, k, nb, sizeof(nb)), off);
			if (!fnblk_events_param(&in[k], "start_ns") && ev.start_ns < start)
				start = ev.start_ns;
			if (fnblk_events_add(out, &ev))
				goto oom;
		}
	}
	if (merge_meta(out, h, in, start))
		goto oom;
	return 0;
bad_jobs:
	fnblk_hosts_free(h);
	return fail(err, errlen, "%s: no jobs (no jobs param, no writes)",
		    host_name(names, k, nb, sizeof(nb)));
oom:
	fnblk_hosts_free(h);
	return fail(err, errlen, "out of memory");
}

int fnblk_hosts_from_params(const struct fnblk_events *e, unsigned int jobs,
			    struct fnblk_hosts *h, char *err, size_t errlen)
{
	const char *p = fnblk_events_param(e, "host_jobs");
	unsigned int nr = 1, k = 0, total = 0;
	const char *c;

	memset(h, 0, sizeof(*h));
	if (!p)
		return 0;
	for (c = p; *c; c++)
		nr += *c == ',';
	if (nr > FNBLK_HOSTS_MAX)
		return fail(err, errlen, "host_jobs=%.40s: more than %u hosts", p,
			    FNBLK_HOSTS_MAX);
	h->first_job = calloc(nr + 1, sizeof(*h->first_job));
	if (!h->first_job)
		return fail(err, errlen, "out of memory");
	h->nr = nr;
	for (c = p; k < nr; k++) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(c, &end, 10);
		if (errno || end == c || (*end && *end != ',') || !v ||
		    v > FLEET_JOBS_MAX || total + v > FLEET_JOBS_MAX) {
			fnblk_hosts_free(h);
			return fail(err, errlen, "host_jobs=%.40s: not a list of job counts",
				    p);
		}
		h->first_job[k] = total;
		total += v;
		c = *end ? end + 1 : end;
	}
	h->first_job[nr] = total;
	if (total != jobs) {
		fnblk_hosts_free(h);
		return fail(err, errlen, "host_jobs=%.40s: %u jobs, the file has %u",
			    p, total, jobs);
	}
	return 0;
}

unsigned int fnblk_hosts_of_job(const struct fnblk_hosts *h, unsigned int job)
{
	unsigned int lo = 0, hi = h->nr;

	if (!h->nr || job >= h->first_job[h->nr])
		return h->nr;
	while (hi - lo > 1) {	/* first_job[lo] <= job < first_job[hi] */
		unsigned int mid = lo + (hi - lo) / 2;

		if (h->first_job[mid] <= job)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void fnblk_hosts_free(struct fnblk_hosts *h)
{
	free(h->first_job);
	memset(h, 0, sizeof(*h));
}

struct host_walk {
	double *busy_ns;
	uint64_t last;
	unsigned int n;
};

static void host_step(void *arg, uint64_t t, unsigned int host, int writing,
		      unsigned int n)
{
	struct host_walk *w = arg;

	(void)host;
	(void)writing;
	w->busy_ns[w->n] += (double)(t - w->last);
	w->last = t;
	w->n = n;
}

/*
 * The concurrency walk over a copy of e whose jobs are the hosts: it
 * counts a host with several writes in flight (of several jobs) as one
 * writer, as it does a job's overlapping writes.
 */
int fnblk_hosts_concurrency(const struct fnblk_events *e,
			    const struct fnblk_hosts *h, unsigned int skip,
			    double *busy_ns, struct fnblk_host_stats *st)
{
	struct fnblk_events by_host;
	struct host_walk w = { .busy_ns = busy_ns };
	uint64_t from, to;
	unsigned int k;
	size_t i;
	int ret = 0;

	for (k = 0; k <= h->nr; k++)
		busy_ns[k] = 0;
	for (k = 0; k < h->nr; k++) {
		memset(&st[k], 0, sizeof(st[k]));
		st[k].jobs = h->first_job[k + 1] - h->first_job[k];
	}
	fnblk_events_init(&by_host);
	for (i = 0; i < e->nr && !ret; i++) {
		struct fnblk_event ev = e->ev[i];

		ev.job = fnblk_hosts_of_job(h, ev.job);
		if (ev.job >= h->nr || ev.cycle < skip)
			continue;
		st[ev.job].writes++;
		st[ev.job].bytes += ev.bytes;
		st[ev.job].write_ns += (double)(ev.end_ns - ev.start_ns);
		ret = fnblk_events_add(&by_host, &ev);
	}
	if (!ret && by_host.nr) {
		ret = fnblk_concurrency_walk(&by_host, h->nr, 0, &from, &to,
					     host_step, &w);
		/* The window starts at from, not 0; its end closes the last step. */
		if (!ret) {
			busy_ns[0] -= (double)from;
			busy_ns[w.n] += (double)(to - w.last);
		}
	}
	fnblk_events_free(&by_host);
	return ret;
}
