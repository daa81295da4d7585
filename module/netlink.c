// SPDX-License-Identifier: GPL-2.0
/*
 * The "fnblk" generic netlink family: configuration, counters, users and
 * the event stream. Every operation has its own policy, so malformed
 * requests are refused by the core with an extack message before they reach
 * a handler; handlers add a message for every semantic refusal.
 *
 * Handlers hold fnblk_mutex, so a device cannot disappear under them, and
 * take the device lock only to copy a consistent snapshot.
 */
#include <linux/slab.h>
#include <net/genetlink.h>

#include "fnblk.h"

static struct genl_family fnblk_family;

enum { FNBLK_MCGRP_EVENTS_ID };

/*
 * Events name users (pids, cgroup ids) and when they do I/O, so only
 * CAP_NET_ADMIN may listen. Kernels without the group flag (before 6.7
 * and its stable backports, such as 6.1.69) get events without user keys.
 */
#ifdef GENL_MCAST_CAP_NET_ADMIN
#define FNBLK_EVENTS_NAME_USERS	true
static const struct genl_multicast_group fnblk_mcgrps[] = {
	[FNBLK_MCGRP_EVENTS_ID] = { .name = FNBLK_MCGRP_EVENTS,
				    .flags = GENL_MCAST_CAP_NET_ADMIN },
};
#else
#define FNBLK_EVENTS_NAME_USERS	false
static const struct genl_multicast_group fnblk_mcgrps[] = {
	[FNBLK_MCGRP_EVENTS_ID] = { .name = FNBLK_MCGRP_EVENTS },
};
#endif

/* Handlers' messages are string constants; extack keeps the pointer. */
static void fnblk_nl_err(struct netlink_ext_ack *extack, const char *msg)
{
	if (extack && msg)
		extack->_msg = msg;
}

static struct nlattr **fnblk_dump_attrs(struct netlink_callback *cb)
{
#ifdef FNBLK_HAVE_DUMPIT_GENL_INFO
	return genl_dumpit_info(cb)->info.attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/* ---- policies ---- */

static const struct nla_policy fnblk_dev_policy[FNBLK_A_MAX + 1] = {
	[FNBLK_A_DEV_ID] = NLA_POLICY_MAX(NLA_U32, FNBLK_MAX_DEVICES - 1),
	[FNBLK_A_DEV_NAME] = { .type = NLA_NUL_STRING,
			       .len = FNBLK_NAME_LEN - 1 },
};

static const struct nla_policy fnblk_config_policy[FNBLK_A_MAX + 1] = {
	[FNBLK_A_DEV_ID] = NLA_POLICY_MAX(NLA_U32, FNBLK_MAX_DEVICES - 1),
	[FNBLK_A_DEV_NAME] = { .type = NLA_NUL_STRING,
			       .len = FNBLK_NAME_LEN - 1 },
	[FNBLK_A_SIZE] = { .type = NLA_U64 },
	[FNBLK_A_BW] = { .type = NLA_U64 },
	[FNBLK_A_FN] = { .type = NLA_NUL_STRING,
			 .len = FNBLK_FN_SPEC_LEN - 1 },
	[FNBLK_A_LATENCY_NS] = { .type = NLA_U64 },
	[FNBLK_A_OVERHEAD] = { .type = NLA_U64 },
	[FNBLK_A_KEY] = NLA_POLICY_MAX(NLA_U8, __FNBLK_KEY_MAX - 1),
	[FNBLK_A_POLICY] = NLA_POLICY_MAX(NLA_U8, __FNBLK_POLICY_MAX - 1),
	[FNBLK_A_USERS] = NLA_POLICY_MAX(NLA_U8, __FNBLK_USERS_MAX - 1),
	[FNBLK_A_GRACE_NS] = { .type = NLA_U64 },
	[FNBLK_A_STORE] = NLA_POLICY_MAX(NLA_U8, __FNBLK_STORE_MAX - 1),
	[FNBLK_A_MAX_USERS] = { .type = NLA_U32 },
	[FNBLK_A_CACHE] = NLA_POLICY_MAX(NLA_U8, __FNBLK_CACHE_MAX - 1),
};

static struct netlink_range_validation fnblk_weight_range = {
	.min = 1,
	.max = FNBLK_WEIGHT_MAX,
};

static const struct nla_policy fnblk_user_policy[FNBLK_USER_MAX + 1] = {
	[FNBLK_USER_KEY] = { .type = NLA_U64 },
	[FNBLK_USER_WEIGHT] = NLA_POLICY_FULL_RANGE(NLA_U32,
						    &fnblk_weight_range),
};

static const struct nla_policy fnblk_user_set_policy[FNBLK_A_MAX + 1] = {
	[FNBLK_A_DEV_ID] = NLA_POLICY_MAX(NLA_U32, FNBLK_MAX_DEVICES - 1),
	[FNBLK_A_DEV_NAME] = { .type = NLA_NUL_STRING,
			       .len = FNBLK_NAME_LEN - 1 },
	[FNBLK_A_USER] = NLA_POLICY_NESTED(fnblk_user_policy),
};

static struct netlink_range_validation fnblk_prob_range = {
	.min = 1,
	.max = FNBLK_FAULT_PROB_ONE,
};

static const struct nla_policy fnblk_fault_policy[FNBLK_FAULT_ATTR_MAX + 1] = {
	[FNBLK_FAULT_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[FNBLK_FAULT_OP] = NLA_POLICY_MAX(NLA_U8, FNBLK_FAULT_WRITE),
	[FNBLK_FAULT_PROB] = NLA_POLICY_FULL_RANGE(NLA_U32, &fnblk_prob_range),
	[FNBLK_FAULT_EVERY] = NLA_POLICY_MIN(NLA_U32, 1),
	[FNBLK_FAULT_TIMES] = { .type = NLA_U64 },
	[FNBLK_FAULT_START] = { .type = NLA_U64 },
	[FNBLK_FAULT_LEN] = { .type = NLA_U64 },
	[FNBLK_FAULT_ERROR] = NLA_POLICY_RANGE(NLA_U8, FNBLK_FAULT_EIO,
					       __FNBLK_FAULT_MAX - 1),
	[FNBLK_FAULT_DELAY_NS] = { .type = NLA_U64 },
};

static const struct nla_policy fnblk_fault_set_policy[FNBLK_A_MAX + 1] = {
	[FNBLK_A_DEV_ID] = NLA_POLICY_MAX(NLA_U32, FNBLK_MAX_DEVICES - 1),
	[FNBLK_A_DEV_NAME] = { .type = NLA_NUL_STRING,
			       .len = FNBLK_NAME_LEN - 1 },
	[FNBLK_A_FAULT] = NLA_POLICY_NESTED(fnblk_fault_policy),
};

/* ---- request parsing ---- */

/*
 * The device id a request names, from DEV_ID or DEV_NAME ("fnblkN"); when
 * both are given they must agree. -1 if it names none, -EINVAL if they
 * disagree or the name is no fnblk name (extack set).
 */
static s64 fnblk_nl_dev_id(struct nlattr **attrs,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *name = attrs[FNBLK_A_DEV_NAME];
	char canon[FNBLK_NAME_LEN];
	s64 id = -1;
	u32 n;

	if (name) {
		const char *s = nla_data(name);

		/* Only the name the device has: no "fnblk007". */
		if (strncmp(s, "fnblk", 5) || kstrtou32(s + 5, 10, &n) ||
		    (snprintf(canon, sizeof(canon), "fnblk%u", n),
		     strcmp(canon, s))) {
			NL_SET_ERR_MSG_ATTR(extack, name,
					    "name must be fnblkN, N below 1024");
			return -EINVAL;
		}
		id = n;
	}
	if (attrs[FNBLK_A_DEV_ID]) {
		n = nla_get_u32(attrs[FNBLK_A_DEV_ID]);
		if (id >= 0 && n != id) {
			NL_SET_ERR_MSG_ATTR(extack, attrs[FNBLK_A_DEV_ID],
					    "device id and name disagree");
			return -EINVAL;
		}
		id = n;
	}
	return id;
}

static struct fnblk_dev *fnblk_nl_dev(struct nlattr **attrs,
				      struct netlink_ext_ack *extack)
{
	s64 id = fnblk_nl_dev_id(attrs, extack);
	struct fnblk_dev *dev;

	if (id < -1)
		return ERR_PTR(id);
	if (id < 0) {
		NL_SET_ERR_MSG(extack, "device id or name required");
		return ERR_PTR(-EINVAL);
	}
	dev = fnblk_dev_find(id);
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[FNBLK_A_DEV_ID] ?
				    attrs[FNBLK_A_DEV_ID] :
				    attrs[FNBLK_A_DEV_NAME], "no such device");
		return ERR_PTR(-ENODEV);
	}
	return dev;
}

