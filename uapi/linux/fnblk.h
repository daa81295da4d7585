/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/fnblk.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_FNBLK_H
#define _UAPI_LINUX_FNBLK_H

#define FNBLK_GENL_NAME		"fnblk"
#define FNBLK_GENL_VERSION	1

#define FNBLK_NAME_LEN			32
#define FNBLK_FN_SPEC_LEN		1024
#define FNBLK_FN_MAX			1024
#define FNBLK_FN_SHIFT			16
#define FNBLK_FN_ONE			65536
#define FNBLK_MAX_DEVICES		1024
#define FNBLK_SIZE_MAX			1099511627776
#define FNBLK_BW_MIN			1024
#define FNBLK_BW_MAX			1099511627776
#define FNBLK_LATENCY_MAX_NS		10000000000
#define FNBLK_OVERHEAD_MAX		1073741824
#define FNBLK_GRACE_MAX_NS		10000000000
#define FNBLK_MAX_USERS_DEFAULT		16384
#define FNBLK_MAX_USERS_LIMIT		1048576
#define FNBLK_NHIST_EXACT		64
#define FNBLK_NHIST_BINS		76
#define FNBLK_LHIST_BINS		40
#define FNBLK_RSIZE_SHIFT		9
#define FNBLK_RSIZE_BINS		16
#define FNBLK_WEIGHT_MAX		1000000
#define FNBLK_FAULT_PROB_ONE		1000000
#define FNBLK_FAULT_RULES_MAX		16
#define FNBLK_FAULT_TIMEOUT_NS		30000000000
#define FNBLK_FAULT_DELAY_MAX_NS	600000000000

/**
 * enum fnblk_key - Who f(n) counts as one user.
 * @FNBLK_KEY_TGID: the submitting process (default)
 * @FNBLK_KEY_PID: the submitting thread
 * @FNBLK_KEY_CGROUP: the cgroup the bio is charged to
 * @FNBLK_KEY_SINGLE: everyone is one user
 */
enum fnblk_key {
	FNBLK_KEY_TGID,
	FNBLK_KEY_PID,
	FNBLK_KEY_CGROUP,
	FNBLK_KEY_SINGLE,

	/* private: */
	__FNBLK_KEY_MAX,
	FNBLK_KEY_MAX = (__FNBLK_KEY_MAX - 1)
};

/**
 * enum fnblk_policy - How f(n)·B is shared.
 * @FNBLK_POLICY_ANON: split equally among active users (default)
 * @FNBLK_POLICY_FIFO: one request at a time, in arrival order, at f(1)·B
 * @FNBLK_POLICY_WEIGHTED: split by per-user weight
 */
enum fnblk_policy {
	FNBLK_POLICY_ANON,
	FNBLK_POLICY_FIFO,
	FNBLK_POLICY_WEIGHTED,

	/* private: */
	__FNBLK_POLICY_MAX,
	FNBLK_POLICY_MAX = (__FNBLK_POLICY_MAX - 1)
};

/**
 * enum fnblk_users - Which requests share the f(n) pool.
 * @FNBLK_USERS_ALL: reads and writes (default)
 * @FNBLK_USERS_WRITES: writes only; reads are not counted in n
 */
enum fnblk_users {
	FNBLK_USERS_ALL,
	FNBLK_USERS_WRITES,

	/* private: */
	__FNBLK_USERS_MAX,
	FNBLK_USERS_MAX = (__FNBLK_USERS_MAX - 1)
};

/**
 * enum fnblk_store - Where the data live.
 * @FNBLK_STORE_MEMORY: sparse pages, allocated on first write
 * @FNBLK_STORE_NONE: data discarded, reads return zeros
 */
enum fnblk_store {
	FNBLK_STORE_MEMORY,
	FNBLK_STORE_NONE,

	/* private: */
	__FNBLK_STORE_MAX,
	FNBLK_STORE_MAX = (__FNBLK_STORE_MAX - 1)
};

/**
 * enum fnblk_cache_mode - The write cache. Both advertise a volatile cache and
 *   FUA, so file systems send flushes, which cost a request each.
 * @FNBLK_CACHE_DURABLE: a completed write is durable (default)
 * @FNBLK_CACHE_VOLATILE: durable once flushed or written FUA; dev-crash loses
 *   the rest
 */
enum fnblk_cache_mode {
	FNBLK_CACHE_DURABLE,
	FNBLK_CACHE_VOLATILE,

