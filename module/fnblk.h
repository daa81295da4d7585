/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fnblk internals: a device's configuration, its running instance, and the
 * interfaces between the files of the module:
 *   main.c     module parameters, device registry, add/delete
 *   config.c   defaults, parsing and validation of a configuration
 *   disk.c     the gendisk and the bio submission path
 *   io.c       requests through the scheduler core, timer, completion
 *   store.c    the memory store
 *   cache.c    the volatile write cache and crashes
 *   fault.c    fault injection rules
 *   users.c    the table of users a device has seen
 *   stats.c    counters and snapshots
 *   netlink.c  the generic netlink family and its events
 *   trace.c    the tracepoints of fnblk_trace.h
 */
#ifndef FNBLK_H
#define FNBLK_H

#include <linux/atomic.h>
#include <linux/bio.h>
#include <linux/bits.h>
#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/rwsem.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "fnblk_sched.h"

#define FNBLK_SECTOR_SHIFT	9
/* Largest request the device accepts, as a remote file system's RPC. */
#define FNBLK_MAX_IO_BYTES	SZ_1M

/* Everything a user can set, shared by module parameters and netlink. */
struct fnblk_config {
	u64 size;			/* capacity, bytes, multiple of 4096 */
	u8 key;				/* enum fnblk_key: who counts as a user */
	u8 store;			/* enum fnblk_store */
	u32 max_users;			/* users kept apart; then overflow */
	u8 cache;			/* enum fnblk_cache_mode */
	char fn_spec[FNBLK_FN_SPEC_LEN]; /* f(n) as the user wrote it */
	/* bandwidth, f(n) table, latency, overhead, grace, policy, users */
	struct fnblk_params sched;
};

/*
 * The volatile write cache: what each page changed since the last flush
 * held then (cache.c).
 */
struct fnblk_cache {
	bool on;			/* cache volatile */
	bool dead;			/* crashed: writes fail until revived */
	struct rw_semaphore epoch;	/* writers share it; flush, crash own it */
	struct xarray undo;		/* page index -> saved page or absent */
	atomic_long_t nr_saved;
};

/* Memory behind a device: pages allocated on first write. */
struct fnblk_backing {
	struct xarray pages;		/* page index -> struct page */
	u8 kind;			/* enum fnblk_store */
	atomic_long_t nr_pages;
	struct fnblk_cache cache;
};

enum fnblk_op {
	FNBLK_OP_READ,
	FNBLK_OP_WRITE,
	FNBLK_OP_FLUSH,
	FNBLK_OP_DISCARD,
	FNBLK_NR_OPS
};

/* Device counters; protected by fnblk_dev.lock. */
struct fnblk_stats {
	u64 ops[FNBLK_NR_OPS];
	u64 bytes[FNBLK_NR_OPS];
	u64 kthread_ops;
	u64 kthread_bytes;
	u64 errors;
	u64 crashes;
	u64 crash_lost_bytes;
	u64 lat_sum_ns;
	u64 queue_sum_ns;
	u64 lat_hist[FNBLK_LHIST_BINS];
	u64 queue_hist[FNBLK_LHIST_BINS];
	u64 size_hist[2][FNBLK_RSIZE_BINS];	/* reads, writes */
};

/*
 * Counters of the requests the fast path takes past the core (io.c), per
 * CPU; they only grow, and are zeroed only with the fast path stopped.
 */
struct fnblk_fast_stats {
	u64 ops[2];			/* reads, writes */
	u64 bytes[2];
	u64 kthread_ops;
	u64 kthread_bytes;
	u64 size_hist[2][FNBLK_RSIZE_BINS];
};

/* A user as the device knows it: scheduler state plus its counters. */
struct fnblk_dev_user {
	struct fnblk_user su;
	u64 ops[2];			/* read, write (incl. flush, discard) */
	u64 bytes[2];
	/*
	 * The fast path's part (io.c): lease is 0 (closed) or the delivery
	 * time of the user's last request in its grace, which the fast path
	 * moves forward without dev->lock; the core's grace_end hook reads
	 * it, and closes it when the grace ends. fast_ops and fast_bytes
	 * count those requests; the user's totals are ops + fast_ops.
	 */
	atomic64_t lease;
	atomic64_t fast_ops[2];
	atomic64_t fast_bytes[2];
	u64 wait_ns;			/* sum of queueing delays */
	u64 start_ns;			/* start time of the task it is, 0: any */
	u64 last_ns;			/* last request submitted */
	u32 inflight;			/* requests not yet completed */
	u32 epoch;			/* fnblk_dev.key_epoch it belongs to */
	bool kthread;			/* a kernel thread submitted for it */
	bool pinned;			/* weight set by hand: never aged out */
	bool fresh;			/* inserted, not yet looked up again */
};