/* Overlay the attributes present in a request on cfg. */
static void fnblk_nl_config(struct nlattr **a, struct fnblk_config *cfg)
{
	if (a[FNBLK_A_SIZE])
		cfg->size = nla_get_u64(a[FNBLK_A_SIZE]);
	if (a[FNBLK_A_BW])
		cfg->sched.bw = nla_get_u64(a[FNBLK_A_BW]);
	if (a[FNBLK_A_FN])
		nla_strscpy(cfg->fn_spec, a[FNBLK_A_FN], sizeof(cfg->fn_spec));
	if (a[FNBLK_A_LATENCY_NS])
		cfg->sched.latency_ns = nla_get_u64(a[FNBLK_A_LATENCY_NS]);
	if (a[FNBLK_A_OVERHEAD])
		cfg->sched.overhead = nla_get_u64(a[FNBLK_A_OVERHEAD]);
	if (a[FNBLK_A_KEY])
		cfg->key = nla_get_u8(a[FNBLK_A_KEY]);
	if (a[FNBLK_A_POLICY])
		cfg->sched.policy = nla_get_u8(a[FNBLK_A_POLICY]);
	if (a[FNBLK_A_USERS])
		cfg->sched.users = nla_get_u8(a[FNBLK_A_USERS]);
	if (a[FNBLK_A_GRACE_NS])
		cfg->sched.grace_ns = nla_get_u64(a[FNBLK_A_GRACE_NS]);
	if (a[FNBLK_A_STORE])
		cfg->store = nla_get_u8(a[FNBLK_A_STORE]);
	if (a[FNBLK_A_MAX_USERS])
		cfg->max_users = nla_get_u32(a[FNBLK_A_MAX_USERS]);
	if (a[FNBLK_A_CACHE])
		cfg->cache = nla_get_u8(a[FNBLK_A_CACHE]);
}

/* ---- replies ---- */

static size_t fnblk_dev_msg_size(void)
{
	return nla_total_size(sizeof(u32)) +			/* DEV_ID */
	       nla_total_size(FNBLK_NAME_LEN) +
	       nla_total_size(FNBLK_FN_SPEC_LEN) +
	       nla_total_size(FNBLK_FN_MAX * sizeof(u32)) +	/* FN_TABLE */
	       6 * nla_total_size_64bit(sizeof(u64)) +
	       5 * nla_total_size(sizeof(u8)) +
	       2 * nla_total_size(sizeof(u32));	/* NR_ACTIVE, MAX_USERS */
}

static int fnblk_fill_dev(struct sk_buff *skb, struct fnblk_dev *dev)
{
	struct fnblk_config *cfg;
	u32 nr_active;
	int ret = -ENOMEM;

	cfg = kmalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return ret;
	spin_lock_bh(&dev->lock);
	*cfg = dev->cfg;
	nr_active = dev->sched.nr_active;
	spin_unlock_bh(&dev->lock);

	ret = -EMSGSIZE;
	if (nla_put_u32(skb, FNBLK_A_DEV_ID, dev->id) ||
	    nla_put_string(skb, FNBLK_A_DEV_NAME, dev->name) ||
	    nla_put_u64_64bit(skb, FNBLK_A_SIZE, cfg->size, FNBLK_A_PAD) ||
	    nla_put_u64_64bit(skb, FNBLK_A_BW, cfg->sched.bw, FNBLK_A_PAD) ||
	    nla_put_string(skb, FNBLK_A_FN, cfg->fn_spec) ||
	    nla_put(skb, FNBLK_A_FN_TABLE, cfg->sched.fn.nr * sizeof(u32),
		    cfg->sched.fn.val) ||
	    nla_put_u64_64bit(skb, FNBLK_A_LATENCY_NS, cfg->sched.latency_ns,
			      FNBLK_A_PAD) ||
	    nla_put_u64_64bit(skb, FNBLK_A_OVERHEAD, cfg->sched.overhead,
			      FNBLK_A_PAD) ||
	    nla_put_u8(skb, FNBLK_A_KEY, cfg->key) ||
	    nla_put_u8(skb, FNBLK_A_POLICY, cfg->sched.policy) ||
	    nla_put_u8(skb, FNBLK_A_USERS, cfg->sched.users) ||
	    nla_put_u64_64bit(skb, FNBLK_A_GRACE_NS, cfg->sched.grace_ns,
			      FNBLK_A_PAD) ||
	    nla_put_u8(skb, FNBLK_A_STORE, cfg->store) ||
	    nla_put_u8(skb, FNBLK_A_CACHE, cfg->cache) ||
	    nla_put_u32(skb, FNBLK_A_MAX_USERS, cfg->max_users) ||
	    nla_put_u32(skb, FNBLK_A_NR_ACTIVE, nr_active))
		goto out;
	ret = 0;
out:
	kfree(cfg);
	return ret;
}