	/* private: */
	__FNBLK_CACHE_MAX,
	FNBLK_CACHE_MAX = (__FNBLK_CACHE_MAX - 1)
};

/**
 * enum fnblk_user_bucket - Records of a user dump that are not one user: after
 *   the users, by key, come the totals of the users freed since the last reset
 *   (retired) and the requests of users that found the table full (overflow),
 *   each only once it holds something. The sums over every record equal the
 *   device's.
 * @FNBLK_BUCKET_NONE: a user (the record has a key)
 * @FNBLK_BUCKET_RETIRED: users freed; their totals
 * @FNBLK_BUCKET_OVERFLOW: one shared user, while the table is full
 */
enum fnblk_user_bucket {
	FNBLK_BUCKET_NONE,
	FNBLK_BUCKET_RETIRED,
	FNBLK_BUCKET_OVERFLOW,

	/* private: */
	__FNBLK_BUCKET_MAX,
	FNBLK_BUCKET_MAX = (__FNBLK_BUCKET_MAX - 1)
};

/**
 * enum fnblk_fault_op - Fault injection rules (fault attribute set). A rule
 *   matches requests of its op that overlap [start, start + len) (len 0: the
 *   whole device) and fires on every every-th of them, each time with
 *   probability prob (parts per million), as many times as times says (0: no
 *   limit).
 * @FNBLK_FAULT_ANY: every request
 * @FNBLK_FAULT_READ: reads
 * @FNBLK_FAULT_WRITE: everything but reads: flush and discard too
 */
enum fnblk_fault_op {
	FNBLK_FAULT_ANY,
	FNBLK_FAULT_READ,
	FNBLK_FAULT_WRITE,
};

/**
 * enum fnblk_fault_error - What a fault rule does to the requests it hits.
 * @FNBLK_FAULT_NONE: nothing (not a valid rule)
 * @FNBLK_FAULT_EIO: fails with EIO when it completes
 * @FNBLK_FAULT_TIMEOUT: fails with ETIMEDOUT delay-ns after submission
 * @FNBLK_FAULT_DELAY: completes delay-ns late
 */
enum fnblk_fault_error {
	FNBLK_FAULT_NONE,
	FNBLK_FAULT_EIO,
	FNBLK_FAULT_TIMEOUT,
	FNBLK_FAULT_DELAY,

	/* private: */
	__FNBLK_FAULT_MAX,
	FNBLK_FAULT_MAX = (__FNBLK_FAULT_MAX - 1)
};

enum fnblk_attr {
	FNBLK_A_UNSPEC,
	FNBLK_A_PAD,
	FNBLK_A_DEV_ID,
	FNBLK_A_DEV_NAME,
	FNBLK_A_SIZE,
	FNBLK_A_BW,
	FNBLK_A_FN,
	FNBLK_A_FN_TABLE,
	FNBLK_A_LATENCY_NS,
	FNBLK_A_OVERHEAD,
	FNBLK_A_KEY,
	FNBLK_A_POLICY,
	FNBLK_A_USERS,
	FNBLK_A_GRACE_NS,
	FNBLK_A_STORE,
	FNBLK_A_STATS,
	FNBLK_A_USER,
	FNBLK_A_EVT_TIME_NS,
	FNBLK_A_EVT_USER_KEY,
	FNBLK_A_EVT_NR_ACTIVE,
	FNBLK_A_EVT_SEQ,
	FNBLK_A_EVT_KTHREAD,
	FNBLK_A_NR_ACTIVE,
	FNBLK_A_MAX_USERS,
	FNBLK_A_EVT_OVERFLOW,
	FNBLK_A_CACHE,
	FNBLK_A_FAULT,

	__FNBLK_A_MAX,
	FNBLK_A_MAX = (__FNBLK_A_MAX - 1)
};