/* Totals of the users freed since the last reset. */
struct fnblk_retired {
	u64 users;
	u64 ops[2];
	u64 bytes[2];
	u64 wait_ns;
	u64 active_ns;
	u64 activations;
};

/* A fault rule (fault.c). */
struct fnblk_fault_rule {
	struct list_head node;		/* in fnblk_faults.rules, RCU */
	struct rcu_head rcu;
	u32 id;
	u8 op;				/* enum fnblk_fault_op */
	u8 error;			/* enum fnblk_fault_error */
	u32 prob;			/* parts per million */
	u32 every;			/* fire on every Nth match */
	u64 times;			/* at most; 0 no limit */
	u64 start, len;			/* bytes; len 0 the whole device */
	u64 delay_ns;			/* delay, or timeout */
	atomic64_t matched, injected;
};

struct fnblk_fault_hold;

/* A device's fault rules and the requests they hold back. */
struct fnblk_faults {
	struct list_head rules;		/* by id; RCU, changed under the mutex */
	u32 nr, last_id;
	struct list_head held;		/* by due time, under fnblk_dev.lock */
	struct hrtimer timer;		/* ends the first held request */
	atomic64_t injected[__FNBLK_FAULT_MAX];
};

/* What a fault rule decided for one request. */
struct fnblk_fault {
	u8 error;			/* enum fnblk_fault_error */
	u64 delay_ns;
	struct fnblk_fault_hold *hold;	/* for a timeout or delay */
};

/* One bio on its way through the scheduler. */
struct fnblk_io {
	struct fnblk_req rq;		/* rq.bytes: the data it moves */
	struct bio *bio;
	struct fnblk_fault fault;
	u32 bytes;			/* the bio's size, as counted */
	u8 op;				/* enum fnblk_op */
	bool kthread;
	bool on_stack;			/* completed within submission */
};

struct fnblk_dev {
	u32 id;
	char name[FNBLK_NAME_LEN];
	struct gendisk *disk;
	struct fnblk_backing store;

	/*
	 * lock protects the scheduler, the counters, cfg.sched, the event
	 * sequence and open/dying; cfg changes also hold fnblk_mutex.
	 */
	spinlock_t lock;
	struct fnblk_config cfg;
	struct fnblk_sched sched;
	struct hrtimer timer;
	struct bio_list done;		/* completed, to end after unlock */
	struct fnblk_stats stats;
	struct xarray users;		/* key -> struct fnblk_dev_user */
	u32 nr_users;			/* in users, or being inserted */
	u32 key_epoch;			/* bumped when the key mode changes */
	u64 users_gen;			/* bumped when users come or go */
	struct fnblk_retired retired;
	/* Shared by the users that found the table full. */
	struct fnblk_dev_user overflow;
	u64 overflows;			/* requests charged to it */
	struct delayed_work reap_work;	/* frees idle users */
	struct fnblk_fast_stats __percpu *fast;	/* the fast path's counters */
	unsigned int fast_off;		/* > 0: fast path stopped (RCU) */
	struct fnblk_faults faults;
	bool reap_soon;			/* reap_work queued to run now */
	u64 serial;			/* unique per device ever added */
	u64 event_seq;
	unsigned int open_count;
	bool dying;			/* being deleted: no opens, no timer */
	bool crashed;			/* down after a crash until all close */
	bool reconfiguring;		/* cache mode changing: no opens */
	wait_queue_head_t drain_wq;
};

/* main.c */
extern int fnblk_major;
extern struct workqueue_struct *fnblk_wq;
bool fnblk_inject_alloc_failure(void);
/* False while the module loads: a device found then cannot be opened. */
bool fnblk_loaded(void);
/* How long an idle user keeps its own record, ns. */
u64 fnblk_user_retain_ns(void);
extern struct mutex fnblk_mutex;	/* registry and configuration */
extern u64 fnblk_generation;		/* bumped on add, delete, set */
struct fnblk_dev *fnblk_dev_find(u32 id);
struct fnblk_dev *fnblk_dev_next(u32 *id);
int fnblk_dev_add(struct fnblk_config *cfg, int id, struct fnblk_dev **out,
		  const char **err);
