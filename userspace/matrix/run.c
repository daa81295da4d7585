// SPDX-License-Identifier: GPL-2.0
/*
 * "fnblk-matrix run" (see run.h). The parent never touches the matrices'
 * data: it prepares (versions, cgroups, cold caches), forks one process
 * per job, starts them together, samples memory, pressure and threads
 * until every job has sent its results and ended, then reports.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/cgroup.h"
#include "../lib/diag.h"
#include "../lib/interrupt.h"
#include "delays.h"
#include "device.h"
#include "job.h"
#include "report.h"
#include "run.h"
#include "sampler.h"
#include "target.h"
#include "worker.h"

struct slot {
	pid_t pid;
	int fd;			/* results, -1 once read to the end */
	char *buf;
	size_t len, cap;
	int status;
	bool reaped;
};

struct run {
	struct mx_run_opts *o;
	struct mx_set set;
	struct mx_member *members;
	struct mx_job_spec *specs;
	struct slot *slots;
	pid_t *pids;
	void *mode_conf;
	struct fnblk_cgroup_set cg;
	bool have_cg;
	char cg_note[640];
	struct mx_device dev;
	struct mx_sampler sampler;
	uint64_t t0;
};

/* Messages speak as the command; fail() says why and returns 1. */
static const struct cli_program *prog;
#define fail(...)	cli_error(prog, __VA_ARGS__)

/* The mode's own options, applied once before any job starts. */
static int apply_mode_args(struct run *r)
{
	struct mx_mode_run mr = { .mode = r->o->mode, .set = &r->o->set };
	char err[256];

	for (unsigned int i = 0; i < r->o->nr_mode_args; i++) {
		const struct mx_mode_arg *a = &r->o->mode_args[i];

		if (r->o->mode->option(&mr, a->name, a->arg, err, sizeof(err)))
			return cli_usage_error(prog, "--%s: %s", a->name, err);
	}
	r->mode_conf = mr.conf;
	return 0;
}

static int open_members(struct run *r)
{
	struct mx_run_opts *o = r->o;
	char err[512];
	unsigned int have;

	if (mx_set_open(o->path, &r->set, err, sizeof(err)))
		return fail("%s", err);
	have = mx_set_count(&r->set);
	if (o->jobs > have)
		return fail("%s holds %u matri%s; --jobs %u needs %u (fnblk-matrix create --jobs %u)",
			    o->path, have, have == 1 ? "x" : "ces", o->jobs, o->jobs, o->jobs);
	r->members = calloc(o->jobs, sizeof(*r->members));
	if (!r->members)
		return fail("out of memory");
	for (unsigned int j = 0; j < o->jobs; j++) {
		struct mx_shape shape;

		if (mx_set_member(&r->set, j, &r->members[j], err, sizeof(err)))
			return fail("%s", err);
		shape = (struct mx_shape){ .rows = r->members[j].h.rows,
					   .cols = r->members[j].h.cols,
					   .pattern = o->pattern,
					   .block = o->block ? o->block :
						    mx_pattern_default_block(o->pattern),
					   .block_cols = o->block_cols };
		if (mx_pattern_check(&shape, err, sizeof(err)))
			return cli_usage_error(prog, "%s", err);
	}
	return 0;
}

/* A run that writes gets the next version of each matrix (layout.h). */
static int bump_versions(struct run *r)
{
	char err[512];

	if (r->o->write_fraction <= 0)
		return 0;
	for (unsigned int j = 0; j < r->o->jobs; j++) {
		struct mx_member *m = &r->members[j];

		m->h.version = m->h.version % MX_VERSION_MAX + 1;
		if (mx_member_write_header(m, err, sizeof(err)))
			return fail("%s", err);
	}
	return 0;
}

static int make_cgroups(struct run *r)
{
	struct mx_run_opts *o = r->o;
	char name[128], err[512];

	if (o->no_cgroup)
		return 0;
	if (fnblk_cgroup_available(err, sizeof(err))) {
		if (o->cgroup || o->memory_max)
			return fail("cgroup: %s", err);
		fnblk_seterr(r->cg_note, sizeof(r->cg_note),
			     "no cgroups (%s): memory is the system's, no pressure, no OOM attribution",
			     err);
		return 0;
	}
	if (o->cgroup)
		snprintf(name, sizeof(name), "%s", o->cgroup);
	else
		snprintf(name, sizeof(name), "fnblk-matrix-%d", (int)getpid());
	if (fnblk_cgroup_create(&r->cg, name, o->jobs, o->memory_max, 0, err,
				sizeof(err)))
		return fail("cgroup: %s", err);
	r->have_cg = true;
	return 0;
}