enum fnblk_stat {
	FNBLK_STAT_UNSPEC,
	FNBLK_STAT_PAD,
	FNBLK_STAT_TIME_NS,
	FNBLK_STAT_ELAPSED_NS,
	FNBLK_STAT_READ_OPS,
	FNBLK_STAT_READ_BYTES,
	FNBLK_STAT_WRITE_OPS,
	FNBLK_STAT_WRITE_BYTES,
	FNBLK_STAT_FLUSH_OPS,
	FNBLK_STAT_DISCARD_OPS,
	FNBLK_STAT_DISCARD_BYTES,
	FNBLK_STAT_KTHREAD_OPS,
	FNBLK_STAT_KTHREAD_BYTES,
	FNBLK_STAT_ERRORS,
	FNBLK_STAT_NR_ACTIVE,
	FNBLK_STAT_PEAK_ACTIVE,
	FNBLK_STAT_ACTIVATIONS,
	FNBLK_STAT_NR_USERS,
	FNBLK_STAT_N_TIME_SUM,
	FNBLK_STAT_N_HIST,
	FNBLK_STAT_LAT_HIST,
	FNBLK_STAT_QUEUE_HIST,
	FNBLK_STAT_LAT_SUM_NS,
	FNBLK_STAT_QUEUE_SUM_NS,
	FNBLK_STAT_INFLIGHT,
	FNBLK_STAT_EVENTS,
	FNBLK_STAT_USERS_RETIRED,
	FNBLK_STAT_USER_OVERFLOWS,
	FNBLK_STAT_STORE_BYTES,
	FNBLK_STAT_DIRTY_BYTES,
	FNBLK_STAT_CRASHES,
	FNBLK_STAT_CRASH_LOST_BYTES,
	FNBLK_STAT_FAULT_EIO,
	FNBLK_STAT_FAULT_TIMEOUT,
	FNBLK_STAT_FAULT_DELAY,
	FNBLK_STAT_READ_SIZE_HIST,
	FNBLK_STAT_WRITE_SIZE_HIST,

	__FNBLK_STAT_MAX,
	FNBLK_STAT_MAX = (__FNBLK_STAT_MAX - 1)
};

enum fnblk_user_attr {
	FNBLK_USER_UNSPEC,
	FNBLK_USER_PAD,
	FNBLK_USER_KEY,
	FNBLK_USER_KTHREAD,
	FNBLK_USER_ACTIVE,
	FNBLK_USER_WEIGHT,
	FNBLK_USER_READ_OPS,
	FNBLK_USER_READ_BYTES,
	FNBLK_USER_WRITE_OPS,
	FNBLK_USER_WRITE_BYTES,
	FNBLK_USER_ACTIVE_NS,
	FNBLK_USER_WAIT_NS,
	FNBLK_USER_ACTIVATIONS,
	FNBLK_USER_BUCKET,
	FNBLK_USER_COUNT,

	__FNBLK_USER_MAX,
	FNBLK_USER_MAX = (__FNBLK_USER_MAX - 1)
};

enum fnblk_fault_attr {
	FNBLK_FAULT_UNSPEC,
	FNBLK_FAULT_PAD,
	FNBLK_FAULT_ID,
	FNBLK_FAULT_OP,
	FNBLK_FAULT_PROB,
	FNBLK_FAULT_EVERY,
	FNBLK_FAULT_TIMES,
	FNBLK_FAULT_START,
	FNBLK_FAULT_LEN,
	FNBLK_FAULT_ERROR,
	FNBLK_FAULT_DELAY_NS,
	FNBLK_FAULT_MATCHED,
	FNBLK_FAULT_INJECTED,

	__FNBLK_FAULT_ATTR_MAX,
	FNBLK_FAULT_ATTR_MAX = (__FNBLK_FAULT_ATTR_MAX - 1)
};

enum fnblk_cmd {
	FNBLK_CMD_DEV_ADD = 1,
	FNBLK_CMD_DEV_DEL,
	FNBLK_CMD_DEV_GET,
	FNBLK_CMD_DEV_SET,
	FNBLK_CMD_STATS_GET,
	FNBLK_CMD_STATS_RESET,
	FNBLK_CMD_USER_GET,
	FNBLK_CMD_USER_SET,
	FNBLK_CMD_EVT_USER_ACTIVE,
	FNBLK_CMD_EVT_USER_IDLE,
	FNBLK_CMD_EVT_DEV_ADDED,
	FNBLK_CMD_EVT_DEV_REMOVED,
	FNBLK_CMD_EVT_DEV_CHANGED,
	FNBLK_CMD_DEV_CRASH,
	FNBLK_CMD_FAULT_ADD,
	FNBLK_CMD_FAULT_DEL,
	FNBLK_CMD_FAULT_GET,

	__FNBLK_CMD_MAX,
	FNBLK_CMD_MAX = (__FNBLK_CMD_MAX - 1)
};

#define FNBLK_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_FNBLK_H */