static int fnblk_put_u64s(struct sk_buff *skb, int attr, const u64 *v,
			  size_t nr)
{
	return nla_put_64bit(skb, attr, nr * sizeof(u64), v, FNBLK_STAT_PAD);
}

static int fnblk_fill_stats(struct sk_buff *skb, struct fnblk_dev *dev)
{
	struct fnblk_snapshot *sn;
	struct fnblk_stats *st;
	struct nlattr *nest;
	int ret = -ENOMEM;

	sn = kmalloc(sizeof(*sn), GFP_KERNEL);
	if (!sn)
		return ret;
	fnblk_stats_snapshot(dev, sn);
	st = &sn->st;
	ret = -EMSGSIZE;
	if (nla_put_u32(skb, FNBLK_A_DEV_ID, dev->id) ||
	    nla_put_string(skb, FNBLK_A_DEV_NAME, dev->name) ||
	    nla_put_u32(skb, FNBLK_A_NR_ACTIVE, sn->nr_active))
		goto out;
	nest = nla_nest_start(skb, FNBLK_A_STATS);
	if (!nest)
		goto out;
#define PUT64(attr, val) nla_put_u64_64bit(skb, attr, val, FNBLK_STAT_PAD)
	if (PUT64(FNBLK_STAT_TIME_NS, sn->time_ns) ||
	    PUT64(FNBLK_STAT_ELAPSED_NS, sn->elapsed_ns) ||
	    PUT64(FNBLK_STAT_READ_OPS, st->ops[FNBLK_OP_READ]) ||
	    PUT64(FNBLK_STAT_READ_BYTES, st->bytes[FNBLK_OP_READ]) ||
	    PUT64(FNBLK_STAT_WRITE_OPS, st->ops[FNBLK_OP_WRITE]) ||
	    PUT64(FNBLK_STAT_WRITE_BYTES, st->bytes[FNBLK_OP_WRITE]) ||
	    PUT64(FNBLK_STAT_FLUSH_OPS, st->ops[FNBLK_OP_FLUSH]) ||
	    PUT64(FNBLK_STAT_DISCARD_OPS, st->ops[FNBLK_OP_DISCARD]) ||
	    PUT64(FNBLK_STAT_DISCARD_BYTES, st->bytes[FNBLK_OP_DISCARD]) ||
	    PUT64(FNBLK_STAT_KTHREAD_OPS, st->kthread_ops) ||
	    PUT64(FNBLK_STAT_KTHREAD_BYTES, st->kthread_bytes) ||
	    PUT64(FNBLK_STAT_ERRORS, st->errors) ||
	    nla_put_u32(skb, FNBLK_STAT_NR_ACTIVE, sn->nr_active) ||
	    nla_put_u32(skb, FNBLK_STAT_PEAK_ACTIVE, sn->peak_active) ||
	    PUT64(FNBLK_STAT_ACTIVATIONS, sn->activations) ||
	    nla_put_u32(skb, FNBLK_STAT_NR_USERS, sn->nr_users) ||
	    PUT64(FNBLK_STAT_N_TIME_SUM, sn->n_time_sum) ||
	    fnblk_put_u64s(skb, FNBLK_STAT_N_HIST, sn->n_hist,
			   FNBLK_NHIST_BINS) ||
	    fnblk_put_u64s(skb, FNBLK_STAT_LAT_HIST, st->lat_hist,
			   FNBLK_LHIST_BINS) ||
	    fnblk_put_u64s(skb, FNBLK_STAT_QUEUE_HIST, st->queue_hist,
			   FNBLK_LHIST_BINS) ||
	    PUT64(FNBLK_STAT_LAT_SUM_NS, st->lat_sum_ns) ||
	    PUT64(FNBLK_STAT_QUEUE_SUM_NS, st->queue_sum_ns) ||
	    nla_put_u32(skb, FNBLK_STAT_INFLIGHT, sn->inflight) ||
	    PUT64(FNBLK_STAT_EVENTS, sn->events) ||
	    PUT64(FNBLK_STAT_USERS_RETIRED, sn->users_retired) ||
	    PUT64(FNBLK_STAT_USER_OVERFLOWS, sn->user_overflows) ||
	    PUT64(FNBLK_STAT_STORE_BYTES,
		  (u64)atomic_long_read(&dev->store.nr_pages) << PAGE_SHIFT) ||
	    PUT64(FNBLK_STAT_DIRTY_BYTES,
		  fnblk_cache_saved(&dev->store.cache) << PAGE_SHIFT) ||
	    PUT64(FNBLK_STAT_CRASHES, st->crashes) ||
	    PUT64(FNBLK_STAT_CRASH_LOST_BYTES, st->crash_lost_bytes) ||
	    PUT64(FNBLK_STAT_FAULT_EIO,
		  atomic64_read(&dev->faults.injected[FNBLK_FAULT_EIO])) ||
	    PUT64(FNBLK_STAT_FAULT_TIMEOUT,
		  atomic64_read(&dev->faults.injected[FNBLK_FAULT_TIMEOUT])) ||
	    PUT64(FNBLK_STAT_FAULT_DELAY,
		  atomic64_read(&dev->faults.injected[FNBLK_FAULT_DELAY])) ||
	    fnblk_put_u64s(skb, FNBLK_STAT_READ_SIZE_HIST, st->size_hist[0],
			   FNBLK_RSIZE_BINS) ||
	    fnblk_put_u64s(skb, FNBLK_STAT_WRITE_SIZE_HIST, st->size_hist[1],
			   FNBLK_RSIZE_BINS)) {
		nla_nest_cancel(skb, nest);
		goto out;
	}
#undef PUT64
	nla_nest_end(skb, nest);
	ret = 0;
out:
	kfree(sn);
	return ret;
}

