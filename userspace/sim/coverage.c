// SPDX-License-Identifier: GPL-2.0
/* What of a recorded run the model covers; see coverage.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../lib/hosts.h"
#include "coverage.h"
#include "units.h"

/* fnblk-fleet's queue depth when a file does not say (its --qd default). */
#define FLEET_QD_DEFAULT	4

const char *coverage_kind_name(enum coverage_kind k)
{
	return k == COVERAGE_ADAPTED ? "adapted" : "unmodelled";
}

__attribute__((format(printf, 4, 5)))
static void note(struct coverage *c, const char *code, enum coverage_kind kind,
		 const char *fmt, ...)
{
	struct coverage_note *n;
	va_list ap;

	if (c->nr == COVERAGE_MAX)
		return;
	n = &c->note[c->nr++];
	n->code = code;
	n->kind = kind;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
	if (kind == COVERAGE_UNMODELLED)
		c->unmodelled++;
}

/* A param that is set to something other than empty or "0". */
static const char *set(const struct fnblk_events *e, const char *name)
{
	const char *v = fnblk_events_param(e, name);

	return v && *v && strcmp(v, "0") ? v : NULL;
}

static int is(const struct fnblk_events *e, const char *name, const char *value)
{
	const char *v = fnblk_events_param(e, name);

	return v && !strcmp(v, value);
}

/* The write path: depth of requests, and what the model stands in for. */
static void check_path(const struct fnblk_events *e, struct sim_options *o,
		       struct coverage *c)
{
	const char *path = fnblk_events_param(e, "path");
	const char *engine = fnblk_events_param(e, "engine");
	const char *qd = fnblk_events_param(e, "qd");
	const char *why;
	uint64_t v;

	if (!path || !strcmp(path, "direct")) {
		if (engine && !strcmp(engine, "psync")) {
			o->io.qd = 1;	/* pwrite: one request at a time */
		} else if (!qd || fnblk_parse_uint(qd, 1, UINT32_MAX, &v, &why)) {
			o->io.qd = FLEET_QD_DEFAULT;
			note(c, "qd", COVERAGE_ADAPTED,
			     "the run does not record its queue depth: simulated with %d in flight, fnblk-fleet's default",
			     FLEET_QD_DEFAULT);
		}
		return;
	}
	/* Whatever qd the file holds, these paths issue one call at a time. */
	o->io.qd = 1;
	if (!strcmp(path, "dsync")) {
		note(c, "path", COVERAGE_ADAPTED,
		     "path=dsync: each write call is synchronous, simulated as direct I/O with one request in flight");
		return;
	}
	note(c, "path", COVERAGE_UNMODELLED,
	     "path=%s: the page cache and writeback are not modelled; simulated as direct I/O with one request in flight",
	     path);
}

/* Who the module counted as a user, against one user per job. */
static void check_key(const struct fnblk_events *e, struct coverage *c)
{
	const char *key = fnblk_events_param(e, "key");

	if (!key || !strcmp(key, "tgid"))
		return;
	if (!strcmp(key, "single"))
		note(c, "key", COVERAGE_UNMODELLED,
		     "key=single: the module saw one user for all jobs; the simulator counts a user per job");
	else if (!strcmp(key, "pid"))
		note(c, "key", COVERAGE_UNMODELLED,
		     "key=pid: the module counted every submitting thread (io_uring workers too); the simulator counts a user per job");
	else if (!strcmp(key, "cgroup") && !set(e, "cgroup"))
		note(c, "key", COVERAGE_UNMODELLED,
		     "key=cgroup without --cgroup: every job was in one cgroup, one user to the module; the simulator counts a user per job");
	else if (strcmp(key, "cgroup"))
		note(c, "key", COVERAGE_UNMODELLED, "key=%s is unknown to the simulator", key);
}

static void check_device(const struct fnblk_events *e, struct coverage *c)
{
	static const char *const device[] = {
		"bw", "fn", "latency", "overhead", "grace", "policy", "users", NULL,
	};
	char missing[128] = "";
	size_t i;

	for (i = 0; device[i]; i++) {
		if (fnblk_events_param(e, device[i]))
			continue;
		if (*missing)
			strcat(missing, ", ");
		strcat(missing, device[i]);
	}
	if (*missing)
		note(c, "device", COVERAGE_UNMODELLED,
		     "the run does not record the device's %s: the defaults (or the command line) stand in",
		     missing);
	if (set(e, "device_changed"))
		note(c, "device", COVERAGE_UNMODELLED,
		     "the device's settings changed during the run: %s",
		     fnblk_events_param(e, "device_changed"));
	if (is(e, "policy", "weighted"))
		note(c, "policy", COVERAGE_UNMODELLED,
		     "policy=weighted: users' weights are not recorded; the simulator weighs every job 1");
}

/*
 * A run of several hosts merged (scripts/cluster, fnblk-analyze --hosts):
 * each request crossed its host's network path and the storage host's
 * server, and the device counted a user per serving process, one per
 * host, not per job.
 */
static void check_hosts(const struct fnblk_events *e, struct sim_options *o,
			struct coverage *c)
{
	const char *list = fnblk_events_param(e, "host_jobs");
	struct fnblk_hosts h;
	char err[128];
	unsigned int k;

	if (!list)
		return;
	if (fnblk_hosts_from_params(e, o->fleet.jobs, &h, err, sizeof(err))) {
		note(c, "host_jobs", COVERAGE_UNMODELLED, "%s", err);
		return;
	}
	note(c, "hosts", COVERAGE_ADAPTED,
	     "%u hosts: every request also crossed its host's network path and the storage host's server, which the model has as --latency, or as a path shared by the hosts (--path-bw, --path-iops) whose capacity must be measured",
	     h.nr);
	for (k = 0; k < h.nr; k++)
		if (h.first_job[k + 1] - h.first_job[k] > 1)
			break;
	if (k < h.nr)
		note(c, "host_jobs", COVERAGE_UNMODELLED,
		     "host_jobs=%.60s: the jobs of a host reached the device through one serving process, one user; the simulator counts a user per job",
		     list);
	fnblk_hosts_free(&h);
}

void coverage_check(const struct fnblk_events *e, struct sim_options *o,
		    struct coverage *c)
{
	memset(c, 0, sizeof(*c));
	check_path(e, o, c);
	check_key(e, c);
	if (set(e, "dir"))
		note(c, "dir", COVERAGE_UNMODELLED,
		     "--dir: files on a file system add metadata and journal writes, block allocation and kernel-thread users, none of which is modelled");
	if (set(e, "rotate"))
		note(c, "rotate", COVERAGE_UNMODELLED,
		     "--rotate: a new file each cycle (creation, allocation, removal) is not modelled");
	if (set(e, "memory-max"))
		note(c, "memory-max", COVERAGE_UNMODELLED,
		     "--memory-max %s: reclaim and dirty throttling in the jobs' cgroups are not modelled",
		     fnblk_events_param(e, "memory-max"));
	check_device(e, c);
	check_hosts(e, o, c);
}
