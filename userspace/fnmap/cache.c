// SPDX-License-Identifier: GPL-2.0
/*
 * The cache: which blocks are mapped, how many may be, and which leave.
 *
 * Memory is the region itself: a filled block's pages are the cache, and
 * evicting a block drops them (MADV_DONTNEED; the next access faults and
 * fills again). Resident bytes are bounded by the capacity, which starts
 * small and grows lazily when misses show that a larger cache would have
 * hit (reuse distances, policy.c), up to the budget; the budget shrinks
 * under the cgroup's memory pressure and grows back (pressure.c).
 *
 * Block states (fnmap_internal.h) change by compare-and-swap on the
 * block's own word, so a fill, a fault on a resident block or a release
 * takes no lock shared with other blocks. What a thread uses is what its
 * window holds (fault.c): refs > 0 is "active" and never evicted; a block
 * its windows released carries BF_RECENT ("semi-active": passed over once
 * by the clock, which clears the bit); others are "inactive" and may go.
 *
 * Blocks in use cannot go, so they do not count against the capacity:
 * the cache holds up to its capacity of other blocks besides them (with
 * WINDOW blocks per faulting thread, at most that many more).
 *
 * One thread, the evictor, owns the clock: a ring of resident blocks in
 * the order they arrived (fills post them to a list it drains). It wakes
 * when resident bytes (beyond those in use) pass 15/16 of the capacity
 * and evicts down to 7/8, a batch at a time; it also samples memory
 * pressure every 100 ms. When a whole turn of the clock finds nothing
 * that may go (dirty private blocks, write-backs in flight) although too
 * much is resident, fills may exceed that rather than wait (counted as
 * overcommit) until something can go.
 *
 * FNMAP_CFG_SIMPLE_CACHE is the ablation baseline: capacity = budget at
 * once, FIFO order that ignores use, and one lock around every fault,
 * fill and eviction.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fnmap_internal.h"
#include "pressure.h"

#define TICK_MS		100

struct clock_ent {
	uint32_t slot, gen, blk;
};

struct ring {
	struct clock_ent *e;
	size_t head, n, cap;
};

struct cache {
	struct fnmap_runtime *rt;
	bool simple, growth_on, pressure_on;
	pthread_t thread;
	bool started;
	int efd;

	_Atomic uint64_t resident, reading, capacity, budget_now;
	_Atomic uint64_t leaving;	/* dirty evictions being written */
	_Atomic uint64_t held;		/* blocks thread windows hold */
	_Atomic uint64_t resident_max, dirty;
	_Atomic uint64_t twins;		/* of resident: block twins in use */
	_Atomic uint32_t evicted_pages;	/* eviction clock, in pages */
	_Atomic bool stalled;
	/* Bytes of the last admission refused (0: none since the channels
	 * were last told of room): the evictor makes room for it. */
	_Atomic uint64_t refused;
	_Atomic uint64_t evictions, evictions_dirty, reuse_hits, grows;
	/* Fills held up by write-back: since when (0: they are not), for
	 * how long in all, and the most bytes leaving meanwhile. */
	_Atomic uint64_t held_since, held_total_ns, held_bytes;
	_Atomic uint64_t shrinks, pressure_events, overcommit;

	pthread_mutex_t fresh_lock;
	struct clock_ent *fresh;
	size_t nfresh, fresh_cap;
	struct ring ring;		/* evictor only */

	pthread_mutex_t growth_lock;	/* fault threads, advice */
	struct growth growth;
	uint64_t window_start_ns, window_held_ns;	/* growth_lock */
	struct budget_ctl budget;	/* evictor only */
	struct pressure *pressure;
	pthread_mutex_t simple_lock;
};

/* ---- The simple (ablation) cache's one lock --------------------------- */

void cache_global_lock(struct fnmap_runtime *rt)
{
	if (rt->cache && rt->cache->simple)
		pthread_mutex_lock(&rt->cache->simple_lock);
}

