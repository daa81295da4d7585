// SPDX-License-Identifier: GPL-2.0
/*
 * The gendisk: a bio-based device, so that submission runs in the context
 * of the task that issued the I/O (blk-mq's queue_rq may run from kblockd
 * or another task, which would hide who the user is).
 *
 * Opens are counted here so that deletion can refuse a device in use
 * without racing a concurrent open. While the module is still loading,
 * opens fail: a load that fails must be able to delete every device.
 */
#include <linux/blkdev.h>

#include "fnblk.h"

static void fnblk_submit_bio(struct bio *bio)
{
	struct fnblk_dev *dev = bio->bi_bdev->bd_disk->private_data;

	/* Down after a crash: the disk is gone until everyone has closed it. */
	if (unlikely(READ_ONCE(dev->crashed))) {
		spin_lock_bh(&dev->lock);
		dev->stats.errors++;
		spin_unlock_bh(&dev->lock);
		bio_io_error(bio);
		return;
	}
	/*
	 * A bio-based driver splits for itself: one request is at most
	 * FNBLK_MAX_IO_BYTES, as one RPC of a remote file system would be.
	 * Only size matters to fnblk, so smaller bios skip the walk.
	 */
	if (unlikely(bio->bi_iter.bi_size > FNBLK_MAX_IO_BYTES)) {
		bio = bio_split_to_limits(bio);
		if (!bio)
			return;
	}
	fnblk_io_submit(dev, bio);
}

static int fnblk_open_disk(struct gendisk *disk)
{
	struct fnblk_dev *dev = disk->private_data;
	int ret = 0;

	spin_lock_bh(&dev->lock);
	if (dev->dying || !fnblk_loaded())
		ret = -ENXIO;
	else if (dev->crashed)
		ret = -EIO;
	else if (dev->reconfiguring)
		ret = -EBUSY;
	else
		dev->open_count++;
	spin_unlock_bh(&dev->lock);
	return ret;
}

static void fnblk_release_disk(struct gendisk *disk)
{
	struct fnblk_dev *dev = disk->private_data;
	bool revive = false;

	spin_lock_bh(&dev->lock);
	/* The last close after a crash is the reboot: the disk comes back. */
	if (!--dev->open_count && dev->crashed) {
		dev->crashed = false;
		revive = true;
	}
	spin_unlock_bh(&dev->lock);
	if (revive)
		fnblk_cache_revive(&dev->store.cache);
}

#ifdef FNBLK_HAVE_BLK_MODE
static int fnblk_open(struct gendisk *disk, blk_mode_t mode)
{
	return fnblk_open_disk(disk);
}

static void fnblk_release(struct gendisk *disk)
{
	fnblk_release_disk(disk);
}
#else
static int fnblk_open(struct block_device *bdev, fmode_t mode)
{
	return fnblk_open_disk(bdev->bd_disk);
}

static void fnblk_release(struct gendisk *disk, fmode_t mode)
{
	fnblk_release_disk(disk);
}
#endif

static const struct block_device_operations fnblk_fops = {
	.owner = THIS_MODULE,
	.submit_bio = fnblk_submit_bio,
	.open = fnblk_open,
	.release = fnblk_release,
};

/*
 * Limits, so that splitting is deliberate: a read or write is split only
 * at FNBLK_MAX_IO_BYTES, never by how its pages fall in memory (the
 * default segment limits would cut a 1 MiB direct I/O of scattered pages
 * in two); discard and write-zeroes only at 4 GiB.
 */
#define FNBLK_MAX_SECTORS	(FNBLK_MAX_IO_BYTES >> FNBLK_SECTOR_SHIFT)
#define FNBLK_MAX_DISCARD	(UINT_MAX >> FNBLK_SECTOR_SHIFT)

#ifdef FNBLK_HAVE_LIMITS_ALLOC
/* 6.9 and later: the limits are given when the disk is allocated. */
static struct gendisk *fnblk_alloc_disk(void)
{
	struct queue_limits lim = {
		.logical_block_size = 512,
		.physical_block_size = PAGE_SIZE,
		.max_hw_sectors = FNBLK_MAX_SECTORS,
		.max_segments = USHRT_MAX,
		.max_segment_size = UINT_MAX,
		.max_hw_discard_sectors = FNBLK_MAX_DISCARD,
		.max_write_zeroes_sectors = FNBLK_MAX_DISCARD,
		.discard_granularity = PAGE_SIZE,
#ifdef FNBLK_HAVE_QUEUE_FEATURES
		/* 6.11 and later: features are limits too. */
		.features = BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA |
			    BLK_FEAT_NOWAIT,
#endif
	};
	struct gendisk *disk = blk_alloc_disk(&lim, NUMA_NO_NODE);

#ifndef FNBLK_HAVE_QUEUE_FEATURES
	/* 6.9 and 6.10: the same as queue flags. */
	if (!IS_ERR(disk)) {
		blk_queue_write_cache(disk->queue, true, true);
		blk_queue_flag_set(QUEUE_FLAG_NONROT, disk->queue);
		blk_queue_flag_set(QUEUE_FLAG_NOWAIT, disk->queue);
	}
#endif
	return disk;
}
#else
static struct gendisk *fnblk_alloc_disk(void)
{
	struct gendisk *disk = blk_alloc_disk(NUMA_NO_NODE);
	struct request_queue *q;

	if (!disk)
		return ERR_PTR(-ENOMEM);
	q = disk->queue;
	blk_queue_logical_block_size(q, 512);
	blk_queue_physical_block_size(q, PAGE_SIZE);
	blk_queue_max_hw_sectors(q, FNBLK_MAX_SECTORS);
	blk_queue_max_segments(q, USHRT_MAX);
	blk_queue_max_segment_size(q, UINT_MAX);
	blk_queue_max_discard_sectors(q, FNBLK_MAX_DISCARD);
	blk_queue_max_write_zeroes_sectors(q, FNBLK_MAX_DISCARD);
	q->limits.discard_granularity = PAGE_SIZE;
	blk_queue_write_cache(q, true, true);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_flag_set(QUEUE_FLAG_NOWAIT, q);
	return disk;
}
#endif

int fnblk_disk_create(struct fnblk_dev *dev)
{
	struct gendisk *disk;
	int ret;

	disk = fnblk_alloc_disk();
	if (IS_ERR(disk))
		return PTR_ERR(disk);
	disk->major = fnblk_major;
	disk->first_minor = dev->id;
	disk->minors = 1;
	disk->flags |= GENHD_FL_NO_PART;
	disk->fops = &fnblk_fops;
	disk->private_data = dev;
	strscpy(disk->disk_name, dev->name, DISK_NAME_LEN);
	set_capacity(disk, dev->cfg.size >> FNBLK_SECTOR_SHIFT);
	dev->disk = disk;
	ret = add_disk(disk);
	if (ret) {
		put_disk(disk);
		dev->disk = NULL;
	}
	return ret;
}

/* Stop new I/O, then wait for what is in flight before anything is freed. */
void fnblk_disk_destroy(struct fnblk_dev *dev)
{
	del_gendisk(dev->disk);
	fnblk_io_drain(dev);
	put_disk(dev->disk);
	dev->disk = NULL;
}
