// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection, in the spirit of the kernel's fault_attr: rules on a
 * device, each matching reads, writes or both within a byte range, that
 * fail a request with EIO, let it time out, or delay it. A rule fires on
 * every Nth matching request and/or with a probability, at most a number
 * of times.
 *
 * A faulty request still goes through the scheduler like any other (it
 * takes its share and its latency). EIO and timeout move no data: a write
 * leaves the store as it was, a read leaves the caller's buffer alone; they
 * count as errors, not as operations. EIO is delivered when the request
 * completes; a timeout when the block layer
 * would have timed the request out (the rule's time, 30 s by default, as
 * blk-mq's), from its submission; a delay that long after its completion.
 * Held requests wait on a list of their own, ended by a timer of their own,
 * so nothing else on the device waits with them.
 *
 * Rules are read under RCU at submission and changed under fnblk_mutex;
 * their counters are atomics, so "every" and "times" are exact.
 */
#include <linux/hrtimer.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "fnblk.h"

/* A request held back by a timeout or delay. */
struct fnblk_fault_hold {
	struct list_head node;		/* in fnblk_faults.held, by due time */
	struct bio *bio;
	u64 due_ns;
	blk_status_t status;
};

static bool rule_matches(const struct fnblk_fault_rule *r, struct bio *bio)
{
	u64 pos = (u64)bio->bi_iter.bi_sector << FNBLK_SECTOR_SHIFT;
	u64 end = pos + bio->bi_iter.bi_size;
	bool read = bio_op(bio) == REQ_OP_READ;

	if ((r->op == FNBLK_FAULT_READ && !read) ||
	    (r->op == FNBLK_FAULT_WRITE && read))
		return false;
	if (!r->len)
		return true;
	/* An empty flush is at no place: it matches only a whole device. */
	return end > r->start && pos < r->start + r->len;
}

/* Decide whether r fires on this matching request; counts exactly. */
static bool rule_fires(struct fnblk_fault_rule *r)
{
	u64 n = atomic64_inc_return(&r->matched), done;

	if (r->every > 1 && n % r->every)
		return false;
	if (r->prob < FNBLK_FAULT_PROB_ONE &&
	    (u32)(((u64)get_random_u32() * FNBLK_FAULT_PROB_ONE) >> 32) >=
	    r->prob)
		return false;
	if (!r->times) {
		atomic64_inc(&r->injected);
		return true;
	}
	done = atomic64_read(&r->injected);
	do {
		if (done >= r->times)
			return false;
	} while (!atomic64_try_cmpxchg(&r->injected, &done, done + 1));
	return true;
}

int fnblk_fault_submit(struct fnblk_dev *dev, struct bio *bio,
		       struct fnblk_fault *f, gfp_t gfp)
{
	struct fnblk_fault_rule *r;
	int ret = 0;

	f->error = FNBLK_FAULT_NONE;
	if (list_empty(&dev->faults.rules))
		return 0;
	/* Allocated first, so a rule that fires is never wasted. */
	f->hold = kmalloc(sizeof(*f->hold), gfp | __GFP_NOWARN);
	if (!f->hold)
		return -ENOMEM;
	rcu_read_lock();
	list_for_each_entry_rcu(r, &dev->faults.rules, node) {
		if (!rule_matches(r, bio) || !rule_fires(r))
			continue;
		f->error = r->error;
		f->delay_ns = r->delay_ns;
		atomic64_inc(&dev->faults.injected[r->error]);
		break;
	}
	rcu_read_unlock();
	/* Failed or timed out: no data moves, and it counts as an error. */
	if (f->error == FNBLK_FAULT_EIO)
		bio->bi_status = BLK_STS_IOERR;
	else if (f->error == FNBLK_FAULT_TIMEOUT)
		bio->bi_status = BLK_STS_TIMEOUT;
	if (f->error == FNBLK_FAULT_EIO || f->error == FNBLK_FAULT_NONE) {
		kfree(f->hold);
		f->hold = NULL;
	}
	return ret;
}

/* Arm the fault timer for the first held request. */
static void faults_arm_locked(struct fnblk_dev *dev)
	__must_hold(&dev->lock)
{
	struct fnblk_fault_hold *h;

	h = list_first_entry_or_null(&dev->faults.held,
				     struct fnblk_fault_hold, node);
	if (h)
		hrtimer_start(&dev->faults.timer, ns_to_ktime(h->due_ns),
			      HRTIMER_MODE_ABS_SOFT);
}

bool fnblk_fault_deliver_locked(struct fnblk_dev *dev, struct fnblk_fault *f,
				struct bio *bio, u64 submit_ns, u64 now)
	__must_hold(&dev->lock)
{
	struct fnblk_fault_hold *h = f->hold, *pos;

	switch (f->error) {
	case FNBLK_FAULT_TIMEOUT:
		h->status = bio->bi_status;
		h->due_ns = max(now, submit_ns + f->delay_ns);
		break;
	case FNBLK_FAULT_DELAY:
		h->status = bio->bi_status;
		h->due_ns = now + f->delay_ns;
		break;
	default:
		return false;
	}
	h->bio = bio;
	f->hold = NULL;
	/* Few are held at once: a sorted list is enough. */
	list_for_each_entry_reverse(pos, &dev->faults.held, node)
		if (pos->due_ns <= h->due_ns)
			break;
	list_add(&h->node, &pos->node);
	if (dev->faults.held.next == &h->node)
		faults_arm_locked(dev);
	return true;
}

void fnblk_fault_cancel(struct fnblk_fault *f)
{
	kfree(f->hold);
	f->hold = NULL;
}

/* End held requests that are due (all of them if flush). */
static void faults_release(struct fnblk_dev *dev, bool flush)
{
	struct fnblk_fault_hold *h, *tmp;
	u64 now = ktime_get_ns();
	LIST_HEAD(due);

	spin_lock_bh(&dev->lock);
	list_for_each_entry_safe(h, tmp, &dev->faults.held, node) {
		if (!flush && h->due_ns > now)
			break;
		list_move_tail(&h->node, &due);
	}
	if (!flush)
		faults_arm_locked(dev);
	spin_unlock_bh(&dev->lock);
	list_for_each_entry_safe(h, tmp, &due, node) {
		h->bio->bi_status = h->status;
		bio_endio(h->bio);
		kfree(h);
	}
}

static enum hrtimer_restart faults_timer_fn(struct hrtimer *timer)
{
	struct fnblk_dev *dev = container_of(timer, struct fnblk_dev,
					     faults.timer);

	faults_release(dev, false);
	return HRTIMER_NORESTART;
}

void fnblk_faults_init(struct fnblk_dev *dev)
{
	struct fnblk_faults *fs = &dev->faults;

	INIT_LIST_HEAD(&fs->rules);
	INIT_LIST_HEAD(&fs->held);
	hrtimer_init(&fs->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	fs->timer.function = faults_timer_fn;
}

/* Check a new rule; err names what is wrong. */
static int rule_check(const struct fnblk_fault_rule *r, const char **err)
{
	if (r->op > FNBLK_FAULT_WRITE || !r->error ||
	    r->error >= __FNBLK_FAULT_MAX) {
		*err = "fault needs an op (read, write, any) and an error";
		return -EINVAL;
	}
	if (!r->prob || r->prob > FNBLK_FAULT_PROB_ONE) {
		*err = "fault probability must be in (0, 100%]";
		return -EINVAL;
	}
	if (r->len && r->start + r->len < r->start) {
		*err = "fault range wraps around";
		return -EINVAL;
	}
	if (r->error == FNBLK_FAULT_DELAY &&
	    (!r->delay_ns || r->delay_ns > FNBLK_FAULT_DELAY_MAX_NS)) {
		*err = "fault delay must be 1 ns to 10 min";
		return -EINVAL;
	}
	if (r->error == FNBLK_FAULT_TIMEOUT &&
	    r->delay_ns > FNBLK_FAULT_DELAY_MAX_NS) {
		*err = "fault timeout must be at most 10 min";
		return -EINVAL;
	}
	if (r->error == FNBLK_FAULT_EIO && r->delay_ns) {
		*err = "a fault of error eio takes no time";
		return -EINVAL;
	}
	return 0;
}

int fnblk_fault_add(struct fnblk_dev *dev, struct fnblk_fault_rule *r,
		    const char **err)
{
	struct fnblk_faults *fs = &dev->faults;
	int ret;

	lockdep_assert_held(&fnblk_mutex);
	ret = rule_check(r, err);
	if (ret)
		return ret;
	if (fs->nr >= FNBLK_FAULT_RULES_MAX) {
		*err = "at most 16 fault rules per device";
		return -ENOSPC;
	}
	if (r->error == FNBLK_FAULT_TIMEOUT && !r->delay_ns)
		r->delay_ns = FNBLK_FAULT_TIMEOUT_NS;
	r->id = ++fs->last_id;
	atomic64_set(&r->matched, 0);
	atomic64_set(&r->injected, 0);
	list_add_tail_rcu(&r->node, &fs->rules);
	fs->nr++;
	return 0;
}

int fnblk_fault_del(struct fnblk_dev *dev, u32 id, const char **err)
{
	struct fnblk_faults *fs = &dev->faults;
	struct fnblk_fault_rule *r, *tmp;
	bool found = false;

	lockdep_assert_held(&fnblk_mutex);
	list_for_each_entry_safe(r, tmp, &fs->rules, node) {
		if (id && r->id != id)
			continue;
		list_del_rcu(&r->node);
		kfree_rcu(r, rcu);
		fs->nr--;
		found = true;
	}
	if (!found && id) {
		*err = "no such fault rule";
		return -ENOENT;
	}
	return 0;
}

struct fnblk_fault_rule *fnblk_fault_next(struct fnblk_dev *dev, u32 after)
{
	struct fnblk_fault_rule *r;

	lockdep_assert_held(&fnblk_mutex);
	list_for_each_entry(r, &dev->faults.rules, node)
		if (r->id > after)
			return r;
	return NULL;
}

void fnblk_faults_reset(struct fnblk_dev *dev)
{
	int i;

	for (i = 0; i < __FNBLK_FAULT_MAX; i++)
		atomic64_set(&dev->faults.injected[i], 0);
}

void fnblk_faults_destroy(struct fnblk_dev *dev)
{
	const char *err;

	hrtimer_cancel(&dev->faults.timer);
	/* Held requests end now, as they would have. */
	faults_release(dev, true);
	fnblk_fault_del(dev, 0, &err);
}