int fnblk_dev_del(struct fnblk_dev *dev, const char **err);
int fnblk_dev_set(struct fnblk_dev *dev, const struct fnblk_config *cfg,
		  const char **err);
/* Power loss; the device stays down until nobody has it open. */
void fnblk_dev_crash(struct fnblk_dev *dev);

/* config.c */
void fnblk_config_default(struct fnblk_config *cfg);
int fnblk_config_check(struct fnblk_config *cfg, const char **err);
int fnblk_parse_key(const char *s, u8 *out);
int fnblk_parse_policy(const char *s, u8 *out);
int fnblk_parse_users(const char *s, u8 *out);
int fnblk_parse_store(const char *s, u8 *out);
int fnblk_parse_cache(const char *s, u8 *out);

/* disk.c */
int fnblk_disk_create(struct fnblk_dev *dev);
void fnblk_disk_destroy(struct fnblk_dev *dev);

/* io.c */
extern const struct fnblk_sched_ops fnblk_sched_ops;
int fnblk_io_init(void);
void fnblk_io_exit(void);
void fnblk_io_setup(struct fnblk_dev *dev);
void fnblk_io_submit(struct fnblk_dev *dev, struct bio *bio);
/* Run the scheduler up to now with dev->lock held; re-arm the timer. */
void fnblk_io_run_locked(struct fnblk_dev *dev, u64 now);
/* The same, reading the clock. */
void fnblk_io_kick_locked(struct fnblk_dev *dev);
/* Drop dev->lock, then end the bios that completed while it was held. */
void fnblk_io_unlock(struct fnblk_dev *dev) __releases(&dev->lock);
void fnblk_io_drain(struct fnblk_dev *dev);

/* store.c */
void fnblk_store_init(struct fnblk_backing *st, u8 kind, bool volatile_cache);
int fnblk_store_bio(struct fnblk_backing *st, struct bio *bio, gfp_t gfp);
/* Free pages readers may still see, after an RCU grace period. */
void fnblk_store_free_pages_rcu(struct list_head *pages);
u64 fnblk_store_crash(struct fnblk_backing *st, bool down);
void fnblk_store_destroy(struct fnblk_backing *st);

/* cache.c: the volatile write cache of a store */
void fnblk_cache_init(struct fnblk_cache *c, bool on);
/* Before a write: 1 (unlock with write_end), 0 (durable mode) or -errno. */
int fnblk_cache_write_begin(struct fnblk_cache *c, bool nowait);
void fnblk_cache_write_end(struct fnblk_cache *c, int begun);
int fnblk_cache_save(struct fnblk_cache *c, struct xarray *pages,
		     pgoff_t idx, gfp_t gfp);
int fnblk_cache_write_through(struct fnblk_cache *c, pgoff_t idx,
			      unsigned int off, const void *buf,
			      unsigned int len, gfp_t gfp);
int fnblk_cache_flush(struct fnblk_cache *c, struct xarray *pages,
		      bool nowait);
u64 fnblk_cache_crash(struct fnblk_cache *c, struct xarray *pages,
		      atomic_long_t *nr_pages, bool down);
void fnblk_cache_revive(struct fnblk_cache *c);
void fnblk_cache_set(struct fnblk_cache *c, struct xarray *pages, bool on);
u64 fnblk_cache_saved(struct fnblk_cache *c);
void fnblk_cache_destroy(struct fnblk_cache *c);

/* users.c */
void fnblk_users_init(struct fnblk_dev *dev);
/*
 * The user a bio submitted by current counts as (the overflow bucket if
 * the table is full), or an ERR_PTR. May drop dev->lock to allocate.
 */
struct fnblk_dev_user *fnblk_user_get_locked(struct fnblk_dev *dev,
					     struct bio *bio, gfp_t gfp);
/* The user of key, created if missing, for a weight set by hand. */
struct fnblk_dev_user *fnblk_user_get_key_locked(struct fnblk_dev *dev,
						 u64 key, gfp_t gfp);
