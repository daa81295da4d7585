// SPDX-License-Identifier: GPL-2.0
/* Memory, pressure and CPU while the jobs run (see sampler.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"
#include "worker.h"

static const char *const series_keys[MX_MEMSTAT_SERIES] = {
	"file", "anon", "file_dirty", "file_writeback",
};
/* Without cgroups: the system's, from /proc/meminfo (kB). */
static const char *const meminfo_keys[MX_MEMSTAT_SERIES] = {
	"Cached:", "AnonPages:", "Dirty:", "Writeback:",
};

static const char *const counter_keys[MX_MEMSTAT_COUNTERS] = {
	"pgfault", "pgmajfault", "pgscan", "pgsteal", "pgscan_direct",
	"pgsteal_direct", "workingset_refault_file",
	"workingset_activate_file", "workingset_restore_file", "pgactivate",
};

int mx_sampler_init(struct mx_sampler *s, const struct fnblk_cgroup_set *cg,
		    unsigned int jobs, const pid_t *pids)
{
	memset(s, 0, sizeof(*s));
	s->cg = cg;
	s->jobs = jobs;
	s->pids = pids;
	s->job_events = calloc(2 * (size_t)jobs, sizeof(*s->job_events));
	s->job_peak = calloc(jobs, sizeof(*s->job_peak));
	mx_waits_init(&s->waits);
	return s->job_events && s->job_peak ? 0 : -1;
}

static void job_dir(const struct mx_sampler *s, unsigned int job, char *out,
		    size_t len)
{
	fnblk_cgroup_job_dir(s->cg, job, out, len);
}

/* /proc/meminfo or /proc/vmstat style "key value" lines. */
static void read_proc_keyed(const char *file, const char *const *keys,
			    uint64_t *vals, unsigned int n, uint64_t scale)
{
	char key[128];
	unsigned long long v;
	FILE *f = fopen(file, "re");

	if (!f)
		return;
	while (fscanf(f, "%127s %llu%*[^\n]", key, &v) == 2)
		for (unsigned int i = 0; i < n; i++)
			if (!strcmp(key, keys[i]))
				vals[i] = v * scale;
	fclose(f);
}

static void read_cpu(struct mx_cpu_times *c)
{
	FILE *f = fopen("/proc/stat", "re");
	unsigned long long v[8] = { 0 };

	memset(c, 0, sizeof(*c));
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8)
		*c = (struct mx_cpu_times){ v[0], v[1], v[2], v[3], v[4], v[5],
					    v[6], v[7] };
	fclose(f);
}

static void read_counters(const struct mx_sampler *s, uint64_t *vals)
{
	memset(vals, 0, MX_MEMSTAT_COUNTERS * sizeof(*vals));
	if (s->cg)
		fnblk_cgroup_read_keyed(s->cg->dir, "memory.stat", counter_keys,
					vals, MX_MEMSTAT_COUNTERS);
	else
		read_proc_keyed("/proc/vmstat", counter_keys, vals,
				MX_MEMSTAT_COUNTERS, 1);
}

static void snapshot(struct mx_sampler *s, int when)
{
	char dir[PATH_MAX];

	read_counters(s, s->counters[when]);
	read_cpu(&s->cpu[when]);
	if (!s->cg)
		return;
	s->have_io = !fnblk_cgroup_pressure(s->cg->dir, "io", &s->io[when]);
	s->have_mem = !fnblk_cgroup_pressure(s->cg->dir, "memory", &s->mem[when]);
	fnblk_cgroup_memory_events(s->cg->dir, &s->events[when]);
	for (unsigned int j = 0; j < s->jobs; j++) {
		job_dir(s, j, dir, sizeof(dir));
		fnblk_cgroup_memory_events(dir, &s->job_events[2 * j + when]);
	}
}

void mx_sampler_begin(struct mx_sampler *s)
{
	s->t0 = mx_now_ns();
	snapshot(s, 0);
}

static int grow(struct mx_sampler *s)
{
	size_t cap = s->cap ? 2 * s->cap : 256;
	void *p;

#define GROW(field, per) do {						\
		p = realloc(s->field, cap * (per) * sizeof(*s->field));	\
		if (!p)							\
			return -1;					\
		s->field = p;						\
	} while (0)
	GROW(t_ns, 1);
	GROW(current, 1);
	for (unsigned int k = 0; k < MX_MEMSTAT_SERIES; k++)
		GROW(stat[k], 1);
	GROW(job_current, s->jobs);
	for (unsigned int k = 0; k < 3; k++)
		GROW(workers[k], 1);
