// SPDX-License-Identifier: GPL-2.0
/* cgroup v2 groups for jobs (see cgroup.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "diag.h"

#define WAIT_STEP_NS	10000000L	/* 10 ms */
#define WAIT_STEPS	500		/* 5 s for a group to empty */

static int write_file(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, saved;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The whole of a small file, NUL-terminated; -1 if unreadable. */
static int read_file(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static void nap(void)
{
	struct timespec ts = { 0, WAIT_STEP_NS };

	nanosleep(&ts, NULL);
}

int fnblk_cgroup_available(char *why, size_t len)
{
	char buf[512];

	if (read_file(FNBLK_CGROUP_ROOT, "cgroup.controllers", buf, sizeof(buf)))
		return fnblk_seterr(why, len, "%s is not a cgroup v2 mount (mount -t cgroup2 none %s)",
				    FNBLK_CGROUP_ROOT, FNBLK_CGROUP_ROOT);
	if (!strstr(buf, "memory"))
		return fnblk_seterr(why, len, "the cgroup v2 memory controller is not available");
	if (access(FNBLK_CGROUP_ROOT, W_OK))
		return fnblk_seterr(why, len, "%s: %s (cgroups need root or a delegated tree)",
				    FNBLK_CGROUP_ROOT, strerror(errno));
	return 0;
}

void fnblk_cgroup_job_dir(const struct fnblk_cgroup_set *s, unsigned int job,
			  char *out, size_t len)
{
	snprintf(out, len, "%s/job-%04u", s->dir, job);
}

static bool populated(const char *dir)
{
	char buf[256], *p;

	if (read_file(dir, "cgroup.events", buf, sizeof(buf)))
		return false;	/* gone */
	p = strstr(buf, "populated ");
	return p && p[10] == '1';
}

/* Hand memory (required) and io (if present) down from dir. */
static int delegate(const char *dir, char *err, size_t errlen)
{
	if (write_file(dir, "cgroup.subtree_control", "+memory"))
		return fnblk_seterr(err, errlen, "%s/cgroup.subtree_control: +memory: %s",
				    dir, strerror(errno));
	(void)write_file(dir, "cgroup.subtree_control", "+io");
	return 0;
}

static int set_max(const char *dir, uint64_t max, char *err, size_t errlen)
{
	char val[32];

	if (!max)
		return 0;
	snprintf(val, sizeof(val), "%" PRIu64, max);
	if (write_file(dir, "memory.max", val))
		return fnblk_seterr(err, errlen, "%s/memory.max: %s", dir, strerror(errno));
	return 0;
}

int fnblk_cgroup_create(struct fnblk_cgroup_set *s, const char *name,
			unsigned int jobs, uint64_t parent_max,
			uint64_t job_max, char *err, size_t errlen)
{
	char dir[PATH_MAX];

	memset(s, 0, sizeof(*s));
	if (fnblk_cgroup_available(err, errlen))
		return -1;
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return fnblk_seterr(err, errlen, "cgroup name \"%s\": one path component, no slashes",
				    name);
	if (snprintf(s->dir, sizeof(s->dir), "%s/%s", FNBLK_CGROUP_ROOT, name) >=
	    (int)sizeof(s->dir))
		return fnblk_seterr(err, errlen, "cgroup name too long");
	if (!mkdir(s->dir, 0755)) {
		s->made = true;
	} else if (errno != EEXIST) {
		return fnblk_seterr(err, errlen, "%s: %s", s->dir, strerror(errno));
	} else if (populated(s->dir)) {
		return fnblk_seterr(err, errlen, "%s exists and has processes in it", s->dir);
	}
	s->jobs = jobs;
	if (delegate(FNBLK_CGROUP_ROOT, err, errlen) ||
	    delegate(s->dir, err, errlen) ||
	    set_max(s->dir, parent_max, err, errlen))
		goto fail;
	for (unsigned int j = 0; j < jobs; j++) {
		fnblk_cgroup_job_dir(s, j, dir, sizeof(dir));
		if (mkdir(dir, 0755) && errno != EEXIST) {
			fnblk_seterr(err, errlen, "%s: %s", dir, strerror(errno));
			goto fail;
		}
		if (set_max(dir, job_max, err, errlen))
			goto fail;
	}
	return 0;
fail:
	fnblk_cgroup_remove(s);
	return -1;
}

int fnblk_cgroup_enter(const struct fnblk_cgroup_set *s, unsigned int job,
		       char *err, size_t errlen)
{
	char dir[PATH_MAX];

	fnblk_cgroup_job_dir(s, job, dir, sizeof(dir));
	if (write_file(dir, "cgroup.procs", "0"))
		return fnblk_seterr(err, errlen, "%s/cgroup.procs: %s", dir, strerror(errno));
	return 0;
}

/* SIGKILL every process listed in dir/cgroup.procs. */
static void kill_procs(const char *dir)
{
	char path[PATH_MAX];
	FILE *f;
	long pid;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fscanf(f, "%ld", &pid) == 1)
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
	fclose(f);
}

static int remove_group(const char *dir)
{
	for (int i = 0; i < WAIT_STEPS; i++) {
		if (!rmdir(dir) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		kill_procs(dir);
		nap();
	}
	fprintf(stderr, "cgroup: cannot remove %s: %s\n", dir, strerror(errno));
	return -1;
}

int fnblk_cgroup_remove(struct fnblk_cgroup_set *s)
{
	char dir[PATH_MAX];
	int ret = 0;

	if (!s->dir[0])
		return 0;
	/* cgroup.kill (5.14+) kills the whole subtree at once. */
	if (write_file(s->dir, "cgroup.kill", "1")) {
		for (unsigned int j = 0; j < s->jobs; j++) {
			fnblk_cgroup_job_dir(s, j, dir, sizeof(dir));
			kill_procs(dir);
		}
		kill_procs(s->dir);
	}
	for (int i = 0; i < WAIT_STEPS && populated(s->dir); i++)
		nap();
	for (unsigned int j = 0; j < s->jobs; j++) {
		fnblk_cgroup_job_dir(s, j, dir, sizeof(dir));
		if (remove_group(dir))
			ret = -1;
	}
	if (s->made && remove_group(s->dir))
		ret = -1;
	s->dir[0] = '\0';
	return ret;
}

int fnblk_cgroup_read_u64(const char *dir, const char *file, uint64_t *v)
{
	char buf[64], *end;

	if (read_file(dir, file, buf, sizeof(buf)))
		return -1;
	if (!strncmp(buf, "max", 3)) {
		*v = UINT64_MAX;
		return 0;
	}
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno || end == buf ? -1 : 0;
}

int fnblk_cgroup_read_keyed(const char *dir, const char *file,
			    const char *const *keys, uint64_t *vals,
			    unsigned int n)
{
	char path[PATH_MAX], key[128];
	unsigned long long v;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fscanf(f, "%127s %llu", key, &v) == 2) {
		for (unsigned int i = 0; i < n; i++) {
			if (!strcmp(keys[i], key)) {
				vals[i] = v;
				found++;
				break;
			}
		}
	}
	fclose(f);
	return found;
}

int fnblk_cgroup_memory_events(const char *dir, struct fnblk_memory_events *e)
{
	static const char *const keys[] = {
		"low", "high", "max", "oom", "oom_kill", "oom_group_kill",
	};
	uint64_t v[6] = { 0 };

	if (fnblk_cgroup_read_keyed(dir, "memory.events", keys, v, 6) < 0)
		return -1;
	e->low = v[0];
	e->high = v[1];
	e->max = v[2];
	e->oom = v[3];
	e->oom_kill = v[4];
	e->oom_group_kill = v[5];
	return 0;
}

int fnblk_cgroup_pressure(const char *dir, const char *resource,
			  struct fnblk_pressure *p)
{
	char file[64], buf[512], *s;

	snprintf(file, sizeof(file), "%s.pressure", resource);
	if (read_file(dir, file, buf, sizeof(buf)))
		return -1;
	memset(p, 0, sizeof(*p));
	s = strstr(buf, "some ");
	if (!s || !(s = strstr(s, "total=")))
		return -1;
	p->some_us = strtoull(s + 6, NULL, 10);
	s = strstr(buf, "full ");
	if (s && (s = strstr(s, "total=")))
		p->full_us = strtoull(s + 6, NULL, 10);
	return 0;
}

const char *fnblk_describe_exit(int status,
				const struct fnblk_memory_events *before,
				const struct fnblk_memory_events *after,
				bool *oom, char *buf, size_t len)
{
	int sig;

	*oom = false;
	if (WIFEXITED(status)) {
		snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
		return buf;
	}
	if (!WIFSIGNALED(status)) {
		snprintf(buf, len, "ended with wait status %#x", status);
		return buf;
	}
	sig = WTERMSIG(status);
	if (sig == SIGKILL && before && after &&
	    after->oom_kill > before->oom_kill) {
		*oom = true;
		snprintf(buf, len,
			 "killed by the OOM killer (SIGKILL; memory.events: max %" PRIu64
			 ", oom %" PRIu64 ", oom_kill %" PRIu64 ")",
			 after->max - before->max, after->oom - before->oom,
			 after->oom_kill - before->oom_kill);
		return buf;
	}
	snprintf(buf, len, "killed by signal %d (%s)%s", sig, strsignal(sig),
		 sig == SIGKILL && !(before && after) ?
		 "; no cgroup to tell whether the OOM killer did it" : "");
	return buf;
}