static int fnblk_fill_user(struct sk_buff *skb, struct fnblk_dev *dev,
			   struct fnblk_dev_user *u, u8 bucket, u64 now)
	__must_hold(&dev->lock)
{
	struct nlattr *nest;

	if (nla_put_u32(skb, FNBLK_A_DEV_ID, dev->id))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, FNBLK_A_USER);
	if (!nest)
		return -EMSGSIZE;
#define PUT64(attr, val) nla_put_u64_64bit(skb, attr, val, FNBLK_USER_PAD)
	if ((bucket ? nla_put_u8(skb, FNBLK_USER_BUCKET, bucket) :
		      PUT64(FNBLK_USER_KEY, u->su.key)) ||
	    (u->kthread && nla_put_flag(skb, FNBLK_USER_KTHREAD)) ||
	    (u->su.active && nla_put_flag(skb, FNBLK_USER_ACTIVE)) ||
	    nla_put_u32(skb, FNBLK_USER_WEIGHT, u->su.weight) ||
	    PUT64(FNBLK_USER_READ_OPS, fnblk_user_ops(u, 0)) ||
	    PUT64(FNBLK_USER_READ_BYTES, fnblk_user_bytes(u, 0)) ||
	    PUT64(FNBLK_USER_WRITE_OPS, fnblk_user_ops(u, 1)) ||
	    PUT64(FNBLK_USER_WRITE_BYTES, fnblk_user_bytes(u, 1)) ||
	    PUT64(FNBLK_USER_ACTIVE_NS, fnblk_user_active_ns(&u->su, now)) ||
	    PUT64(FNBLK_USER_WAIT_NS, u->wait_ns) ||
	    PUT64(FNBLK_USER_ACTIVATIONS, u->su.activations)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* The totals of the users freed since the last reset, as one record. */
static int fnblk_fill_retired(struct sk_buff *skb, struct fnblk_dev *dev)
	__must_hold(&dev->lock)
{
	const struct fnblk_retired *r = &dev->retired;
	struct nlattr *nest;

	if (nla_put_u32(skb, FNBLK_A_DEV_ID, dev->id))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, FNBLK_A_USER);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, FNBLK_USER_BUCKET, FNBLK_BUCKET_RETIRED) ||
	    PUT64(FNBLK_USER_COUNT, r->users) ||
	    PUT64(FNBLK_USER_READ_OPS, r->ops[0]) ||
	    PUT64(FNBLK_USER_READ_BYTES, r->bytes[0]) ||
	    PUT64(FNBLK_USER_WRITE_OPS, r->ops[1]) ||
	    PUT64(FNBLK_USER_WRITE_BYTES, r->bytes[1]) ||
	    PUT64(FNBLK_USER_ACTIVE_NS, r->active_ns) ||
	    PUT64(FNBLK_USER_WAIT_NS, r->wait_ns) ||
	    PUT64(FNBLK_USER_ACTIVATIONS, r->activations)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
#undef PUT64
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * One reply message for a "do" request, filled by fill. It carries the
 * request's command: YNL (the kernel's ynl CLI and generated libraries)
 * takes only that as the reply.
 */
static int fnblk_reply(struct genl_info *info, struct fnblk_dev *dev,
		       size_t size,
		       int (*fill)(struct sk_buff *, struct fnblk_dev *))
{
	struct sk_buff *skb;
	void *hdr;
	int ret;

	skb = genlmsg_new(size, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	hdr = genlmsg_put_reply(skb, info, &fnblk_family, 0,
				info->genlhdr->cmd);
	ret = -EMSGSIZE;
	if (!hdr)
		goto free;
	ret = fill(skb, dev);
	if (ret)
		goto free;
	genlmsg_end(skb, hdr);
	return genlmsg_reply(skb, info);
free:
	nlmsg_free(skb);
	return ret;
}

/* ---- operations ---- */

static int fnblk_nl_dev_add(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct fnblk_config *cfg;
	struct fnblk_dev *dev;
	const char *err = NULL;
	s64 id;
	int ret;

	id = fnblk_nl_dev_id(a, info->extack);
	if (id < -1)
		return id;
	if (id >= FNBLK_MAX_DEVICES) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[FNBLK_A_DEV_NAME],
				    "name must be fnblkN, N below 1024");
		return -EINVAL;
	}
	cfg = kmalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	fnblk_config_default(cfg);
	fnblk_nl_config(a, cfg);
	mutex_lock(&fnblk_mutex);
	ret = fnblk_dev_add(cfg, id, &dev, &err);
	if (ret)
		fnblk_nl_err(info->extack, err);
	else
		ret = fnblk_reply(info, dev, fnblk_dev_msg_size(),
				  fnblk_fill_dev);
	mutex_unlock(&fnblk_mutex);
	kfree(cfg);
	return ret;
}

static int fnblk_nl_dev_set(struct sk_buff *skb, struct genl_info *info)
{
	struct fnblk_config *cfg;
	struct fnblk_dev *dev;
	const char *err = NULL;
	int ret;

	cfg = kmalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	mutex_lock(&fnblk_mutex);
	dev = fnblk_nl_dev(info->attrs, info->extack);
	ret = PTR_ERR_OR_ZERO(dev);
	if (ret)
		goto unlock;
	spin_lock_bh(&dev->lock);
	*cfg = dev->cfg;
	spin_unlock_bh(&dev->lock);
	fnblk_nl_config(info->attrs, cfg);
	ret = fnblk_config_check(cfg, &err);
	if (!ret)
		ret = fnblk_dev_set(dev, cfg, &err);
	if (ret)
		fnblk_nl_err(info->extack, err);
	else
		ret = fnblk_reply(info, dev, fnblk_dev_msg_size(),
				  fnblk_fill_dev);
unlock:
	mutex_unlock(&fnblk_mutex);
	kfree(cfg);
	return ret;
}

/* Run op on the device a request names, with the registry held. */
static int fnblk_nl_with_dev(struct genl_info *info,
			     int (*op)(struct genl_info *, struct fnblk_dev *))
{
	struct fnblk_dev *dev;
	int ret;

	mutex_lock(&fnblk_mutex);
	dev = fnblk_nl_dev(info->attrs, info->extack);
	ret = PTR_ERR_OR_ZERO(dev);
	if (!ret)
		ret = op(info, dev);
	mutex_unlock(&fnblk_mutex);
	return ret;
}