#undef GROW
	s->cap = cap;
	return 0;
}

void mx_sampler_tick(struct mx_sampler *s)
{
	uint64_t vals[MX_MEMSTAT_SERIES] = { 0 }, cur = 0;
	char dir[PATH_MAX];
	size_t i = s->nr;

	mx_waits_tick(&s->waits, s->pids, s->jobs);
	if (s->nr == s->cap && grow(s))
		return;
	if (s->cg) {
		fnblk_cgroup_read_u64(s->cg->dir, "memory.current", &cur);
		fnblk_cgroup_read_keyed(s->cg->dir, "memory.stat", series_keys,
					vals, MX_MEMSTAT_SERIES);
	} else {
		read_proc_keyed("/proc/meminfo", meminfo_keys, vals,
				MX_MEMSTAT_SERIES, 1024);
	}
	s->t_ns[i] = mx_now_ns() - s->t0;
	s->current[i] = cur;
	for (unsigned int k = 0; k < MX_MEMSTAT_SERIES; k++)
		s->stat[k][i] = vals[k];
	for (unsigned int j = 0; j < s->jobs; j++) {
		uint64_t v = 0;

		if (s->cg) {
			job_dir(s, j, dir, sizeof(dir));
			fnblk_cgroup_read_u64(dir, "memory.current", &v);
		}
		s->job_current[i * s->jobs + j] = v;
	}
	for (unsigned int k = 0; k < 3; k++)
		s->workers[k][i] = s->waits.now[k];
	s->nr++;
}

void mx_sampler_end(struct mx_sampler *s)
{
	char dir[PATH_MAX];

	s->t1 = mx_now_ns();
	snapshot(s, 1);
	if (!s->cg)
		return;
	fnblk_cgroup_read_u64(s->cg->dir, "memory.peak", &s->peak);
	for (unsigned int j = 0; j < s->jobs; j++) {
		job_dir(s, j, dir, sizeof(dir));
		fnblk_cgroup_read_u64(dir, "memory.peak", &s->job_peak[j]);
	}
}

void mx_sampler_job_events(const struct mx_sampler *s, unsigned int job,
			   struct fnblk_memory_events *before,
			   struct fnblk_memory_events *now)
{
	char dir[PATH_MAX];

	*before = s->job_events[2 * job];
	memset(now, 0, sizeof(*now));
	job_dir(s, job, dir, sizeof(dir));
	fnblk_cgroup_memory_events(dir, now);
}

static json_t *events_json(const struct fnblk_memory_events *a,
			   const struct fnblk_memory_events *b)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}",
			 "low", (json_int_t)(b->low - a->low),
			 "high", (json_int_t)(b->high - a->high),
			 "max", (json_int_t)(b->max - a->max),
			 "oom", (json_int_t)(b->oom - a->oom),
			 "oom_kill", (json_int_t)(b->oom_kill - a->oom_kill),
			 "oom_group_kill", (json_int_t)(b->oom_group_kill - a->oom_group_kill));
}

static json_t *u64_array(const uint64_t *v, size_t n, size_t stride)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i * stride]));
	return a;
}

static json_t *uint_array(const unsigned int *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static uint64_t series_max(const uint64_t *v, size_t n, size_t stride)
{
	uint64_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i * stride] > m)
			m = v[i * stride];
	return m;
}

static json_t *pressure_json(const struct fnblk_pressure *p, double elapsed_us)
{
	return json_pack("{s:f, s:f, s:I, s:I}",
			 "some_share", (double)(p[1].some_us - p[0].some_us) / elapsed_us,
			 "full_share", (double)(p[1].full_us - p[0].full_us) / elapsed_us,
			 "some_us", (json_int_t)(p[1].some_us - p[0].some_us),
			 "full_us", (json_int_t)(p[1].full_us - p[0].full_us));
}

