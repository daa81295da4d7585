// SPDX-License-Identifier: GPL-2.0
/*
 * Mappings: opening (the region, its registration, the descriptors),
 * closing (everything dirty written first), partial unmapping for the
 * shim, lookups, advice and the sync entry point.
 *
 * The region is private anonymous memory, so nothing but the runtime ever
 * fills it: MADV_DONTFORK keeps it out of children (they would see holes
 * nobody fills) and MADV_NOHUGEPAGE keeps khugepaged from collapsing
 * blocks. Reads and writes go through a second open file description with
 * O_DIRECT where the file allows it: the page cache then holds none of the
 * data, which is the point (the cache is ours, bounded and accounted).
 *
 * With FNMAP_CFG_CONTINUE a read-only mapping's region is instead a shared
 * mapping of a memfd, registered for minor faults too, and the runtime
 * reads straight into a second, writable mapping of the same memfd (the
 * view): UFFDIO_CONTINUE then maps the pages the read filled, with no
 * copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fnmap_internal.h"

/*
 * Work done on a program's thread (sync, advice, close, unmap, the open
 * that writes other mappings back) passes blocks through states in which
 * a fault on them waits for that work to end; a signal handler touching
 * such a block would wait for its own thread. So signals wait instead,
 * until the call returns.
 */