static int fnblk_op_dev_del(struct genl_info *info, struct fnblk_dev *dev)
{
	const char *err = NULL;
	int ret = fnblk_dev_del(dev, &err);

	if (ret)
		fnblk_nl_err(info->extack, err);
	return ret;
}

static int fnblk_op_dev_get(struct genl_info *info, struct fnblk_dev *dev)
{
	return fnblk_reply(info, dev, fnblk_dev_msg_size(), fnblk_fill_dev);
}

static int fnblk_op_stats_get(struct genl_info *info, struct fnblk_dev *dev)
{
	return fnblk_reply(info, dev, NLMSG_GOODSIZE, fnblk_fill_stats);
}

static int fnblk_op_dev_crash(struct genl_info *info, struct fnblk_dev *dev)
{
	fnblk_dev_crash(dev);
	return 0;
}

static int fnblk_op_stats_reset(struct genl_info *info, struct fnblk_dev *dev)
{
	fnblk_stats_reset(dev);
	fnblk_faults_reset(dev);
	return 0;
}

static int fnblk_nl_dev_del(struct sk_buff *skb, struct genl_info *info)
{
	return fnblk_nl_with_dev(info, fnblk_op_dev_del);
}

static int fnblk_nl_dev_get(struct sk_buff *skb, struct genl_info *info)
{
	return fnblk_nl_with_dev(info, fnblk_op_dev_get);
}

static int fnblk_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	return fnblk_nl_with_dev(info, fnblk_op_stats_get);
}

static int fnblk_nl_dev_crash(struct sk_buff *skb, struct genl_info *info)
{
	return fnblk_nl_with_dev(info, fnblk_op_dev_crash);
}

static int fnblk_nl_stats_reset(struct sk_buff *skb, struct genl_info *info)
{
	return fnblk_nl_with_dev(info, fnblk_op_stats_reset);
}

static int fnblk_nl_user_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *ua[FNBLK_USER_MAX + 1];
	struct fnblk_dev_user *u;
	struct fnblk_dev *dev;
	u64 key;
	int ret;

	if (!info->attrs[FNBLK_A_USER]) {
		NL_SET_ERR_MSG(info->extack, "user attributes required");
		return -EINVAL;
	}
	ret = nla_parse_nested(ua, FNBLK_USER_MAX, info->attrs[FNBLK_A_USER],
			       fnblk_user_policy, info->extack);
	if (ret)
		return ret;
	if (!ua[FNBLK_USER_KEY] || !ua[FNBLK_USER_WEIGHT]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[FNBLK_A_USER],
				    "user key and weight required");
		return -EINVAL;
	}
	key = nla_get_u64(ua[FNBLK_USER_KEY]);
	mutex_lock(&fnblk_mutex);
	dev = fnblk_nl_dev(info->attrs, info->extack);
	ret = PTR_ERR_OR_ZERO(dev);
	if (ret)
		goto unlock;
	/* A weight may be set before the user's first I/O. */
	spin_lock_bh(&dev->lock);
	u = fnblk_user_get_key_locked(dev, key, GFP_KERNEL);
	ret = PTR_ERR_OR_ZERO(u);
	if (!ret) {
		fnblk_sched_set_weight(&dev->sched, &u->su,
				       nla_get_u32(ua[FNBLK_USER_WEIGHT]),
				       ktime_get_ns());
		/* Kept until the device forgets its users or the key moves. */
		u->pinned = true;
	} else if (ret == -ENOSPC) {
		NL_SET_ERR_MSG_ATTR(info->extack, ua[FNBLK_USER_KEY],
				    "user table full (max_users)");
	} else if (ret == -EOVERFLOW) {
		NL_SET_ERR_MSG_ATTR(info->extack, ua[FNBLK_USER_KEY],
				    "user key too large for this kernel");
	}
	fnblk_io_kick_locked(dev);
	fnblk_io_unlock(dev);
unlock:
	mutex_unlock(&fnblk_mutex);
	return ret;
}

/* ---- fault rules ---- */

static int fnblk_fill_fault(struct sk_buff *skb, struct fnblk_dev *dev,
			    const struct fnblk_fault_rule *r)
{
	struct nlattr *nest;

	if (nla_put_u32(skb, FNBLK_A_DEV_ID, dev->id) ||
	    nla_put_string(skb, FNBLK_A_DEV_NAME, dev->name))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, FNBLK_A_FAULT);
	if (!nest)
		return -EMSGSIZE;
#define PUT64(attr, val) nla_put_u64_64bit(skb, attr, val, FNBLK_FAULT_PAD)
	if (nla_put_u32(skb, FNBLK_FAULT_ID, r->id) ||
	    nla_put_u8(skb, FNBLK_FAULT_OP, r->op) ||
	    nla_put_u32(skb, FNBLK_FAULT_PROB, r->prob) ||
	    nla_put_u32(skb, FNBLK_FAULT_EVERY, r->every) ||
	    PUT64(FNBLK_FAULT_TIMES, r->times) ||
	    PUT64(FNBLK_FAULT_START, r->start) ||
	    PUT64(FNBLK_FAULT_LEN, r->len) ||
	    nla_put_u8(skb, FNBLK_FAULT_ERROR, r->error) ||
	    PUT64(FNBLK_FAULT_DELAY_NS, r->delay_ns) ||
	    PUT64(FNBLK_FAULT_MATCHED, atomic64_read(&r->matched)) ||
	    PUT64(FNBLK_FAULT_INJECTED, atomic64_read(&r->injected))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
#undef PUT64
	nla_nest_end(skb, nest);
	return 0;
}

/* The FAULT nest of a request, parsed; NULL tb entries where absent. */
static int fnblk_nl_fault_attrs(struct genl_info *info, struct nlattr **fa)
{
	memset(fa, 0, sizeof(*fa) * (FNBLK_FAULT_ATTR_MAX + 1));
	if (!info->attrs[FNBLK_A_FAULT])
		return 0;
	return nla_parse_nested(fa, FNBLK_FAULT_ATTR_MAX,
				info->attrs[FNBLK_A_FAULT], fnblk_fault_policy,
				info->extack);
}