static int drop_caches(struct run *r)
{
	char err[512];

	if (r->o->keep_cache)
		return 0;
	for (unsigned int j = 0; j < r->o->jobs; j++)
		if (mx_member_drop_cache(&r->members[j], err, sizeof(err)))
			return fail("%s", err);
	return 0;
}

static void fill_specs(struct run *r)
{
	struct mx_run_opts *o = r->o;

	for (unsigned int j = 0; j < o->jobs; j++) {
		struct mx_job_spec *s = &r->specs[j];
		struct mx_shape shape = {
			.rows = r->members[j].h.rows, .cols = r->members[j].h.cols,
			.pattern = o->pattern,
			.block = o->block ? o->block : mx_pattern_default_block(o->pattern),
			.block_cols = o->block_cols,
		};

		*s = (struct mx_job_spec){
			.job = j,
			.member = &r->members[j],
			.pattern = o->pattern,
			.block = shape.block,
			.block_cols = o->block_cols,
			.mode = o->mode,
			.mode_conf = r->mode_conf,
			.set = o->set,
			.write_fraction = o->write_fraction,
			.sync_every = o->sync_every,
			.verify = o->verify,
			.accesses = o->accesses,
			.duration_ns = o->duration_ns,
			.churn_ns = o->churn_ns,
			.version = r->members[j].h.version,
			.seed = o->seed + j,
			.cg = r->have_cg ? &r->cg : NULL,
		};
		if (!o->accesses && !o->duration_ns)
			s->accesses = mx_pattern_pass(&shape);
	}
}

static int start_jobs(struct run *r, int ready[2], int go[2])
{
	unsigned int n = r->o->jobs;

	fflush(NULL);
	for (unsigned int j = 0; j < n; j++) {
		int res[2];

		if (pipe(res))
			return fail("pipe: %s", strerror(errno));
		r->slots[j].pid = fork();
		if (r->slots[j].pid < 0) {
			close(res[0]);
			close(res[1]);
			return fail("fork: %s", strerror(errno));
		}
		if (r->slots[j].pid == 0) {
			close(ready[0]);
			close(go[1]);
			close(res[0]);
			for (unsigned int k = 0; k < j; k++)
				close(r->slots[k].fd);
			mx_job_main(&r->specs[j], ready[1], go[0], res[1]);
		}
		close(res[1]);
		r->slots[j].fd = res[0];
		r->pids[j] = r->slots[j].pid;
	}
	return 0;
}

static void take_output(struct slot *s)
{
	ssize_t n;

	if (s->len + 4096 > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16384;
		char *p = realloc(s->buf, cap);

		if (!p) {
			close(s->fd);
			s->fd = -1;
			return;
		}
		s->buf = p;
		s->cap = cap;
	}
	n = read(s->fd, s->buf + s->len, s->cap - s->len - 1);
	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		close(s->fd);
		s->fd = -1;
		return;
	}
	s->len += (size_t)n;
}

static void kill_jobs(struct run *r, int sig)
{
	for (unsigned int j = 0; j < r->o->jobs; j++)
		if (r->slots[j].pid > 0 && !r->slots[j].reaped)
			kill(r->slots[j].pid, sig);
}

/* Until every job closed its results: read them, sample on the tick. */
static void watch(struct run *r)
{
	unsigned int n = r->o->jobs;
	struct pollfd *p = calloc(n, sizeof(*p));
	uint64_t next = r->t0 + r->o->sample_ns;

	if (!p) {
		kill_jobs(r, SIGKILL);
		return;
	}
	mx_sampler_tick(&r->sampler);
	for (;;) {
		unsigned int open = 0;
		uint64_t now = mx_now_ns();
		struct timespec ts;

		for (unsigned int j = 0; j < n; j++) {
			p[j].fd = r->slots[j].fd;
			p[j].events = POLLIN;
			p[j].revents = 0;
			open += r->slots[j].fd >= 0;
		}
		if (!open)
			break;
		if (now >= next) {
			mx_sampler_tick(&r->sampler);
			next = now + r->o->sample_ns;
		}
		ts.tv_sec = (time_t)((next - now) / 1000000000);
		ts.tv_nsec = (long)((next - now) % 1000000000);
		if (ppoll(p, n, &ts, fnblk_interrupt_waitmask()) < 0 && errno != EINTR)
			break;
		if (fnblk_interrupted()) {
			kill_jobs(r, SIGKILL);
			break;
		}
		for (unsigned int j = 0; j < n; j++)
			if (r->slots[j].fd >= 0 && (p[j].revents & (POLLIN | POLLHUP | POLLERR)))
				take_output(&r->slots[j]);
	}
	free(p);
}

