// SPDX-License-Identifier: GPL-2.0
/*
 * fnblk: memory-backed block devices whose bandwidth is shared anonymously.
 *
 * This file holds the module parameters (which create the default devices
 * at load time), the registry of devices and their life cycle: add, live
 * reconfiguration and delete.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "fnblk.h"
#include "fnblk_trace.h"

/*
 * A numeric module parameter: the value given, times unit, is the setting,
 * which must lie in [min, max] (in the setting's units: bytes, bytes/s,
 * ns). Checked when the parameter is parsed, in its own units (before any
 * multiplication, so no value wraps into range), and refused with a message
 * that names the parameter and its range, whatever was wrong: a number out
 * of range, or something that is no number at all ("64M", "-1", "").
 */
struct fnblk_num_param {
	unsigned long val;
	u64 unit, min, max;
	const char *unit_name;
	const char *zero;		/* what 0 means, if allowed below min */
};

static int fnblk_num_param_set(const char *val, const struct kernel_param *kp)
{
	struct fnblk_num_param *p = kp->arg;
	u64 lo = p->min / p->unit, hi = p->max / p->unit;
	int len = strcspn(val, "\n");	/* a sysfs write ends in one */
	const char *what = NULL;
	unsigned long v;

	if (kstrtoul(val, 0, &v))
		what = "is not a whole number";
	else if ((v < lo && !(p->zero && !v)) || v > hi)
		what = "is out of range";
	if (!what) {
		WRITE_ONCE(p->val, v);
		return 0;
	}
	if (p->zero)
		pr_err("%s=%.*s %s: 0 (%s) or %llu to %llu %s\n", kp->name, len,
		       val, what, p->zero, max_t(u64, lo, 1), hi, p->unit_name);
	else
		pr_err("%s=%.*s %s: %llu to %llu %s\n", kp->name, len, val, what,
		       lo, hi, p->unit_name);
	return -EINVAL;
}

static int fnblk_num_param_get(char *buf, const struct kernel_param *kp)
{
	const struct fnblk_num_param *p = kp->arg;

	return scnprintf(buf, PAGE_SIZE, "%lu\n", READ_ONCE(p->val));
}

static const struct kernel_param_ops fnblk_num_param_ops = {
	.set = fnblk_num_param_set,
	.get = fnblk_num_param_get,
};

/*
 * module_param_cb() records no type for modinfo to show: each numeric
 * parameter below names the type of its value with __MODULE_PARM_TYPE().
 */
#define FNBLK_NUM_PARAM_TYPE "ulong"	/* struct fnblk_num_param.val */

/* The setting: the value times its unit (in range: checked when parsed). */
static u64 fnblk_num_param_value(const struct fnblk_num_param *p)
{
	return (u64)READ_ONCE(p->val) * p->unit;
}

static struct fnblk_num_param nr_devices = {
	1, 1, 0, FNBLK_MAX_DEVICES, "devices"
};
module_param_cb(nr_devices, &fnblk_num_param_ops, &nr_devices, 0444);
__MODULE_PARM_TYPE(nr_devices, FNBLK_NUM_PARAM_TYPE);
MODULE_PARM_DESC(nr_devices, "Devices to create at load time, 0..1024 (default 1)");

static struct fnblk_num_param size_mb = {
	1024, SZ_1M, SZ_1M, FNBLK_SIZE_MAX, "MiB"
};
module_param_cb(size_mb, &fnblk_num_param_ops, &size_mb, 0444);
__MODULE_PARM_TYPE(size_mb, FNBLK_NUM_PARAM_TYPE);
MODULE_PARM_DESC(size_mb, "Capacity in MiB, 1..1048576 (default 1024; memory is used on write)");

static struct fnblk_num_param bw_mbps = {
	100, SZ_1M, SZ_1M, FNBLK_BW_MAX, "MiB/s", "unthrottled"
};
module_param_cb(bw_mbps, &fnblk_num_param_ops, &bw_mbps, 0444);
__MODULE_PARM_TYPE(bw_mbps, FNBLK_NUM_PARAM_TYPE);
MODULE_PARM_DESC(bw_mbps, "Bandwidth B in MiB/s, 0 = unthrottled, at most 1048576 (default 100)");

static char *fn = "constant";
module_param(fn, charp, 0444);
MODULE_PARM_DESC(fn, "f(n): constant, linear:K, power:A or table:f1,f2,...");

