// SPDX-License-Identifier: GPL-2.0
/*
 * The users a device tells apart, by key (pid, tgid, cgroup id, 0 for
 * kernel threads). The table is bounded and reclaims itself:
 *
 *  - at most cfg.max_users entries; a new user that finds it full is
 *    charged to one shared "overflow" user, and counted, until the reaper
 *    has made room;
 *  - a user idle (nothing in flight, not counted in n) for longer than the
 *    retention is freed by the reaper, in process context and a batch per
 *    lock hold; its totals move to the device's "retired" bucket, so the
 *    per-user records still add up to the device's counters;
 *  - a key that now belongs to another process (a reused pid) or to the
 *    previous key mode starts a fresh user, the old one being retired.
 *
 * Lookups and removals happen under dev->lock, so a user found under the
 * lock cannot be freed while it is held. Insertion allocates, so it drops
 * the lock; the XArray's own lock is then taken with bottom halves off
 * (XA_FLAGS_LOCK_BH), as it also nests inside dev->lock, which the timer
 * softirq takes.
 */
#include <linux/blk-cgroup.h>
#include <linux/cgroup.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "fnblk.h"

/* Users examined, and freed, per hold of dev->lock while reaping. */
#define REAP_SCAN	256
#define REAP_BATCH	64

static bool user_busy(const struct fnblk_dev_user *u)
{
	return u->inflight || u->su.active || u->su.in_grace;
}

static bool user_stale(const struct fnblk_dev *dev,
		       const struct fnblk_dev_user *u)
{
	return u->epoch != dev->key_epoch;
}

static void user_init(struct fnblk_dev *dev, struct fnblk_dev_user *u,
		      u64 key, u64 start_ns)
{
	memset(u, 0, sizeof(*u));
	fnblk_user_init(&u->su, key);
	u->start_ns = start_ns;
	u->epoch = dev->key_epoch;
}

/* Move what the fast path counted for u to the retired bucket. */
static void user_retire_fast_locked(struct fnblk_dev *dev,
				    struct fnblk_dev_user *u)
	__must_hold(&dev->lock)
{
	struct fnblk_retired *r = &dev->retired;
	int i;

	for (i = 0; i < 2; i++) {
		r->ops[i] += atomic64_xchg(&u->fast_ops[i], 0);
		r->bytes[i] += atomic64_xchg(&u->fast_bytes[i], 0);
	}
}

/* Move an idle user's totals to the retired bucket. */
static void user_retire_locked(struct fnblk_dev *dev,
			       struct fnblk_dev_user *u, u64 now)
	__must_hold(&dev->lock)
{
	struct fnblk_retired *r = &dev->retired;
	int i;

	for (i = 0; i < 2; i++) {
		r->ops[i] += u->ops[i];
		r->bytes[i] += u->bytes[i];
	}
	user_retire_fast_locked(dev, u);
	r->wait_ns += u->wait_ns;
	r->active_ns += fnblk_user_active_ns(&u->su, now);
	r->activations += u->su.activations;
	r->users++;
}

/* How often the reaper looks for users idle past the retention. */
static unsigned long reap_period(void)
{
	u64 half = fnblk_user_retain_ns() / 2;

	return nsecs_to_jiffies(clamp_t(u64, half, 100 * NSEC_PER_MSEC,
					10 * NSEC_PER_SEC));
}

static void users_reap_work(struct work_struct *work)
{
	struct fnblk_dev *dev = container_of(to_delayed_work(work),
					     struct fnblk_dev, reap_work);
	bool soon;

	spin_lock_bh(&dev->lock);
	soon = dev->reap_soon;
	dev->reap_soon = false;
	spin_unlock_bh(&dev->lock);
	fnblk_users_reap(dev, soon ? FNBLK_REAP_IDLE : FNBLK_REAP_AGED);
	spin_lock_bh(&dev->lock);
	if (dev->nr_users && !dev->dying)
		queue_delayed_work(fnblk_wq, &dev->reap_work, reap_period());
	spin_unlock_bh(&dev->lock);
}

/*
 * Its next pass may be up to 10 s away under the old retention (its
 * period is half of it): a shorter one would be kept too long.
 */
void fnblk_users_retain_changed(struct fnblk_dev *dev)
{
	spin_lock_bh(&dev->lock);
	if (dev->nr_users && !dev->dying)
		mod_delayed_work(fnblk_wq, &dev->reap_work, 0);
	spin_unlock_bh(&dev->lock);
}

void fnblk_users_init(struct fnblk_dev *dev)
{
	xa_init_flags(&dev->users, XA_FLAGS_LOCK_BH);
	INIT_DELAYED_WORK(&dev->reap_work, users_reap_work);
	user_init(dev, &dev->overflow, U64_MAX, 0);
	dev->overflow.pinned = true;
}

