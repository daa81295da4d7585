// SPDX-License-Identifier: GPL-2.0
/*
 * Requests through the scheduler core. A bio's data is copied when it is
 * submitted; then it becomes a request that the core holds until its share
 * of f(n)*B has served it and its latency has passed. One hrtimer per device,
 * re-armed for the core's next event, completes requests: no polling.
 *
 * Identity is captured here, in the submitter's context, because this is
 * the only place where "current" is the task that issued the I/O.
 */
#include <linux/bio.h>
#include <linux/blk-cgroup.h>
#include <linux/cgroup.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "fnblk.h"

static struct kmem_cache *fnblk_io_cache;

static struct fnblk_dev *sched_dev(struct fnblk_sched *s)
{
	return s->priv;
}

static void fnblk_complete(struct fnblk_sched *s, struct fnblk_req *rq)
{
	struct fnblk_dev *dev = sched_dev(s);
	struct fnblk_io *io = container_of(rq, struct fnblk_io, rq);
	struct fnblk_dev_user *u = container_of(rq->user,
						 struct fnblk_dev_user, su);

	fnblk_stats_complete(dev, io, u);
	bio_list_add(&dev->done, io->bio);
	if (!io->on_stack)
		kmem_cache_free(fnblk_io_cache, io);
}

static void fnblk_activity(struct fnblk_sched *s, struct fnblk_user *su,
			   bool active, u64 t)
{
	struct fnblk_dev_user *u = container_of(su, struct fnblk_dev_user, su);

	fnblk_event_user_locked(sched_dev(s), u, active, t);
}

const struct fnblk_sched_ops fnblk_sched_ops = {
	.complete = fnblk_complete,
	.activity = fnblk_activity,
};

/* Arm the timer for the scheduler's next event. */
static void fnblk_io_arm_locked(struct fnblk_dev *dev)
	__must_hold(&dev->lock)
{
	u64 next = fnblk_sched_next_event(&dev->sched);

	/* A dying device keeps its timer only to finish what is in flight. */
	if (next == FNBLK_NEVER || (dev->dying && !dev->sched.nr_inflight))
		return;
	/*
	 * A timer that fires early only finds nothing due and re-arms, so an
	 * armed timer is moved only to an earlier time. This spares a
	 * reprogramming per I/O when each one pushes a grace period back.
	 */
	if (hrtimer_is_queued(&dev->timer) &&
	    ktime_to_ns(hrtimer_get_expires(&dev->timer)) <= next)
		return;
	hrtimer_start(&dev->timer, ns_to_ktime(next), HRTIMER_MODE_ABS_SOFT);
}

void fnblk_io_run_locked(struct fnblk_dev *dev, u64 now)
	__must_hold(&dev->lock)
{
	fnblk_sched_run(&dev->sched, now);
	fnblk_io_arm_locked(dev);
}

void fnblk_io_kick_locked(struct fnblk_dev *dev)
	__must_hold(&dev->lock)
{
	fnblk_io_run_locked(dev, ktime_get_ns());
}

static bool fnblk_io_idle(struct fnblk_dev *dev)
{
	bool idle;

	spin_lock_bh(&dev->lock);
	idle = !dev->sched.nr_inflight;
	spin_unlock_bh(&dev->lock);
	return idle;
}

void fnblk_io_unlock(struct fnblk_dev *dev)
	__releases(&dev->lock)
{
	struct bio_list done = dev->done;
	struct bio *bio;

	bio_list_init(&dev->done);
	spin_unlock_bh(&dev->lock);
	while ((bio = bio_list_pop(&done)))
		bio_endio(bio);
	if (READ_ONCE(dev->dying) && fnblk_io_idle(dev))
		wake_up_all(&dev->drain_wq);
}

static enum hrtimer_restart fnblk_timer_fn(struct hrtimer *timer)
{
	struct fnblk_dev *dev = container_of(timer, struct fnblk_dev, timer);

	spin_lock_bh(&dev->lock);
	fnblk_io_kick_locked(dev);
	fnblk_io_unlock(dev);
	return HRTIMER_NORESTART;
}

