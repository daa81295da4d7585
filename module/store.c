// SPDX-License-Identifier: GPL-2.0
/*
 * The memory store: a sparse array of pages indexed by page number, each
 * allocated on its first write and freed on discard. Data moves when the
 * bio is submitted; the scheduler only decides when it completes.
 *
 * With a volatile write cache (cache.c), writes save the pages they change
 * first, so that a crash can put back what was durable.
 *
 * Readers and writers look pages up under RCU, and discard frees pages only
 * after a grace period, so a copy never touches a page that is gone. The
 * discard does not wait for that grace period (a file system mounted with
 * -o discard would stall on every one): a worker frees the pages after it.
 */
#include <linux/bio.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "fnblk.h"

#define SECTORS_PER_PAGE_SHIFT	(PAGE_SHIFT - FNBLK_SECTOR_SHIFT)

void fnblk_store_init(struct fnblk_backing *st, u8 kind, bool volatile_cache)
{
	xa_init(&st->pages);
	st->kind = kind;
	atomic_long_set(&st->nr_pages, 0);
	fnblk_cache_init(&st->cache, volatile_cache);
}

/* The page holding sector, allocated if missing. Call outside RCU. */
static int store_populate(struct fnblk_backing *st, pgoff_t idx, gfp_t gfp)
{
	struct page *page, *old;

	if (xa_load(&st->pages, idx))
		return 0;
	if (fnblk_inject_alloc_failure())
		return -ENOMEM;
	/*
	 * Out of memory, fail this write rather than retry for ever (which is
	 * what an order-0 GFP_NOIO allocation would do, since it may not call
	 * the OOM killer): the testbed must stay alive and say what failed.
	 */
	page = alloc_page(gfp | __GFP_ZERO | __GFP_HIGHMEM | __GFP_NORETRY |
			  __GFP_NOWARN);
	if (!page)
		return -ENOMEM;
	old = xa_cmpxchg(&st->pages, idx, NULL, page, gfp);
	if (old) {
		__free_page(page);
		return xa_is_err(old) ? xa_err(old) : 0;
	}
	atomic_long_inc(&st->nr_pages);
	return 0;
}

/* How a write reaches the store. */
struct store_write {
	gfp_t gfp;
	bool cached;		/* volatile cache: save pages first */
	bool fua;		/* durable at once: the saved page too */
};

/* Copy len bytes (within one page) between the bvec and the store. */
static int store_copy(struct fnblk_backing *st, void *buf, sector_t sector,
		      unsigned int len, const struct store_write *w)
{
	pgoff_t idx = sector >> SECTORS_PER_PAGE_SHIFT;
	unsigned int off = (sector & ((1 << SECTORS_PER_PAGE_SHIFT) - 1))
			   << FNBLK_SECTOR_SHIFT;
	struct page *page;
	void *mem;
	int ret;

	if (w && w->cached) {
		ret = fnblk_cache_save(&st->cache, &st->pages, idx, w->gfp);
		if (!ret && w->fua)
			ret = fnblk_cache_write_through(&st->cache, idx, off,
							buf, len, w->gfp);
		if (ret)
			return ret;
	}
	for (;;) {
		rcu_read_lock();
		page = xa_load(&st->pages, idx);
		if (page || !w)
			break;
		rcu_read_unlock();
		ret = store_populate(st, idx, w->gfp);
		if (ret)
			return ret;
	}
	if (page) {
		mem = kmap_local_page(page);
		if (w)
			memcpy(mem + off, buf, len);
		else
			memcpy(buf, mem + off, len);
		kunmap_local(mem);
	} else {
		memset(buf, 0, len);
	}
	rcu_read_unlock();
	return 0;
}

/* Read (w NULL) or write a bio's data. */
static int store_rw(struct fnblk_backing *st, struct bio *bio,
		    const struct store_write *w)
{
	sector_t sector = bio->bi_iter.bi_sector;
	struct bvec_iter iter;
	struct bio_vec bv;
	unsigned int done, chunk, in_page;
	void *buf;
	int ret = 0;

	bio_for_each_segment(bv, bio, iter) {
		buf = bvec_kmap_local(&bv);
		for (done = 0; done < bv.bv_len && !ret; done += chunk) {
			in_page = PAGE_SIZE - ((sector << FNBLK_SECTOR_SHIFT) &
					       (PAGE_SIZE - 1));
			chunk = min(bv.bv_len - done, in_page);
			if (st->kind == FNBLK_STORE_NONE) {
				if (!w)
					memset(buf + done, 0, chunk);
			} else {
				ret = store_copy(st, buf + done, sector, chunk,
						 w);
			}
			sector += chunk >> FNBLK_SECTOR_SHIFT;
		}
		kunmap_local(buf);
		if (ret)
			return ret;
	}
	return 0;
}

/* Pages taken out of the store, to be freed once no reader can see them. */
struct fnblk_freed_pages {
	struct rcu_work rwork;
	struct list_head pages;
};

static void store_free_pages(struct list_head *pages)
{
	struct page *page, *tmp;

	list_for_each_entry_safe(page, tmp, pages, lru) {
		list_del(&page->lru);
		__free_page(page);
		cond_resched();
	}
}

