/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fnblk tracepoints: a request's way through the device, users entering
 * and leaving n, and every configuration a device takes.
 *
 *   fnblk_submit         the bio became a request (submission point)
 *   fnblk_service_start  the request's turn in the bandwidth stage began
 *   fnblk_depart         it had all its service and left the stage
 *   fnblk_complete       it was delivered: latency and queueing delay
 *   fnblk_user_active    a user entered n
 *   fnblk_user_idle      a user left n (its grace ran out)
 *   fnblk_config         a device was added or reconfigured
 *
 * Times in fields are the scheduler's (CLOCK_MONOTONIC, ns): the model's
 * own instants, which a late timer or a softirq may deliver a little
 * after the event's timestamp says. "rq" identifies a request from its
 * submission to its completion (the address may be reused afterwards).
 * Documentation/tracing.rst has recipes.
 *
 * Disabled tracepoints cost a static-key branch: every argument is
 * computed in TP_fast_assign, never before the call.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM fnblk

#if !defined(FNBLK_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define FNBLK_TRACE_H

#include <linux/blkdev.h>
#include <linux/tracepoint.h>

#include "fnblk.h"

TRACE_DEFINE_ENUM(FNBLK_OP_READ);
TRACE_DEFINE_ENUM(FNBLK_OP_WRITE);
TRACE_DEFINE_ENUM(FNBLK_OP_FLUSH);
TRACE_DEFINE_ENUM(FNBLK_OP_DISCARD);
TRACE_DEFINE_ENUM(FNBLK_KEY_TGID);
TRACE_DEFINE_ENUM(FNBLK_KEY_PID);
TRACE_DEFINE_ENUM(FNBLK_KEY_CGROUP);
TRACE_DEFINE_ENUM(FNBLK_KEY_SINGLE);
TRACE_DEFINE_ENUM(FNBLK_POLICY_ANON);
TRACE_DEFINE_ENUM(FNBLK_POLICY_FIFO);
TRACE_DEFINE_ENUM(FNBLK_POLICY_WEIGHTED);
TRACE_DEFINE_ENUM(FNBLK_USERS_ALL);
TRACE_DEFINE_ENUM(FNBLK_USERS_WRITES);
TRACE_DEFINE_ENUM(FNBLK_STORE_MEMORY);
TRACE_DEFINE_ENUM(FNBLK_STORE_NONE);
TRACE_DEFINE_ENUM(FNBLK_CACHE_DURABLE);
TRACE_DEFINE_ENUM(FNBLK_CACHE_VOLATILE);

#define fnblk_show_op(op)					\
	__print_symbolic(op,					\
			 { FNBLK_OP_READ, "read" },		\
			 { FNBLK_OP_WRITE, "write" },		\
			 { FNBLK_OP_FLUSH, "flush" },		\
			 { FNBLK_OP_DISCARD, "discard" })

#define fnblk_show_key(key)					\
	__print_symbolic(key,					\
			 { FNBLK_KEY_TGID, "tgid" },		\
			 { FNBLK_KEY_PID, "pid" },		\
			 { FNBLK_KEY_CGROUP, "cgroup" },	\
			 { FNBLK_KEY_SINGLE, "single" })

#define fnblk_show_policy(policy)				\
	__print_symbolic(policy,				\
			 { FNBLK_POLICY_ANON, "anon" },		\
			 { FNBLK_POLICY_FIFO, "fifo" },		\
			 { FNBLK_POLICY_WEIGHTED, "weighted" })

#define fnblk_show_users(users)					\
	__print_symbolic(users,					\
			 { FNBLK_USERS_ALL, "all" },		\
			 { FNBLK_USERS_WRITES, "writes" })

#define fnblk_show_store(store)					\
	__print_symbolic(store,					\
			 { FNBLK_STORE_MEMORY, "memory" },	\
			 { FNBLK_STORE_NONE, "none" })

#define fnblk_show_cache(cache)					\
	__print_symbolic(cache,					\
			 { FNBLK_CACHE_DURABLE, "durable" },	\
			 { FNBLK_CACHE_VOLATILE, "volatile" })

/* The user a scheduler request belongs to, as the device keys it. */
#define fnblk_rq_key(rq)	((rq)->user->key)