void fnblk_io_setup(struct fnblk_dev *dev)
{
	hrtimer_init(&dev->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	dev->timer.function = fnblk_timer_fn;
	bio_list_init(&dev->done);
	init_waitqueue_head(&dev->drain_wq);
	fnblk_sched_init(&dev->sched, &dev->cfg.sched, &fnblk_sched_ops, dev,
			 ktime_get_ns());
}

/* Who this bio counts as, under the device's key mode. */
static u64 fnblk_user_key(struct fnblk_dev *dev, struct bio *bio)
{
	struct cgroup_subsys_state *css;

	switch (dev->cfg.key) {
	case FNBLK_KEY_CGROUP:
		css = bio_blkcg_css(bio);
		return css ? cgroup_id(css->cgroup) : 1;
	case FNBLK_KEY_SINGLE:
		return 0;
	default:
		/* Every kernel thread (flusher, kworkers) is one user, 0. */
		if (current->flags & PF_KTHREAD)
			return 0;
		return dev->cfg.key == FNBLK_KEY_PID ? current->pid :
						       current->tgid;
	}
}

static u8 fnblk_bio_op(struct bio *bio)
{
	switch (bio_op(bio)) {
	case REQ_OP_READ:
		return FNBLK_OP_READ;
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		return FNBLK_OP_DISCARD;
	case REQ_OP_FLUSH:
		return FNBLK_OP_FLUSH;
	default:
		return bio_sectors(bio) ? FNBLK_OP_WRITE : FNBLK_OP_FLUSH;
	}
}

static void fnblk_io_fail(struct fnblk_dev *dev, struct bio *bio, int err)
{
	spin_lock_bh(&dev->lock);
	dev->stats.errors++;
	spin_unlock_bh(&dev->lock);
	if (err == -EAGAIN && (bio->bi_opf & REQ_NOWAIT))
		bio_wouldblock_error(bio);
	else
		bio_io_error(bio);
}

/*
 * Unthrottled without latency, a request completes inside
 * fnblk_sched_submit(), so it can live on the submitter's stack and the
 * fastest configuration allocates nothing per I/O.
 */
static bool fnblk_io_completes_inline(const struct fnblk_dev *dev)
{
	return !READ_ONCE(dev->sched.p.bw) &&
	       !READ_ONCE(dev->sched.p.latency_ns);
}

void fnblk_io_submit(struct fnblk_dev *dev, struct bio *bio)
{
	gfp_t gfp = bio->bi_opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO;
	struct fnblk_io on_stack, *io, *spare = NULL;
	struct fnblk_dev_user *u;
	u64 now;
	int ret;

	ret = fnblk_store_bio(&dev->store, bio, gfp);
	if (ret)
		goto fail;
	/* Allocation may sleep, so it is done before the lock decides. */
	if (!fnblk_io_completes_inline(dev)) {
		spare = kmem_cache_alloc(fnblk_io_cache, gfp);
		ret = -ENOMEM;
		if (!spare)
			goto fail;
	}

	spin_lock_bh(&dev->lock);
	u = fnblk_user_get_locked(dev, fnblk_user_key(dev, bio), gfp);
	ret = PTR_ERR_OR_ZERO(u);
	if (ret)
		goto unlock_fail;
	if (fnblk_io_completes_inline(dev)) {
		io = &on_stack;
	} else if (spare) {
		io = spare;
		spare = NULL;
	} else {
		/* The device was throttled since we looked: rare. */
		io = kmem_cache_alloc(fnblk_io_cache, GFP_ATOMIC);
		ret = -ENOMEM;
		if (!io)
			goto unlock_fail;
	}
	io->bio = bio;
	io->op = fnblk_bio_op(bio);
	io->kthread = current->flags & PF_KTHREAD;
	io->on_stack = io == &on_stack;
	io->rq.bytes = bio->bi_iter.bi_size;
	io->rq.write = io->op != FNBLK_OP_READ;
	u->kthread |= io->kthread;
	u->inflight++;
	now = ktime_get_ns();
	fnblk_sched_submit(&dev->sched, &u->su, &io->rq, now);
	fnblk_io_arm_locked(dev);
	fnblk_io_unlock(dev);
	if (spare)
		kmem_cache_free(fnblk_io_cache, spare);
	return;

unlock_fail:
	spin_unlock_bh(&dev->lock);
	if (spare)
		kmem_cache_free(fnblk_io_cache, spare);
fail:
	fnblk_io_fail(dev, bio, ret);
}

/* Wait until the scheduler has completed every request of a dying device. */
void fnblk_io_drain(struct fnblk_dev *dev)
{
	wait_event(dev->drain_wq, fnblk_io_idle(dev));
	hrtimer_cancel(&dev->timer);
}

int fnblk_io_init(void)
{
	fnblk_io_cache = KMEM_CACHE(fnblk_io, 0);
	return fnblk_io_cache ? 0 : -ENOMEM;
}

void fnblk_io_exit(void)
{
	kmem_cache_destroy(fnblk_io_cache);
}