static void store_free_pages_work(struct work_struct *work)
{
	struct fnblk_freed_pages *f = container_of(to_rcu_work(work),
						   struct fnblk_freed_pages,
						   rwork);

	store_free_pages(&f->pages);
	kfree(f);
}

/* Free pages after a grace period, from a worker; f may be preallocated. */
static void store_free_pages_later(struct list_head *pages,
				   struct fnblk_freed_pages *f)
{
	if (list_empty(pages)) {
		kfree(f);
		return;
	}
	if (!f)
		f = kmalloc(sizeof(*f), GFP_KERNEL | __GFP_NOWARN);
	if (!f) {
		/* No memory for the deferred free: wait here instead. */
		synchronize_rcu();
		store_free_pages(pages);
		return;
	}
	INIT_LIST_HEAD(&f->pages);
	list_splice_init(pages, &f->pages);
	INIT_RCU_WORK(&f->rwork, store_free_pages_work);
	queue_rcu_work(fnblk_wq, &f->rwork);
}

void fnblk_store_free_pages_rcu(struct list_head *pages)
{
	store_free_pages_later(pages, NULL);
}

/* Discard and write-zeroes: free whole pages, zero the partial ends. */
static int store_discard(struct fnblk_backing *st, struct bio *bio,
			 const struct store_write *w)
{
	u64 pos = (u64)bio->bi_iter.bi_sector << FNBLK_SECTOR_SHIFT;
	u64 end = pos + bio->bi_iter.bi_size;
	struct fnblk_freed_pages *f;
	unsigned int off, len;
	LIST_HEAD(freed);
	struct page *page;
	pgoff_t idx;
	void *mem;
	int ret = 0;

	/* Allocated first: once pages are out, there is no going back. */
	f = kmalloc(sizeof(*f), w->gfp | __GFP_NOWARN);
	if (!f && !gfpflags_allow_blocking(w->gfp))
		return -ENOMEM;
	for (; pos < end && !ret; pos += len) {
		off = pos & (PAGE_SIZE - 1);
		len = min_t(u64, PAGE_SIZE - off, end - pos);
		idx = pos >> PAGE_SHIFT;
		if (w->cached) {
			ret = fnblk_cache_save(&st->cache, &st->pages, idx,
					       w->gfp);
			if (ret)
				break;
		}
		if (len == PAGE_SIZE) {
			page = xa_erase(&st->pages, idx);
			if (page) {
				list_add(&page->lru, &freed);
				atomic_long_dec(&st->nr_pages);
			}
		} else {
			rcu_read_lock();
			page = xa_load(&st->pages, idx);
			if (page) {
				mem = kmap_local_page(page);
				memset(mem + off, 0, len);
				kunmap_local(mem);
			}
			rcu_read_unlock();
		}
	}
	if (!f && !list_empty(&freed)) {
		synchronize_rcu();
		store_free_pages(&freed);
	} else {
		store_free_pages_later(&freed, f);
	}
	return ret;
}

int fnblk_store_bio(struct fnblk_backing *st, struct bio *bio, gfp_t gfp)
{
	bool nowait = bio->bi_opf & REQ_NOWAIT;
	struct store_write w = { .gfp = gfp, .fua = bio->bi_opf & REQ_FUA };
	int ret, begun;

	if (bio_op(bio) == REQ_OP_READ)
		return store_rw(st, bio, NULL);
	/* A flush first makes what completed before it durable. */
	if (bio->bi_opf & REQ_PREFLUSH || bio_op(bio) == REQ_OP_FLUSH) {
		ret = fnblk_cache_flush(&st->cache, &st->pages, nowait);
		if (ret)
			return ret;
	}
	if (!bio_sectors(bio) && bio_op(bio) != REQ_OP_DISCARD &&
	    bio_op(bio) != REQ_OP_WRITE_ZEROES)
		return 0;
	begun = fnblk_cache_write_begin(&st->cache, nowait);
	if (begun < 0)
		return begun;
	w.cached = begun > 0 && st->kind != FNBLK_STORE_NONE;
	switch (bio_op(bio)) {
	case REQ_OP_WRITE:
		ret = store_rw(st, bio, &w);
		break;
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		ret = st->kind == FNBLK_STORE_NONE ? 0 :
		      store_discard(st, bio, &w);
		break;
	default:
		ret = -EOPNOTSUPP;
	}
	fnblk_cache_write_end(&st->cache, begun);
	return ret;
}

/* Power loss: drop what is not durable; returns the pages it held. */
u64 fnblk_store_crash(struct fnblk_backing *st, bool down)
{
	return fnblk_cache_crash(&st->cache, &st->pages, &st->nr_pages, down);
}

void fnblk_store_destroy(struct fnblk_backing *st)
{
	struct page *page;
	unsigned long idx;

	fnblk_cache_destroy(&st->cache);
	xa_for_each(&st->pages, idx, page)
		__free_page(page);
	xa_destroy(&st->pages);
	atomic_long_set(&st->nr_pages, 0);
}
