// SPDX-License-Identifier: GPL-2.0
/* Matrix sets: create, open, locate, version, cache (see target.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fs.h>

#include "../lib/diag.h"
#include "target.h"

#define CHUNK_BYTES	(1u << 20)

const char *mx_set_kind_name(enum mx_set_kind k)
{
	switch (k) {
	case MX_SET_DIR:
		return "directory";
	case MX_SET_FILE:
		return "file";
	case MX_SET_BLOCKDEV:
		return "block device";
	}
	return "?";
}

static void dir_member(const char *dir, unsigned int job, char *out,
		       size_t len)
{
	/* Paths were checked to leave room for the name (check_path). */
	if (snprintf(out, len, "%s/matrix-%04u.fbm", dir, job) >= (int)len)
		out[0] = '\0';
}

static int check_path(const char *path, char *err, size_t errlen)
{
	if (strlen(path) + 32 > PATH_MAX)
		return fnblk_seterr(err, errlen, "%s: path too long", path);
	return 0;
}

/* Where matrix job of a set of kind k at path lives. */
static void locate(const char *path, enum mx_set_kind k, unsigned int job,
		   uint64_t stride, char *out, size_t len, uint64_t *offset)
{
	if (k == MX_SET_DIR) {
		dir_member(path, job, out, len);
		*offset = 0;
	} else {
		snprintf(out, len, "%s", path);
		*offset = (uint64_t)job * stride;
	}
}

static int kind_of(const char *path, bool must_exist, enum mx_set_kind *k,
		   char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st)) {
		if (errno == ENOENT && !must_exist) {
			*k = MX_SET_FILE;
			return 0;
		}
		return fnblk_seterr(err, errlen, "%s: %s", path, strerror(errno));
	}
	if (S_ISDIR(st.st_mode))
		*k = MX_SET_DIR;
	else if (S_ISBLK(st.st_mode))
		*k = MX_SET_BLOCKDEV;
	else if (S_ISREG(st.st_mode))
		*k = MX_SET_FILE;
	else
		return fnblk_seterr(err, errlen,
				    "%s: not a directory, block device or regular file",
				    path);
	return 0;
}

