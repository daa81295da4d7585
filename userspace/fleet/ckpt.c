// SPDX-License-Identifier: GPL-2.0
/*
 * Checkpoint writers (see ckpt.h). Every path ends with the data durable
 * as that path defines it, so a write's end time is when a real job could
 * move on: O_DIRECT completion, fsync, O_DSYNC completion or msync.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* O_DIRECT */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fs.h>
#include <liburing.h>

#include "ckpt.h"
#include "crash.h"
#include "../lib/diag.h"

#define CKPT_ALIGN	CKPT_BLOCK

struct ckpt_writer {
	const struct ckpt_opts *o;
	const struct ckpt_path *path;
	unsigned int job;
	int fd;				/* -1 when a rotating dir opens per cycle */
	uint64_t base;			/* byte offset of the job's region */
	uint64_t chunk;			/* bytes per write call */
	char *buf;			/* chunk bytes of the job's pattern */
	bool ring_ready;
	struct io_uring ring;
	char prev[PATH_MAX];		/* rotate: the file to drop after a write */
};

static int write_direct(struct ckpt_writer *w, uint64_t off, uint64_t bytes,
			char *err, size_t errlen);
static int write_buffered(struct ckpt_writer *w, uint64_t off,
			  uint64_t bytes, char *err, size_t errlen);
static int write_psync(struct ckpt_writer *w, uint64_t off, uint64_t bytes,
		       char *err, size_t errlen);
static int write_mmap(struct ckpt_writer *w, uint64_t off, uint64_t bytes,
		      char *err, size_t errlen);

static const struct ckpt_path ckpt_paths[] = {
	{ .name = "direct", .open_flags = O_WRONLY | O_DIRECT, .direct = true,
	  .queued = true, .write = write_direct,
	  .help = "O_DIRECT writes through io_uring or pwrite (--engine); "
		  "sizes round up to 4KiB; files also fdatasync (on a raw "
		  "device nothing flushes a volatile cache)" },
	{ .name = "buffered", .open_flags = O_WRONLY, .write = write_buffered,
	  .flushes = true,
	  .help = "pwrite into the page cache, then fsync" },
	{ .name = "dsync", .open_flags = O_WRONLY | O_DSYNC,
	  .write = write_psync, .flushes = true,
	  .help = "O_DSYNC pwrite: each call returns once durable" },
	{ .name = "mmap", .open_flags = O_RDWR, .write = write_mmap,
	  .flushes = true,
	  .help = "stores into a shared mapping, then msync(MS_SYNC)" },
};

const struct ckpt_path *ckpt_path_at(unsigned int i)
{
	return i < sizeof(ckpt_paths) / sizeof(ckpt_paths[0]) ?
	       &ckpt_paths[i] : NULL;
}

const char *ckpt_path_name(unsigned int i)
{
	return ckpt_path_at(i) ? ckpt_paths[i].name : NULL;
}

const char *ckpt_path_help(unsigned int i)
{
	return ckpt_path_at(i) ? ckpt_paths[i].help : NULL;
}

const char *ckpt_engine_name(unsigned int e)
{
	static const char *const names[] = {
		[CKPT_ENGINE_URING] = "uring", [CKPT_ENGINE_PSYNC] = "psync",
	};

	return e < sizeof(names) / sizeof(names[0]) ? names[e] : NULL;
}

const char *ckpt_engine_help(unsigned int e)
{
	return e == CKPT_ENGINE_URING ? "io_uring, --qd requests in flight" :
	       "pwrite, one request at a time";
}

uint64_t ckpt_write_size(const struct ckpt_opts *o, uint64_t size)
{
	if (ckpt_paths[o->path].direct)
		return (size + CKPT_ALIGN - 1) / CKPT_ALIGN * CKPT_ALIGN;
	return size;
}

/*
 * --part I/N: job 0's region at the start of the I-th of N equal slices
 * of the target's have bytes (4 KiB-aligned, for O_DIRECT and mmap).
 */
static int place_part(struct ckpt_opts *o, unsigned int jobs, uint64_t region,
		      uint64_t have, char *err, size_t errlen)
{
	uint64_t slice = have / o->part_count / CKPT_ALIGN * CKPT_ALIGN;
	uint64_t need = (uint64_t)jobs * region;

	if (!have)
		return fnblk_seterr(err, errlen,
				    "%s is empty: --part %u/%u shares out the size the target has (make it that size first, e.g. truncate -s)",
				    o->target, o->part_index, o->part_count);
	if (slice < need)
		return fnblk_seterr(err, errlen,
				    "%s: part %u/%u is %" PRIu64 " bytes (1/%u of %"
				    PRIu64 "), %u jobs of %" PRIu64 " need %" PRIu64,
				    o->target, o->part_index, o->part_count, slice,
				    o->part_count, have, jobs, region, need);
	o->base = (uint64_t)o->part_index * slice;
	return 0;
}

