// SPDX-License-Identifier: GPL-2.0
/*
 * The memory store: a sparse array of pages indexed by page number, each
 * allocated on its first write and freed on discard. Data moves when the
 * bio is submitted; the scheduler only decides when it completes.
 *
 * Readers and writers look pages up under RCU, and discard frees pages only
 * after a grace period, so a copy never touches a page that is gone.
 */
#include <linux/bio.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>

#include "fnblk.h"

#define SECTORS_PER_PAGE_SHIFT	(PAGE_SHIFT - FNBLK_SECTOR_SHIFT)

void fnblk_store_init(struct fnblk_backing *st, u8 kind)
{
	xa_init(&st->pages);
	st->kind = kind;
	atomic_long_set(&st->nr_pages, 0);
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

/* Copy len bytes (within one page) between the bvec and the store. */
static int store_copy(struct fnblk_backing *st, void *buf, sector_t sector,
		      unsigned int len, bool write, gfp_t gfp)
{
	pgoff_t idx = sector >> SECTORS_PER_PAGE_SHIFT;
	unsigned int off = (sector & ((1 << SECTORS_PER_PAGE_SHIFT) - 1))
			   << FNBLK_SECTOR_SHIFT;
	struct page *page;
	void *mem;
	int ret;

	for (;;) {
		rcu_read_lock();
		page = xa_load(&st->pages, idx);
		if (page || !write)
			break;
		rcu_read_unlock();
		ret = store_populate(st, idx, gfp);
		if (ret)
			return ret;
	}
	if (page) {
		mem = kmap_local_page(page);
		if (write)
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

static int store_rw(struct fnblk_backing *st, struct bio *bio, bool write,
		    gfp_t gfp)
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
				if (!write)
					memset(buf + done, 0, chunk);
			} else {
				ret = store_copy(st, buf + done, sector, chunk,
						 write, gfp);
			}
			sector += chunk >> FNBLK_SECTOR_SHIFT;
		}
		kunmap_local(buf);
		if (ret)
			return ret;
	}
	return 0;
}

/* Discard and write-zeroes: free whole pages, zero the partial ends. */
static int store_discard(struct fnblk_backing *st, struct bio *bio)
{
	u64 pos = (u64)bio->bi_iter.bi_sector << FNBLK_SECTOR_SHIFT;
	u64 end = pos + bio->bi_iter.bi_size;
	LIST_HEAD(freed);
	struct page *page, *tmp;
	unsigned int off, len;
	void *mem;

	while (pos < end) {
		off = pos & (PAGE_SIZE - 1);
		len = min_t(u64, PAGE_SIZE - off, end - pos);
		if (len == PAGE_SIZE) {
			page = xa_erase(&st->pages, pos >> PAGE_SHIFT);
			if (page)
				list_add(&page->lru, &freed);
		} else {
			rcu_read_lock();
			page = xa_load(&st->pages, pos >> PAGE_SHIFT);
			if (page) {
				mem = kmap_local_page(page);
				memset(mem + off, 0, len);
				kunmap_local(mem);
			}
			rcu_read_unlock();
		}
		pos += len;
	}
	if (list_empty(&freed))
		return 0;
	synchronize_rcu();
	list_for_each_entry_safe(page, tmp, &freed, lru) {
		list_del(&page->lru);
		__free_page(page);
		atomic_long_dec(&st->nr_pages);
	}
	return 0;
}

int fnblk_store_bio(struct fnblk_backing *st, struct bio *bio, gfp_t gfp)
{
	switch (bio_op(bio)) {
	case REQ_OP_READ:
		return store_rw(st, bio, false, gfp);
	case REQ_OP_WRITE:
		return store_rw(st, bio, true, gfp);
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		/* Freeing waits for an RCU grace period. */
		if (bio->bi_opf & REQ_NOWAIT)
			return -EAGAIN;
		return st->kind == FNBLK_STORE_NONE ? 0 :
		       store_discard(st, bio);
	case REQ_OP_FLUSH:
		return 0;	/* memory is as durable as it gets here */
	default:
		return -EOPNOTSUPP;
	}
}

void fnblk_store_destroy(struct fnblk_backing *st)
{
	struct page *page;
	unsigned long idx;

	xa_for_each(&st->pages, idx, page)
		__free_page(page);
	xa_destroy(&st->pages);
	atomic_long_set(&st->nr_pages, 0);
}
