// SPDX-License-Identifier: GPL-2.0
/* cgroup v2 groups for fleet jobs (see cgroup.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "../lib/diag.h"

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static void job_dir(char *buf, size_t len, const char *name, unsigned int job)
{
	snprintf(buf, len, "%s/%s/job-%04u", FLEET_CGROUP_ROOT, name, job);
}

/* Hand memory and io down one level; io may be missing, memory may not. */
static int enable_controllers(const char *dir, bool need_memory, char *err,
			      size_t errlen)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	if (write_file(path, "+memory") && need_memory)
		return fnblk_seterr(err, errlen, "%s: +memory: %s", path,
			      strerror(errno));
	write_file(path, "+io");
	return 0;
}

int fleet_cgroup_create(const char *name, unsigned int jobs,
			uint64_t memory_max, char *err, size_t errlen)
{
	char path[PATH_MAX], dir[PATH_MAX], val[32];
	unsigned int j;

	if (access(FLEET_CGROUP_ROOT "/cgroup.controllers", F_OK))
		return fnblk_seterr(err, errlen,
			      "%s is not a cgroup v2 mount (mount -t cgroup2 none %s)",
			      FLEET_CGROUP_ROOT, FLEET_CGROUP_ROOT);
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return fnblk_seterr(err, errlen, "cgroup name \"%s\": no slashes", name);
	snprintf(dir, sizeof(dir), "%s/%s", FLEET_CGROUP_ROOT, name);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return fnblk_seterr(err, errlen, "%s: %s", dir, strerror(errno));
	if (enable_controllers(FLEET_CGROUP_ROOT, memory_max, err, errlen) ||
	    enable_controllers(dir, memory_max, err, errlen))
		return -1;
	for (j = 0; j < jobs; j++) {
		job_dir(path, sizeof(path), name, j);
		if (mkdir(path, 0755) && errno != EEXIST)
			return fnblk_seterr(err, errlen, "%s: %s", path, strerror(errno));
		if (!memory_max)
			continue;
		snprintf(val, sizeof(val), "%" PRIu64, memory_max);
		strncat(path, "/memory.max", sizeof(path) - strlen(path) - 1);
		if (write_file(path, val))
			return fnblk_seterr(err, errlen, "%s: %s", path, strerror(errno));
	}
	return 0;
}

int fleet_cgroup_enter(const char *name, unsigned int job, char *err,
		       size_t errlen)
{
	char path[PATH_MAX];

	job_dir(path, sizeof(path), name, job);
	strncat(path, "/cgroup.procs", sizeof(path) - strlen(path) - 1);
	if (write_file(path, "0"))
		return fnblk_seterr(err, errlen, "%s: %s", path, strerror(errno));
	return 0;
}

void fleet_cgroup_remove(const char *name, unsigned int jobs)
{
	char path[PATH_MAX];
	unsigned int j;

	for (j = 0; j < jobs; j++) {
		job_dir(path, sizeof(path), name, j);
		rmdir(path);
	}
	snprintf(path, sizeof(path), "%s/%s", FLEET_CGROUP_ROOT, name);
	rmdir(path);
}
