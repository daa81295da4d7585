// SPDX-License-Identifier: GPL-2.0
/*
 * The users a device has seen, by key. A user lives until the device is
 * deleted, its key mode changes, or a stats reset finds it idle with
 * nothing in flight. Lookups and removals happen under dev->lock, so a
 * user found under the lock cannot be freed while the lock is held;
 * insertion allocates, so it happens with the lock dropped.
 */
#include <linux/slab.h>

#include "fnblk.h"

static bool user_busy(const struct fnblk_dev_user *u)
{
	return u->inflight || u->su.active || u->su.in_grace;
}

struct fnblk_dev_user *fnblk_user_get_locked(struct fnblk_dev *dev, u64 key,
					     gfp_t gfp)
	__must_hold(&dev->lock)
{
	struct fnblk_dev_user *u, *nu;
	int ret;

	for (;;) {
		u = xa_load(&dev->users, key);
		if (u)
			return u;
		spin_unlock_bh(&dev->lock);
		nu = kzalloc(sizeof(*nu), gfp);
		ret = -ENOMEM;
		if (nu) {
			fnblk_user_init(&nu->su, key);
			ret = xa_insert(&dev->users, key, nu, gfp);
			if (ret)
				kfree(nu);
		}
		spin_lock_bh(&dev->lock);
		if (!ret) {
			dev->nr_users++;
			dev->users_gen++;
		} else if (ret != -EBUSY) {	/* -EBUSY: someone else won */
			return ERR_PTR(ret);
		}
	}
}

void fnblk_users_prune_locked(struct fnblk_dev *dev)
	__must_hold(&dev->lock)
{
	struct fnblk_dev_user *u;
	unsigned long key;

	xa_for_each(&dev->users, key, u) {
		if (user_busy(u))
			continue;
		xa_erase(&dev->users, key);
		kfree(u);
		dev->nr_users--;
		dev->users_gen++;
	}
}

void fnblk_users_destroy(struct fnblk_dev *dev)
{
	struct fnblk_dev_user *u;
	unsigned long key;

	xa_for_each(&dev->users, key, u)
		kfree(u);
	xa_destroy(&dev->users);
	dev->nr_users = 0;
}
