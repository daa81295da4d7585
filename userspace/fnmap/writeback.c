// SPDX-License-Identifier: GPL-2.0
/*
 * Dirty tracking and write-back.
 *
 * A writable mapping is registered for write protection and every fill
 * maps its pages write-protected, so the first write to a clean page
 * faults: the fault thread sets the page's dirty bit and unprotects that
 * page only (dirty tracking is per page, so write-back sends only what
 * changed and two processes writing different pages of one block do not
 * overwrite each other).
 *
 * Writing a block back, under its bit lock: write-protect each run of
 * dirty pages again, clear their bits, and either copy the run to a
 * shadow buffer (fnmap_sync(): the lock is dropped at once, writers that
 * come next fault, re-dirty the page and go on while the shadow is
 * written) or, for an eviction, write straight from the region (the block
 * is leaving; writers wait for the refill). Each piece takes a ticket;
 * fnmap_sync() waits until every ticket up to its last is complete, so it
 * also waits for evictions that took dirty pages before it looked.
 *
 * A block being written page after page would pay a fault a page, each
 * a round trip to a fault thread. So the second first-write into a block
 * of a shared mapping (one page of it dirty already) makes the whole
 * block writable and keeps a twin: a copy of the block taken while its
 * clean pages were still write-protected. Write-back protects the block
 * again and compares each clean page with its twin: the pages that
 * differ are dirty, the others were not written (or written with what
 * they held), so write-back still sends only pages this process changed.
 * Twins are resident bytes of the cache (the evictor counts them) and
 * come from a pool of their own; without memory for one, or with a page
 * of the block missing (copying it would fault to the fault thread
 * itself), the fault unprotects one page as before. FNMAP_CFG_NO_TWINS
 * turns twins off.
 *
 * A program that reads an element and then writes it (an update) pays a
 * miss and then a write fault for each block it touches, two round trips
 * to a fault thread where mmap pays two kernel faults. Write-allocate
 * takes the second away: while the mapping's write score says that its
 * program writes the blocks it reads, a fill maps the block writable at
 * once and keeps a twin of what it read (copied from the read buffer, so
 * nothing faults), and write-back finds the changed pages as for any
 * twin. The score rises with each first write into a clean block and each
 * fill twin found written, and falls twice as fast with each fill twin
 * found unwritten, so a program that stops writing stops paying for twins
 * once a few were written back or evicted unwritten.
 * FNMAP_CFG_NO_WRITE_ALLOC turns it off.
 *
 * A failed write marks its pages dirty again (the region still holds
 * them, or newer data) and the error is reported by the next sync.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fnmap_internal.h"

/* ---- Tickets ----------------------------------------------------------- */

void wb_init(struct wb_tickets *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
}

void wb_destroy(struct wb_tickets *t)
{
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->cond);
	free(t->late);
}

uint64_t wb_ticket(struct wb_tickets *t)
{
	uint64_t n;

	pthread_mutex_lock(&t->lock);
	n = t->next++;
	pthread_mutex_unlock(&t->lock);
	return n;
}