TRACE_EVENT(fnblk_submit,
	TP_PROTO(const struct fnblk_dev *dev, const struct fnblk_io *io,
		 u64 key),
	TP_ARGS(dev, io, key),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u64, key)
		__field(const void *, rq)
		__field(u64, sector)
		__field(u32, bytes)
		__field(u8, op)
		__field(bool, kthread)
	),
	TP_fast_assign(
		__entry->dev = dev->id;
		__entry->key = key;
		__entry->rq = &io->rq;
		__entry->sector = io->bio->bi_iter.bi_sector;
		__entry->bytes = io->bio->bi_iter.bi_size;
		__entry->op = io->op;
		__entry->kthread = io->kthread;
	),
	TP_printk("fnblk%u key=%llu rq=%p %s sector=%llu bytes=%u%s",
		  __entry->dev, __entry->key, __entry->rq,
		  fnblk_show_op(__entry->op), __entry->sector, __entry->bytes,
		  __entry->kthread ? " kthread" : "")
);

/* rq's service began with n users active; it had waited queue_ns. */
TRACE_EVENT(fnblk_service_start,
	TP_PROTO(const struct fnblk_dev *dev, const struct fnblk_req *rq),
	TP_ARGS(dev, rq),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u64, key)
		__field(const void *, rq)
		__field(u64, bytes)
		__field(u64, start_ns)
		__field(u64, queue_ns)
		__field(u32, n)
	),
	TP_fast_assign(
		__entry->dev = dev->id;
		__entry->key = fnblk_rq_key(rq);
		__entry->rq = rq;
		__entry->bytes = rq->bytes;
		__entry->start_ns = rq->start_ns;
		__entry->queue_ns = rq->start_ns - rq->submit_ns;
		__entry->n = dev->sched.nr_active;
	),
	TP_printk("fnblk%u key=%llu rq=%p bytes=%llu start_ns=%llu queue_ns=%llu n=%u",
		  __entry->dev, __entry->key, __entry->rq, __entry->bytes,
		  __entry->start_ns, __entry->queue_ns, __entry->n)
);

/*
 * rq left the bandwidth stage at leave_ns after service_ns of service;
 * it completes latency later. A request outside the pool (users=writes:
 * reads) is served at the full rate: its departure is decided, and
 * traced, at submission, with leave_ns in the future.
 */
TRACE_EVENT(fnblk_depart,
	TP_PROTO(const struct fnblk_dev *dev, const struct fnblk_req *rq),
	TP_ARGS(dev, rq),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u64, key)
		__field(const void *, rq)
		__field(u64, bytes)
		__field(u64, leave_ns)
		__field(u64, service_ns)
		__field(u32, n)
		__field(bool, shared)
	),
	TP_fast_assign(
		__entry->dev = dev->id;
		__entry->key = fnblk_rq_key(rq);
		__entry->rq = rq;
		__entry->bytes = rq->bytes;
		__entry->leave_ns = rq->leave_ns;
		__entry->service_ns = rq->leave_ns - rq->start_ns;
		__entry->n = dev->sched.nr_active;
		__entry->shared = rq->shared;
	),
	TP_printk("fnblk%u key=%llu rq=%p bytes=%llu leave_ns=%llu service_ns=%llu n=%u%s",
		  __entry->dev, __entry->key, __entry->rq, __entry->bytes,
		  __entry->leave_ns, __entry->service_ns, __entry->n,
		  __entry->shared ? "" : " unshared")
);

/*
 * rq was delivered at done_ns: latency_ns after its submission, of which
 * queue_ns waiting for its turn. error is 0 or a negative errno. A fault
 * rule (fault injection) may still fail or delay its bio after this.
 */
TRACE_EVENT(fnblk_complete,
	TP_PROTO(const struct fnblk_dev *dev, const struct fnblk_io *io),
	TP_ARGS(dev, io),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u64, key)
		__field(const void *, rq)
		__field(u64, sector)
		__field(u32, bytes)
		__field(u8, op)
		__field(u64, done_ns)
		__field(u64, latency_ns)
		__field(u64, queue_ns)
		__field(int, error)
	),
	TP_fast_assign(
		__entry->dev = dev->id;
		__entry->key = fnblk_rq_key(&io->rq);
		__entry->rq = &io->rq;
		__entry->sector = io->bio->bi_iter.bi_sector;
		__entry->bytes = io->bio->bi_iter.bi_size;
		__entry->op = io->op;
		__entry->done_ns = io->rq.done_ns;
		__entry->latency_ns = io->rq.done_ns - io->rq.submit_ns;
		__entry->queue_ns = io->rq.start_ns - io->rq.submit_ns;
		__entry->error = blk_status_to_errno(io->bio->bi_status);
	),
	TP_printk("fnblk%u key=%llu rq=%p %s sector=%llu bytes=%u latency_ns=%llu queue_ns=%llu error=%d",
		  __entry->dev, __entry->key, __entry->rq,
		  fnblk_show_op(__entry->op), __entry->sector, __entry->bytes,
		  __entry->latency_ns, __entry->queue_ns, __entry->error)
);