void cache_global_unlock(struct fnmap_runtime *rt)
{
	if (rt->cache && rt->cache->simple)
		pthread_mutex_unlock(&rt->cache->simple_lock);
}

/* ---- Block bit lock ------------------------------------------------ */

void block_lock(struct fnmap_block *b)
{
	unsigned int spins = 0;

	while (atomic_fetch_or(&b->state, BF_LOCK) & BF_LOCK) {
		if (++spins > 64)
			sched_yield();
	}
}

bool block_trylock(struct fnmap_block *b)
{
	return !(atomic_fetch_or(&b->state, BF_LOCK) & BF_LOCK);
}

void block_unlock(struct fnmap_block *b)
{
	atomic_fetch_and(&b->state, ~BF_LOCK);
}

/* ---- Accounting and admission --------------------------------------- */

static void wake_evictor(struct cache *c)
{
	uint64_t one = 1;

	if (write(c->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		rt_log("waking the evictor: %s", strerror(errno));
}

/* Blocks in use are never evicted: the cache holds up to its capacity of
 * other blocks besides them (the simple cache ignores use). */
static uint64_t in_use(struct cache *c)
{
	return c->simple ? 0 : atomic_load(&c->held);
}

static bool over_high(struct cache *c)
{
	uint64_t cap = atomic_load(&c->capacity);

	return atomic_load(&c->resident) + atomic_load(&c->reading) >
	       cap - cap / 16 + in_use(c);
}

/* May bytes more be read in? (An empty cache takes anything.) */
static bool fits(struct cache *c, uint64_t bytes)
{
	uint64_t res = atomic_load(&c->resident);
	uint64_t rd = atomic_load(&c->reading);

	return res + rd + bytes <= atomic_load(&c->capacity) + in_use(c) ||
	       !(res + rd);
}

/*
 * Fills held up by write-back: from a refusal while dirty evictions hold
 * room (their write-back in flight) to the next admission. Lazy growth
 * grows the cache when this takes much of a window: a write stream on a
 * slow store, which never comes back, would otherwise wait for the
 * store's write latency at every turn of the clock.
 */
static void held_refused(struct cache *c)
{
	uint64_t leaving = atomic_load(&c->leaving), zero = 0;

	if (!leaving)
		return;
	counter_max(&c->held_bytes, leaving);
	if (!atomic_load(&c->held_since))
		atomic_compare_exchange_strong(&c->held_since, &zero,
					       rt_now_ns());
}

static void held_admitted(struct cache *c)
{
	uint64_t t;

	if (atomic_load(&c->held_since) &&
	    (t = atomic_exchange(&c->held_since, 0)))
		atomic_fetch_add(&c->held_total_ns, rt_now_ns() - t);
}

/* Time fills were held up by write-back so far, the current hold too. */
static uint64_t held_ns(struct cache *c, uint64_t now)
{
	uint64_t t = atomic_load(&c->held_since);

	return atomic_load(&c->held_total_ns) + (t && now > t ? now - t : 0);
}

bool cache_admit(struct fnmap_runtime *rt, size_t bytes)
{
	struct cache *c = rt->cache;

	if (fits(c, bytes)) {
		held_admitted(c);
		return true;
	}
	if (atomic_load(&c->stalled)) {
		atomic_fetch_add(&c->overcommit, 1);
		held_admitted(c);
		return true;
	}
	held_refused(c);
	/* The channel waits for a kick: the evictor owes it one once this
	 * fits (evicted, or more blocks in use), however little is over
	 * its high mark (a block larger than a sixteenth of the capacity
	 * is refused below it). */
	atomic_store(&c->refused, bytes);
	wake_evictor(c);
	return false;
}

void cache_reading(struct fnmap_runtime *rt, ssize_t bytes)
{
	atomic_fetch_add(&rt->cache->reading, (uint64_t)bytes);
}

void cache_dirty(struct fnmap_runtime *rt, ssize_t bytes)
{
	atomic_fetch_add(&rt->cache->dirty, (uint64_t)bytes);
}

void cache_twin(struct fnmap_runtime *rt, ssize_t bytes)
{
	struct cache *c = rt->cache;

	atomic_fetch_add(&c->resident, (uint64_t)bytes);
	atomic_fetch_add(&c->twins, (uint64_t)bytes);
	if (bytes > 0)
		counter_max(&c->resident_max, atomic_load(&c->resident));
}

static void post_fresh(struct cache *c, const struct fnmap *m, uint32_t blk)
{
	pthread_mutex_lock(&c->fresh_lock);
	if (c->nfresh == c->fresh_cap) {
		size_t ncap = c->fresh_cap ? c->fresh_cap * 2 : 1024;
		struct clock_ent *p = realloc(c->fresh, ncap * sizeof(*p));

		if (!p) {
			/* Not on the clock: it stays until closed. */
			pthread_mutex_unlock(&c->fresh_lock);
			return;
		}
		c->fresh = p;
		c->fresh_cap = ncap;
	}
	c->fresh[c->nfresh++] = (struct clock_ent){ m->slot, m->gen, blk };
	pthread_mutex_unlock(&c->fresh_lock);
}

/*
 * Drop block blk's pages of a zero-copy mapping: from the memfd, so from
 * the region and the view (the next access faults as missing).
 */
void cache_punch(struct fnmap *m, uint32_t blk)
{
	if (fallocate(m->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      (off_t)blk << m->bshift, (off_t)map_block_len(m, blk)))
		rt_log("punching a hole in the memfd: %s", strerror(errno));
}

/* Map a filled block: from its staging buffer, or (zero-copy) the pages
 * the read filled in place. */
static int fill_map(struct fnmap_runtime *rt, struct fnmap *m, char *dst,
		    const char *buf, size_t len)
{
	if (m->zero_copy)
		return uffd_continue(&rt->uffd, dst, len);
	return uffd_copy(&rt->uffd, dst, buf, len, m->wp);
}

/* A block whose read failed: poisoned where the kernel can (an access
 * gets SIGBUS, as with mmap), zeros elsewhere; the error sticks to the
 * mapping either way, and eviction lets a later access try again. */
static void fill_failed(struct fnmap_runtime *rt, struct fnmap *m, char *dst,
			char *buf, size_t len, int err)
{
	atomic_store(&m->io_error, err);
	/* Zero-copy: a poison marker would outlive the hole an eviction
	 * punches (truncation keeps markers), so zeros, as on 6.1. */
	if (!m->zero_copy && !uffd_poison(&rt->uffd, dst, len))
		return;
	memset(buf, 0, len);
	if (fill_map(rt, m, dst, buf, len))
		rt_log("mapping zeros after a read error: %s",
			  strerror(errno));
}

/*
 * The blocks of a read-only mapping just filled: the kernel may take them
 * back (MADV_FREE: clean anonymous pages are reclaimable without swap,
 * like the page cache) rather than OOM-kill the process when its cgroup
 * hits a hard limit faster than the budget follows. A page it took faults
 * as missing in a resident block, and cache_lost() reads the block again.
 * Not for writable or private mappings: MADV_FREE clears the dirty bits
 * the kernel would keep a written page by. After the wake: the waiting
 * threads need not wait for it, and a late call on a block refilled
 * meanwhile only marks clean pages again.
 */
static void lazyfree(struct fnmap *m, const struct io *io)
{
	if (sys_madvise(map_block_addr(m, io->pieces[0].blk), io->len,
			MADV_FREE) && errno != EINVAL)
		rt_log("MADV_FREE: %s", strerror(errno));
}

void cache_fill_done(struct fnmap_runtime *rt, struct io *io)
{
	struct cache *c = rt->cache;
	struct fnmap *m = io->m;
	unsigned int k;

	cache_global_lock(rt);
	for (k = 0; k < io->n; k++) {
		uint32_t blk = io->pieces[k].blk;
		struct fnmap_block *b = &m->blocks[blk];
		char *dst = map_block_addr(m, blk);
		size_t len = io->iov[k].iov_len;

		/* Counted before the copy makes it readable: a thread that
		 * has read a block finds its fill in fnmap_stats(). */
		counter_add(&m->c.fills, 1);
		counter_add(&m->c.fill_bytes, len);
		if (io->res < 0) {
			fill_failed(rt, m, dst, io->bufs[k], len, -io->res);
		} else {
			int twinned = wb_fill_twin(m, blk, dst, io->bufs[k],
						   len);

			if (twinned < 0 ||
			    (!twinned &&
			     fill_map(rt, m, dst, io->bufs[k], len))) {
				rt_log("%s: %s", m->zero_copy ?
				       "UFFDIO_CONTINUE" : "UFFDIO_COPY",
				       strerror(errno));
				atomic_store(&m->io_error, errno);
			}
		}
		if (!m->zero_copy)
			staging_put(rt->staging, io->bufs[k], m->bs);
		/* Resident before anyone runs: a thread that writes at once
		 * must find the block resident when its fault comes in. */
		b_set_state(b, B_RESIDENT, 0);
		atomic_fetch_or(&b->state, BF_RECENT);
		atomic_fetch_add(&c->resident, m->bs);
		post_fresh(c, m, blk);
	}
	/* The blocks are adjacent: one wake for all of them, now that each
	 * is resident. */
	uffd_wake(&rt->uffd, map_block_addr(m, io->pieces[0].blk), io->len);
	atomic_fetch_sub(&c->reading, (uint64_t)io->n * m->bs);
	counter_max(&c->resident_max, atomic_load(&c->resident));
	cache_global_unlock(rt);
	if (!m->wp && !m->zero_copy && io->res >= 0)
		lazyfree(m, io);
	if (over_high(c))
		wake_evictor(c);
}

/* ---- Lazy growth ------------------------------------------------------ */

void cache_note_miss(struct fnmap_runtime *rt, struct fnmap *m, uint32_t blk)
{
	struct cache *c = rt->cache;
	uint32_t e = atomic_load(&m->blocks[blk].evict_seq);
	uint64_t cap = atomic_load(&c->capacity);
	uint64_t limit = atomic_load(&c->budget_now);
	uint64_t beyond = 0;

	if (e) {
		beyond = (uint64_t)(uint32_t)(atomic_load(&c->evicted_pages) - e)
			 << FNMAP_PAGE_SHIFT;
		if (limit > cap && beyond <= limit - cap)
			atomic_fetch_add(&c->reuse_hits, 1);
	}
	if (!c->growth_on)
		return;
	pthread_mutex_lock(&c->growth_lock);
	if (growth_miss(&c->growth, beyond)) {
		uint64_t now = rt_now_ns(), held = held_ns(c, now), ncap;

		growth_held(&c->growth, held - c->window_held_ns,
			    now - c->window_start_ns,
			    atomic_exchange(&c->held_bytes, 0));
		c->window_start_ns = now;
		c->window_held_ns = held;
		ncap = growth_decide(&c->growth, cap, limit, 8 * m->bs);

		if (ncap > cap &&
		    atomic_compare_exchange_strong(&c->capacity, &cap, ncap))
			atomic_fetch_add(&c->grows, 1);
	}
	pthread_mutex_unlock(&c->growth_lock);
}

void cache_held(struct fnmap_runtime *rt, const struct fnmap *m)
{
	atomic_fetch_add(&rt->cache->held, m->bs);
}

void cache_released(struct fnmap_runtime *rt, const struct fnmap *m,
		    struct fnmap_block *b)
{
	atomic_fetch_or(&b->state, BF_RECENT);
	atomic_fetch_sub(&rt->cache->held, m->bs);
}

/* ---- Eviction ---------------------------------------------------------- */

/*
 * The pages are gone: account the block as empty, remember when (for
 * reuse distances, unless ghost is false) and refill it at once if a
 * thread faulted meanwhile.
 */
static void finish_evict(struct fnmap_runtime *rt, struct fnmap *m,
			 uint32_t blk, bool ghost)
{
	struct cache *c = rt->cache;
	struct fnmap_block *b = &m->blocks[blk];
	uint32_t s, seq = 0;

	if (m->zero_copy)
		cache_punch(m, blk);
	else if (sys_madvise(map_block_addr(m, blk), map_block_len(m, blk),
			     MADV_DONTNEED))
		rt_log("MADV_DONTNEED: %s", strerror(errno));
	atomic_fetch_sub(&c->resident, m->bs);
	if (ghost) {
		seq = atomic_fetch_add(&c->evicted_pages,
				       (uint32_t)(m->bs >> FNMAP_PAGE_SHIFT)) +
		      (uint32_t)(m->bs >> FNMAP_PAGE_SHIFT);
		if (!seq)
			seq = 1;
	}
	atomic_store(&b->evict_seq, seq);
	s = b_set_state(b, B_EMPTY, BF_DIRTY | BF_RECENT | BF_WANTED |
			BF_PREFETCH);
	if (s & BF_WANTED)
		queue_read(rt, m, blk, false);
}

/*
 * Evict one resident block no thread holds. Clean: dropped now. Dirty:
 * its dirty pages are written back from the region (write-protected
 * meanwhile), and the block leaves when the writes complete.
 */
static bool evict_block(struct fnmap_runtime *rt, struct fnmap *m,
			uint32_t blk)
{
	struct cache *c = rt->cache;
	struct fnmap_block *b = &m->blocks[blk];
	uint32_t s;
	bool dirty;

	if (!block_trylock(b))
		return false;
	s = atomic_load(&b->state);
	if (b_state(s) != B_RESIDENT || atomic_load(&b->wb) ||
	    (!c->simple && atomic_load(&b->refs)) ||
	    ((s & BF_DIRTY) && m->private_map)) {
		block_unlock(b);
		return false;
	}
	b_set_state(b, B_EVICTING, BF_RECENT);
	dirty = s & BF_DIRTY;
	if (dirty) {
		atomic_fetch_add(&c->leaving, m->bs);
		if (wb_block(m, blk, true)) {
			atomic_fetch_add(&c->evictions_dirty, 1);
		} else {
			atomic_fetch_sub(&c->leaving, m->bs);
			dirty = false;
		}
	}
	block_unlock(b);
	atomic_fetch_add(&c->evictions, 1);
	if (!dirty)
		finish_evict(rt, m, blk, true);
	return true;
}

void cache_evict_written(struct fnmap_runtime *rt, struct fnmap *m,
			 uint32_t blk)
{
	struct fnmap_block *b = &m->blocks[blk];

	atomic_fetch_sub(&rt->cache->leaving, m->bs);
	if (atomic_fetch_and(&b->state, ~BF_WBERR) & BF_WBERR) {
		/* The data are still in the region: keep the block. */
		uint32_t s = b_set_state(b, B_RESIDENT, BF_WANTED);

		/* Back on the clock later: it is resident again. */
		post_fresh(rt->cache, m, blk);

		if (s & BF_WANTED)
			uffd_wake(&rt->uffd, map_block_addr(m, blk),
				  map_block_len(m, blk));
		return;
	}
	finish_evict(rt, m, blk, true);
}

static void ring_push(struct ring *r, struct clock_ent e)
{
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 1024, i;
		struct clock_ent *p = malloc(ncap * sizeof(*p));

		if (!p)
			return;
		for (i = 0; i < r->n; i++)
			p[i] = r->e[(r->head + i) % r->cap];
		free(r->e);
		r->e = p;
		r->head = 0;
		r->cap = ncap;
	}
	r->e[(r->head + r->n) % r->cap] = e;
	r->n++;
}

static struct clock_ent ring_pop(struct ring *r)
{
	struct clock_ent e = r->e[r->head];

	r->head = (r->head + 1) % r->cap;
	r->n--;
	return e;
}

static void drain_fresh(struct cache *c)
{
	size_t i;

	pthread_mutex_lock(&c->fresh_lock);
	for (i = 0; i < c->nfresh; i++)
		ring_push(&c->ring, c->fresh[i]);
	c->nfresh = 0;
	pthread_mutex_unlock(&c->fresh_lock);
}

/*
 * Where a pass evicts down to: 7/8 of the capacity, or further if a
 * refused admission (want bytes, besides the reads in flight) needs more
 * room. (A refusal that needed little room used to evict just that, a
 * block or two a pass, so the dirty blocks of a pass could not be written
 * back as one request.) From the
 * capacity of the moment: it grows while a pass runs (the pass's own
 * evictions come back as misses that grow it), and a pass that kept the
 * target it started with went on evicting what the walk refilled, on a
 * loaded host once round the whole cache after the capacity had doubled.
 */
static uint64_t evict_target(struct cache *c, uint64_t want)
{
	uint64_t cap = atomic_load(&c->capacity), target = cap - cap / 8;

	if (want) {
		uint64_t room = want + atomic_load(&c->reading);

		if (room > cap / 8)
			target = cap > room ? cap - room : 0;
	}
	return target;
}

/* Turn the clock until resident bytes are at most the target. */
static unsigned int evict_until(struct fnmap_runtime *rt, uint64_t want)
{
	struct cache *c = rt->cache;
	size_t budget = c->ring.n * 2 + 1, passed = 0;
	unsigned int evicted = 0;
	uint64_t target = evict_target(c, want);

	pthread_rwlock_rdlock(&rt->maps_lock);
	cache_global_lock(rt);
	queue_hold_writes(rt, true);
	while (atomic_load(&c->resident) - atomic_load(&c->leaving) >
	       (target = evict_target(c, want)) + in_use(c) && c->ring.n &&
	       budget--) {
		struct clock_ent e = ring_pop(&c->ring);
		struct fnmap *m = map_get(rt, e.slot, e.gen);
		struct fnmap_block *b;
		uint32_t s;

		if (!m)
			continue;
		b = &m->blocks[e.blk];
		s = atomic_load(&b->state);
		if (b_state(s) != B_RESIDENT)
			continue;	/* it comes back when refilled */
		if (!c->simple) {
			if (atomic_load(&b->refs)) {
				ring_push(&c->ring, e);
				passed++;
				continue;
			}
			if (s & BF_RECENT) {
				atomic_fetch_and(&b->state, ~BF_RECENT);
				ring_push(&c->ring, e);
				continue;
			}
		}
		if (evict_block(rt, m, e.blk)) {
			evicted++;
			continue;
		}
		ring_push(&c->ring, e);
		passed++;
	}
	queue_hold_writes(rt, false);
	cache_global_unlock(rt);
	pthread_rwlock_unlock(&rt->maps_lock);
	/* Nothing could go although too much is resident besides the
	 * blocks in use (dirty private blocks, write-backs in flight): let
	 * fills overcommit until one can go. */
	atomic_store(&c->stalled, !evicted &&
		     atomic_load(&c->resident) > target + in_use(c) && passed);
	return evicted;
}

void cache_invalidate(struct fnmap_runtime *rt, struct fnmap *m,
		      uint32_t first, uint32_t last)
{
	uint32_t blk;

	for (blk = first; blk <= last && blk < m->nblocks; blk++) {
		struct fnmap_block *b = &m->blocks[blk];
		uint32_t s = atomic_load(&b->state);

		if (b_state(s) != B_RESIDENT || (s & BF_DIRTY))
			continue;
		block_lock(b);
		s = atomic_load(&b->state);
		if (b_state(s) != B_RESIDENT || (s & BF_DIRTY) ||
		    atomic_load(&b->wb)) {
			block_unlock(b);
			continue;
		}
		b_set_state(b, B_EVICTING, 0);
		block_unlock(b);
		finish_evict(rt, m, blk, false);
	}
}

void cache_lost(struct fnmap_runtime *rt, struct fnmap *m, uint32_t blk)
{
	struct fnmap_block *b = &m->blocks[blk];
	uint32_t s;

	block_lock(b);
	s = atomic_load(&b->state);
	if (b_state(s) != B_RESIDENT || atomic_load(&b->wb)) {
		block_unlock(b);
		uffd_wake(&rt->uffd, map_block_addr(m, blk),
			  map_block_len(m, blk));
		return;
	}
	if (s & BF_DIRTY) {
		rt_log("pages of a dirty block were dropped behind the "
			  "runtime's back (madvise?): their writes are lost");
		atomic_store(&m->io_error, EIO);
		wb_forget_block(m, blk);
	}
	b_set_state(b, B_EVICTING, 0);
	atomic_fetch_or(&b->state, BF_WANTED);
	block_unlock(b);
	finish_evict(rt, m, blk, false);
}

void cache_forget(struct fnmap_runtime *rt, struct fnmap *m)
{
	struct cache *c = rt->cache;
	uint64_t bytes = 0;
	uint32_t blk;

	for (blk = 0; blk < m->nblocks; blk++) {
		unsigned int st = b_state(atomic_load(&m->blocks[blk].state));

		if (st == B_RESIDENT || st == B_EVICTING)
			bytes += m->bs;
		/* Windows still holding it never release it: m is out of
		 * the table, their holds find nothing. */
		if (atomic_load(&m->blocks[blk].refs))
			atomic_fetch_sub(&c->held, m->bs);
	}
	atomic_fetch_sub(&c->resident, bytes);
}

void cache_gone(struct fnmap_runtime *rt, struct fnmap *m)
{
	atomic_fetch_sub(&rt->cache->resident, m->bs);
}

/* ---- The evictor thread ------------------------------------------------- */

static void apply_budget(struct cache *c, uint64_t budget)
{
	uint64_t old = atomic_exchange(&c->budget_now, budget);
	uint64_t cap = atomic_load(&c->capacity);

	if (budget < old) {
		atomic_fetch_add(&c->shrinks, 1);
		staging_trim(c->rt->staging);
		staging_trim(c->rt->twins);
	}
	if (cap > budget || !c->growth_on)
		atomic_store(&c->capacity, budget);
}

static void *evictor_main(void *arg)
{
	struct fnmap_runtime *rt = arg;
	struct cache *c = rt->cache;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "fnmap-evict");
	while (!atomic_load(&rt->stopping)) {
		struct pollfd fds[4] = { { .fd = c->efd, .events = POLLIN } };
		int nfds = 1;
		uint64_t v, want;
		bool was_stalled, stalled;
		unsigned int evicted;

		if (c->pressure_on)
			nfds += pressure_fds(c->pressure, fds + 1, 3);
		if (poll(fds, (nfds_t)nfds, TICK_MS) < 0 && errno != EINTR)
			rt_log("evictor poll: %s", strerror(errno));
		if (read(c->efd, &v, sizeof(v)) < 0)
			v = 0;
		if (c->pressure_on) {
			struct pressure_sample s;

			pressure_sample(c->pressure, fds + 1, nfds - 1, &s);
			if (s.signal)
				atomic_fetch_add(&c->pressure_events, 1);
			apply_budget(c, budget_step(&c->budget, &s,
					atomic_load(&c->resident) +
					staging_bytes(rt->staging) +
					staging_bytes(rt->twins) -
					atomic_load(&c->twins),
					rt_now_ns()));
		}
		drain_fresh(c);
		was_stalled = atomic_load(&c->stalled);
		want = atomic_load(&c->refused);
		if (!over_high(c) && !want) {
			atomic_store(&c->stalled, false);
			continue;
		}
		evicted = evict_until(rt, want);
		stalled = atomic_load(&c->stalled);
		/* Room made, or fills may now overcommit: tell the
		 * channels, which may be waiting for either. A refusal
		 * stays owed its kick until it fits (the 100 ms tick looks
		 * again: blocks coming into use make room too). */
		if (want && (evicted || stalled || fits(c, want))) {
			atomic_store(&c->refused, 0);
			channels_kick(rt);
		} else if (evicted || (stalled && !was_stalled)) {
			channels_kick(rt);
		}
	}
	return NULL;
}