static void reap(struct run *r)
{
	for (unsigned int j = 0; j < r->o->jobs; j++) {
		struct slot *s = &r->slots[j];

		if (s->pid <= 0 || s->reaped)
			continue;
		while (waitpid(s->pid, &s->status, 0) < 0 && errno == EINTR)
			;
		s->reaped = true;
		if (s->fd >= 0) {
			close(s->fd);
			s->fd = -1;
		}
	}
}

/* A job's entry of the report: its results plus how it ended. */
static json_t *job_entry(struct run *r, unsigned int j, bool *oom, bool *bad)
{
	struct slot *s = &r->slots[j];
	struct fnblk_memory_events before, now;
	json_t *o = NULL;
	json_error_t jerr;
	char why[256];
	bool have_events = r->have_cg;

	*oom = *bad = false;
	if (s->len) {
		s->buf[s->len] = '\0';
		o = json_loads(s->buf, 0, &jerr);
	}
	if (!json_is_object(o)) {
		json_decref(o);
		o = json_pack("{s:i}", "job", j);
		json_object_set_new(o, "results", json_string("none: the job ended before sending them"));
	}
	if (have_events)
		mx_sampler_job_events(&r->sampler, j, &before, &now);
	fnblk_describe_exit(s->status, have_events ? &before : NULL,
			    have_events ? &now : NULL, oom, why, sizeof(why));
	json_object_set_new(o, "exit", json_string(why));
	json_object_set_new(o, "oom_killed", json_boolean(*oom));
	json_object_set_new(o, "memory", mx_sampler_job_json(&r->sampler, j));
	*bad = !WIFEXITED(s->status) || WEXITSTATUS(s->status) ||
	       json_object_get(o, "error");
	return o;
}

static json_t *settings_json(const struct run *r)
{
	const struct mx_run_opts *o = r->o;
	json_t *s = json_object(), *margs = json_object();

	json_object_set_new(s, "mode", json_string(o->mode->name));
	json_object_set_new(s, "pattern", json_string(mx_pattern_name(o->pattern)));
	json_object_set_new(s, "block", json_integer((json_int_t)r->specs[0].block));
	if (o->pattern == MX_PATTERN_TILES)
		json_object_set_new(s, "block_cols", json_integer((json_int_t)
				    (o->block_cols ? o->block_cols : r->specs[0].block)));
	json_object_set_new(s, "threads", json_integer(o->set.threads));
	json_object_set_new(s, "jobs", json_integer(o->jobs));
	json_object_set_new(s, "accesses", json_integer((json_int_t)r->specs[0].accesses));
	json_object_set_new(s, "duration_ns", json_integer((json_int_t)o->duration_ns));
	json_object_set_new(s, "write_fraction", json_real(o->write_fraction));
	json_object_set_new(s, "sync_every", json_integer((json_int_t)o->sync_every));
	json_object_set_new(s, "mmap_churn_ns", json_integer((json_int_t)o->churn_ns));
	json_object_set_new(s, "verify", json_boolean(o->verify));
	json_object_set_new(s, "seed", json_integer((json_int_t)o->seed));
	json_object_set_new(s, "cache", json_string(o->keep_cache ? "kept" : "dropped"));
	json_object_set_new(s, "memory_max", o->memory_max ?
			    json_integer((json_int_t)o->memory_max) : json_null());
	json_object_set_new(s, "sample_interval_ns", json_integer((json_int_t)o->sample_ns));
	if (o->mode->flags & MX_MODE_ADVISE)
		json_object_set_new(s, "advise", json_string(mx_advise_name(o->set.advise)));
	if (o->mode->flags & MX_MODE_BS)
		json_object_set_new(s, "bs", o->set.bs ? json_integer((json_int_t)o->set.bs) :
				    json_null());
	for (unsigned int i = 0; i < o->nr_mode_args; i++)
		json_object_set_new(margs, o->mode_args[i].name,
				    o->mode_args[i].arg ? json_string(o->mode_args[i].arg) :
				    json_true());
	json_object_set_new(s, "mode_options", margs);
	return s;
}

static json_t *system_json(void)
{
	struct utsname u;
	int d = mx_delayacct_enabled();

	uname(&u);
	return json_pack("{s:s, s:I, s:o}", "kernel", u.release,
			 "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
			 "delayacct", d < 0 ? json_null() : json_boolean(d));
}