static struct fnblk_num_param latency_us = {
	0, NSEC_PER_USEC, 0, FNBLK_LATENCY_MAX_NS, "us"
};
module_param_cb(latency_us, &fnblk_num_param_ops, &latency_us, 0444);
__MODULE_PARM_TYPE(latency_us, FNBLK_NUM_PARAM_TYPE);
MODULE_PARM_DESC(latency_us, "Latency added after service, us, at most 10000000 (default 0)");

static struct fnblk_num_param overhead_kb = {
	0, SZ_1K, 0, FNBLK_OVERHEAD_MAX, "KiB"
};
module_param_cb(overhead_kb, &fnblk_num_param_ops, &overhead_kb, 0444);
__MODULE_PARM_TYPE(overhead_kb, FNBLK_NUM_PARAM_TYPE);
MODULE_PARM_DESC(overhead_kb, "Service demand added per request, KiB, at most 1048576 (default 0)");

static char *key = "tgid";
module_param(key, charp, 0444);
MODULE_PARM_DESC(key, "Who counts as a user: tgid, pid, cgroup or single");

static char *policy = "anon";
module_param(policy, charp, 0444);
MODULE_PARM_DESC(policy, "Sharing policy: anon, fifo or weighted");

static char *users = "all";
module_param(users, charp, 0444);
MODULE_PARM_DESC(users, "Who shares f(n): all (reads and writes) or writes");

static struct fnblk_num_param grace_us = {
	2000, NSEC_PER_USEC, 0, FNBLK_GRACE_MAX_NS, "us"
};
module_param_cb(grace_us, &fnblk_num_param_ops, &grace_us, 0444);
__MODULE_PARM_TYPE(grace_us, FNBLK_NUM_PARAM_TYPE);
MODULE_PARM_DESC(grace_us, "Idle grace before a user stops counting, us, at most 10000000 (default 2000)");

static char *store = "memory";
module_param(store, charp, 0444);
MODULE_PARM_DESC(store, "Data store: memory or none (timing only)");

static char *cache = "durable";
module_param(cache, charp, 0444);
MODULE_PARM_DESC(cache, "Write cache: durable or volatile (lost in a crash until flushed)");

static struct fnblk_num_param max_users = {
	FNBLK_MAX_USERS_DEFAULT, 1, 1, FNBLK_MAX_USERS_LIMIT, "users"
};
module_param_cb(max_users, &fnblk_num_param_ops, &max_users, 0444);
__MODULE_PARM_TYPE(max_users, FNBLK_NUM_PARAM_TYPE);
MODULE_PARM_DESC(max_users, "Users a device keeps apart, 1..1048576; more share one overflow user (default 16384)");

/*
 * user_retain_s is writable at run time: each device's reaper then looks
 * again at once (see fnblk_users_retain_changed()). At load time there
 * is no device yet.
 */
static int fnblk_retain_param_set(const char *val,
				  const struct kernel_param *kp)
{
	struct fnblk_dev *dev;
	int ret = fnblk_num_param_set(val, kp);
	u32 id;

	if (ret)
		return ret;
	mutex_lock(&fnblk_mutex);
	for (id = 0; (dev = fnblk_dev_next(&id)); id++)
		fnblk_users_retain_changed(dev);
	mutex_unlock(&fnblk_mutex);
	return 0;
}

static const struct kernel_param_ops fnblk_retain_param_ops = {
	.set = fnblk_retain_param_set,
	.get = fnblk_num_param_get,
};

static struct fnblk_num_param user_retain_s = { 60, 1, 0, U32_MAX, "s" };
module_param_cb(user_retain_s, &fnblk_retain_param_ops, &user_retain_s, 0644);
__MODULE_PARM_TYPE(user_retain_s, FNBLK_NUM_PARAM_TYPE);
MODULE_PARM_DESC(user_retain_s, "Seconds an idle user keeps its own record before its totals join the retired bucket, 0..4294967295 (default 60)");

u64 fnblk_user_retain_ns(void)
{
	return fnblk_num_param_value(&user_retain_s) * NSEC_PER_SEC;
}

static int inject_alloc_failures;
module_param(inject_alloc_failures, int, 0644);
MODULE_PARM_DESC(inject_alloc_failures,
		 "Test hook: fail this many upcoming store page allocations");

/* Whether to fail this allocation, as memory pressure would (tests). */
bool fnblk_inject_alloc_failure(void)
{
	int n = READ_ONCE(inject_alloc_failures), old;

	while (n > 0) {
		old = cmpxchg(&inject_alloc_failures, n, n - 1);
		if (old == n)
			return true;
		n = old;
	}
	return false;
}