static int fnblk_nl_fault_add(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *fa[FNBLK_FAULT_ATTR_MAX + 1];
	struct fnblk_fault_rule *r;
	struct fnblk_dev *dev;
	const char *err = NULL;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	ret = fnblk_nl_fault_attrs(info, fa);
	if (ret)
		return ret;
	if (!fa[FNBLK_FAULT_ERROR]) {
		NL_SET_ERR_MSG(info->extack, "fault error required");
		return -EINVAL;
	}
	if (fa[FNBLK_FAULT_ID]) {
		NL_SET_ERR_MSG_ATTR(info->extack, fa[FNBLK_FAULT_ID],
				    "the kernel numbers fault rules");
		return -EINVAL;
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	ret = -ENOMEM;
	if (!r || !msg)
		goto free;
	r->op = fa[FNBLK_FAULT_OP] ? nla_get_u8(fa[FNBLK_FAULT_OP]) :
				     FNBLK_FAULT_ANY;
	r->prob = fa[FNBLK_FAULT_PROB] ? nla_get_u32(fa[FNBLK_FAULT_PROB]) :
					 FNBLK_FAULT_PROB_ONE;
	r->every = fa[FNBLK_FAULT_EVERY] ?
		   nla_get_u32(fa[FNBLK_FAULT_EVERY]) : 1;
	r->times = fa[FNBLK_FAULT_TIMES] ?
		   nla_get_u64(fa[FNBLK_FAULT_TIMES]) : 0;
	r->start = fa[FNBLK_FAULT_START] ?
		   nla_get_u64(fa[FNBLK_FAULT_START]) : 0;
	r->len = fa[FNBLK_FAULT_LEN] ? nla_get_u64(fa[FNBLK_FAULT_LEN]) : 0;
	r->error = nla_get_u8(fa[FNBLK_FAULT_ERROR]);
	r->delay_ns = fa[FNBLK_FAULT_DELAY_NS] ?
		      nla_get_u64(fa[FNBLK_FAULT_DELAY_NS]) : 0;
	mutex_lock(&fnblk_mutex);
	dev = fnblk_nl_dev(info->attrs, info->extack);
	ret = PTR_ERR_OR_ZERO(dev);
	if (!ret) {
		ret = fnblk_fault_add(dev, r, &err);
		if (ret)
			fnblk_nl_err(info->extack, err);
	}
	if (!ret) {
		/* The rule is the device's now; reply while it cannot go. */
		hdr = genlmsg_put_reply(msg, info, &fnblk_family, 0,
					info->genlhdr->cmd);
		ret = !hdr || fnblk_fill_fault(msg, dev, r) ? -EMSGSIZE : 0;
		if (!ret)
			genlmsg_end(msg, hdr);
		r = NULL;
	}
	mutex_unlock(&fnblk_mutex);
	if (!ret)
		return genlmsg_reply(msg, info);
free:
	nlmsg_free(msg);
	kfree(r);
	return ret;
}

static int fnblk_op_fault_del(struct genl_info *info, struct fnblk_dev *dev)
{
	struct nlattr *fa[FNBLK_FAULT_ATTR_MAX + 1];
	const char *err = NULL;
	int ret = fnblk_nl_fault_attrs(info, fa);

	if (ret)
		return ret;
	ret = fnblk_fault_del(dev, fa[FNBLK_FAULT_ID] ?
			      nla_get_u32(fa[FNBLK_FAULT_ID]) : 0, &err);
	if (ret)
		fnblk_nl_err(info->extack, err);
	return ret;
}

static int fnblk_nl_fault_del(struct sk_buff *skb, struct genl_info *info)
{
	return fnblk_nl_with_dev(info, fnblk_op_fault_del);
}

/*
 * Dumps of one device's records (users, fault rules) keep the device in
 * cb->args by id and serial between their rounds, then their own place.
 */
enum { DD_ID, DD_SERIAL, DD_NEXT };

/*
 * The device of such a dump: the one the request names on the first round,
 * the same one on the next; ENODEV if it was deleted, or deleted and
 * re-created under the same id, in between.
 */
static struct fnblk_dev *fnblk_nl_dump_dev(struct netlink_callback *cb)
{
	struct fnblk_dev *dev;

	lockdep_assert_held(&fnblk_mutex);
	if (!cb->args[DD_SERIAL]) {
		dev = fnblk_nl_dev(fnblk_dump_attrs(cb), cb->extack);
		if (!IS_ERR(dev)) {
			cb->args[DD_ID] = dev->id;
			cb->args[DD_SERIAL] = dev->serial;	/* from 1 */
		}
		return dev;
	}
	dev = fnblk_dev_find(cb->args[DD_ID]);
	if (!dev || dev->serial != cb->args[DD_SERIAL])
		return ERR_PTR(-ENODEV);
	return dev;
}

/* A fault rule dump's place: the last id sent. */
enum { FD_LAST = DD_NEXT };

static int fnblk_nl_fault_dump(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	struct fnblk_fault_rule *r;
	struct fnblk_dev *dev;
	void *hdr;
	int ret = 0;

	mutex_lock(&fnblk_mutex);
	dev = fnblk_nl_dump_dev(cb);
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto unlock;
	}
	while ((r = fnblk_fault_next(dev, cb->args[FD_LAST]))) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &fnblk_family,
				  NLM_F_MULTI, FNBLK_CMD_FAULT_GET);
		if (!hdr)
			break;
		if (fnblk_fill_fault(skb, dev, r)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[FD_LAST] = r->id;
	}
	ret = skb->len;
unlock:
	mutex_unlock(&fnblk_mutex);
	return ret;
}

/* ---- dumps ---- */

static int fnblk_dump_devs(struct sk_buff *skb, struct netlink_callback *cb,
			   u8 cmd,
			   int (*fill)(struct sk_buff *, struct fnblk_dev *))
{
	struct fnblk_dev *dev;
	u32 id = cb->args[0];
	void *hdr;
	int ret = 0;

	mutex_lock(&fnblk_mutex);
	cb->seq = fnblk_generation;
	while ((dev = fnblk_dev_next(&id))) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &fnblk_family,
				  NLM_F_MULTI, cmd);
		if (!hdr) {
			ret = -EMSGSIZE;
			break;
		}
		genl_dump_check_consistent(cb, hdr);
		ret = fill(skb, dev);
		if (ret) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		id++;
	}
	mutex_unlock(&fnblk_mutex);
	cb->args[0] = id;
	/* A full skb ends this round; the dump resumes at id. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ? ret : skb->len;
}

static int fnblk_nl_dev_dump_start(struct netlink_callback *cb)
{
	/* One device with a full f(n) table must fit in a dump skb. */
	cb->min_dump_alloc = max_t(u32, cb->min_dump_alloc,
				   nlmsg_total_size(GENL_HDRLEN +
						    fnblk_dev_msg_size()));
	return 0;
}

