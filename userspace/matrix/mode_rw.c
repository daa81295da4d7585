// SPDX-License-Identifier: GPL-2.0
/*
 * --mode pread and --mode direct: the matrix read into a per-thread
 * buffer with pread(), one request of --bs bytes at a time, aligned to
 * --bs; updates written back with pwrite() of the same blocks. pread goes
 * through the page cache (and its readahead), direct opens the file with
 * O_DIRECT so every call is one request to the device.
 *
 * A thread keeps the blocks of its last read: the next range inside them
 * costs no I/O (an application reading a block once and using all of
 * it). When the run writes, a range's blocks are locked from get() to
 * put() (striped locks), so concurrent read-modify-writes of one block
 * cannot lose each other's updates, and nothing is reused.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fs.h>

#include "../lib/diag.h"
#include "../lib/units.h"
#include "mode.h"

#define RW_DEFAULT_BS	4096u
#define RW_BUF_ALIGN	4096u
#define RW_STRIPES	256u

struct rw_run {
	int fd;
	bool direct;
	uint64_t bs;
	uint64_t dio_align;	/* direct: the smallest legal alignment */
	pthread_mutex_t stripe[RW_STRIPES];
	atomic_uint_least64_t reads, read_bytes, writes, write_bytes, reused;
};

struct rw_thread {
	char *buf;
	size_t cap;
	uint64_t buf_off, buf_len;	/* data bytes the buffer holds */
	bool valid;
	uint64_t lo, hi;		/* blocks of the range being used */
	unsigned char locked[RW_STRIPES / 8];
};