int fnblk_major;
/* Reapers of idle users, and pages freed after an RCU grace period. */
struct workqueue_struct *fnblk_wq;
/* Serialises the registry and every configuration change. */
DEFINE_MUTEX(fnblk_mutex);
u64 fnblk_generation;
static u64 fnblk_serial;
static DEFINE_IDR(fnblk_idr);
/*
 * Set once loading can no longer fail. Until then devices refuse to be
 * opened: a failed load frees the module, and an open device would keep
 * pointing into it.
 */
static bool fnblk_live;

bool fnblk_loaded(void)
{
	return READ_ONCE(fnblk_live);
}

struct fnblk_dev *fnblk_dev_find(u32 id)
{
	lockdep_assert_held(&fnblk_mutex);
	return id > INT_MAX ? NULL : idr_find(&fnblk_idr, id);
}

/* The device with the smallest id >= *id; *id is set to it. */
struct fnblk_dev *fnblk_dev_next(u32 *id)
{
	int next = *id;
	struct fnblk_dev *dev;

	lockdep_assert_held(&fnblk_mutex);
	if (*id > INT_MAX)
		return NULL;
	dev = idr_get_next(&fnblk_idr, &next);
	if (dev)
		*id = next;
	return dev;
}

int fnblk_dev_add(struct fnblk_config *cfg, int id, struct fnblk_dev **out,
		  const char **err)
{
	struct fnblk_dev *dev;
	int ret;

	lockdep_assert_held(&fnblk_mutex);
	ret = fnblk_config_check(cfg, err);
	if (ret)
		return ret;
	dev = kvzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->fast = alloc_percpu(struct fnblk_fast_stats);
	if (!dev->fast) {
		kvfree(dev);
		return -ENOMEM;
	}
	if (id >= 0)
		ret = idr_alloc(&fnblk_idr, dev, id, id + 1, GFP_KERNEL);
	else
		ret = idr_alloc(&fnblk_idr, dev, 0, FNBLK_MAX_DEVICES,
				GFP_KERNEL);
	if (ret < 0) {
		*err = id >= 0 ? "device exists" : "too many devices";
		if (ret == -ENOSPC)
			ret = id >= 0 ? -EEXIST : -ENOSPC;
		goto free_dev;
	}
	dev->id = ret;
	dev->serial = ++fnblk_serial;
	snprintf(dev->name, sizeof(dev->name), "fnblk%u", dev->id);
	spin_lock_init(&dev->lock);
	dev->cfg = *cfg;
	fnblk_users_init(dev);
	fnblk_faults_init(dev);
	fnblk_store_init(&dev->store, cfg->store,
			 cfg->cache == FNBLK_CACHE_VOLATILE);
	fnblk_io_setup(dev);
	ret = fnblk_disk_create(dev);
	if (ret) {
		*err = "cannot create the disk";
		goto remove_id;
	}
	fnblk_generation++;
	trace_fnblk_config(dev, &dev->cfg, true);
	fnblk_event_dev(dev, FNBLK_CMD_EVT_DEV_ADDED);
	*out = dev;
	return 0;

remove_id:
	idr_remove(&fnblk_idr, dev->id);
	fnblk_store_destroy(&dev->store);
free_dev:
	free_percpu(dev->fast);
	kvfree(dev);
	return ret;
}

/* Remove a device nobody can open any more; waits for its I/O. */
static void fnblk_dev_remove(struct fnblk_dev *dev)
{
	idr_remove(&fnblk_idr, dev->id);
	fnblk_generation++;
	fnblk_event_dev(dev, FNBLK_CMD_EVT_DEV_REMOVED);
	fnblk_disk_destroy(dev);
	fnblk_faults_destroy(dev);
	fnblk_users_destroy(dev);
	fnblk_store_destroy(&dev->store);
	free_percpu(dev->fast);
	kvfree(dev);
}

int fnblk_dev_del(struct fnblk_dev *dev, const char **err)
{
	lockdep_assert_held(&fnblk_mutex);
	spin_lock_bh(&dev->lock);
	if (dev->open_count) {
		spin_unlock_bh(&dev->lock);
		*err = "device is open";
		return -EBUSY;
	}
	dev->dying = true;	/* from here on opens fail */
	spin_unlock_bh(&dev->lock);
	fnblk_dev_remove(dev);
	return 0;
}

/* The cache mode changes only while nobody has the device open. */
static int fnblk_dev_cache_lock(struct fnblk_dev *dev, const char **err)
{
	int ret = 0;

	spin_lock_bh(&dev->lock);
	if (dev->open_count) {
		*err = "cache mode can change only while the device is closed";
		ret = -EBUSY;
	} else {
		dev->reconfiguring = true;	/* opens fail meanwhile */
	}
	spin_unlock_bh(&dev->lock);
	return ret;
}