static int fnblk_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return fnblk_dump_devs(skb, cb, FNBLK_CMD_DEV_GET, fnblk_fill_dev);
}

static int fnblk_nl_stats_dump(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	return fnblk_dump_devs(skb, cb, FNBLK_CMD_STATS_GET, fnblk_fill_stats);
}

/* A user dump's place: the next key, and which records are left. */
enum { UD_KEY = DD_NEXT, UD_PHASE };
enum { UD_USERS, UD_RETIRED, UD_OVERFLOW, UD_DONE };

/* Start one message of a user dump; NULL when the skb is full. */
static void *fnblk_user_hdr(struct sk_buff *skb, struct netlink_callback *cb)
{
	void *hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				cb->nlh->nlmsg_seq, &fnblk_family,
				NLM_F_MULTI, FNBLK_CMD_USER_GET);

	if (hdr)
		genl_dump_check_consistent(cb, hdr);
	return hdr;
}

/* One record of the dump, unless the skb is full (returns false). */
static bool fnblk_dump_user(struct sk_buff *skb, struct netlink_callback *cb,
			    struct fnblk_dev *dev, struct fnblk_dev_user *u,
			    u8 bucket, u64 now)
	__must_hold(&dev->lock)
{
	void *hdr = fnblk_user_hdr(skb, cb);
	int ret;

	if (!hdr)
		return false;
	ret = u ? fnblk_fill_user(skb, dev, u, bucket, now) :
		  fnblk_fill_retired(skb, dev);
	if (ret) {
		genlmsg_cancel(skb, hdr);
		return false;
	}
	genlmsg_end(skb, hdr);
	return true;
}

static bool fnblk_overflow_used(const struct fnblk_dev_user *u)
{
	return u->ops[0] || u->ops[1] || u->inflight || u->su.active ||
	       u->su.activations;
}

static int fnblk_dump_users_locked(struct sk_buff *skb,
				   struct netlink_callback *cb,
				   struct fnblk_dev *dev)
	__must_hold(&dev->lock)
{
	unsigned long key = cb->args[UD_KEY];
	struct fnblk_dev_user *u;
	u64 now = dev->sched.now;

	cb->seq = dev->users_gen;
	if (cb->args[UD_PHASE] == UD_USERS) {
		xa_for_each_start(&dev->users, key, u, key) {
			/* Users of a key mode just left are being retired. */
			if (u->epoch != dev->key_epoch)
				continue;
			if (!fnblk_dump_user(skb, cb, dev, u, 0, now)) {
				cb->args[UD_KEY] = key;
				return skb->len;
			}
		}
		cb->args[UD_PHASE] = UD_RETIRED;
	}
	if (cb->args[UD_PHASE] == UD_RETIRED) {
		if (dev->retired.users &&
		    !fnblk_dump_user(skb, cb, dev, NULL, FNBLK_BUCKET_RETIRED,
				     now))
			return skb->len;
		cb->args[UD_PHASE] = UD_OVERFLOW;
	}
	if (cb->args[UD_PHASE] == UD_OVERFLOW) {
		if (fnblk_overflow_used(&dev->overflow) &&
		    !fnblk_dump_user(skb, cb, dev, &dev->overflow,
				     FNBLK_BUCKET_OVERFLOW, now))
			return skb->len;
		cb->args[UD_PHASE] = UD_DONE;
	}
	return skb->len;
}

static int fnblk_nl_user_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct fnblk_dev *dev;
	int ret;

	if (cb->args[UD_PHASE] == UD_DONE)
		return 0;
	mutex_lock(&fnblk_mutex);
	dev = fnblk_nl_dump_dev(cb);
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto unlock;
	}
	spin_lock_bh(&dev->lock);
	fnblk_io_kick_locked(dev);
	ret = fnblk_dump_users_locked(skb, cb, dev);
	fnblk_io_unlock(dev);
unlock:
	mutex_unlock(&fnblk_mutex);
	return ret;
}

static const struct genl_ops fnblk_ops[] = {
	{
		.cmd = FNBLK_CMD_DEV_ADD,
		.doit = fnblk_nl_dev_add,
		.policy = fnblk_config_policy,
		.maxattr = FNBLK_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FNBLK_CMD_DEV_DEL,
		.doit = fnblk_nl_dev_del,
		.policy = fnblk_dev_policy,
		.maxattr = FNBLK_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FNBLK_CMD_DEV_GET,
		.doit = fnblk_nl_dev_get,
		.start = fnblk_nl_dev_dump_start,
		.dumpit = fnblk_nl_dev_dump,
		.policy = fnblk_dev_policy,
		.maxattr = FNBLK_A_MAX,
	},
	{
		.cmd = FNBLK_CMD_DEV_SET,
		.doit = fnblk_nl_dev_set,
		.policy = fnblk_config_policy,
		.maxattr = FNBLK_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FNBLK_CMD_STATS_GET,
		.doit = fnblk_nl_stats_get,
		.dumpit = fnblk_nl_stats_dump,
		.policy = fnblk_dev_policy,
		.maxattr = FNBLK_A_MAX,
	},
	{
		.cmd = FNBLK_CMD_STATS_RESET,
		.doit = fnblk_nl_stats_reset,
		.policy = fnblk_dev_policy,
		.maxattr = FNBLK_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		/* Per-user data tells about other users' processes. */
		.cmd = FNBLK_CMD_USER_GET,
		.dumpit = fnblk_nl_user_dump,
		.policy = fnblk_dev_policy,
		.maxattr = FNBLK_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FNBLK_CMD_USER_SET,
		.doit = fnblk_nl_user_set,
		.policy = fnblk_user_set_policy,
		.maxattr = FNBLK_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FNBLK_CMD_DEV_CRASH,
		.doit = fnblk_nl_dev_crash,
		.policy = fnblk_dev_policy,
		.maxattr = FNBLK_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FNBLK_CMD_FAULT_ADD,
		.doit = fnblk_nl_fault_add,
		.policy = fnblk_fault_set_policy,
		.maxattr = FNBLK_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FNBLK_CMD_FAULT_DEL,
		.doit = fnblk_nl_fault_del,
		.policy = fnblk_fault_set_policy,
		.maxattr = FNBLK_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = FNBLK_CMD_FAULT_GET,
		.dumpit = fnblk_nl_fault_dump,
		.policy = fnblk_dev_policy,
		.maxattr = FNBLK_A_MAX,
	},
};

