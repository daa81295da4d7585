// SPDX-License-Identifier: GPL-2.0
/*
 * The volatile write cache ("cache volatile"): a write completes before it
 * is durable, a flush makes every completed write durable, a FUA write is
 * durable when it completes, and a crash loses whatever was not.
 *
 * The store keeps only the current data; the cache keeps an undo log. The
 * first write to a page after a flush saves what the page held (a copy, or
 * "absent"); a flush forgets the saved pages, since the current ones are
 * now durable; a crash puts them back. Reads never look at the log.
 *
 * Writers hold the epoch semaphore shared while they save and copy, and a
 * flush or crash holds it exclusively, so a page is saved before any write
 * of its epoch touches it and never while one is half done. Two writers
 * saving the same page race with a cmpxchg; the loser's copy is dropped.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/xarray.h>

#include "fnblk.h"

/* The page did not exist when last made durable (it read as zeros). */
#define UNDO_ABSENT	xa_mk_value(0)

void fnblk_cache_init(struct fnblk_cache *c, bool on)
{
	c->on = on;
	c->dead = false;
	init_rwsem(&c->epoch);
	xa_init(&c->undo);
	atomic_long_set(&c->nr_saved, 0);
}

int fnblk_cache_write_begin(struct fnblk_cache *c, bool nowait)
{
	if (!READ_ONCE(c->on))
		return 0;
	if (nowait) {
		if (!down_read_trylock(&c->epoch))
			return -EAGAIN;
	} else {
		down_read(&c->epoch);
	}
	/* Checked under the semaphore, so no write lands after a crash. */
	if (c->dead) {
		up_read(&c->epoch);
		return -EIO;
	}
	return 1;
}

void fnblk_cache_write_end(struct fnblk_cache *c, int begun)
{
	if (begun > 0)
		up_read(&c->epoch);
}

static struct page *cache_alloc_page(gfp_t gfp)
{
	return alloc_page(gfp | __GFP_HIGHMEM | __GFP_NORETRY | __GFP_NOWARN);
}

/*
 * Save page idx of pages before its first change since the last flush.
 * Every writer, discard included, calls this first, so what is saved is
 * the page as the last flush left it.
 */
int fnblk_cache_save(struct fnblk_cache *c, struct xarray *pages,
		     pgoff_t idx, gfp_t gfp)
{
	struct page *cur, *copy = NULL;
	void *saved, *old;
	bool exists;

	if (xa_load(&c->undo, idx))
		return 0;
	rcu_read_lock();
	exists = xa_load(pages, idx);
	rcu_read_unlock();
	if (exists) {
		copy = cache_alloc_page(gfp);
		if (!copy)
			return -ENOMEM;
	}
	rcu_read_lock();
	cur = xa_load(pages, idx);
	if (cur && copy)
		copy_highpage(copy, cur);
	rcu_read_unlock();
	/*
	 * A page that appeared or vanished in between was changed by a writer
	 * that saved it first: the cmpxchg below then loses, as it should.
	 */
	saved = cur && copy ? (void *)copy : UNDO_ABSENT;
	old = xa_cmpxchg(&c->undo, idx, NULL, saved, gfp);
	if (old) {
		if (copy)
			__free_page(copy);
		return xa_is_err(old) ? xa_err(old) : 0;
	}
	atomic_long_inc(&c->nr_saved);
	return 0;
}

/*
 * A FUA write's data must survive a crash: write it into the saved page
 * too (a page saved as absent becomes zeros plus this data).
 */
int fnblk_cache_write_through(struct fnblk_cache *c, pgoff_t idx,
			      unsigned int off, const void *buf,
			      unsigned int len, gfp_t gfp)
{
	struct page *page, *zero;
	void *saved, *mem;

	saved = xa_load(&c->undo, idx);
	if (saved == UNDO_ABSENT) {
		zero = cache_alloc_page(gfp | __GFP_ZERO);
		if (!zero)
			return -ENOMEM;
		saved = xa_cmpxchg(&c->undo, idx, UNDO_ABSENT, zero, gfp);
		if (saved != UNDO_ABSENT) {
			__free_page(zero);
			if (xa_is_err(saved))
				return xa_err(saved);
		} else {
			saved = zero;
		}
	}
	if (!saved)
		return 0;	/* not saved: the page itself is durable */
	page = saved;
	mem = kmap_local_page(page);
	memcpy(mem + off, buf, len);
	kunmap_local(mem);
	return 0;
}

/* Forget every saved page (flush) or put them back (crash). */
static u64 cache_drain(struct fnblk_cache *c, struct xarray *pages,
		       atomic_long_t *nr_pages, bool restore)
{
	unsigned long idx;
	LIST_HEAD(gone);
	struct page *old;
	void *saved;
	u64 n = 0;

	xa_for_each(&c->undo, idx, saved) {
		xa_erase(&c->undo, idx);
		n++;
		if (!restore) {
			if (saved != UNDO_ABSENT)
				__free_page(saved);
		} else if (saved == UNDO_ABSENT) {
			old = xa_erase(pages, idx);
			if (old) {
				list_add(&old->lru, &gone);
				atomic_long_dec(nr_pages);
			}
		} else {
			old = xa_store(pages, idx, saved, GFP_KERNEL);
			if (xa_is_err(old)) {
				/* Cannot put it back: the page keeps its data. */
				__free_page(saved);
			} else if (old) {
				list_add(&old->lru, &gone);
			} else {
				atomic_long_inc(nr_pages);
			}
		}
		cond_resched();
	}
	atomic_long_set(&c->nr_saved, 0);
	/* Readers may still be copying from the pages that were replaced. */
	fnblk_store_free_pages_rcu(&gone);
	return n;
}

int fnblk_cache_flush(struct fnblk_cache *c, struct xarray *pages,
		      bool nowait)
{
	if (!READ_ONCE(c->on))
		return 0;
	if (nowait) {
		if (!down_write_trylock(&c->epoch))
			return -EAGAIN;
	} else {
		down_write(&c->epoch);
	}
	cache_drain(c, pages, NULL, false);
	up_write(&c->epoch);
	return 0;
}

u64 fnblk_cache_crash(struct fnblk_cache *c, struct xarray *pages,
		      atomic_long_t *nr_pages, bool down)
{
	u64 lost;

	down_write(&c->epoch);
	lost = cache_drain(c, pages, nr_pages, true);
	c->dead = down;
	up_write(&c->epoch);
	return lost;
}

void fnblk_cache_revive(struct fnblk_cache *c)
{
	down_write(&c->epoch);
	c->dead = false;
	up_write(&c->epoch);
}

void fnblk_cache_set(struct fnblk_cache *c, struct xarray *pages, bool on)
{
	down_write(&c->epoch);
	/* Leaving volatile mode makes everything written durable. */
	if (!on)
		cache_drain(c, pages, NULL, false);
	WRITE_ONCE(c->on, on);
	up_write(&c->epoch);
}

u64 fnblk_cache_saved(struct fnblk_cache *c)
{
	return atomic_long_read(&c->nr_saved);
}

void fnblk_cache_destroy(struct fnblk_cache *c)
{
	unsigned long idx;
	void *saved;

	xa_for_each(&c->undo, idx, saved)
		if (saved != UNDO_ABSENT)
			__free_page(saved);
	xa_destroy(&c->undo);
	atomic_long_set(&c->nr_saved, 0);
}