void wb_complete(struct wb_tickets *t, uint64_t ticket)
{
	size_t i;

	pthread_mutex_lock(&t->lock);
	if (ticket != t->done) {
		if (t->nlate == t->late_cap) {
			size_t ncap = t->late_cap ? t->late_cap * 2 : 64;
			uint64_t *p = realloc(t->late, ncap * sizeof(*p));

			while (!p) {
				/* Keep the ticket: waiters must not pass it. */
				pthread_mutex_unlock(&t->lock);
				sched_yield();
				pthread_mutex_lock(&t->lock);
				p = realloc(t->late, ncap * sizeof(*p));
			}
			t->late = p;
			t->late_cap = ncap;
		}
		t->late[t->nlate++] = ticket;
		pthread_mutex_unlock(&t->lock);
		return;
	}
	t->done++;
	/* Tickets that completed early may now be passed. */
	for (i = 0; i < t->nlate;) {
		if (t->late[i] == t->done) {
			t->done++;
			t->late[i] = t->late[--t->nlate];
			i = 0;
		} else {
			i++;
		}
	}
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

void wb_wait(struct wb_tickets *t, uint64_t upto)
{
	pthread_mutex_lock(&t->lock);
	while (t->done < upto)
		pthread_cond_wait(&t->cond, &t->lock);
	pthread_mutex_unlock(&t->lock);
}

/* ---- Dirty bits ------------------------------------------------------ */

static size_t page_index(const struct fnmap *m, const char *addr)
{
	return (size_t)(addr - m->base) >> FNMAP_PAGE_SHIFT;
}

static bool test_and_set_dirty(struct fnmap *m, size_t pg)
{
	uint64_t bit = 1ULL << (pg % 64);

	return atomic_fetch_or(&m->dirty_bits[pg / 64], bit) & bit;
}

static bool test_and_clear_dirty(struct fnmap *m, size_t pg)
{
	uint64_t bit = 1ULL << (pg % 64);

	return atomic_fetch_and(&m->dirty_bits[pg / 64], ~bit) & bit;
}

static bool is_dirty(struct fnmap *m, size_t pg)
{
	return atomic_load(&m->dirty_bits[pg / 64]) & (1ULL << (pg % 64));
}

/* ---- Twins ------------------------------------------------------------ */

/* Does block blk have a dirty page? */
static bool block_has_dirty(struct fnmap *m, uint32_t blk)
{
	char *start = map_block_addr(m, blk);
	size_t pg = page_index(m, start);
	size_t end = pg + (map_block_len(m, blk) >> FNMAP_PAGE_SHIFT);

	for (; pg < end; pg++)
		if (is_dirty(m, pg))
			return true;
	return false;
}

/*
 * Make block blk writable as a whole, keeping a twin of it; false if it
 * cannot be (no memory, a page missing). Block lock held; its clean
 * pages are write-protected, so the copy is what they hold.
 */
static bool twin_block(struct fnmap *m, uint32_t blk)
{
	unsigned char vec[FNMAP_MAX_BLOCK >> FNMAP_PAGE_SHIFT];
	char *start = map_block_addr(m, blk), *twin;
	size_t len = map_block_len(m, blk), i;

	if (!m->twins || m->twins[blk])
		return false;
	/* The fault thread must not fault on the region itself. */
	if (mincore(start, len, vec))
		return false;
	for (i = 0; i < len >> FNMAP_PAGE_SHIFT; i++)
		if (!(vec[i] & 1))
			return false;
	twin = staging_get(m->rt->twins, len, false);
	if (!twin)
		return false;
	memcpy(twin, start, len);
	m->twins[blk] = twin;
	cache_twin(m->rt, (ssize_t)len);
	atomic_fetch_or(&m->blocks[blk].state, BF_TWIN);
	if (uffd_protect(&m->rt->uffd, start, len, false))
		rt_log("unprotecting a block: %s", strerror(errno));
	return true;
}

/* Write-allocate from this score on; the score stays within +-SCORE_MAX
 * so that a change of the program's habits is seen within a few blocks. */
#define SCORE_ON	4
#define SCORE_MAX	16

static void score_add(struct fnmap *m, int d)
{
	int s = atomic_load(&m->write_score), n;

	do {
		n = s + d;
		if (n > SCORE_MAX)
			n = SCORE_MAX;
		if (n < -SCORE_MAX)
			n = -SCORE_MAX;
	} while (n != s &&
		 !atomic_compare_exchange_weak(&m->write_score, &s, n));
}

int wb_fill_twin(struct fnmap *m, uint32_t blk, char *dst, const char *buf,
		 size_t len)
{
	struct fnmap_block *b = &m->blocks[blk];
	char *twin;

	if (!m->twins || (m->rt->cfg.flags & FNMAP_CFG_NO_WRITE_ALLOC) ||
	    atomic_load(&m->write_score) < SCORE_ON || m->twins[blk])
		return 0;
	twin = staging_get(m->rt->twins, len, false);
	if (!twin)
		return 0;
	memcpy(twin, buf, len);
	block_lock(b);
	/* Dirty (to be compared) before the first write can land, resident
	 * before the lock goes: a sync that follows a write finds it. */
	m->twins[blk] = twin;
	cache_twin(m->rt, (ssize_t)len);
	atomic_fetch_or(&b->state, BF_TWIN | BF_FILL_TWIN | BF_DIRTY);
	if (uffd_copy(&m->rt->uffd, dst, buf, len, false)) {
		int err = errno;

		wb_drop_twin(m, blk);
		atomic_fetch_and(&b->state, ~(BF_FILL_TWIN | BF_DIRTY));
		block_unlock(b);
		errno = err;
		return -1;
	}
	b_set_state(b, B_RESIDENT, 0);
	block_unlock(b);
	counter_add(&m->c.twins_at_fill, 1);
	return 1;
}

void wb_drop_twin(struct fnmap *m, uint32_t blk)
{
	size_t len = map_block_len(m, blk);

	if (!m->twins || !m->twins[blk])
		return;
	staging_put(m->rt->twins, m->twins[blk], len);
	m->twins[blk] = NULL;
	cache_twin(m->rt, -(ssize_t)len);
	atomic_fetch_and(&m->blocks[blk].state, ~(BF_TWIN | BF_FILL_TWIN));
}

/*
 * Block blk has a twin: protect it again and mark dirty every clean page
 * that differs from its twin. Block lock held.
 */
static void untwin_block(struct fnmap *m, uint32_t blk)
{
	char *start = map_block_addr(m, blk), *twin = m->twins[blk];
	size_t len = map_block_len(m, blk), off;
	size_t first = page_index(m, start);
	bool written = false;

	/* From now on a write faults: what is compared stays put. */
	if (uffd_protect(&m->rt->uffd, start, len, true))
		rt_log("write-protecting a block: %s", strerror(errno));
	for (off = 0; off < len; off += FNMAP_PAGE_SIZE) {
		size_t pg = first + (off >> FNMAP_PAGE_SHIFT);

		if (is_dirty(m, pg)) {
			written = true;
			continue;
		}
		if (!memcmp(start + off, twin + off, FNMAP_PAGE_SIZE))
			continue;
		written = true;
		if (!test_and_set_dirty(m, pg))
			cache_dirty(m->rt, FNMAP_PAGE_SIZE);
		counter_add(&m->c.twin_pages, 1);
	}
	if (atomic_load(&m->blocks[blk].state) & BF_FILL_TWIN)
		score_add(m, written ? 1 : -2);
	wb_drop_twin(m, blk);
}

int wb_fault(struct fnmap *m, uint32_t blk, char *page)
{
	struct fnmap_block *b = &m->blocks[blk];
	size_t pg = page_index(m, page);
	bool twin;
	uint32_t s;

	if (!block_trylock(b))
		return -EAGAIN;
	s = atomic_load(&b->state);
	if (b_state(s) != B_RESIDENT) {
		block_unlock(b);
		return 0;
	}
	if (s & BF_TWIN) {
		/* Queued before the block became writable: just wake. */
		uffd_wake(&m->rt->uffd, page, FNMAP_PAGE_SIZE);
		block_unlock(b);
		return 1;
	}
	/* A second page of the block: twin it. (A fault on a dirty page is
	 * a repeat, the thread woken before its page was unprotected.) A
	 * first page: evidence for write-allocate. */
	twin = !is_dirty(m, pg) && block_has_dirty(m, blk);
	if (!is_dirty(m, pg) && !twin)
		score_add(m, 1);
	/* Dirty before the writer runs again: its sync must see it. */
	if (!test_and_set_dirty(m, pg))
		cache_dirty(m->rt, FNMAP_PAGE_SIZE);
	atomic_fetch_or(&b->state, BF_DIRTY);
	if (twin && twin_block(m, blk))
		counter_add(&m->c.twins, 1);
	else if (uffd_protect(&m->rt->uffd, page, FNMAP_PAGE_SIZE, false))
		rt_log("unprotecting a page: %s", strerror(errno));
	block_unlock(b);
	return 1;
}

void wb_forget_block(struct fnmap *m, uint32_t blk)
{
	char *start = map_block_addr(m, blk);
	size_t pg = page_index(m, start);
	size_t end = pg + (map_block_len(m, blk) >> FNMAP_PAGE_SHIFT);

	wb_drop_twin(m, blk);
	for (; pg < end; pg++)
		if (test_and_clear_dirty(m, pg))
			cache_dirty(m->rt, -(ssize_t)FNMAP_PAGE_SIZE);
	atomic_fetch_and(&m->blocks[blk].state, ~BF_DIRTY);
}

/* Bytes of the file the region covers now: a file truncated underneath
 * loses what lay beyond its new end, as with mmap. */
static size_t file_bytes_now(const struct fnmap *m)
{
	struct stat st;
	off_t left;

	if (m->blockdev || fstat(m->fd_buffered, &st))
		return m->file_bytes;
	left = st.st_size - m->offset;
	if (left <= 0)
		return 0;
	return (size_t)left < m->file_bytes ? (size_t)left : m->file_bytes;
}

/* Queue one run of dirty pages [start, start + len) of block blk. */
static void queue_run(struct fnmap *m, uint32_t blk, char *start, size_t len,
		      size_t limit, bool evict)
{
	struct fnmap_runtime *rt = m->rt;
	size_t at = (size_t)(start - m->base);
	struct req r = {
		.m = m, .blk = blk, .evict = evict,
		.off = m->offset + (off_t)at,
	};

	if (at >= limit)
		return;		/* beyond the end of the file */
	if (at + len > limit)
		len = limit - at;
	r.len = len;
	r.tail = len % FNMAP_PAGE_SIZE != 0;
	if (evict) {
		r.buf = start;
	} else {
		r.buf = staging_get(rt->staging, len, true);
		r.shadow = true;
		memcpy(r.buf, start, len);
	}
	atomic_fetch_add(&m->blocks[blk].wb, 1);
	r.ticket = wb_ticket(&m->wb);
	queue_write(rt, &r);
}

unsigned int wb_block(struct fnmap *m, uint32_t blk, bool evict)
{
	char *start = map_block_addr(m, blk);
	size_t first = page_index(m, start);
	size_t end = first + (map_block_len(m, blk) >> FNMAP_PAGE_SHIFT);
	size_t limit = file_bytes_now(m), pg = first;
	struct fnmap_block *b = &m->blocks[blk];
	unsigned int pieces = 0;

	/* Hold the block's write-back count until every piece is queued: a
	 * first piece completing meanwhile must not end an eviction while
	 * later pieces still point into the region. */
	atomic_fetch_add(&b->wb, 1);
	if (atomic_load(&b->state) & BF_TWIN)
		untwin_block(m, blk);
	while (pg < end) {
		size_t run;

		if (!is_dirty(m, pg)) {
			pg++;
			continue;
		}
		for (run = pg; run < end && is_dirty(m, run); run++)
			;
		/* Protect first: a write from now on faults and re-dirties. */
		if (uffd_protect(&m->rt->uffd, m->base + (pg << FNMAP_PAGE_SHIFT),
				 (run - pg) << FNMAP_PAGE_SHIFT, true))
			rt_log("write-protecting dirty pages: %s",
				  strerror(errno));
		for (size_t i = pg; i < run; i++)
			if (test_and_clear_dirty(m, i))
				cache_dirty(m->rt, -(ssize_t)FNMAP_PAGE_SIZE);
		if ((pg << FNMAP_PAGE_SHIFT) < limit)
			pieces++;
		queue_run(m, blk, m->base + (pg << FNMAP_PAGE_SHIFT),
			  (run - pg) << FNMAP_PAGE_SHIFT, limit, evict);
		pg = run;
	}
	atomic_fetch_and(&b->state, ~BF_DIRTY);
	if (atomic_fetch_sub(&b->wb, 1) == 1 && evict && pieces)
		cache_evict_written(m->rt, m, blk);
	return pieces;
}

/* A piece could not be written: its pages are dirty again. */
static void redirty(struct fnmap *m, const struct req *r)
{
	struct fnmap_block *b = &m->blocks[r->blk];
	size_t at = (size_t)(r->off - m->offset);
	size_t pg = at >> FNMAP_PAGE_SHIFT;
	size_t end = (at + r->len + FNMAP_PAGE_SIZE - 1) >> FNMAP_PAGE_SHIFT;

	/* No block lock: a sync may hold it while it waits for the staging
	 * memory this completion is about to free. Setting bits is safe
	 * against a concurrent write-back: it takes them or leaves them. */
	for (; pg < end; pg++)
		if (!test_and_set_dirty(m, pg))
			cache_dirty(m->rt, FNMAP_PAGE_SIZE);
	atomic_fetch_or(&b->state, BF_DIRTY);
}

void wb_write_done(struct fnmap_runtime *rt, struct io *io)
{
	struct fnmap *m = io->m;
	bool failed = io->res < 0;
	unsigned int k;

	if (failed) {
		atomic_store(&m->io_error, -io->res);
		rt_log("write-back of %zu bytes at %lld failed: %s",
			  io->len, (long long)io->off, strerror(-io->res));
	}
	for (k = 0; k < io->n; k++) {
		struct req *r = &io->pieces[k];
		struct fnmap_block *b = &m->blocks[r->blk];

		if (failed) {
			redirty(m, r);
			atomic_fetch_or(&b->state, BF_WBERR);
		}
		if (r->shadow)
			staging_put(rt->staging, r->buf, r->len);
		if (atomic_fetch_sub(&b->wb, 1) == 1 && r->evict)
			cache_evict_written(rt, m, r->blk);
		wb_complete(&m->wb, r->ticket);
	}
}

int wb_sync(struct fnmap *m, char *addr, size_t len, unsigned int flags)
{
	uint64_t t0 = rt_now_ns(), upto;
	uint32_t first = map_block_of(m, addr);
	uint32_t last = map_block_of(m, addr + len - 1), blk;
	int err;

	if (!m->private_map) {
		for (blk = first; blk <= last; blk++) {
			struct fnmap_block *b = &m->blocks[blk];

			if (!(atomic_load(&b->state) & BF_DIRTY))
				continue;
			block_lock(b);
			if (b_state(atomic_load(&b->state)) == B_RESIDENT &&
			    (atomic_load(&b->state) & BF_DIRTY))
				wb_block(m, blk, false);
			block_unlock(b);
		}
	}
	pthread_mutex_lock(&m->wb.lock);
	upto = m->wb.next;
	pthread_mutex_unlock(&m->wb.lock);
	if (!(flags & FNMAP_SYNC_ASYNC)) {
		wb_wait(&m->wb, upto);
		if (!m->private_map && fdatasync(m->fd_buffered) &&
		    errno != EINVAL && errno != EROFS)
			atomic_store(&m->io_error, errno);
	}
	if (flags & FNMAP_SYNC_INVALIDATE)
		cache_invalidate(m->rt, m, first, last);
	counter_add(&m->c.syncs, 1);
	counter_add(&m->c.sync_ns, rt_now_ns() - t0);
	err = atomic_exchange(&m->io_error, 0);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
