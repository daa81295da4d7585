// SPDX-License-Identifier: GPL-2.0
/*
 * --mode mmap: the matrix mapped MAP_SHARED, read and written in place.
 * The kernel decides all I/O: a miss is a page fault that reads the page
 * (and as much around it as readahead allows), fault-around maps
 * neighbours already cached, and updates reach the file by write-back or
 * msync().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../lib/diag.h"
#include "mode.h"

#define FAULT_AROUND_PATH "/sys/kernel/debug/fault_around_bytes"

struct mmap_run {
	void *base;
	size_t len;
};

static const int advice[MX_NR_ADVISE] = {
	[MX_ADVISE_NORMAL] = MADV_NORMAL,
	[MX_ADVISE_RANDOM] = MADV_RANDOM,
	[MX_ADVISE_SEQUENTIAL] = MADV_SEQUENTIAL,
};

static int mmap_open(struct mx_mode_run *r, char *err, size_t errlen)
{
	const struct mx_target *t = r->tgt;
	long page = sysconf(_SC_PAGESIZE);
	struct mmap_run *m = calloc(1, sizeof(*m));

	if (!m)
		return fnblk_seterr(err, errlen, "out of memory");
	m->len = (t->data_bytes + (size_t)page - 1) / (size_t)page * (size_t)page;
	m->base = mmap(NULL, m->len, PROT_READ | (t->writes ? PROT_WRITE : 0),
		       MAP_SHARED, t->fd, (off_t)t->data_offset);
	if (m->base == MAP_FAILED) {
		free(m);
		return fnblk_seterr(err, errlen, "mmap %s: %s", t->path, strerror(errno));
	}
	if (madvise(m->base, m->len, advice[r->set->advise])) {
		munmap(m->base, m->len);
		free(m);
		return fnblk_seterr(err, errlen, "madvise %s: %s",
				    mx_advise_name(r->set->advise), strerror(errno));
	}
	r->priv = m;
	return 0;
}

static int mmap_get(struct mx_mode_thread *t, uint64_t off, size_t len,
		    unsigned int flags, void **p, char *err, size_t errlen)
{
	struct mmap_run *m = t->run->priv;

	(void)len;
	(void)flags;
	(void)err;
	(void)errlen;
	*p = (char *)m->base + off;
	return 0;
}

static int mmap_sync(struct mx_mode_thread *t, char *err, size_t errlen)
{
	struct mmap_run *m = t->run->priv;

	if (msync(m->base, m->len, MS_SYNC))
		return fnblk_seterr(err, errlen, "msync: %s", strerror(errno));
	return 0;
}

/* The kernel's fault-around window (debugfs), or -1 if not readable. */
static long long fault_around_bytes(void)
{
	long long v = -1;
	FILE *f = fopen(FAULT_AROUND_PATH, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void mmap_describe(struct mx_mode_run *r, json_t *s)
{
	struct mmap_run *m = r->priv;
	long long fa = fault_around_bytes();

	json_object_set_new(s, "advise", json_string(mx_advise_name(r->set->advise)));
	json_object_set_new(s, "map_bytes", json_integer((json_int_t)m->len));
	json_object_set_new(s, "fault_around_bytes",
			    fa < 0 ? json_null() : json_integer(fa));
}

static void mmap_close(struct mx_mode_run *r)
{
	struct mmap_run *m = r->priv;

	if (!m)
		return;
	munmap(m->base, m->len);
	free(m);
	r->priv = NULL;
}

const struct mx_mode mx_mode_mmap = {
	.name = "mmap",
	.summary = "map the matrix (MAP_SHARED); the kernel faults pages in",
	.flags = MX_MODE_ADVISE,
	.open = mmap_open,
	.get = mmap_get,
	.sync = mmap_sync,
	.describe = mmap_describe,
	.close = mmap_close,
};