/* ---- Start, stop, statistics ----------------------------------------- */

int cache_start(struct fnmap_runtime *rt)
{
	struct cache *c = calloc(1, sizeof(*c));
	uint64_t budget, initial;

	if (!c)
		return -1;
	rt->cache = c;
	c->rt = rt;
	c->simple = rt->cfg.flags & FNMAP_CFG_SIMPLE_CACHE;
	c->growth_on = !c->simple && !(rt->cfg.flags & FNMAP_CFG_NO_GROWTH);
	pthread_mutex_init(&c->fresh_lock, NULL);
	pthread_mutex_init(&c->simple_lock, NULL);
	pthread_mutex_init(&c->growth_lock, NULL);
	c->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->efd < 0)
		goto fail;
	c->pressure = pressure_open();
	c->pressure_on = c->pressure && !(rt->cfg.flags & FNMAP_CFG_NO_PRESSURE);
	budget = rt->cfg.budget;	/* runtime_start() decided it */
	budget_init(&c->budget, budget, FNMAP_MAX_BLOCK * 4);
	atomic_store(&c->budget_now, budget);
	initial = budget / 16 > (16ULL << 20) ? budget / 16 : 16ULL << 20;
	if (!c->growth_on || initial > budget)
		initial = budget;
	atomic_store(&c->capacity, initial);
	atomic_store(&c->evicted_pages, 1);
	growth_init(&c->growth, 64);
	c->window_start_ns = rt_now_ns();
	if (pthread_create(&c->thread, NULL, evictor_main, rt))
		goto fail;
	c->started = true;
	return 0;