/*
 * Who a bio counts as under the device's key mode, and the start time of
 * that process (0 where a key cannot be reused), which tells a reused pid
 * from the process that had it before.
 */
static u64 user_identity(u8 mode, struct bio *bio, u64 *start)
{
	struct cgroup_subsys_state *css;

	*start = 0;
	switch (mode) {
	case FNBLK_KEY_CGROUP:
		/* Cgroup ids are never reused. */
		css = bio_blkcg_css(bio);
		return css ? cgroup_id(css->cgroup) : 1;
	case FNBLK_KEY_SINGLE:
		return 0;
	default:
		/* Every kernel thread (flusher, kworkers) is one user, 0. */
		if (current->flags & PF_KTHREAD)
			return 0;
		if (mode == FNBLK_KEY_PID) {
			*start = current->start_time;
			return current->pid;
		}
		*start = current->group_leader->start_time;
		return current->tgid;
	}
}

/*
 * The entry for key holds another identity (an old key mode, or the
 * previous owner of a pid): if it is idle, retire it and start afresh in
 * place. A busy one is shared, which only a pid reused within a grace
 * period can cause.
 */
static void user_rebind_locked(struct fnblk_dev *dev, struct fnblk_dev_user *u,
			       u64 start)
	__must_hold(&dev->lock)
{
	bool stale = user_stale(dev, u);

	if (!stale && (!start || u->start_ns == start))
		return;
	if (!stale && !u->start_ns) {
		/* Created before its first I/O (a weight set by hand). */
		u->start_ns = start;
		return;
	}
	if (user_busy(u))
		return;
	user_retire_locked(dev, u, dev->sched.now);
	user_init(dev, u, u->su.key, start);
	dev->users_gen++;
}

/* Reap now, from a worker, because the table is full. */
static void users_kick_reaper_locked(struct fnblk_dev *dev)
	__must_hold(&dev->lock)
{
	if (dev->reap_soon || dev->dying)
		return;
	dev->reap_soon = true;
	mod_delayed_work(fnblk_wq, &dev->reap_work, 0);
}

/*
 * Insert a new user of key, with dev->lock dropped around the allocation.
 * Returns 0 (inserted, or someone else did: look again), -ENOSPC when the
 * table is full, or another -errno.
 */
static int users_insert_locked(struct fnblk_dev *dev, u64 key, u64 start,
			       gfp_t gfp)
	__must_hold(&dev->lock)
{
	struct fnblk_dev_user *nu;
	u32 epoch = dev->key_epoch;
	int ret;

	if (key > ULONG_MAX)
		return -EOVERFLOW;
	if (dev->nr_users >= dev->cfg.max_users)
		return -ENOSPC;
	/* The slot is reserved, so concurrent inserters never overshoot. */
	dev->nr_users++;
	spin_unlock_bh(&dev->lock);
	nu = kmalloc(sizeof(*nu), gfp);
	ret = -ENOMEM;
	if (nu) {
		user_init(dev, nu, key, start);
		nu->epoch = epoch;
		nu->fresh = true;
		ret = xa_insert_bh(&dev->users, key, nu, gfp);
		if (ret)
			kfree(nu);
	}
	spin_lock_bh(&dev->lock);
	if (ret) {
		dev->nr_users--;
		/* -EBUSY: another submitter of the same user won the race. */
		return ret == -EBUSY ? 0 : ret;
	}
	dev->users_gen++;
	if (!dev->dying)
		queue_delayed_work(fnblk_wq, &dev->reap_work, reap_period());
	return 0;
}

struct fnblk_dev_user *fnblk_user_get_locked(struct fnblk_dev *dev,
					     struct bio *bio, gfp_t gfp)
	__must_hold(&dev->lock)
{
	struct fnblk_dev_user *u;
	u64 key, start;
	int ret;

	/*
	 * The key is worked out again after every lock drop: the key mode
	 * may have changed meanwhile, and a user inserted under the old one
	 * is then stale (rebound when found).
	 */
	for (;;) {
		key = user_identity(dev->cfg.key, bio, &start);
		u = xa_load(&dev->users, key);
		if (u) {
			user_rebind_locked(dev, u, start);
			u->fresh = false;
			break;
		}
		ret = users_insert_locked(dev, key, start, gfp);
		/* A key the table cannot hold counts as overflow too. */
		if (ret == -ENOSPC || ret == -EOVERFLOW) {
			u = &dev->overflow;
			dev->overflows++;
			users_kick_reaper_locked(dev);
			break;
		}
		if (ret)
			return ERR_PTR(ret);
	}
	u->last_ns = dev->sched.now;
	return u;
}