static void signals_hold(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

static void signals_release(const sigset_t *old)
{
	int e = errno;

	pthread_sigmask(SIG_SETMASK, old, NULL);
	errno = e;
}

static size_t page_up(size_t n)
{
	return (n + FNMAP_PAGE_SIZE - 1) & ~(FNMAP_PAGE_SIZE - 1);
}

/* ---- The mapping table ---------------------------------------------- */

struct fnmap *map_get(struct fnmap_runtime *rt, unsigned int slot,
		      uint32_t gen)
{
	struct fnmap *m = slot < FNMAP_MAX_MAPS ? rt->maps[slot] : NULL;

	return m && m->gen == gen ? m : NULL;
}

struct fnmap *map_find(struct fnmap_runtime *rt, const void *addr)
{
	static _Thread_local unsigned int hint;
	const char *a = addr;
	unsigned int i, n = rt->nmaps;

	if (hint < FNMAP_MAX_MAPS) {
		struct fnmap *m = rt->maps[hint];

		if (m && a >= m->base && a < m->base + m->length)
			return m;
	}
	for (i = 0; i < FNMAP_MAX_MAPS && n; i++) {
		struct fnmap *m = rt->maps[i];

		if (!m)
			continue;
		n--;
		if (a >= m->base && a < m->base + m->length) {
			hint = i;
			return m;
		}
	}
	return NULL;
}

static int table_add(struct fnmap_runtime *rt, struct fnmap *m)
{
	unsigned int i;

	pthread_rwlock_wrlock(&rt->maps_lock);
	for (i = 0; i < FNMAP_MAX_MAPS; i++) {
		if (!rt->maps[i]) {
			m->slot = i;
			m->gen = ++rt->gens[i];
			rt->maps[i] = m;
			rt->nmaps++;
			break;
		}
	}
	pthread_rwlock_unlock(&rt->maps_lock);
	return i < FNMAP_MAX_MAPS ? 0 : -1;
}

static void table_remove(struct fnmap_runtime *rt, struct fnmap *m)
{
	pthread_rwlock_wrlock(&rt->maps_lock);
	if (rt->maps[m->slot] == m) {
		rt->maps[m->slot] = NULL;
		rt->nmaps--;
	}
	pthread_rwlock_unlock(&rt->maps_lock);
}

/* ---- Opening ------------------------------------------------------------ */

static int check_options(const struct fnmap_options *o, uint64_t *bs)
{
	const char *env = getenv("FNMAP_BLOCK_SIZE");
	uint64_t v = o ? o->block_size : 0;

	if (!v && env && *env) {
		if (rt_parse_size_env("FNMAP_BLOCK_SIZE", env, &v))
			return -1;
	}
	if (!v)
		v = FNMAP_DEFAULT_BLOCK;
	if (v < FNMAP_MIN_BLOCK || v > FNMAP_MAX_BLOCK || (v & (v - 1)))
		return rt_fail(NULL, 0, EINVAL, "block size %llu: want a "
				  "power of two from 64 KiB to 2 MiB",
				  (unsigned long long)v);
	*bs = v;
	if (!o)
		return 0;
	if (o->flags & ~FNMAP_OPT_ALL)
		return rt_fail(NULL, 0, EINVAL, "unknown option flags %#x",
				  o->flags & ~FNMAP_OPT_ALL);
	if (o->advice != FNMAP_ADV_NORMAL && o->advice != FNMAP_ADV_RANDOM &&
	    o->advice != FNMAP_ADV_SEQUENTIAL)
		return rt_fail(NULL, 0, EINVAL, "advice %d at open: want "
				  "normal, random or sequential", o->advice);
	return 0;
}

/* Size of what fd holds, for a regular file or a block device. */
static int file_size(int fd, struct fnmap *m, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return rt_fail(NULL, 0, errno, "fstat: %s", strerror(errno));
	m->dev = st.st_dev;
	m->ino = st.st_ino;
	if (S_ISREG(st.st_mode)) {
		*size = (uint64_t)st.st_size;
		return 0;
	}
	if (S_ISBLK(st.st_mode)) {
		m->blockdev = true;
		if (ioctl(fd, BLKGETSIZE64, size))
			return rt_fail(NULL, 0, errno, "BLKGETSIZE64: %s",
					  strerror(errno));
		return 0;
	}
	return rt_fail(NULL, 0, ENODEV, "not a regular file or block "
			  "device");
}

/* The descriptors I/O goes through: a duplicate (buffered) and, unless
 * refused, the same file opened again with O_DIRECT. */
static int open_fds(struct fnmap *m, int fd, int accmode, bool buffered)
{
	char path[64];

	m->fd_buffered = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (m->fd_buffered < 0)
		return rt_fail(NULL, 0, errno, "dup: %s", strerror(errno));
	m->fd = m->fd_buffered;
	if (buffered)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	m->fd = open(path, accmode | O_DIRECT | O_CLOEXEC);
	if (m->fd < 0) {
		m->fd = m->fd_buffered;
		return 0;
	}
	m->direct = true;
	return 0;
}

/*
 * Each mapping has its own cache: a new mapping of a file reads what the
 * file holds, so the process's other mappings of it write their dirty
 * pages back first. (Later writes through one are seen by another only
 * after a sync and an invalidation: fnmap(3), CONSISTENCY.)
 */
static void sync_siblings(struct fnmap_runtime *rt, const struct fnmap *m)
{
	unsigned int i;

	for (i = 0; i < FNMAP_MAX_MAPS; i++) {
		struct fnmap *o;

		pthread_rwlock_rdlock(&rt->maps_lock);
		o = rt->maps[i];
		pthread_rwlock_unlock(&rt->maps_lock);
		if (!o || o->dev != m->dev || o->ino != m->ino ||
		    o->private_map || o->offset >= m->offset + (off_t)m->length ||
		    m->offset >= o->offset + (off_t)o->length)
			continue;
		if (wb_sync(o, o->base, o->length, 0))
			rt_log("writing back another mapping of the file: %s",
			       strerror(errno));
	}
}

static void map_free(struct fnmap *m)
{
	if (m->view)
		sys_munmap(m->view, m->length);
	if (m->memfd >= 0)
		close(m->memfd);
	if (m->fd >= 0 && m->fd != m->fd_buffered)
		close(m->fd);
	if (m->fd_buffered >= 0)
		close(m->fd_buffered);
	free(m->blocks);
	free(m->dirty_bits);
	free(m->twins);
	wb_destroy(&m->wb);
	free(m);
}

/*
 * The region and the view of a zero-copy mapping: a memfd of the region's
 * length, mapped shared twice. (The region cannot go through a read-only
 * descriptor of the memfd: userfaultfd registers only ranges that may be
 * made writable. Its protection is the program's prot, as for the
 * anonymous region.)
 */
static void *open_zero_copy(struct fnmap *m, void *addr, int prot, int fixed)
{
	void *base;

	m->memfd = memfd_create("fnmap", MFD_CLOEXEC);
	if (m->memfd < 0)
		return rt_fail(NULL, 0, errno, "memfd_create: %s",
			       strerror(errno)), MAP_FAILED;
	if (ftruncate(m->memfd, (off_t)m->length))
		return rt_fail(NULL, 0, errno, "sizing the memfd to %zu "
			       "bytes: %s", m->length, strerror(errno)),
		       MAP_FAILED;
	m->view = sys_mmap(NULL, m->length, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_NORESERVE, m->memfd, 0);
	if (m->view == MAP_FAILED) {
		m->view = NULL;
		return rt_fail(NULL, 0, errno, "mapping the memfd: %s",
			       strerror(errno)), MAP_FAILED;
	}
	sys_madvise(m->view, m->length, MADV_DONTFORK);
	base = sys_mmap(addr, m->length, prot, MAP_SHARED | MAP_NORESERVE |
			(fixed ? MAP_FIXED : 0), m->memfd, 0);
	if (base == MAP_FAILED)
		rt_fail(NULL, 0, errno, "mmap of %zu bytes: %s", m->length,
			strerror(errno));
	return base;
}

static struct fnmap *open_fd(int fd, off_t offset, size_t length, int prot,
			     void *addr, int fixed,
			     const struct fnmap_options *opt)
{
	struct fnmap_runtime *rt;
	struct fnmap *m;
	uint64_t bs = 0, size;
	int fl, accmode;
	uint32_t adv = 0, i;
	bool twins;

	if (!length || length > ((size_t)1 << 46))
		return rt_fail(NULL, 0, EINVAL, "length %zu: want 1 byte "
				  "to 64 TiB", length), NULL;
	if (offset < 0 || offset % FNMAP_PAGE_SIZE)
		return rt_fail(NULL, 0, EINVAL, "offset %lld: want a "
				  "multiple of the page size",
				  (long long)offset), NULL;
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
		return rt_fail(NULL, 0, EINVAL, "prot %#x: want PROT_READ, "
				  "PROT_WRITE, PROT_EXEC", prot), NULL;
	if (fixed && ((uintptr_t)addr % FNMAP_PAGE_SIZE || !addr))
		return rt_fail(NULL, 0, EINVAL, "a fixed address must be "
				  "page-aligned"), NULL;
	if (check_options(opt, &bs))
		return NULL;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return rt_fail(NULL, 0, EBADF, "descriptor %d: %s", fd,
				  strerror(errno)), NULL;
	accmode = fl & O_ACCMODE;
	if (accmode == O_WRONLY)
		return rt_fail(NULL, 0, EACCES, "descriptor is write-only"),
		       NULL;
	if ((prot & PROT_WRITE) && accmode == O_RDONLY &&
	    !(opt && (opt->flags & FNMAP_PRIVATE)))
		return rt_fail(NULL, 0, EACCES, "shared writable mapping "
				  "of a read-only descriptor"), NULL;
	rt = runtime_get(true);
	if (!rt)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return rt_fail(NULL, 0, ENOMEM, "out of memory"), NULL;
	m->fd = m->fd_buffered = m->memfd = -1;
	wb_init(&m->wb);
	m->rt = rt;
	m->pid = getpid();
	m->private_map = opt && (opt->flags & FNMAP_PRIVATE);
	m->writable = accmode == O_RDWR && !m->private_map;
	m->wp = m->writable || m->private_map;
	m->zero_copy = (rt->cfg.flags & FNMAP_CFG_CONTINUE) && !m->wp &&
		       rt->uffd.minor_shmem;
	m->bs = bs;
	m->bshift = (unsigned int)__builtin_ctzll(bs);
	m->offset = offset;
	m->length = page_up(length);
	if (file_size(fd, m, &size) ||
	    open_fds(m, fd, accmode, opt && (opt->flags & FNMAP_BUFFERED)))
		goto fail;
	if ((uint64_t)offset < size)
		m->file_bytes = size - (uint64_t)offset < length ?
				size - (uint64_t)offset : length;
	m->nblocks = (uint32_t)((m->length + bs - 1) >> m->bshift);
	m->blocks = calloc(m->nblocks, sizeof(*m->blocks));
	if (m->wp)
		m->dirty_bits = calloc((m->length / FNMAP_PAGE_SIZE + 63) / 64,
				       sizeof(uint64_t));
	twins = m->wp && !m->private_map &&
		!(rt->cfg.flags & FNMAP_CFG_NO_TWINS);
	if (twins)
		m->twins = calloc(m->nblocks, sizeof(*m->twins));
	if (!m->blocks || (m->wp && !m->dirty_bits) || (twins && !m->twins)) {
		rt_fail(NULL, 0, ENOMEM, "out of memory for %u blocks",
			   m->nblocks);
		goto fail;
	}
	if (opt && opt->advice == FNMAP_ADV_RANDOM)
		adv = BF_ADV_RANDOM;
	else if (opt && opt->advice == FNMAP_ADV_SEQUENTIAL)
		adv = BF_ADV_SEQ;
	for (i = 0; adv && i < m->nblocks; i++)
		atomic_store(&m->blocks[i].state, adv);

	sync_siblings(rt, m);
	if (m->zero_copy) {
		m->base = open_zero_copy(m, addr, prot, fixed);
	} else {
		m->base = sys_mmap(addr, m->length, prot,
				   MAP_PRIVATE | MAP_ANONYMOUS |
				   MAP_NORESERVE | (fixed ? MAP_FIXED : 0),
				   -1, 0);
		if (m->base == MAP_FAILED)
			rt_fail(NULL, 0, errno, "mmap of %zu bytes: %s",
				m->length, strerror(errno));
	}
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		goto fail;
	}
	sys_madvise(m->base, m->length, MADV_DONTFORK);
	sys_madvise(m->base, m->length, MADV_NOHUGEPAGE);
	if (uffd_register(&rt->uffd, m->base, m->length, m->wp,
			  m->zero_copy)) {
		rt_fail(NULL, 0, errno, "registering %zu bytes with "
			   "userfaultfd: %s", m->length, strerror(errno));
		sys_munmap(m->base, m->length);
		goto fail;
	}
	if (table_add(rt, m)) {
		uffd_unregister(&rt->uffd, m->base, m->length);
		sys_munmap(m->base, m->length);
		rt_fail(NULL, 0, EMFILE, "more than %d mappings",
			   FNMAP_MAX_MAPS);
		goto fail;
	}
	return m;
fail:
	map_free(m);
	return NULL;
}