fail:
	cache_stop(rt);
	return -1;
}

void cache_stop(struct fnmap_runtime *rt)
{
	struct cache *c = rt->cache;

	if (!c)
		return;
	if (c->started) {
		atomic_store(&rt->stopping, true);
		wake_evictor(c);
		pthread_join(c->thread, NULL);
	}
	if (c->efd >= 0)
		close(c->efd);
	pressure_close(c->pressure);
	free(c->fresh);
	free(c->ring.e);
	pthread_mutex_destroy(&c->fresh_lock);
	pthread_mutex_destroy(&c->simple_lock);
	pthread_mutex_destroy(&c->growth_lock);
	free(c);
	rt->cache = NULL;
}

void cache_stats(struct fnmap_runtime *rt, struct fnmap_stats *st)
{
	struct cache *c = rt->cache;

	st->budget = rt->cfg.budget;
	st->budget_now = atomic_load(&c->budget_now);
	st->capacity = atomic_load(&c->capacity);
	st->resident = atomic_load(&c->resident);
	st->resident_max = atomic_load(&c->resident_max);
	st->dirty = atomic_load(&c->dirty);
	st->staging = staging_bytes(rt->staging);
	st->evictions = atomic_load(&c->evictions);
	st->evictions_dirty = atomic_load(&c->evictions_dirty);
	st->reuse_hits = atomic_load(&c->reuse_hits);
	st->held_ns = held_ns(c, rt_now_ns());
	st->grows = atomic_load(&c->grows);
	st->shrinks = atomic_load(&c->shrinks);
	st->pressure_events = atomic_load(&c->pressure_events);
	st->overcommit = atomic_load(&c->overcommit);
}
