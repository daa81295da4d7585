// SPDX-License-Identifier: GPL-2.0
/*
 * Counters: updated when a request is delivered, read as one consistent
 * snapshot taken under the device lock, reset together.
 */
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
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

void fnblk_stats_fast(struct fnblk_dev *dev, struct fnblk_dev_user *u,
		      int dir, u32 bytes, bool kthread)
{
	/* this_cpu ops: a softirq's fast path on this CPU loses nothing. */
	this_cpu_inc(dev->fast->ops[dir]);
	this_cpu_add(dev->fast->bytes[dir], bytes);
	this_cpu_inc(dev->fast->size_hist[dir][size_bin(bytes)]);
	if (kthread) {
		this_cpu_inc(dev->fast->kthread_ops);
		this_cpu_add(dev->fast->kthread_bytes, bytes);
	}
	atomic64_inc(&u->fast_ops[dir]);
	atomic64_add(bytes, &u->fast_bytes[dir]);
}

/*
 * Add the fast path's counters to st: reads and writes of no latency
 * and no queueing delay (bin 0 of both histograms).
 */
static void stats_add_fast(struct fnblk_dev *dev, struct fnblk_stats *st)
{
	static const u8 op[2] = { FNBLK_OP_READ, FNBLK_OP_WRITE };
	const struct fnblk_fast_stats *f;
	int cpu, dir, i;
	u64 ops;

	for_each_possible_cpu(cpu) {
		f = per_cpu_ptr(dev->fast, cpu);
		for (dir = 0; dir < 2; dir++) {
			ops = READ_ONCE(f->ops[dir]);
			st->ops[op[dir]] += ops;
			st->bytes[op[dir]] += READ_ONCE(f->bytes[dir]);
			st->lat_hist[0] += ops;
			st->queue_hist[0] += ops;
			for (i = 0; i < FNBLK_RSIZE_BINS; i++)
				st->size_hist[dir][i] +=
					READ_ONCE(f->size_hist[dir][i]);
		}
		st->kthread_ops += READ_ONCE(f->kthread_ops);
		st->kthread_bytes += READ_ONCE(f->kthread_bytes);
	}
}

void fnblk_stats_snapshot(struct fnblk_dev *dev, struct fnblk_snapshot *snap)
{
	struct fnblk_sched *s = &dev->sched;

	spin_lock_bh(&dev->lock);
	fnblk_io_kick_locked(dev);	/* brings the n accounting to now */
	snap->time_ns = s->now;
	snap->elapsed_ns = s->now - s->stats_since_ns;
	snap->st = dev->stats;
	stats_add_fast(dev, &snap->st);
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
	int cpu;
	u64 now;

	/*
	 * Stop the fast path and wait for the requests it is counting, so
	 * each counts wholly before the reset or wholly after it; requests
	 * meanwhile take the locked path.
	 */
	spin_lock_bh(&dev->lock);
	WRITE_ONCE(dev->fast_off, dev->fast_off + 1);
	spin_unlock_bh(&dev->lock);
	synchronize_rcu();

	spin_lock_bh(&dev->lock);
	fnblk_io_kick_locked(dev);
	now = dev->sched.now;
	fnblk_sched_reset_stats(&dev->sched, now);
	memset(&dev->stats, 0, sizeof(dev->stats));
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(dev->fast, cpu), 0,
		       sizeof(struct fnblk_fast_stats));
	fnblk_users_reset_locked(dev, now);
	WRITE_ONCE(dev->fast_off, dev->fast_off - 1);
	fnblk_io_unlock(dev);
	/* Idle users are forgotten, a batch per lock hold. */
	fnblk_users_reap(dev, FNBLK_REAP_IDLE);
}