struct fnblk_dev_user *fnblk_user_find_rcu(struct fnblk_dev *dev,
					   struct bio *bio)
{
	struct fnblk_dev_user *u;
	u64 key, start;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "fnblk_user_find_rcu");
	key = user_identity(READ_ONCE(dev->cfg.key), bio, &start);
	if (key > ULONG_MAX)
		return NULL;
	u = xa_load(&dev->users, key);
	/*
	 * A user of another key mode, or another process's, is rebound by
	 * the locked path. A user the fast path may take is busy (its lease
	 * is open), so neither its epoch nor its start time changes under
	 * us; if it is not, its lease is closed and the caller finds that.
	 */
	if (!u || READ_ONCE(u->epoch) != READ_ONCE(dev->key_epoch) ||
	    (start && READ_ONCE(u->start_ns) != start))
		return NULL;
	return u;
}

struct fnblk_dev_user *fnblk_user_get_key_locked(struct fnblk_dev *dev,
						 u64 key, gfp_t gfp)
	__must_hold(&dev->lock)
{
	struct fnblk_dev_user *u;
	int ret;

	for (;;) {
		u = xa_load(&dev->users, key);
		if (u) {
			user_rebind_locked(dev, u, u->start_ns);
			u->fresh = false;
			return u;
		}
		ret = users_insert_locked(dev, key, 0, gfp);
		if (ret == -ENOSPC)
			users_kick_reaper_locked(dev);
		if (ret)
			return ERR_PTR(ret);
	}
}

void fnblk_users_reset_locked(struct fnblk_dev *dev, u64 now)
	__must_hold(&dev->lock)
{
	struct fnblk_dev_user *u;
	unsigned long key;
	int i;

	memset(&dev->retired, 0, sizeof(dev->retired));
	dev->overflows = 0;
	xa_for_each(&dev->users, key, u) {
		fnblk_user_reset_stats(&u->su, now);
		memset(u->ops, 0, sizeof(u->ops));
		memset(u->bytes, 0, sizeof(u->bytes));
		/* The fast path is stopped (fnblk_stats_reset). */
		for (i = 0; i < 2; i++) {
			atomic64_set(&u->fast_ops[i], 0);
			atomic64_set(&u->fast_bytes[i], 0);
		}
		u->wait_ns = 0;
	}
	u = &dev->overflow;
	fnblk_user_reset_stats(&u->su, now);
	memset(u->ops, 0, sizeof(u->ops));
	memset(u->bytes, 0, sizeof(u->bytes));
	u->wait_ns = 0;
}

void fnblk_users_key_changed_locked(struct fnblk_dev *dev)
	__must_hold(&dev->lock)
{
	dev->key_epoch++;
	dev->users_gen++;
}

static bool user_reclaimable(struct fnblk_dev *dev, struct fnblk_dev_user *u,
			     enum fnblk_reap how, u64 now, u64 retain)
{
	if (user_busy(u))
		return false;
	if (user_stale(dev, u))
		return true;
	/*
	 * A fresh user was inserted with dev->lock dropped: its inserter
	 * has yet to take the lock again and queue its first request (or
	 * set its weight) on it.
	 */
	if (u->pinned || u->fresh)
		return false;
	return how == FNBLK_REAP_IDLE || now - u->last_ns >= retain;
}

void fnblk_users_reap(struct fnblk_dev *dev, enum fnblk_reap how)
{
	struct fnblk_dev_user *u, *victim[REAP_BATCH];
	u64 retain = fnblk_user_retain_ns();
	unsigned long key = 0;
	unsigned int n, scanned, i;
	bool more;
	u64 now;

	might_sleep();
	do {
		n = 0;
		scanned = 0;
		spin_lock_bh(&dev->lock);
		now = ktime_get_ns();
		xa_for_each_start(&dev->users, key, u, key) {
			if (n == REAP_BATCH || scanned++ == REAP_SCAN)
				break;
			if (!user_reclaimable(dev, u, how, now, retain))
				continue;
			xa_erase(&dev->users, key);
			user_retire_locked(dev, u, now);
			dev->nr_users--;
			dev->users_gen++;
			victim[n++] = u;
		}
		/* Stopped early at key, which is still to be looked at. */
		more = u;
		spin_unlock_bh(&dev->lock);
		if (n) {
			/*
			 * A fast path that found a victim before it left the
			 * table may still be counting for it: what it adds
			 * is retired once every such path has ended.
			 */
			synchronize_rcu();
			spin_lock_bh(&dev->lock);
			for (i = 0; i < n; i++)
				user_retire_fast_locked(dev, victim[i]);
			spin_unlock_bh(&dev->lock);
		}
		for (i = 0; i < n; i++)
			kfree(victim[i]);
		cond_resched();
	} while (more);
}

void fnblk_users_destroy(struct fnblk_dev *dev)
{
	struct fnblk_dev_user *u;
	unsigned long key;

	cancel_delayed_work_sync(&dev->reap_work);
	xa_for_each(&dev->users, key, u)
		kfree(u);
	xa_destroy(&dev->users);
	dev->nr_users = 0;
}