/* O_DIRECT alignment of a file or device; 0 if it takes no O_DIRECT. */
static uint64_t dio_alignment(const struct mx_target *t)
{
#ifdef STATX_DIOALIGN
	struct statx stx;
#endif
	int lbs;

	if (t->blockdev)
		return ioctl(t->fd, BLKSSZGET, &lbs) || lbs <= 0 ? 4096 :
		       (uint64_t)lbs;
#ifdef STATX_DIOALIGN
	if (!statx(t->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
	    (stx.stx_mask & STATX_DIOALIGN))
		return stx.stx_dio_offset_align;
#endif
	return 4096;	/* not told: the page size is always enough */
}

static int rw_open(struct mx_mode_run *r, bool direct, char *err,
		   size_t errlen)
{
	const struct mx_target *t = r->tgt;
	struct rw_run *m = calloc(1, sizeof(*m));
	char b1[FNBLK_UNIT_BUFLEN];

	if (!m)
		return fnblk_seterr(err, errlen, "out of memory");
	m->direct = direct;
	m->bs = r->set->bs ? r->set->bs : RW_DEFAULT_BS;
	m->fd = -1;
	if (direct) {
		m->dio_align = dio_alignment(t);
		if (!m->dio_align) {
			free(m);
			return fnblk_seterr(err, errlen, "%s: O_DIRECT is not supported here",
					    t->path);
		}
		if (m->bs % m->dio_align) {
			fnblk_seterr(err, errlen, "--bs %s: O_DIRECT on %s needs a multiple of %" PRIu64 " bytes",
				     fnblk_format_size(m->bs, b1, sizeof(b1)), t->path,
				     m->dio_align);
			free(m);
			return -1;
		}
		m->fd = open(t->path, (t->writes ? O_RDWR : O_RDONLY) | O_DIRECT | O_CLOEXEC);
		if (m->fd < 0) {
			fnblk_seterr(err, errlen, "%s: O_DIRECT: %s", t->path, strerror(errno));
			free(m);
			return -1;
		}
	}
	for (unsigned int i = 0; i < RW_STRIPES; i++)
		pthread_mutex_init(&m->stripe[i], NULL);
	r->priv = m;
	return 0;
}

static int pread_open(struct mx_mode_run *r, char *err, size_t errlen)
{
	return rw_open(r, false, err, errlen);
}

static int direct_open(struct mx_mode_run *r, char *err, size_t errlen)
{
	return rw_open(r, true, err, errlen);
}

static int rw_fd(const struct mx_mode_run *r)
{
	const struct rw_run *m = r->priv;

	return m->direct ? m->fd : r->tgt->fd;
}

static int rw_thread_init(struct mx_mode_thread *t, char *err, size_t errlen)
{
	struct rw_thread *th = calloc(1, sizeof(*th));

	if (!th)
		return fnblk_seterr(err, errlen, "out of memory");
	t->priv = th;
	return 0;
}

static int reserve(struct rw_thread *th, size_t need)
{
	void *p;

	if (need <= th->cap)
		return 0;
	if (posix_memalign(&p, RW_BUF_ALIGN, need))
		return -1;
	free(th->buf);
	th->buf = p;
	th->cap = need;
	return 0;
}

/* Lock (or unlock) the stripes of blocks lo..hi, in ascending order. */
static void lock_blocks(struct rw_run *m, struct rw_thread *th, uint64_t lo,
			uint64_t hi)
{
	memset(th->locked, 0, sizeof(th->locked));
	for (uint64_t b = lo; b <= hi && b - lo < RW_STRIPES; b++) {
		unsigned int s = (unsigned int)(b % RW_STRIPES);

		th->locked[s / 8] |= (unsigned char)(1u << (s % 8));
	}
	for (unsigned int s = 0; s < RW_STRIPES; s++)
		if (th->locked[s / 8] & (1u << (s % 8)))
			pthread_mutex_lock(&m->stripe[s]);
}

static void unlock_blocks(struct rw_run *m, struct rw_thread *th)
{
	for (unsigned int s = 0; s < RW_STRIPES; s++)
		if (th->locked[s / 8] & (1u << (s % 8)))
			pthread_mutex_unlock(&m->stripe[s]);
	memset(th->locked, 0, sizeof(th->locked));
}

/* One call per block: the request size is exactly --bs (the last clipped). */
static int transfer(struct mx_mode_run *r, struct rw_thread *th, bool write,
		    uint64_t a, uint64_t e, char *err, size_t errlen)
{
	struct rw_run *m = r->priv;
	int fd = rw_fd(r);

	for (uint64_t x = a; x < e; x += m->bs) {
		size_t n = (size_t)(e - x < m->bs ? e - x : m->bs);
		char *p = th->buf + (x - th->buf_off);
		off_t at = (off_t)(r->tgt->data_offset + x);
		ssize_t got;

		do {
			got = write ? pwrite(fd, p, n, at) : pread(fd, p, n, at);
		} while (got < 0 && errno == EINTR);
		if (got != (ssize_t)n)
			return fnblk_seterr(err, errlen, "%s %s at %lld: %s",
					    write ? "pwrite" : "pread", r->tgt->path,
					    (long long)at,
					    got < 0 ? strerror(errno) : "short transfer");
		if (write) {
			m->writes++;
			m->write_bytes += n;
		} else {
			m->reads++;
			m->read_bytes += n;
		}
	}
	return 0;
}

static int rw_get(struct mx_mode_thread *t, uint64_t off, size_t len,
		  unsigned int flags, void **p, char *err, size_t errlen)
{
	struct rw_run *m = t->run->priv;
	struct rw_thread *th = t->priv;
	uint64_t a = off / m->bs * m->bs;
	uint64_t e = (off + len + m->bs - 1) / m->bs * m->bs;
	bool writes = t->run->tgt->writes;

	(void)flags;
	if (e > t->run->tgt->span)
		e = t->run->tgt->span;
	th->lo = a / m->bs;
	th->hi = (e - 1) / m->bs;
	if (!writes && th->valid && a >= th->buf_off &&
	    e <= th->buf_off + th->buf_len) {
		m->reused++;
		*p = th->buf + (off - th->buf_off);
		return 0;
	}
	th->valid = false;
	if (reserve(th, (size_t)(e - a)))
		return fnblk_seterr(err, errlen, "out of memory for a %" PRIu64 "-byte buffer",
				    e - a);
	if (writes)
		lock_blocks(m, th, th->lo, th->hi);
	th->buf_off = a;
	th->buf_len = e - a;
	if (transfer(t->run, th, false, a, e, err, errlen)) {
		if (writes)
			unlock_blocks(m, th);
		return -1;
	}
	th->valid = !writes;
	*p = th->buf + (off - a);
	return 0;
}

static int rw_put(struct mx_mode_thread *t, uint64_t off, size_t len,
		  bool dirty, char *err, size_t errlen)
{
	struct rw_run *m = t->run->priv;
	struct rw_thread *th = t->priv;
	int ret = 0;

	if (dirty) {
		uint64_t a = off / m->bs * m->bs;
		uint64_t e = (off + len + m->bs - 1) / m->bs * m->bs;

		if (e > th->buf_off + th->buf_len)
			e = th->buf_off + th->buf_len;
		ret = transfer(t->run, th, true, a, e, err, errlen);
	}
	if (t->run->tgt->writes)
		unlock_blocks(m, th);
	return ret;
}

static int rw_sync(struct mx_mode_thread *t, char *err, size_t errlen)
{
	if (fsync(rw_fd(t->run)))
		return fnblk_seterr(err, errlen, "fsync %s: %s", t->run->tgt->path,
				    strerror(errno));
	return 0;
}

static void rw_thread_exit(struct mx_mode_thread *t)
{
	struct rw_thread *th = t->priv;

	if (th)
		free(th->buf);
	free(th);
	t->priv = NULL;
}

static void rw_describe(struct mx_mode_run *r, json_t *s)
{
	struct rw_run *m = r->priv;

	json_object_set_new(s, "bs", json_integer((json_int_t)m->bs));
	json_object_set_new(s, "o_direct", json_boolean(m->direct));
	if (m->direct)
		json_object_set_new(s, "dio_align", json_integer((json_int_t)m->dio_align));
}

static void rw_stats(struct mx_mode_run *r, json_t *c)
{
	struct rw_run *m = r->priv;

	json_object_set_new(c, "read_calls", json_integer((json_int_t)m->reads));
	json_object_set_new(c, "read_bytes", json_integer((json_int_t)m->read_bytes));
	json_object_set_new(c, "write_calls", json_integer((json_int_t)m->writes));
	json_object_set_new(c, "write_bytes", json_integer((json_int_t)m->write_bytes));
	json_object_set_new(c, "reused", json_integer((json_int_t)m->reused));
}

static void rw_close(struct mx_mode_run *r)
{
	struct rw_run *m = r->priv;

	if (!m)
		return;
	if (m->fd >= 0)
		close(m->fd);
	for (unsigned int i = 0; i < RW_STRIPES; i++)
		pthread_mutex_destroy(&m->stripe[i]);
	free(m);
	r->priv = NULL;
}

/* Everything but open is the same for both. */
#define RW_OPERATIONS					\
	.flags = MX_MODE_BS,				\
	.thread_init = rw_thread_init,			\
	.get = rw_get,					\
	.put = rw_put,					\
	.sync = rw_sync,				\
	.thread_exit = rw_thread_exit,			\
	.describe = rw_describe,			\
	.stats = rw_stats,				\
	.close = rw_close

const struct mx_mode mx_mode_pread = {
	.name = "pread",
	.summary = "pread()/pwrite() of --bs blocks through the page cache",
	.open = pread_open,
	RW_OPERATIONS,
};

const struct mx_mode mx_mode_direct = {
	.name = "direct",
	.summary = "pread()/pwrite() of --bs blocks with O_DIRECT: one request each",
	.open = direct_open,
	RW_OPERATIONS,
};