static json_t *build(struct run *r, int *status)
{
	const struct mx_header *h = &r->members[0].h;
	json_t *rep = json_object(), *jobs = json_array(), *sampled;
	bool any_oom = false, any_bad = false;

	json_object_set_new(rep, "fnblk_matrix", json_integer(1));
	json_object_set_new(rep, "path", json_string(r->o->path));
	json_object_set_new(rep, "kind", json_string(mx_set_kind_name(r->set.kind)));
	json_object_set_new(rep, "matrix", json_pack("{s:I, s:I, s:I, s:I}",
			"rows", (json_int_t)h->rows, "cols", (json_int_t)h->cols,
			"bytes", (json_int_t)mx_data_bytes(h->rows, h->cols),
			"seed", (json_int_t)h->seed));
	json_object_set_new(rep, "settings", settings_json(r));
	json_object_set_new(rep, "system", system_json());
	json_object_set_new(rep, "device", mx_device_json(&r->dev));
	if (r->cg_note[0])
		json_object_set_new(rep, "note", json_string(r->cg_note));
	for (unsigned int j = 0; j < r->o->jobs; j++) {
		bool oom, bad;

		json_array_append_new(jobs, job_entry(r, j, &oom, &bad));
		any_oom |= oom;
		any_bad |= bad && !oom;
	}
	json_object_set_new(rep, "jobs", jobs);
	sampled = mx_sampler_json(&r->sampler);
	json_object_update(rep, sampled);
	json_decref(sampled);
	mx_report_summarise(rep);
	if (fnblk_interrupted())
		json_object_set_new(rep, "interrupted", json_string(strsignal(fnblk_interrupted())));
	*status = any_bad || mx_report_data_wrong(rep) ? MX_EXIT_FAILED :
		  any_oom ? MX_EXIT_OOM : MX_EXIT_OK;
	return rep;
}

static void cleanup(struct run *r)
{
	if (r->have_cg)
		fnblk_cgroup_remove(&r->cg);
	mx_device_close(&r->dev);
	mx_sampler_free(&r->sampler);
	for (unsigned int j = 0; r->slots && j < r->o->jobs; j++)
		free(r->slots[j].buf);
	free(r->slots);
	free(r->pids);
	free(r->specs);
	free(r->members);
}

int mx_run(struct mx_run_opts *o, const struct cli_program *p)
{
	struct run r = { .o = o };
	int ready[2] = { -1, -1 }, go[2] = { -1, -1 };
	int ret, status = MX_EXIT_FAILED;
	json_t *rep;

	prog = p;
	/* A job that died must not kill us with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	ret = apply_mode_args(&r);
	if (!ret)
		ret = open_members(&r);
	if (ret)
		goto out;
	r.specs = calloc(o->jobs, sizeof(*r.specs));
	r.slots = calloc(o->jobs, sizeof(*r.slots));
	r.pids = calloc(o->jobs, sizeof(*r.pids));
	if (!r.specs || !r.slots || !r.pids) {
		ret = fail("out of memory");
		goto out;
	}
	for (unsigned int j = 0; j < o->jobs; j++)
		r.slots[j].fd = -1;
	mx_device_probe(r.members[0].path, &r.dev);
	/* From here on an interruption removes what was made. */
	if (fnblk_interrupt_init()) {
		ret = fail("signals: %s", strerror(errno));
		goto out;
	}
	ret = bump_versions(&r);
	if (!ret)
		ret = make_cgroups(&r);
	if (!ret)
		ret = drop_caches(&r);
	if (!ret && (mx_sampler_init(&r.sampler, r.have_cg ? &r.cg : NULL, o->jobs,
				     r.pids) || pipe(ready) || pipe(go)))
		ret = fail("%s", strerror(errno ? errno : ENOMEM));
	if (ret)
		goto out;
	fill_specs(&r);
	mx_sampler_begin(&r.sampler);
	ret = start_jobs(&r, ready, go);
	close(ready[1]);
	close(go[0]);
	if (!ret && fnblk_wait_bytes(ready[0], o->jobs)) {
		/* A job died setting up (or we were interrupted): stop all. */
		if (!fnblk_interrupted())
			fail("a job died before it was ready; stopping the run");
		kill_jobs(&r, SIGKILL);
		ret = MX_EXIT_FAILED;
	}
	mx_device_snapshot(&r.dev, false);
	r.t0 = mx_now_ns();
	for (unsigned int j = 0; j < o->jobs && !ret; j++)
		if (write(go[1], &r.t0, sizeof(r.t0)) != sizeof(r.t0))
			break;
	close(go[1]);
	close(ready[0]);
	watch(&r);
	reap(&r);
	mx_device_snapshot(&r.dev, true);
	mx_sampler_end(&r.sampler);
	rep = build(&r, &status);
	if (!o->quiet || o->json)
		mx_report_print(rep, o->json);
	json_decref(rep);
	ret = status;
out:
	cleanup(&r);
	if (fnblk_interrupted()) {
		cli_warn(p, "interrupted: jobs stopped%s",
			 r.have_cg ? ", cgroups removed" : "");
		fnblk_interrupt_reraise();
	}
	return ret;
}