int ckpt_prepare(struct ckpt_opts *o, unsigned int jobs,
		 uint64_t region, char *err, size_t errlen)
{
	uint64_t need = (uint64_t)jobs * region, have = 0;
	struct stat st;
	int fd, ret = 0;

	o->base = 0;
	if (o->dir) {
		if (stat(o->dir, &st) || !S_ISDIR(st.st_mode))
			return fnblk_seterr(err, errlen, "%s: not a directory", o->dir);
		return 0;
	}
	fd = open(o->target, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		return fnblk_seterr(err, errlen, "%s: %s", o->target, strerror(errno));
	if (fstat(fd, &st)) {
		ret = fnblk_seterr(err, errlen, "%s: %s", o->target, strerror(errno));
	} else if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &have))
			ret = fnblk_seterr(err, errlen, "%s: BLKGETSIZE64: %s",
				     o->target, strerror(errno));
		else if (!o->part_count && have < need)
			ret = fnblk_seterr(err, errlen,
				     "%s: %" PRIu64 " bytes, %u jobs of %" PRIu64
				     " need %" PRIu64, o->target, have, jobs,
				     region, need);
	} else if (S_ISREG(st.st_mode)) {
		have = (uint64_t)st.st_size;
		/* A part's size is a share of the file's: never grown. */
		if (!o->part_count && have < need && ftruncate(fd, need))
			ret = fnblk_seterr(err, errlen, "%s: growing to %" PRIu64 ": %s",
				     o->target, need, strerror(errno));
	} else {
		ret = fnblk_seterr(err, errlen, "%s: not a block device or regular file",
			     o->target);
	}
	if (!ret && o->part_count)
		ret = place_part(o, jobs, region, have, err, errlen);
	close(fd);
	return ret;
}

static int job_file(const struct ckpt_writer *w, uint64_t cycle, char *path,
		    size_t len)
{
	int n;

	if (w->o->rotate)
		n = snprintf(path, len, "%s/job-%04u.%06" PRIu64 ".ckpt",
			     w->o->dir, w->job, cycle);
	else
		n = snprintf(path, len, "%s/job-%04u.ckpt", w->o->dir, w->job);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int open_file(struct ckpt_writer *w, uint64_t cycle, char *path,
		     size_t len, char *err, size_t errlen)
{
	if (job_file(w, cycle, path, len))
		return fnblk_seterr(err, errlen, "%s: path too long", w->o->dir);
	w->fd = open(path, w->path->open_flags | O_CREAT, 0644);
	if (w->fd < 0)
		return fnblk_seterr(err, errlen, "%s: %s", path, strerror(errno));
	return 0;
}

int ckpt_open(struct ckpt_writer **wp, const struct ckpt_opts *o,
	      unsigned int job, uint64_t region, char *err, size_t errlen)
{
	struct ckpt_writer *w = calloc(1, sizeof(*w));
	char path[PATH_MAX];
	uint64_t i;
	int ret;

	if (!w)
		return fnblk_seterr(err, errlen, "%s", strerror(ENOMEM));
	w->o = o;
	w->path = &ckpt_paths[o->path];
	w->job = job;
	w->fd = -1;
	/* --bs 0: the whole checkpoint (at most a region) in one call. */
	w->chunk = o->bs ? o->bs : region;
	if (posix_memalign((void **)&w->buf, CKPT_ALIGN, w->chunk)) {
		free(w);
		return fnblk_seterr(err, errlen, "%s", strerror(ENOMEM));
	}
	/* Never zero, so a store that skips zero pages still keeps it all. */
	for (i = 0; i < w->chunk; i++)
		w->buf[i] = (char)(((job * 131 + i * 7) & 0xfe) | 1);
	if (o->dir) {
		if (!o->rotate && open_file(w, 0, path, sizeof(path), err, errlen))
			goto fail;
	} else {
		w->base = o->base + (uint64_t)job * region;
		w->fd = open(o->target, w->path->open_flags);
		if (w->fd < 0) {
			fnblk_seterr(err, errlen, "%s: %s", o->target, strerror(errno));
			goto fail;
		}
	}
	if (w->path->queued && o->engine == CKPT_ENGINE_URING) {
		ret = io_uring_queue_init(o->qd, &w->ring, 0);
		if (ret < 0) {
			fnblk_seterr(err, errlen, "io_uring_queue_init: %s (try --engine psync)",
			       strerror(-ret));
			goto fail;
		}
		w->ring_ready = true;
	}
	*wp = w;
	return 0;
fail:
	ckpt_close(w);
	return -1;
}

static int write_uring(struct ckpt_writer *w, uint64_t off, uint64_t bytes,
		       char *err, size_t errlen)
{
	uint64_t bs = w->chunk, submitted = 0, done = 0;
	unsigned int inflight = 0;

	while (done < bytes) {
		struct io_uring_cqe *cqe;
		int ret;

		while (inflight < w->o->qd && submitted < bytes) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);
			uint64_t len = bytes - submitted < bs ? bytes - submitted : bs;

			if (!sqe)
				break;
			io_uring_prep_write(sqe, w->fd, w->buf, len, off + submitted);
			io_uring_sqe_set_data64(sqe, len);
			submitted += len;
			inflight++;
		}
		ret = io_uring_submit_and_wait(&w->ring, 1);
		if (ret < 0)
			return fnblk_seterr(err, errlen, "io_uring_submit: %s",
				      strerror(-ret));
		while (io_uring_peek_cqe(&w->ring, &cqe) == 0) {
			uint64_t want = io_uring_cqe_get_data64(cqe);
			int res = cqe->res;

			io_uring_cqe_seen(&w->ring, cqe);
			inflight--;
			if (res < 0)
				return fnblk_seterr(err, errlen, "write: %s",
					      strerror(-res));
			if ((uint64_t)res != want)
				return fnblk_seterr(err, errlen, "short write: %d of %" PRIu64,
					      res, want);
			done += want;
		}
	}
	return 0;
}