struct fnmap *fnmap_open_fd(int fd, off_t offset, size_t length, int prot,
			    void *addr, int fixed,
			    const struct fnmap_options *opt)
{
	struct fnmap *m;
	sigset_t old;

	signals_hold(&old);
	m = open_fd(fd, offset, length, prot, addr, fixed, opt);
	signals_release(&old);
	return m;
}

struct fnmap *fnmap_open(const char *path, int flags,
			 const struct fnmap_options *opt)
{
	struct fnmap *m;
	uint64_t size;
	struct stat st;
	int fd, e;

	if (!path)
		return rt_fail(NULL, 0, EINVAL, "no path"), NULL;
	if (flags & ~O_ACCMODE || (flags & O_ACCMODE) == O_WRONLY ||
	    (flags & O_ACCMODE) == O_ACCMODE)
		return rt_fail(NULL, 0, EINVAL, "flags %#x: want O_RDONLY "
				  "or O_RDWR", flags), NULL;
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return rt_fail(NULL, 0, errno, "%s: %s", path,
				  strerror(errno)), NULL;
	if (fstat(fd, &st)) {
		e = errno;
		close(fd);
		return rt_fail(NULL, 0, e, "%s: %s", path, strerror(e)), NULL;
	}
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &size))
			size = 0;
	} else if (S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
	} else {
		close(fd);
		return rt_fail(NULL, 0, ENODEV, "%s: not a regular file or "
				  "block device", path), NULL;
	}
	if (!size) {
		close(fd);
		return rt_fail(NULL, 0, EINVAL, "%s is empty", path), NULL;
	}
	m = fnmap_open_fd(fd, 0, size, PROT_READ |
			  ((flags & O_ACCMODE) == O_RDWR ? PROT_WRITE : 0),
			  NULL, 0, opt);
	e = errno;
	close(fd);
	errno = e;
	return m;
}