static struct genl_family fnblk_family __ro_after_init = {
	.name = FNBLK_GENL_NAME,
	.version = FNBLK_GENL_VERSION,
	.maxattr = FNBLK_A_MAX,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = fnblk_ops,
	.n_ops = ARRAY_SIZE(fnblk_ops),
	.resv_start_op = FNBLK_CMD_USER_SET + 1,
	.mcgrps = fnblk_mcgrps,
	.n_mcgrps = ARRAY_SIZE(fnblk_mcgrps),
};

/* ---- events ---- */

static void fnblk_event_send(struct sk_buff *skb, void *hdr, gfp_t gfp)
{
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&fnblk_family, skb, 0, FNBLK_MCGRP_EVENTS_ID, gfp);
}

/* Set while the family is registered: events before it go nowhere. */
static bool fnblk_nl_registered;

static bool fnblk_event_listened(void)
{
	return READ_ONCE(fnblk_nl_registered) &&
	       genl_has_listeners(&fnblk_family, &init_net,
				  FNBLK_MCGRP_EVENTS_ID);
}

/*
 * An event's skb is sized to its attributes (about 100 bytes): with
 * NLMSG_DEFAULT_SIZE and the genetlink header it took an 8 KiB head,
 * allocated atomically under the device lock for every event, only for
 * netlink to copy it into a small one before queueing it to listeners.
 * The device attributes every event starts with, then extra of its own.
 */
static size_t fnblk_event_size(const struct fnblk_dev *dev, size_t extra)
{
	return nla_total_size(sizeof(u32)) +		/* DEV_ID */
	       nla_total_size(strlen(dev->name) + 1) +	/* DEV_NAME */
	       nla_total_size_64bit(sizeof(u64)) +	/* EVT_TIME_NS */
	       nla_total_size_64bit(sizeof(u64)) +	/* EVT_SEQ */
	       extra;
}

static void *fnblk_event_start(struct sk_buff **skb, struct fnblk_dev *dev,
			       u8 cmd, u64 seq, u64 t, size_t extra, gfp_t gfp)
{
	void *hdr;

	*skb = genlmsg_new(fnblk_event_size(dev, extra), gfp);
	if (!*skb)
		return NULL;
	hdr = genlmsg_put(*skb, 0, 0, &fnblk_family, 0, cmd);
	if (!hdr ||
	    nla_put_u32(*skb, FNBLK_A_DEV_ID, dev->id) ||
	    nla_put_string(*skb, FNBLK_A_DEV_NAME, dev->name) ||
	    nla_put_u64_64bit(*skb, FNBLK_A_EVT_TIME_NS, t, FNBLK_A_PAD) ||
	    nla_put_u64_64bit(*skb, FNBLK_A_EVT_SEQ, seq, FNBLK_A_PAD)) {
		nlmsg_free(*skb);
		return NULL;
	}
	return hdr;
}

/*
 * Runs inside the scheduler with dev->lock held (possibly in softirq), so
 * it allocates atomically. Every event takes a sequence number even when
 * nobody listens or the message is lost, so listeners can detect gaps.
 */
void fnblk_event_user_locked(struct fnblk_dev *dev, struct fnblk_dev_user *u,
			     bool active, u64 t)
	__must_hold(&dev->lock)
{
	u8 cmd = active ? FNBLK_CMD_EVT_USER_ACTIVE : FNBLK_CMD_EVT_USER_IDLE;
	bool overflow = u == &dev->overflow;
	u64 seq = ++dev->event_seq;
	struct sk_buff *skb;
	size_t extra;
	void *hdr;

	if (!fnblk_event_listened())
		return;
	/* EVT_OVERFLOW or EVT_USER_KEY, EVT_NR_ACTIVE, EVT_KTHREAD */
	extra = (overflow ? nla_total_size(0) :
		 FNBLK_EVENTS_NAME_USERS ? nla_total_size_64bit(sizeof(u64)) :
		 0) +
		nla_total_size(sizeof(u32)) +
		(u->kthread ? nla_total_size(0) : 0);
	hdr = fnblk_event_start(&skb, dev, cmd, seq, t, extra, GFP_ATOMIC);
	if (!hdr)
		return;
	if ((overflow ?
	     nla_put_flag(skb, FNBLK_A_EVT_OVERFLOW) :
	     (FNBLK_EVENTS_NAME_USERS &&
	      nla_put_u64_64bit(skb, FNBLK_A_EVT_USER_KEY, u->su.key,
				FNBLK_A_PAD))) ||
	    nla_put_u32(skb, FNBLK_A_EVT_NR_ACTIVE, dev->sched.nr_active) ||
	    (u->kthread && nla_put_flag(skb, FNBLK_A_EVT_KTHREAD))) {
		nlmsg_free(skb);
		return;
	}
	fnblk_event_send(skb, hdr, GFP_ATOMIC);
}

/* Sent under the device lock, like user events, so numbers stay in order. */
void fnblk_event_dev(struct fnblk_dev *dev, u8 cmd)
{
	struct sk_buff *skb;
	void *hdr;
	u64 seq;

	spin_lock_bh(&dev->lock);
	seq = ++dev->event_seq;
	if (fnblk_event_listened()) {
		hdr = fnblk_event_start(&skb, dev, cmd, seq, ktime_get_ns(),
					0, GFP_ATOMIC);
		if (hdr)
			fnblk_event_send(skb, hdr, GFP_ATOMIC);
	}
	spin_unlock_bh(&dev->lock);
}

int fnblk_netlink_init(void)
{
	int ret = genl_register_family(&fnblk_family);

	if (!ret)
		WRITE_ONCE(fnblk_nl_registered, true);
	return ret;
}

void fnblk_netlink_exit(void)
{
	WRITE_ONCE(fnblk_nl_registered, false);
	/* Events are sent with bottom halves off: wait out those in flight. */
	synchronize_rcu();
	genl_unregister_family(&fnblk_family);
}