static int write_psync(struct ckpt_writer *w, uint64_t off, uint64_t bytes,
		       char *err, size_t errlen)
{
	uint64_t done = 0;

	while (done < bytes) {
		size_t len = bytes - done < w->chunk ? bytes - done : w->chunk;
		ssize_t n = pwrite(w->fd, w->buf, len, off + done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return fnblk_seterr(err, errlen, "pwrite: %s", strerror(errno));
		}
		if (n == 0)
			return fnblk_seterr(err, errlen, "pwrite: no progress");
		done += n;
	}
	return 0;
}

static int write_mmap(struct ckpt_writer *w, uint64_t off, uint64_t bytes,
		      char *err, size_t errlen)
{
	uint64_t done;
	char *map;
	int ret = 0;

	if (!bytes)
		return 0;
	if (w->o->dir && ftruncate(w->fd, off + bytes))
		return fnblk_seterr(err, errlen, "ftruncate: %s", strerror(errno));
	map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, off);
	if (map == MAP_FAILED)
		return fnblk_seterr(err, errlen, "mmap: %s", strerror(errno));
	for (done = 0; done < bytes; done += w->chunk) {
		uint64_t len = bytes - done < w->chunk ? bytes - done : w->chunk;

		memcpy(map + done, w->buf, len);
	}
	if (msync(map, bytes, MS_SYNC))
		ret = fnblk_seterr(err, errlen, "msync: %s", strerror(errno));
	munmap(map, bytes);
	return ret;
}

/* O_DIRECT by ring or pwrite; a file's new blocks need their metadata too. */
static int write_direct(struct ckpt_writer *w, uint64_t off, uint64_t bytes,
			char *err, size_t errlen)
{
	int ret = w->ring_ready ? write_uring(w, off, bytes, err, errlen) :
				  write_psync(w, off, bytes, err, errlen);

	if (!ret && w->o->dir && fdatasync(w->fd))
		ret = fnblk_seterr(err, errlen, "fdatasync: %s", strerror(errno));
	return ret;
}

static int write_buffered(struct ckpt_writer *w, uint64_t off,
			  uint64_t bytes, char *err, size_t errlen)
{
	int ret = write_psync(w, off, bytes, err, errlen);

	if (!ret && fsync(w->fd))
		ret = fnblk_seterr(err, errlen, "fsync: %s", strerror(errno));
	return ret;
}

int ckpt_write(struct ckpt_writer *w, uint64_t bytes, uint64_t cycle,
	       char *err, size_t errlen)
{
	char path[PATH_MAX];
	int ret;

	if (w->o->dir && w->o->rotate &&
	    open_file(w, cycle, path, sizeof(path), err, errlen))
		return -1;
	ckpt_stamp(w->buf, w->chunk, w->job, cycle);
	ret = w->path->write(w, w->base, bytes, err, errlen);
	if (w->o->dir && w->o->rotate) {
		close(w->fd);
		w->fd = -1;
		/* Like a real rotation: the old checkpoint goes once the new is safe. */
		if (!ret && w->prev[0] && unlink(w->prev) && errno != ENOENT)
			ret = fnblk_seterr(err, errlen, "%s: %s", w->prev, strerror(errno));
		snprintf(w->prev, sizeof(w->prev), "%s", path);
	}
	return ret;
}

void ckpt_close(struct ckpt_writer *w)
{
	if (!w)
		return;
	if (w->ring_ready)
		io_uring_queue_exit(&w->ring);
	if (w->fd >= 0)
		close(w->fd);
	free(w->buf);
	free(w);
}