/* u entered n at t; n counts it. */
TRACE_EVENT(fnblk_user_active,
	TP_PROTO(const struct fnblk_dev *dev, const struct fnblk_dev_user *u,
		 u64 t),
	TP_ARGS(dev, u, t),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u64, key)
		__field(u64, time_ns)
		__field(u32, n)
		__field(bool, kthread)
	),
	TP_fast_assign(
		__entry->dev = dev->id;
		__entry->key = u->su.key;
		__entry->time_ns = t;
		__entry->n = dev->sched.nr_active;
		__entry->kthread = u->kthread;
	),
	TP_printk("fnblk%u key=%llu time_ns=%llu n=%u%s",
		  __entry->dev, __entry->key, __entry->time_ns, __entry->n,
		  __entry->kthread ? " kthread" : "")
);

/* u left n at t after an active period of active_ns; n no longer counts it. */
TRACE_EVENT(fnblk_user_idle,
	TP_PROTO(const struct fnblk_dev *dev, const struct fnblk_dev_user *u,
		 u64 t),
	TP_ARGS(dev, u, t),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u64, key)
		__field(u64, time_ns)
		__field(u64, active_ns)
		__field(u32, n)
		__field(bool, kthread)
	),
	TP_fast_assign(
		__entry->dev = dev->id;
		__entry->key = u->su.key;
		__entry->time_ns = t;
		__entry->active_ns = t - u->su.active_since_ns;
		__entry->n = dev->sched.nr_active;
		__entry->kthread = u->kthread;
	),
	TP_printk("fnblk%u key=%llu time_ns=%llu active_ns=%llu n=%u%s",
		  __entry->dev, __entry->key, __entry->time_ns,
		  __entry->active_ns, __entry->n,
		  __entry->kthread ? " kthread" : "")
);

/* The configuration dev runs with from now: at its creation or a change. */
TRACE_EVENT(fnblk_config,
	TP_PROTO(const struct fnblk_dev *dev, const struct fnblk_config *cfg,
		 bool added),
	TP_ARGS(dev, cfg, added),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(bool, added)
		__field(u64, size)
		__field(u64, bw)
		__field(u64, latency_ns)
		__field(u64, overhead)
		__field(u64, grace_ns)
		__field(u8, key)
		__field(u8, policy)
		__field(u8, users)
		__field(u8, store)
		__field(u8, cache)
		__field(u32, max_users)
		__dynamic_array(char, fn, strlen(cfg->fn_spec) + 1)
	),
	TP_fast_assign(
		__entry->dev = dev->id;
		__entry->added = added;
		__entry->size = cfg->size;
		__entry->bw = cfg->sched.bw;
		__entry->latency_ns = cfg->sched.latency_ns;
		__entry->overhead = cfg->sched.overhead;
		__entry->grace_ns = cfg->sched.grace_ns;
		__entry->key = cfg->key;
		__entry->policy = cfg->sched.policy;
		__entry->users = cfg->sched.users;
		__entry->store = cfg->store;
		__entry->cache = cfg->cache;
		__entry->max_users = cfg->max_users;
		memcpy(__get_dynamic_array(fn), cfg->fn_spec,
		       __get_dynamic_array_len(fn));
	),
	TP_printk("fnblk%u %s size=%llu bw=%llu fn=%s latency_ns=%llu overhead=%llu grace_ns=%llu key=%s policy=%s users=%s store=%s cache=%s max_users=%u",
		  __entry->dev, __entry->added ? "added" : "changed",
		  __entry->size, __entry->bw, __get_str(fn),
		  __entry->latency_ns, __entry->overhead, __entry->grace_ns,
		  fnblk_show_key(__entry->key),
		  fnblk_show_policy(__entry->policy),
		  fnblk_show_users(__entry->users),
		  fnblk_show_store(__entry->store),
		  fnblk_show_cache(__entry->cache), __entry->max_users)
);

#endif /* FNBLK_TRACE_H */

/* The header is outside include/trace/events: define_trace.h finds it here. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE fnblk_trace
#include <trace/define_trace.h>
