/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fnblk internals: a device's configuration, its running instance, and the
 * interfaces between the files of the module:
 *   main.c     module parameters, device registry, add/delete
 *   config.c   defaults, parsing and validation of a configuration
 *   disk.c     the gendisk and the bio submission path
 *   io.c       requests through the scheduler core, timer, completion
 *   store.c    the memory store
 *   users.c    the table of users a device has seen
 *   stats.c    counters and snapshots
 *   netlink.c  the generic netlink family and its events
 */
#ifndef FNBLK_H
#define FNBLK_H

#include <linux/bio.h>
#include <linux/bits.h>
#include <linux/hrtimer.h>
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
	char fn_spec[FNBLK_FN_SPEC_LEN]; /* f(n) as the user wrote it */
	/* bandwidth, f(n) table, latency, overhead, grace, policy, users */
	struct fnblk_params sched;
};

/* Memory behind a device: pages allocated on first write. */
struct fnblk_backing {
	struct xarray pages;		/* page index -> struct page */
	u8 kind;			/* enum fnblk_store */
	atomic_long_t nr_pages;
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
	u64 lat_sum_ns;
	u64 queue_sum_ns;
	u64 lat_hist[FNBLK_LHIST_BINS];
	u64 queue_hist[FNBLK_LHIST_BINS];
};

/* A user as the device knows it: scheduler state plus its counters. */
struct fnblk_dev_user {
	struct fnblk_user su;
	u64 ops[2];			/* read, write (incl. flush, discard) */
	u64 bytes[2];
	u64 wait_ns;			/* sum of queueing delays */
	u64 start_ns;			/* start time of the task it is, 0: any */
	u64 last_ns;			/* last request submitted */
	u32 inflight;			/* requests not yet completed */
	u32 epoch;			/* fnblk_dev.key_epoch it belongs to */
	bool kthread;			/* a kernel thread submitted for it */
	bool pinned;			/* weight set by hand: never aged out */
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

/* One bio on its way through the scheduler. */
struct fnblk_io {
	struct fnblk_req rq;
	struct bio *bio;
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
	bool reap_soon;			/* reap_work queued to run now */
	u64 serial;			/* unique per device ever added */
	u64 event_seq;
	unsigned int open_count;
	bool dying;			/* being deleted: no opens, no timer */
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
struct fnblk_dev *fnblk_dev_find_name(const char *name);
struct fnblk_dev *fnblk_dev_next(u32 *id);
int fnblk_dev_add(struct fnblk_config *cfg, int id, struct fnblk_dev **out,
		  const char **err);
int fnblk_dev_del(struct fnblk_dev *dev, const char **err);
int fnblk_dev_set(struct fnblk_dev *dev, const struct fnblk_config *cfg,
		  const char **err);

/* config.c */
void fnblk_config_default(struct fnblk_config *cfg);
int fnblk_config_check(struct fnblk_config *cfg, const char **err);
int fnblk_parse_key(const char *s, u8 *out);
int fnblk_parse_policy(const char *s, u8 *out);
int fnblk_parse_users(const char *s, u8 *out);
int fnblk_parse_store(const char *s, u8 *out);

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
void fnblk_store_init(struct fnblk_backing *st, u8 kind);
int fnblk_store_bio(struct fnblk_backing *st, struct bio *bio, gfp_t gfp);
void fnblk_store_destroy(struct fnblk_backing *st);

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
/* Stop the reaper and free every user (device being deleted). */
void fnblk_users_destroy(struct fnblk_dev *dev);

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
void fnblk_stats_snapshot(struct fnblk_dev *dev, struct fnblk_snapshot *snap);
void fnblk_stats_reset(struct fnblk_dev *dev);

/* netlink.c */
int fnblk_netlink_init(void);
void fnblk_netlink_exit(void);
void fnblk_event_dev(struct fnblk_dev *dev, u8 cmd);
void fnblk_event_user_locked(struct fnblk_dev *dev, struct fnblk_dev_user *u,
			     bool active, u64 t);

#endif /* FNBLK_H */