static json_t *cpu_json(const struct mx_cpu_times *c)
{
	uint64_t d[8] = {
		c[1].user - c[0].user, c[1].nice - c[0].nice,
		c[1].system - c[0].system, c[1].idle - c[0].idle,
		c[1].iowait - c[0].iowait, c[1].irq - c[0].irq,
		c[1].softirq - c[0].softirq, c[1].steal - c[0].steal,
	};
	double total = 0;

	for (unsigned int i = 0; i < 8; i++)
		total += (double)d[i];
	if (total <= 0)
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:f}",
			 "user_share", (double)(d[0] + d[1]) / total,
			 "system_share", (double)(d[2] + d[5] + d[6]) / total,
			 "iowait_share", (double)d[4] / total,
			 "idle_share", (double)d[3] / total);
}

json_t *mx_sampler_json(const struct mx_sampler *s)
{
	double elapsed_us = (double)(s->t1 - s->t0) / 1000.0;
	json_t *o = json_object(), *mem = json_object(), *series = json_object();
	json_t *counters = json_object(), *jobs = json_array();

	json_object_set_new(mem, "scope", json_string(s->cg ? "cgroup" : "system"));
	if (s->cg) {
		uint64_t max = 0;

		json_object_set_new(mem, "cgroup", json_string(s->cg->dir));
		fnblk_cgroup_read_u64(s->cg->dir, "memory.max", &max);
		json_object_set_new(mem, "max", max == UINT64_MAX ? json_null() :
				    json_integer((json_int_t)max));
		json_object_set_new(mem, "peak", json_integer((json_int_t)(s->peak ? s->peak :
				    series_max(s->current, s->nr, 1))));
		json_object_set_new(mem, "events", events_json(&s->events[0], &s->events[1]));
	}
	for (unsigned int k = 0; k < MX_MEMSTAT_COUNTERS; k++)
		json_object_set_new(counters, counter_keys[k], json_integer(
				(json_int_t)(s->counters[1][k] - s->counters[0][k])));
	json_object_set_new(mem, "counters", counters);
	json_object_set_new(series, "t_ns", u64_array(s->t_ns, s->nr, 1));
	if (s->cg)
		json_object_set_new(series, "current", u64_array(s->current, s->nr, 1));
	for (unsigned int k = 0; k < MX_MEMSTAT_SERIES; k++)
		json_object_set_new(series, series_keys[k], u64_array(s->stat[k], s->nr, 1));
	json_object_set_new(series, "workers_running", uint_array(s->workers[0], s->nr));
	json_object_set_new(series, "workers_uninterruptible",
			    uint_array(s->workers[1], s->nr));
	json_object_set_new(series, "workers_sleeping", uint_array(s->workers[2], s->nr));
	for (unsigned int j = 0; s->cg && j < s->jobs; j++)
		json_array_append_new(jobs, u64_array(s->job_current + j, s->nr, s->jobs));
	if (s->cg)
		json_object_set_new(series, "job_current", jobs);
	else
		json_decref(jobs);
	json_object_set_new(mem, "series", series);
	json_object_set_new(o, "memory", mem);
	if (s->have_io || s->have_mem) {
		json_t *p = json_object();

		if (s->have_io)
			json_object_set_new(p, "io", pressure_json(s->io, elapsed_us));
		if (s->have_mem)
			json_object_set_new(p, "memory", pressure_json(s->mem, elapsed_us));
		json_object_set_new(o, "pressure", p);
	}
	json_object_set_new(o, "cpu", cpu_json(s->cpu));
	json_object_set_new(o, "threads", mx_waits_json(&s->waits));
	return o;
}

json_t *mx_sampler_job_json(const struct mx_sampler *s, unsigned int job)
{
	struct fnblk_memory_events now;
	char dir[PATH_MAX];

	if (!s->cg)
		return json_null();
	job_dir(s, job, dir, sizeof(dir));
	now = s->job_events[2 * job + 1];
	return json_pack("{s:s, s:I, s:o}", "cgroup", dir,
			 "peak", (json_int_t)(s->job_peak[job] ? s->job_peak[job] :
				series_max(s->job_current + job, s->nr, s->jobs)),
			 "events", events_json(&s->job_events[2 * job], &now));
}

void mx_sampler_free(struct mx_sampler *s)
{
	free(s->t_ns);
	free(s->current);
	for (unsigned int k = 0; k < MX_MEMSTAT_SERIES; k++)
		free(s->stat[k]);
	free(s->job_current);
	for (unsigned int k = 0; k < 3; k++)
		free(s->workers[k]);
	free(s->job_events);
	free(s->job_peak);
}