/* ---- Closing ----------------------------------------------------------- */

static bool mine(const struct fnmap *m)
{
	if (m && m->pid == getpid())
		return true;
	rt_fail(NULL, 0, EINVAL, m ? "this mapping belongs to the parent "
		   "process (mappings are not inherited by fork)" :
		   "no mapping");
	return false;
}

/* Wait until m has nothing queued or at a channel. */
static void drain(struct fnmap *m)
{
	while (atomic_load(&m->queued) || atomic_load(&m->inflight))
		usleep(500);
}

static int teardown(struct fnmap *m, bool unmap)
{
	struct fnmap_runtime *rt = m->rt;
	int err = 0, i;

	/* Write back; once out of the table nothing new starts, then
	 * write back what came meanwhile (writes that raced the close). */
	for (i = 0; i < 2; i++) {
		if (wb_sync(m, m->base, m->length, 0))
			err = errno;
		if (i == 0)
			table_remove(rt, m);
		queue_forget(rt, m);
		drain(m);
	}
	for (i = 0; m->twins && i < (int)m->nblocks; i++) {
		block_lock(&m->blocks[i]);
		wb_drop_twin(m, (uint32_t)i);
		block_unlock(&m->blocks[i]);
	}
	uffd_unregister(&rt->uffd, m->base, m->length);
	if (unmap)
		sys_munmap(m->base, m->length);
	cache_forget(rt, m);
	pthread_mutex_lock(&rt->closed_lock);
	rt_counters_add(&rt->closed, &m->c);
	pthread_mutex_unlock(&rt->closed_lock);
	map_free(m);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int fnmap_close(struct fnmap *m)
{
	sigset_t old;
	int r;

	if (!mine(m))
		return -1;
	signals_hold(&old);
	r = teardown(m, true);
	signals_release(&old);
	return r;
}

static int unmap_range(struct fnmap *m, char *addr, size_t len);

int map_unmap_range(struct fnmap *m, char *addr, size_t len)
{
	sigset_t old;
	int r;

	signals_hold(&old);
	r = unmap_range(m, addr, len);
	signals_release(&old);
	return r;
}

static int unmap_range(struct fnmap *m, char *addr, size_t len)
{
	struct fnmap_runtime *rt = m->rt;
	char *end = addr + len;
	uint32_t blk;
	int r = 0;

	if (addr <= m->base && end >= m->base + m->length)
		return teardown(m, true);
	if (!m->private_map && wb_sync(m, addr, len, 0))
		r = -1;
	/* Blocks wholly inside are gone; others keep their other pages. */
	for (blk = map_block_of(m, addr); blk < m->nblocks; blk++) {
		struct fnmap_block *b = &m->blocks[blk];
		char *bstart = map_block_addr(m, blk);
		uint32_t s;

		if (bstart >= end)
			break;
		if (bstart < addr || bstart + map_block_len(m, blk) > end)
			continue;
		block_lock(b);
		if (m->private_map)
			wb_forget_block(m, blk);
		else
			wb_drop_twin(m, blk);
		s = b_set_state(b, B_GONE, BF_DIRTY);
		block_unlock(b);
		if (b_state(s) == B_RESIDENT)
			cache_gone(rt, m);
		/* The memfd would keep the pages until the close. */
		if (m->zero_copy)
			cache_punch(m, blk);
	}
	sys_munmap(addr, len);
	if (atomic_fetch_add(&m->unmapped, len) + len >= m->length)
		return teardown(m, false) ? -1 : r;
	return r;
}

void map_sync_all(struct fnmap_runtime *rt)
{
	unsigned int i;

	for (i = 0; i < FNMAP_MAX_MAPS; i++) {
		struct fnmap *m;

		pthread_rwlock_rdlock(&rt->maps_lock);
		m = rt->maps[i];
		pthread_rwlock_unlock(&rt->maps_lock);
		if (m && !m->private_map)
			wb_sync(m, m->base, m->length, 0);
	}
}

struct fnmap *map_overlapping(const void *addr, size_t len)
{
	struct fnmap_runtime *rt = runtime_peek();
	const char *a = addr;
	struct fnmap *best = NULL;
	unsigned int i;

	if (!rt)
		return NULL;
	pthread_rwlock_rdlock(&rt->maps_lock);
	for (i = 0; i < FNMAP_MAX_MAPS; i++) {
		struct fnmap *m = rt->maps[i];

		if (m && m->base < a + len && m->base + m->length > a &&
		    (!best || m->base < best->base))
			best = m;
	}
	pthread_rwlock_unlock(&rt->maps_lock);
	return best;
}

/* ---- Lookups, advice, sync, statistics ----------------------------------- */

void *fnmap_addr(const struct fnmap *m)
{
	return m ? m->base : NULL;
}

size_t fnmap_length(const struct fnmap *m)
{
	return m ? m->length : 0;
}

struct fnmap *fnmap_lookup(const void *addr)
{
	struct fnmap_runtime *rt = runtime_peek();
	struct fnmap *m;

	if (!rt)
		return NULL;
	pthread_rwlock_rdlock(&rt->maps_lock);
	m = map_find(rt, addr);
	pthread_rwlock_unlock(&rt->maps_lock);
	return m;
}

/* [addr, addr + len) inside m, len 0 meaning to the end; NULL addr means
 * the whole mapping. */
static int check_range(const struct fnmap *m, void **addr, size_t *len)
{
	char *a = *addr ? *addr : m->base;

	if (!*addr && *len)
		return rt_fail(NULL, 0, EINVAL, "a length needs an address");
	if (a < m->base || a >= m->base + m->length)
		return rt_fail(NULL, 0, EINVAL, "address %p is outside the "
				  "mapping", (void *)a);
	if (!*len || *len > (size_t)(m->base + m->length - a))
		*len = (size_t)(m->base + m->length - a);
	*addr = a;
	return 0;
}

int fnmap_sync(struct fnmap *m, void *addr, size_t len, unsigned int flags)
{
	sigset_t old;
	int r;

	if (!mine(m))
		return -1;
	if (flags & ~FNMAP_SYNC_ALL)
		return rt_fail(NULL, 0, EINVAL, "unknown sync flags %#x",
				  flags & ~FNMAP_SYNC_ALL);
	if (check_range(m, &addr, &len))
		return -1;
	signals_hold(&old);
	r = wb_sync(m, addr, len, flags);
	signals_release(&old);
	return r;
}

static int advise(struct fnmap *m, void *addr, size_t len,
		  enum fnmap_advice advice);

int fnmap_advise(struct fnmap *m, void *addr, size_t len,
		 enum fnmap_advice advice)
{
	sigset_t old;
	int r;

	if (!mine(m) || check_range(m, &addr, &len))
		return -1;
	signals_hold(&old);
	r = advise(m, addr, len, advice);
	signals_release(&old);
	return r;
}

static int advise(struct fnmap *m, void *addr, size_t len,
		  enum fnmap_advice advice)
{
	uint32_t first, last, blk, bits;

	first = map_block_of(m, addr);
	last = map_block_of(m, (char *)addr + len - 1);
	switch (advice) {
	case FNMAP_ADV_NORMAL:
	case FNMAP_ADV_RANDOM:
	case FNMAP_ADV_SEQUENTIAL:
		bits = advice == FNMAP_ADV_RANDOM ? BF_ADV_RANDOM :
		       advice == FNMAP_ADV_SEQUENTIAL ? BF_ADV_SEQ : 0;
		for (blk = first; blk <= last; blk++) {
			atomic_fetch_and(&m->blocks[blk].state, ~BF_ADV_MASK);
			atomic_fetch_or(&m->blocks[blk].state, bits);
		}
		return 0;
	case FNMAP_ADV_WILLNEED:
		for (blk = first; blk <= last; blk++)
			fault_miss(m, blk, true);
		return 0;
	case FNMAP_ADV_DONTNEED:
		if (m->private_map) {
			/* Like MADV_DONTNEED on MAP_PRIVATE: changes go. */
			for (blk = first; blk <= last; blk++) {
				block_lock(&m->blocks[blk]);
				wb_forget_block(m, blk);
				block_unlock(&m->blocks[blk]);
			}
		} else if (wb_sync(m, addr, len, 0)) {
			return -1;
		}
		cache_invalidate(m->rt, m, first, last);
		return 0;
	}
	return rt_fail(NULL, 0, EINVAL, "unknown advice %d", advice);
}
