// SPDX-License-Identifier: GPL-2.0
/* Power loss in a fleet run and what survived it (see crash.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* O_DIRECT */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "../lib/diag.h"
#include "../lib/fnblk.h"
#include "../lib/print.h"
#include "crash.h"

#define STAMP_MAGIC	"FNBLKCKP"
#define READ_CHUNK	(1U << 20)

struct stamp {
	char magic[8];
	uint32_t job;
	uint32_t zero;
	uint64_t cycle;
};

void ckpt_stamp(char *buf, uint64_t len, unsigned int job, uint64_t cycle)
{
	struct stamp s = { .job = job, .cycle = cycle };
	uint64_t off;

	memcpy(s.magic, STAMP_MAGIC, sizeof(s.magic));
	for (off = 0; off + CKPT_BLOCK <= len; off += CKPT_BLOCK)
		memcpy(buf + off, &s, sizeof(s));
}

int crash_device(const char *target, char *name, size_t len, char *err,
		 size_t errlen)
{
	char path[128], line[128];
	struct stat st;
	FILE *f;
	int ok = 0;

	if (stat(target, &st) || !S_ISBLK(st.st_mode))
		return fnblk_seterr(err, errlen, "--crash-at needs a raw fnblk "
				    "device as TARGET, not %s", target);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent",
		 major(st.st_rdev), minor(st.st_rdev));
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "DEVNAME=fnblk", 13)) {
			snprintf(name, len, "%s", line + 8);
			ok = 1;
		}
	}
	if (f)
		fclose(f);
	if (!ok)
		return fnblk_seterr(err, errlen, "--crash-at: %s is not an fnblk "
				    "device", target);
	return 0;
}

int crash_now(const char *name, char *err, size_t errlen)
{
	struct fnblk *h = fnblk_open();
	int ret = 0;

	if (!h)
		return fnblk_seterr(err, errlen, "crash: netlink: %s",
				    strerror(errno));
	if (fnblk_dev_crash(h, name) < 0)
		ret = fnblk_seterr(err, errlen, "crash %s: %s", name,
				   fnblk_errmsg(h));
	fnblk_close(h);
	return ret;
}

/* Open the target once the crashed device is back (last opener gone). */
static int open_revived(const char *target, uint64_t wait_ns)
{
	struct timespec pause = { .tv_nsec = 50000000 };
	uint64_t waited = 0;
	int fd;

	for (;;) {
		fd = open(target, O_RDONLY | O_DIRECT);
		/* A file on a file system without O_DIRECT (tests). */
		if (fd < 0 && errno == EINVAL)
			fd = open(target, O_RDONLY);
		if (fd >= 0 || errno != EIO || waited >= wait_ns)
			return fd;
		nanosleep(&pause, NULL);
		waited += (uint64_t)pause.tv_nsec;
	}
}

/* Which cycles job's blocks hold; the verdict comes after. */
static int scan_job(int fd, unsigned int job, uint64_t base, uint64_t size,
		    char *buf, struct crash_job *c)
{
	uint64_t pos, off, n;
	struct stamp s;

	c->lo = INT64_MAX;
	c->hi = -1;
	for (pos = 0; pos + CKPT_BLOCK <= size; pos += n) {
		n = size - pos < READ_CHUNK ? size - pos : READ_CHUNK;
		n -= n % CKPT_BLOCK;
		if (pread(fd, buf, n, (off_t)(base + pos)) != (ssize_t)n)
			return -1;
		for (off = 0; off < n; off += CKPT_BLOCK) {
			memcpy(&s, buf + off, sizeof(s));
			c->blocks++;
			if (memcmp(s.magic, STAMP_MAGIC, sizeof(s.magic)) ||
			    s.job != job) {
				c->unstamped++;
				continue;
			}
			if ((int64_t)s.cycle < c->lo)
				c->lo = (int64_t)s.cycle;
			if ((int64_t)s.cycle > c->hi)
				c->hi = (int64_t)s.cycle;
		}
	}
	return 0;
}

