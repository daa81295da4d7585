// SPDX-License-Identifier: GPL-2.0
/*
 * Watching memory pressure. The limit that matters may sit on any
 * ancestor (fnblk-matrix --jobs puts K jobs under one parent with
 * memory.max), so the walk goes from the process's cgroup to the root and
 * keeps the tightest memory.max/memory.high. Signals: a PSI trigger ("some"
 * stall of 100 ms in a 1 s window; unprivileged users get 2 s windows on
 * kernels that allow them any) and a change of memory.events (high, max,
 * oom, oom_kill) of that ancestor. Without cgroup v2 (or a limit) only PSI
 * is watched, and MemAvailable stands for the headroom.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "pressure.h"

struct pressure {
	char dir[PATH_MAX];	/* limiting cgroup, "" if none */
	int current_fd;		/* its memory.current */
	int events_fd;		/* its memory.events */
	int psi_fd;		/* trigger */
	uint64_t limit;
	uint64_t events_seen;
};

static int pread_text(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/* A limit file; UINT64_MAX if absent or "max". */
static uint64_t read_limit(const char *dir, const char *name)
{
	uint64_t v;

	return fnblk_cgroup_read_u64(dir, name, &v) ? UINT64_MAX : v;
}

/* The cgroup2 mount point and the process's cgroup under it. */
static int own_cgroup(char *dir, size_t len, char *root, size_t rootlen)
{
	char line[PATH_MAX * 2], path[PATH_MAX] = "";
	FILE *f = fopen("/proc/self/mountinfo", "re");
	bool found = false;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX], *sep = strstr(line, " - cgroup2 ");

		if (sep && sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1) {
			snprintf(root, rootlen, "%s", mnt);
			found = true;
			break;
		}
	}
	fclose(f);
	if (!found)
		return -1;
	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -1;
	found = false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			if (strlen(line + 3) < sizeof(path)) {
				memcpy(path, line + 3, strlen(line + 3) + 1);
				found = true;
			}
		}
	}
	fclose(f);
	if (!found)
		return -1;
	snprintf(dir, len, "%s%s", root, strcmp(path, "/") ? path : "");
	return 0;
}

/* The ancestor (or self) with the least headroom under its limit. */
static void find_limit(struct pressure *p, const char *dir, const char *root)
{
	char d[PATH_MAX];
	uint64_t best = UINT64_MAX;

	snprintf(d, sizeof(d), "%s", dir);
	for (;;) {
		uint64_t max = read_limit(d, "memory.max");
		uint64_t high = read_limit(d, "memory.high");
		uint64_t lim = max < high ? max : high;

		if (lim != UINT64_MAX) {
			uint64_t cur = 0;

			fnblk_cgroup_read_u64(d, "memory.current", &cur);
			uint64_t room = lim > cur ? lim - cur : 0;

			if (room < best) {
				best = room;
				p->limit = lim;
				snprintf(p->dir, sizeof(p->dir), "%s", d);
			}
		}
		if (!strcmp(d, root) || !strchr(d, '/'))
			break;
		*strrchr(d, '/') = 0;
		if (strlen(d) < strlen(root))
			break;
	}
}

static uint64_t events_sum(int fd)
{
	char buf[512], *line;
	uint64_t sum = 0;

	if (fd < 0 || pread_text(fd, buf, sizeof(buf)))
		return 0;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char key[32];
		unsigned long long v;

		if (sscanf(line, "%31s %llu", key, &v) == 2 &&
		    (!strcmp(key, "high") || !strcmp(key, "max") ||
		     !strcmp(key, "oom") || !strcmp(key, "oom_kill")))
			sum += v;
	}
	return sum;
}

static int psi_trigger(const char *path)
{
	static const char *const triggers[] = {
		"some 100000 1000000", "some 200000 2000000",
	};
	unsigned int i;

	for (i = 0; i < 2; i++) {
		int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);

		if (fd < 0)
			return -1;
		if (write(fd, triggers[i], strlen(triggers[i]) + 1) >= 0)
			return fd;
		close(fd);
	}
	return -1;
}

struct pressure *pressure_open(void)
{
	struct pressure *p = calloc(1, sizeof(*p));
	char dir[PATH_MAX], root[PATH_MAX], path[PATH_MAX + 32];

	if (!p)
		return NULL;
	p->current_fd = p->events_fd = p->psi_fd = -1;
	if (!own_cgroup(dir, sizeof(dir), root, sizeof(root))) {
		find_limit(p, dir, root);
		snprintf(path, sizeof(path), "%s/memory.pressure", dir);
		p->psi_fd = psi_trigger(path);
	}
	if (p->psi_fd < 0)
		p->psi_fd = psi_trigger("/proc/pressure/memory");
	if (p->dir[0]) {
		snprintf(path, sizeof(path), "%s/memory.current", p->dir);
		p->current_fd = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(path, sizeof(path), "%s/memory.events", p->dir);
		p->events_fd = open(path, O_RDONLY | O_CLOEXEC);
		p->events_seen = events_sum(p->events_fd);
	}
	if (p->psi_fd < 0 && p->current_fd < 0) {
		free(p);
		return NULL;
	}
	return p;
}

void pressure_close(struct pressure *p)
{
	if (!p)
		return;
	if (p->current_fd >= 0)
		close(p->current_fd);
	if (p->events_fd >= 0)
		close(p->events_fd);
	if (p->psi_fd >= 0)
		close(p->psi_fd);
	free(p);
}

int pressure_fds(struct pressure *p, struct pollfd *fds, int max)
{
	int n = 0;

	if (p->psi_fd >= 0 && n < max)
		fds[n++] = (struct pollfd){ .fd = p->psi_fd, .events = POLLPRI };
	if (p->events_fd >= 0 && n < max)
		fds[n++] = (struct pollfd){ .fd = p->events_fd, .events = POLLPRI };
	return n;
}

void pressure_sample(struct pressure *p, const struct pollfd *fds, int n,
		     struct pressure_sample *s)
{
	char buf[64];
	uint64_t ev;
	int i;

	s->signal = false;
	s->usage = 0;
	s->limit = 0;
	for (i = 0; i < n; i++)
		if (fds[i].fd == p->psi_fd && (fds[i].revents & POLLPRI))
			s->signal = true;
	ev = events_sum(p->events_fd);
	if (ev != p->events_seen) {
		p->events_seen = ev;
		s->signal = true;
	}
	if (p->current_fd >= 0 && !pread_text(p->current_fd, buf, sizeof(buf))) {
		s->usage = strtoull(buf, NULL, 10);
		s->limit = p->limit;
	}
}

uint64_t pressure_available(struct pressure *p)
{
	char buf[4096], *at;
	size_t n;
	FILE *f;

	if (p && p->current_fd >= 0 && !pread_text(p->current_fd, buf, sizeof(buf))) {
		uint64_t cur = strtoull(buf, NULL, 10);

		return p->limit > cur ? p->limit - cur : 0;
	}
	f = fopen("/proc/meminfo", "re");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	if (!n)
		return 1ULL << 30;
	buf[n] = 0;
	at = strstr(buf, "MemAvailable:");
	return at ? strtoull(at + 13, NULL, 10) << 10 : 1ULL << 30;
}

const char *pressure_cgroup(struct pressure *p)
{
	return p ? p->dir : "";
}