/*
 * The user a bio submitted by current counts as, if it is in the table
 * for the current key mode; NULL if not (or if only the locked path can
 * tell). Under rcu_read_lock(), without dev->lock: the user stays
 * allocated until rcu_read_unlock().
 */
struct fnblk_dev_user *fnblk_user_find_rcu(struct fnblk_dev *dev,
					   struct bio *bio);
/* A user's totals, its fast-path requests included. */
static inline u64 fnblk_user_ops(const struct fnblk_dev_user *u, int dir)
{
	return u->ops[dir] + atomic64_read(&u->fast_ops[dir]);
}

static inline u64 fnblk_user_bytes(const struct fnblk_dev_user *u, int dir)
{
	return u->bytes[dir] + atomic64_read(&u->fast_bytes[dir]);
}

/* Zero every user's counters (stats reset); the caller reaps after. */
void fnblk_users_reset_locked(struct fnblk_dev *dev, u64 now);
/* The key mode changed: every user of the old one is retired. */
void fnblk_users_key_changed_locked(struct fnblk_dev *dev);
enum fnblk_reap {
	FNBLK_REAP_AGED,	/* idle for longer than the retention */
	FNBLK_REAP_IDLE,	/* every idle user without a hand-set weight */
};

/* Free reclaimable users, a batch per lock hold. Process context. */
void fnblk_users_reap(struct fnblk_dev *dev, enum fnblk_reap how);
/* user_retain_s changed: the reaper looks again now, with the new value. */
void fnblk_users_retain_changed(struct fnblk_dev *dev);
/* Stop the reaper and free every user (device being deleted). */
void fnblk_users_destroy(struct fnblk_dev *dev);

/* fault.c */
void fnblk_faults_init(struct fnblk_dev *dev);
/* At submission: does a rule fire on bio? Fills f (NONE if not). */
int fnblk_fault_submit(struct fnblk_dev *dev, struct bio *bio,
		       struct fnblk_fault *f, gfp_t gfp);
/* Drop what fnblk_fault_submit() prepared for a bio that went nowhere. */
void fnblk_fault_cancel(struct fnblk_fault *f);
/*
 * At delivery: apply the fault to bio; true if it is held back, to be
 * ended later, false if the caller ends it now.
 */
bool fnblk_fault_deliver_locked(struct fnblk_dev *dev, struct fnblk_fault *f,
				struct bio *bio, u64 submit_ns, u64 now);
/* Rules: add (id set on return), delete one (id) or all (0), iterate. */
int fnblk_fault_add(struct fnblk_dev *dev, struct fnblk_fault_rule *r,
		    const char **err);
int fnblk_fault_del(struct fnblk_dev *dev, u32 id, const char **err);
struct fnblk_fault_rule *fnblk_fault_next(struct fnblk_dev *dev, u32 after);
void fnblk_faults_reset(struct fnblk_dev *dev);
/* End every held request and delete every rule (device going away). */
void fnblk_faults_destroy(struct fnblk_dev *dev);

/* stats.c */
struct fnblk_snapshot {
	u64 time_ns;
	u64 elapsed_ns;
	struct fnblk_stats st;
	u32 nr_active;
	u32 peak_active;
	u32 nr_users;
	u32 inflight;
	u64 users_retired;
	u64 user_overflows;
	u64 activations;
	u64 n_time_sum;
	u64 n_hist[FNBLK_NHIST_BINS];
	u64 events;
};

void fnblk_stats_complete(struct fnblk_dev *dev, struct fnblk_io *io,
			  struct fnblk_dev_user *u);
/* Count a request of u that the fast path took, without dev->lock. */
void fnblk_stats_fast(struct fnblk_dev *dev, struct fnblk_dev_user *u,
		      int dir, u32 bytes, bool kthread);
void fnblk_stats_snapshot(struct fnblk_dev *dev, struct fnblk_snapshot *snap);
void fnblk_stats_reset(struct fnblk_dev *dev);

/* netlink.c */
int fnblk_netlink_init(void);
void fnblk_netlink_exit(void);
void fnblk_event_dev(struct fnblk_dev *dev, u8 cmd);
void fnblk_event_user_locked(struct fnblk_dev *dev, struct fnblk_dev_user *u,
			     bool active, u64 t);

#endif /* FNBLK_H */