static void fnblk_dev_cache_unlock(struct fnblk_dev *dev)
{
	spin_lock_bh(&dev->lock);
	dev->reconfiguring = false;
	spin_unlock_bh(&dev->lock);
}

/* Apply a new configuration under I/O; what cannot change live is refused. */
int fnblk_dev_set(struct fnblk_dev *dev, const struct fnblk_config *cfg,
		  const char **err)
{
	bool cache_changed = cfg->cache != dev->cfg.cache;
	bool key_changed = false;
	int ret = 0;

	lockdep_assert_held(&fnblk_mutex);
	if (cfg->size != dev->cfg.size) {
		*err = "size is fixed at creation";
		return -EINVAL;
	}
	if (cfg->store != dev->cfg.store) {
		*err = "store is fixed at creation";
		return -EINVAL;
	}
	if (cache_changed) {
		ret = fnblk_dev_cache_lock(dev, err);
		if (ret)
			return ret;
	}
	spin_lock_bh(&dev->lock);
	if (cfg->key != dev->cfg.key &&
	    (dev->sched.nr_inflight || dev->sched.nr_active)) {
		*err = "key can change only while the device is idle";
		ret = -EBUSY;
		goto unlock;
	}
	ret = fnblk_sched_configure(&dev->sched, &cfg->sched, ktime_get_ns());
	if (ret) {
		*err = "policy and users can change only with no I/O in flight";
		goto unlock;
	}
	/* Users of the old key mode mean nothing under the new one. */
	key_changed = cfg->key != dev->cfg.key;
	if (key_changed)
		fnblk_users_key_changed_locked(dev);
	dev->cfg = *cfg;
	fnblk_io_kick_locked(dev);
unlock:
	fnblk_io_unlock(dev);
	if (cache_changed) {
		if (!ret)
			fnblk_cache_set(&dev->store.cache, &dev->store.pages,
					cfg->cache == FNBLK_CACHE_VOLATILE);
		fnblk_dev_cache_unlock(dev);
	}
	if (ret)
		return ret;
	if (key_changed)
		fnblk_users_reap(dev, FNBLK_REAP_AGED);
	fnblk_generation++;
	trace_fnblk_config(dev, &dev->cfg, false);
	fnblk_event_dev(dev, FNBLK_CMD_EVT_DEV_CHANGED);
	return 0;
}

/*
 * Power loss: what was not durable is lost (put back as the last flush
 * left it). A device in use stays down, failing every I/O and open, until
 * the last opener closes it, as a machine would see its disk vanish until
 * it is rebooted; its file systems can then be mounted again.
 */
void fnblk_dev_crash(struct fnblk_dev *dev)
{
	bool down, revive = false;
	u64 lost;

	lockdep_assert_held(&fnblk_mutex);
	spin_lock_bh(&dev->lock);
	down = dev->open_count > 0;
	dev->crashed = down;
	spin_unlock_bh(&dev->lock);
	lost = fnblk_store_crash(&dev->store, down);
	spin_lock_bh(&dev->lock);
	dev->stats.crashes++;
	dev->stats.crash_lost_bytes += lost << PAGE_SHIFT;
	/* The last opener may have gone while the data was put back. */
	if (!dev->open_count) {
		dev->crashed = false;
		revive = down;
	}
	spin_unlock_bh(&dev->lock);
	if (revive)
		fnblk_cache_revive(&dev->store.cache);
}

static int __init fnblk_param_config(struct fnblk_config *cfg)
{
	const char *err = NULL;

	fnblk_config_default(cfg);
	cfg->size = fnblk_num_param_value(&size_mb);
	cfg->sched.bw = fnblk_num_param_value(&bw_mbps);
	cfg->sched.latency_ns = fnblk_num_param_value(&latency_us);
	cfg->sched.overhead = fnblk_num_param_value(&overhead_kb);
	cfg->sched.grace_ns = fnblk_num_param_value(&grace_us);
	cfg->max_users = fnblk_num_param_value(&max_users);
	if (strscpy(cfg->fn_spec, fn, sizeof(cfg->fn_spec)) < 0) {
		pr_err("fn: specification longer than %d characters\n",
		       FNBLK_FN_SPEC_LEN - 1);
		return -EINVAL;
	}
	if (fnblk_fn_parse(cfg->fn_spec, &cfg->sched.fn, &err)) {
		pr_err("fn=%s: %s\n", fn, err);
		return -EINVAL;
	}
	if (fnblk_parse_key(key, &cfg->key)) {
		pr_err("key=%s: use tgid, pid, cgroup or single\n", key);
		return -EINVAL;
	}
	if (fnblk_parse_policy(policy, &cfg->sched.policy)) {
		pr_err("policy=%s: use anon, fifo or weighted\n", policy);
		return -EINVAL;
	}
	if (fnblk_parse_users(users, &cfg->sched.users)) {
		pr_err("users=%s: use all or writes\n", users);
		return -EINVAL;
	}
	if (fnblk_parse_store(store, &cfg->store)) {
		pr_err("store=%s: use memory or none\n", store);
		return -EINVAL;
	}
	if (fnblk_parse_cache(cache, &cfg->cache)) {
		pr_err("cache=%s: use durable or volatile\n", cache);
		return -EINVAL;
	}
	if (fnblk_config_check(cfg, &err)) {
		pr_err("parameters refused: %s\n", err);
		return -EINVAL;
	}
	return 0;
}

