// SPDX-License-Identifier: GPL-2.0
/*
 * Counters: updated when a request is delivered, read as one consistent
 * snapshot taken under the device lock, reset together.
 */
#include <linux/log2.h>
#include <linux/string.h>

#include "fnblk.h"

static unsigned int lat_bin(u64 ns)
{
	unsigned int bin = ns ? ilog2(ns) : 0;

	return min_t(unsigned int, bin, FNBLK_LHIST_BINS - 1);
}

/* Requests of [512 << i, 1024 << i) bytes land in bin i. */
static unsigned int size_bin(u64 bytes)
{
	unsigned int bin = bytes >> FNBLK_RSIZE_SHIFT ?
			   ilog2(bytes >> FNBLK_RSIZE_SHIFT) : 0;

	return min_t(unsigned int, bin, FNBLK_RSIZE_BINS - 1);
}

void fnblk_stats_complete(struct fnblk_dev *dev, struct fnblk_io *io,
			  struct fnblk_dev_user *u)
	__must_hold(&dev->lock)
{
	struct fnblk_stats *st = &dev->stats;
	struct fnblk_req *rq = &io->rq;
	u64 lat = rq->done_ns - rq->submit_ns;
	u64 wait = rq->start_ns - rq->submit_ns;
	int dir = rq->write ? 1 : 0;

	u->inflight--;
	if (io->bio->bi_status) {	/* its data could not be moved */
		st->errors++;
		return;
	}
	st->ops[io->op]++;
	st->bytes[io->op] += io->bytes;
	if (io->kthread) {
		st->kthread_ops++;
		st->kthread_bytes += io->bytes;
	}
	st->lat_sum_ns += lat;
	st->queue_sum_ns += wait;
	st->lat_hist[lat_bin(lat)]++;
	st->queue_hist[lat_bin(wait)]++;
	if (io->op == FNBLK_OP_READ || io->op == FNBLK_OP_WRITE)
		st->size_hist[dir][size_bin(io->bytes)]++;

	u->ops[dir]++;
	u->bytes[dir] += io->bytes;
	u->wait_ns += wait;
}

void fnblk_stats_snapshot(struct fnblk_dev *dev, struct fnblk_snapshot *snap)
{
	struct fnblk_sched *s = &dev->sched;

	spin_lock_bh(&dev->lock);
	fnblk_io_kick_locked(dev);	/* brings the n accounting to now */
	snap->time_ns = s->now;
	snap->elapsed_ns = s->now - s->stats_since_ns;
	snap->st = dev->stats;
	snap->nr_active = s->nr_active;
	snap->peak_active = s->peak_active;
	snap->nr_users = dev->nr_users;
	snap->users_retired = dev->retired.users;
	snap->user_overflows = dev->overflows;
	snap->inflight = s->nr_inflight;
	snap->activations = s->activations;
	snap->n_time_sum = s->n_time_sum;
	memcpy(snap->n_hist, s->n_hist, sizeof(snap->n_hist));
	snap->events = dev->event_seq;
	fnblk_io_unlock(dev);
}

void fnblk_stats_reset(struct fnblk_dev *dev)
{
	u64 now;

	spin_lock_bh(&dev->lock);
	fnblk_io_kick_locked(dev);
	now = dev->sched.now;
	fnblk_sched_reset_stats(&dev->sched, now);
	memset(&dev->stats, 0, sizeof(dev->stats));
	fnblk_users_reset_locked(dev, now);
	fnblk_io_unlock(dev);
	/* Idle users are forgotten, a batch per lock hold. */
	fnblk_users_reap(dev, FNBLK_REAP_IDLE);
}