static enum crash_verdict judge(const struct crash_job *c)
{
	if (c->done < 0 && c->hi < 0)
		return CRASH_EMPTY;
	/* Every block from the last completed checkpoint or a later one. */
	if (!c->unstamped && c->lo >= c->done)
		return c->lo == c->hi ? CRASH_KEPT : CRASH_TORN;
	/* Unwritten blocks or older ones: a write in progress tore them... */
	if (c->done < 0)
		return CRASH_TORN;
	/* ...unless the last completed checkpoint is no longer whole. */
	return CRASH_LOST;
}

int crash_verify(const char *target, unsigned int jobs, uint64_t base,
		 uint64_t region,
		 const uint64_t *sizes, const struct fnblk_events *ev,
		 uint64_t crash_ns, uint64_t wait_ns, struct crash_job *out,
		 char *err, size_t errlen)
{
	unsigned int j;
	size_t i;
	char *buf;
	int fd, ret = 0;

	for (j = 0; j < jobs; j++)
		out[j] = (struct crash_job){ .done = -1 };
	for (i = 0; i < ev->nr; i++) {
		const struct fnblk_event *e = &ev->ev[i];

		if (e->job < jobs && e->end_ns <= crash_ns &&
		    (int64_t)e->cycle > out[e->job].done)
			out[e->job].done = e->cycle;
	}
	fd = open_revived(target, wait_ns);
	if (fd < 0)
		return fnblk_seterr(err, errlen, "%s after the crash: %s",
				    target, strerror(errno));
	if (posix_memalign((void **)&buf, CKPT_BLOCK, READ_CHUNK)) {
		close(fd);
		return fnblk_seterr(err, errlen, "%s", strerror(ENOMEM));
	}
	for (j = 0; j < jobs && !ret; j++) {
		if (scan_job(fd, j, base + (uint64_t)j * region, sizes[j], buf,
			     &out[j]))
			ret = fnblk_seterr(err, errlen, "reading %s: %s",
					   target, strerror(errno));
		out[j].verdict = judge(&out[j]);
	}
	free(buf);
	close(fd);
	return ret;
}

const char *crash_verdict_name(enum crash_verdict v)
{
	static const char *const names[] = {
		[CRASH_KEPT] = "kept", [CRASH_TORN] = "torn",
		[CRASH_LOST] = "lost", [CRASH_EMPTY] = "empty",
	};

	return names[v];
}

unsigned int crash_report(const struct crash_job *jobs, unsigned int nr,
			  uint64_t crash_at_ns, bool durable)
{
	unsigned int j, lost = 0;

	pr_open_object("crash");
	pr_u64("crash_at_ns", NULL, crash_at_ns);
	pr_bool("durable_path", NULL, durable);
	pr_text("crash at %.3fs; what each job's region holds (the last "
		"checkpoint it completed, the cycles found):\n",
		crash_at_ns / 1e9);
	pr_text("%4s %6s %13s %9s  %s\n", "job", "done", "found", "unstamped",
		"verdict");
	pr_open_array("jobs");
	for (j = 0; j < nr; j++) {
		const struct crash_job *c = &jobs[j];
		char found[40];

		lost += c->verdict == CRASH_LOST;
		if (c->hi < 0)
			snprintf(found, sizeof(found), "-");
		else if (c->lo == c->hi)
			snprintf(found, sizeof(found), "%" PRId64, c->lo);
		else
			snprintf(found, sizeof(found), "%" PRId64 "-%" PRId64,
				 c->lo, c->hi);
		pr_open_object(NULL);
		pr_u64("job", "%4llu", j);
		if (c->done < 0)
			pr_text(" %6s", "-");
		pr_int("done", c->done < 0 ? NULL : " %6lld", c->done);
		pr_str("found", " %13s", found);
		pr_u64("unstamped", " %9llu", c->unstamped);
		pr_str("verdict", "  %s\n", crash_verdict_name(c->verdict));
		pr_close_object();
	}
	pr_close_array();
	pr_u64("lost", NULL, lost);
	if (lost)
		pr_text("%u job(s) lost a checkpoint they had completed%s\n",
			lost, durable ? ", which this path had made durable" :
			": the path does not flush (no durability without "
			"a flush on a volatile cache)");
	pr_close_object();
	return lost;
}