/* All of len bytes, through EINTR and short transfers. */
static int transfer_all(int fd, void *buf, size_t len, uint64_t off,
			bool write)
{
	char *p = buf;

	while (len) {
		ssize_t n = write ? pwrite(fd, p, len, (off_t)off) :
				    pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = write ? EIO : ENODATA;	/* past the end */
			return -1;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int write_header(int fd, const struct mx_header *h, uint64_t off)
{
	static char block[MX_HEADER_SIZE];

	memset(block, 0, sizeof(block));
	memcpy(block, h, sizeof(*h));
	return transfer_all(fd, block, sizeof(block), off, true);
}

static uint64_t device_bytes(int fd)
{
	uint64_t size = 0;

	return ioctl(fd, BLKGETSIZE64, &size) ? 0 : size;
}

/* The data of one matrix, a chunk at a time, in column-major order. */
static int write_data(int fd, const struct mx_header *h, uint64_t base,
		      double *chunk, uint64_t *done, uint64_t total,
		      bool progress)
{
	uint64_t elems = h->rows * h->cols, e = 0;
	const size_t per = CHUNK_BYTES / MX_ELEM;

	while (e < elems) {
		size_t n = elems - e < per ? (size_t)(elems - e) : per;
		uint64_t i = e % h->rows, j = e / h->rows;

		for (size_t k = 0; k < n; k++) {
			chunk[k] = mx_value(h, i, j, 0);
			if (++i == h->rows) {
				i = 0;
				j++;
			}
		}
		if (transfer_all(fd, chunk, n * MX_ELEM,
				 base + MX_HEADER_SIZE + e * MX_ELEM, true))
			return -1;
		e += n;
		*done += n * MX_ELEM;
		if (progress)
			fprintf(stderr, "\rfnblk-matrix create: %3.0f%%",
				100.0 * (double)*done / (double)total);
	}
	return 0;
}

static int finish_file(int fd, uint64_t off, uint64_t len)
{
	if (fdatasync(fd))
		return -1;
	/* Evict what was written: runs start cold. */
	(void)posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
	return 0;
}

int mx_create(const char *path, const struct mx_create_opts *o,
	      char *err, size_t errlen)
{
	uint64_t stride = mx_stride(o->rows, o->cols);
	uint64_t total = (uint64_t)o->jobs * mx_data_bytes(o->rows, o->cols);
	uint64_t done = 0;
	enum mx_set_kind kind;
	char file[PATH_MAX];
	double *chunk;
	int fd = -1, ret = -1;

	if (check_path(path, err, errlen) ||
	    kind_of(path, false, &kind, err, errlen))
		return -1;
	chunk = malloc(CHUNK_BYTES);
	if (!chunk)
		return fnblk_seterr(err, errlen, "out of memory");
	for (unsigned int job = 0; job < o->jobs; job++) {
		struct mx_header h;
		uint64_t off;

		locate(path, kind, job, stride, file, sizeof(file), &off);
		if (fd < 0) {
			fd = open(file, O_WRONLY | O_CLOEXEC |
				  (kind == MX_SET_BLOCKDEV ? 0 : O_CREAT), 0644);
			if (fd < 0) {
				fnblk_seterr(err, errlen, "%s: %s", file, strerror(errno));
				goto out;
			}
		}
		if (kind == MX_SET_BLOCKDEV && job == 0 &&
		    device_bytes(fd) < (uint64_t)o->jobs * stride) {
			fnblk_seterr(err, errlen,
				     "%s: %" PRIu64 " bytes, the matrices need %" PRIu64,
				     path, device_bytes(fd), (uint64_t)o->jobs * stride);
			goto out;
		}
		mx_header_init(&h, o->rows, o->cols, o->seed, job, o->jobs);
		if (write_data(fd, &h, off, chunk, &done, total, o->progress) ||
		    write_header(fd, &h, off) ||
		    (kind != MX_SET_BLOCKDEV &&
		     (kind == MX_SET_DIR || job + 1 == o->jobs) &&
		     ftruncate(fd, (off_t)(off + stride))) ||
		    finish_file(fd, off, stride)) {
			fnblk_seterr(err, errlen, "%s: %s", file, strerror(errno));
			goto out;
		}
		if (kind == MX_SET_DIR) {
			close(fd);
			fd = -1;
		}
	}
	ret = 0;
out:
	if (o->progress)
		fputc('\n', stderr);
	if (fd >= 0)
		close(fd);
	free(chunk);
	return ret;
}

static int read_header(const char *file, uint64_t off, struct mx_header *h,
		       char *err, size_t errlen)
{
	char why[200];
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fnblk_seterr(err, errlen, "%s: %s", file, strerror(errno));
	if (transfer_all(fd, h, sizeof(*h), off, false)) {
		int e = errno;

		close(fd);
		return fnblk_seterr(err, errlen, "%s: reading the header at %" PRIu64 ": %s",
				    file, off, e == ENODATA ? "past the end" : strerror(e));
	}
	close(fd);
	if (mx_header_check(h, why, sizeof(why)))
		return fnblk_seterr(err, errlen, "%s (at %" PRIu64 "): %s", file, off, why);
	return 0;
}

int mx_set_open(const char *path, struct mx_set *s, char *err, size_t errlen)
{
	char file[PATH_MAX];
	uint64_t off;

	memset(s, 0, sizeof(*s));
	if (check_path(path, err, errlen))
		return -1;
	strcpy(s->path, path);
	if (kind_of(path, true, &s->kind, err, errlen))
		return -1;
	locate(path, s->kind, 0, 0, file, sizeof(file), &off);
	return read_header(file, off, &s->first, err, errlen);
}

int mx_set_member(const struct mx_set *s, unsigned int job,
		  struct mx_member *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	locate(s->path, s->kind, job, s->first.stride, m->path, sizeof(m->path),
	       &m->offset);
	m->blockdev = s->kind == MX_SET_BLOCKDEV;
	if (read_header(m->path, m->offset, &m->h, err, errlen))
		return -1;
	if (m->h.job != job)
		return fnblk_seterr(err, errlen, "%s (at %" PRIu64 "): matrix %u of a set, expected %u",
				    m->path, m->offset, m->h.job, job);
	return 0;
}

unsigned int mx_set_count(const struct mx_set *s)
{
	struct mx_header h;
	char file[PATH_MAX], err[64];
	unsigned int n;

	if (s->kind != MX_SET_DIR)
		return s->first.jobs;
	for (n = 0; n < s->first.jobs; n++) {
		dir_member(s->path, n, file, sizeof(file));
		if (read_header(file, 0, &h, err, sizeof(err)))
			break;
	}
	return n;
}

int mx_member_write_header(struct mx_member *m, char *err, size_t errlen)
{
	int fd = open(m->path, O_WRONLY | O_CLOEXEC);

	mx_header_seal(&m->h);
	if (fd < 0 || write_header(fd, &m->h, m->offset) || fdatasync(fd)) {
		fnblk_seterr(err, errlen, "%s: writing the header: %s", m->path,
			     strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int mx_member_drop_cache(const struct mx_member *m, char *err, size_t errlen)
{
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	int e = 0;

	if (fd < 0)
		return fnblk_seterr(err, errlen, "%s: %s", m->path, strerror(errno));
	if (fdatasync(fd))
		e = errno;
	else
		e = posix_fadvise(fd, (off_t)m->offset, (off_t)m->h.stride,
				  POSIX_FADV_DONTNEED);
	close(fd);
	if (e)
		return fnblk_seterr(err, errlen, "%s: dropping cached pages: %s",
				    m->path, strerror(e));
	return 0;
}

uint64_t mx_member_span(const struct mx_member *m)
{
	return m->h.stride - MX_HEADER_SIZE;
}