/*
 * Delete every device: at unload, when none can be open (each open holds
 * a module reference), or when loading failed, when none could be opened.
 */
static void fnblk_del_all(void)
{
	struct fnblk_dev *dev;
	u32 id = 0;

	mutex_lock(&fnblk_mutex);
	while ((dev = fnblk_dev_next(&id))) {
		spin_lock_bh(&dev->lock);
		WARN_ON_ONCE(dev->open_count);
		dev->dying = true;
		spin_unlock_bh(&dev->lock);
		fnblk_dev_remove(dev);
		id++;
	}
	mutex_unlock(&fnblk_mutex);
}

static int __init fnblk_create_defaults(struct fnblk_config *cfg)
{
	struct fnblk_dev *dev;
	const char *err = NULL;
	unsigned int i;
	int ret = 0;

	mutex_lock(&fnblk_mutex);
	for (i = 0; !ret && i < nr_devices.val; i++) {
		ret = fnblk_dev_add(cfg, i, &dev, &err);
		if (ret)
			pr_err("cannot create fnblk%u: %s\n", i,
			       err ? err : "error");
	}
	mutex_unlock(&fnblk_mutex);
	return ret;
}

static unsigned int inject_load_failure;
module_param(inject_load_failure, uint, 0444);
MODULE_PARM_DESC(inject_load_failure,
		 "Test hook: fail loading after the devices exist, after this many ms");

/*
 * Order: everything a device needs, then the default devices, then the
 * netlink family, which lets user space add devices of its own, last; no
 * device can be opened until loading succeeded.
 */
static int __init fnblk_init(void)
{
	struct fnblk_config *cfg;
	int ret;

	cfg = kmalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	ret = fnblk_param_config(cfg);
	if (ret)
		goto free_cfg;
	fnblk_wq = alloc_workqueue("fnblk", WQ_MEM_RECLAIM, 0);
	ret = -ENOMEM;
	if (!fnblk_wq)
		goto free_cfg;
	fnblk_major = register_blkdev(0, "fnblk");
	ret = fnblk_major;
	if (fnblk_major < 0)
		goto destroy_wq;
	ret = fnblk_io_init();
	if (ret)
		goto unregister;
	ret = fnblk_create_defaults(cfg);
	if (ret)
		goto del_all;
	if (inject_load_failure) {
		msleep(inject_load_failure);
		ret = -EINTR;
		pr_err("failing the load as inject_load_failure asks\n");
		goto del_all;
	}
	ret = fnblk_netlink_init();
	if (ret)
		goto del_all;
	WRITE_ONCE(fnblk_live, true);
	kfree(cfg);
	pr_info("loaded, %lu device(s)\n", nr_devices.val);
	return 0;

del_all:
	fnblk_del_all();
	fnblk_io_exit();
unregister:
	unregister_blkdev(fnblk_major, "fnblk");
destroy_wq:
	/* Pages discarded are freed after a grace period, on fnblk_wq. */
	rcu_barrier();
	destroy_workqueue(fnblk_wq);
free_cfg:
	kfree(cfg);
	return ret;
}

static void __exit fnblk_exit(void)
{
	fnblk_netlink_exit();
	fnblk_del_all();
	fnblk_io_exit();
	unregister_blkdev(fnblk_major, "fnblk");
	rcu_barrier();
	destroy_workqueue(fnblk_wq);
}

module_init(fnblk_init);
module_exit(fnblk_exit);
MODULE_DESCRIPTION("Block devices whose bandwidth is shared anonymously as f(n)*B");
MODULE_AUTHOR("The fnblk developers");
MODULE_LICENSE("GPL");
