/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * fnblk: block devices whose bandwidth is shared anonymously.
 *
 * Generic netlink family "fnblk", version 1. Every request and reply uses
 * the flat attribute space enum fnblk_attr; counters are nested under
 * FNBLK_A_STATS (enum fnblk_stat) and per-user records under FNBLK_A_USER
 * (enum fnblk_user_attr). Events go to the multicast group "events".
 * See Documentation/netlink.rst.
 */
#ifndef _UAPI_LINUX_FNBLK_H
#define _UAPI_LINUX_FNBLK_H

#include <linux/types.h>

#define FNBLK_GENL_NAME		"fnblk"
#define FNBLK_GENL_VERSION	1
#define FNBLK_MCGRP_EVENTS	"events"

/* Longest device name, including the terminating NUL. */
#define FNBLK_NAME_LEN		32
/* Longest f(n) specification string, including the terminating NUL. */
#define FNBLK_FN_SPEC_LEN	1024
/* Most entries f(1..K) a table may hold; beyond K the last value holds. */
#define FNBLK_FN_MAX		1024
/* f(n) values are fixed point with this many fractional bits. */
#define FNBLK_FN_SHIFT		16
#define FNBLK_FN_ONE		0x10000U	/* 1.0 */

/*
 * Limits of the settings, shared by the module's parameters, its netlink
 * validation and the tools. A value outside them is refused, never
 * truncated.
 */
#define FNBLK_MAX_DEVICES	1024			/* fnblk0..fnblk1023 */
#define FNBLK_SIZE_MAX		0x10000000000ULL	/* bytes: 1 TiB */
#define FNBLK_BW_MIN		1024ULL			/* bytes/s, unless 0 */
#define FNBLK_BW_MAX		0x10000000000ULL	/* bytes/s: 1 TiB/s */
#define FNBLK_LATENCY_MAX_NS	10000000000ULL		/* 10 s */
#define FNBLK_OVERHEAD_MAX	0x40000000ULL		/* bytes: 1 GiB */
#define FNBLK_GRACE_MAX_NS	10000000000ULL		/* 10 s */
/* Users a device keeps apart (FNBLK_A_MAX_USERS); the default and limit. */
#define FNBLK_MAX_USERS_DEFAULT	16384
#define FNBLK_MAX_USERS_LIMIT	1048576

/*
 * Histogram of n: bins 0..FNBLK_NHIST_EXACT-1 hold exactly that n; bin
 * FNBLK_NHIST_EXACT + i holds n in [64 << i, 128 << i). The last bin also
 * holds everything larger.
 */
#define FNBLK_NHIST_EXACT	64
#define FNBLK_NHIST_BINS	(FNBLK_NHIST_EXACT + 12)
/* Latency histograms: bin i holds durations in [2^i, 2^(i+1)) ns. */
#define FNBLK_LHIST_BINS	40

enum fnblk_cmd {
	FNBLK_CMD_UNSPEC,
	FNBLK_CMD_DEV_ADD,		/* config attrs; replies DEV_GET */
	FNBLK_CMD_DEV_DEL,		/* DEV_ID or DEV_NAME */
	FNBLK_CMD_DEV_GET,		/* do (DEV_ID/NAME) or dump */
	FNBLK_CMD_DEV_SET,		/* DEV_ID/NAME + config attrs, live */
	FNBLK_CMD_STATS_GET,		/* do or dump; replies carry FNBLK_A_STATS */
	FNBLK_CMD_STATS_RESET,		/* DEV_ID/NAME */
	FNBLK_CMD_USER_GET,		/* dump of one device's users */
	FNBLK_CMD_USER_SET,		/* DEV + USER nest with KEY and WEIGHT */
	/* Notifications on FNBLK_MCGRP_EVENTS */
	FNBLK_CMD_EVT_USER_ACTIVE,
	FNBLK_CMD_EVT_USER_IDLE,
	FNBLK_CMD_EVT_DEV_ADDED,
	FNBLK_CMD_EVT_DEV_REMOVED,
	FNBLK_CMD_EVT_DEV_CHANGED,
	FNBLK_CMD_DEV_CRASH,		/* DEV_ID/NAME: lose what is not durable */
	FNBLK_CMD_FAULT_ADD,		/* DEV + FAULT nest; replies FAULT_GET */
	FNBLK_CMD_FAULT_DEL,		/* DEV [+ FAULT nest with ID]; none: all */
	FNBLK_CMD_FAULT_GET,		/* dump of one device's fault rules */

	__FNBLK_CMD_MAX,
	FNBLK_CMD_MAX = __FNBLK_CMD_MAX - 1
};

/* Who f(n) counts as one user. */
enum fnblk_key {
	FNBLK_KEY_TGID,		/* the submitting process (default) */
	FNBLK_KEY_PID,		/* the submitting thread */
	FNBLK_KEY_CGROUP,	/* the cgroup the bio is charged to */
	FNBLK_KEY_SINGLE,	/* everyone is one user */
	__FNBLK_KEY_MAX
};

enum fnblk_policy {
	FNBLK_POLICY_ANON,	/* f(n)·B split equally among active users */
	FNBLK_POLICY_FIFO,	/* one request at a time, arrival order, f(1)·B */
	FNBLK_POLICY_WEIGHTED,	/* f(n)·B split by per-user weight */
	__FNBLK_POLICY_MAX
};

/* Which requests share the f(n) pool. */
enum fnblk_users {
	FNBLK_USERS_ALL,	/* reads and writes (default) */
	FNBLK_USERS_WRITES,	/* writes only; reads are not counted in n */
	__FNBLK_USERS_MAX
};

enum fnblk_store {
	FNBLK_STORE_MEMORY,	/* sparse pages, allocated on first write */
	FNBLK_STORE_NONE,	/* data discarded, reads return zeros */
	__FNBLK_STORE_MAX
};

/*
 * The write cache. Both advertise a volatile cache and FUA, so file
 * systems send flushes, which cost a request each.
 */
enum fnblk_cache_mode {
	FNBLK_CACHE_DURABLE,	/* a completed write is durable (default) */
	/* durable once flushed or written FUA; DEV_CRASH loses the rest */
	FNBLK_CACHE_VOLATILE,
	__FNBLK_CACHE_MAX
};

enum fnblk_attr {
	FNBLK_A_UNSPEC,
	FNBLK_A_PAD,
	FNBLK_A_DEV_ID,		/* u32: N of /dev/fnblkN */
	FNBLK_A_DEV_NAME,	/* string: "fnblkN" */
	FNBLK_A_SIZE,		/* u64: capacity in bytes (multiple of 4096) */
	FNBLK_A_BW,		/* u64: B in bytes/s; 0 = unthrottled */
	FNBLK_A_FN,		/* string: f(n) spec, e.g. "linear:2" */
	FNBLK_A_FN_TABLE,	/* binary, reply only: u32 f(1..K), FNBLK_FN_SHIFT */
	FNBLK_A_LATENCY_NS,	/* u64: added after service */
	FNBLK_A_OVERHEAD,	/* u64: bytes of service demand per request */
	FNBLK_A_KEY,		/* u8: enum fnblk_key */
	FNBLK_A_POLICY,		/* u8: enum fnblk_policy */
	FNBLK_A_USERS,		/* u8: enum fnblk_users */
	FNBLK_A_GRACE_NS,	/* u64: idle grace before a user leaves n */
	FNBLK_A_STORE,		/* u8: enum fnblk_store */
	FNBLK_A_STATS,		/* nest: enum fnblk_stat */
	FNBLK_A_USER,		/* nest: enum fnblk_user_attr */
	FNBLK_A_EVT_TIME_NS,	/* u64: CLOCK_MONOTONIC */
	FNBLK_A_EVT_USER_KEY,	/* u64 */
	FNBLK_A_EVT_NR_ACTIVE,	/* u32: n after the event */
	FNBLK_A_EVT_SEQ,	/* u64: per-device event sequence number */
	FNBLK_A_EVT_KTHREAD,	/* flag: the user is a kernel thread */
	FNBLK_A_NR_ACTIVE,	/* u32: n now (stats and dev replies) */
	FNBLK_A_MAX_USERS,	/* u32: users kept apart, 1..FNBLK_MAX_USERS_LIMIT */
	FNBLK_A_EVT_OVERFLOW,	/* flag: the event is the overflow bucket's */
	FNBLK_A_CACHE,		/* u8: enum fnblk_cache_mode */
	FNBLK_A_FAULT,		/* nest: enum fnblk_fault_attr */

	__FNBLK_A_MAX,
	FNBLK_A_MAX = __FNBLK_A_MAX - 1
};

enum fnblk_stat {
	FNBLK_STAT_UNSPEC,
	FNBLK_STAT_PAD,
	FNBLK_STAT_TIME_NS,		/* u64: CLOCK_MONOTONIC of the snapshot */
	FNBLK_STAT_ELAPSED_NS,		/* u64: since creation or last reset */
	FNBLK_STAT_READ_OPS,		/* u64 */
	FNBLK_STAT_READ_BYTES,		/* u64 */
	FNBLK_STAT_WRITE_OPS,		/* u64 */
	FNBLK_STAT_WRITE_BYTES,		/* u64 */
	FNBLK_STAT_FLUSH_OPS,		/* u64 */
	FNBLK_STAT_DISCARD_OPS,		/* u64 */
	FNBLK_STAT_DISCARD_BYTES,	/* u64 */
	FNBLK_STAT_KTHREAD_OPS,		/* u64: submitted by kernel threads */
	FNBLK_STAT_KTHREAD_BYTES,	/* u64 */
	FNBLK_STAT_ERRORS,		/* u64: I/O failed (e.g. no memory) */
	FNBLK_STAT_NR_ACTIVE,		/* u32: n now */
	FNBLK_STAT_PEAK_ACTIVE,		/* u32: largest n seen */
	FNBLK_STAT_ACTIVATIONS,		/* u64: idle -> active transitions */
	FNBLK_STAT_NR_USERS,		/* u32: users known (active or not) */
	FNBLK_STAT_N_TIME_SUM,		/* u64: integral of n dt, in ns */
	FNBLK_STAT_N_HIST,		/* binary: u64[FNBLK_NHIST_BINS], ns */
	FNBLK_STAT_LAT_HIST,		/* binary: u64[FNBLK_LHIST_BINS] */
	FNBLK_STAT_QUEUE_HIST,		/* binary: u64[FNBLK_LHIST_BINS] */
	FNBLK_STAT_LAT_SUM_NS,		/* u64: submission to completion */
	FNBLK_STAT_QUEUE_SUM_NS,	/* u64: submission to start of service */
	FNBLK_STAT_INFLIGHT,		/* u32: requests not yet completed */
	FNBLK_STAT_EVENTS,		/* u64: events sent so far (= last seq) */
	FNBLK_STAT_USERS_RETIRED,	/* u64: idle users freed, totals kept */
	FNBLK_STAT_USER_OVERFLOWS,	/* u64: requests of the overflow user */
	FNBLK_STAT_STORE_BYTES,		/* u64: memory holding data now */
	FNBLK_STAT_DIRTY_BYTES,		/* u64: pages written, not yet durable */
	FNBLK_STAT_CRASHES,		/* u64: FNBLK_CMD_DEV_CRASH since reset */
	FNBLK_STAT_CRASH_LOST_BYTES,	/* u64: pages they put back or dropped */
	FNBLK_STAT_FAULT_EIO,		/* u64: requests failed by a fault rule */
	FNBLK_STAT_FAULT_TIMEOUT,	/* u64: requests a rule let time out */
	FNBLK_STAT_FAULT_DELAY,		/* u64: requests a rule delayed */

	__FNBLK_STAT_MAX,
	FNBLK_STAT_MAX = __FNBLK_STAT_MAX - 1
};

enum fnblk_user_attr {
	FNBLK_USER_UNSPEC,
	FNBLK_USER_PAD,
	FNBLK_USER_KEY,			/* u64 */
	FNBLK_USER_KTHREAD,		/* flag: submitted by a kernel thread */
	FNBLK_USER_ACTIVE,		/* flag: counted in n now */
	FNBLK_USER_WEIGHT,		/* u32: weighted policy, 1..FNBLK_WEIGHT_MAX */
	FNBLK_USER_READ_OPS,		/* u64 */
	FNBLK_USER_READ_BYTES,		/* u64 */
	FNBLK_USER_WRITE_OPS,		/* u64 */
	FNBLK_USER_WRITE_BYTES,		/* u64 */
	FNBLK_USER_ACTIVE_NS,		/* u64: time counted in n */
	FNBLK_USER_WAIT_NS,		/* u64: sum of queueing delays */
	FNBLK_USER_ACTIVATIONS,		/* u64 */
	FNBLK_USER_BUCKET,		/* u8: enum fnblk_user_bucket, no KEY */
	FNBLK_USER_COUNT,		/* u64: users the retired bucket holds */

	__FNBLK_USER_MAX,
	FNBLK_USER_MAX = __FNBLK_USER_MAX - 1
};

/*
 * Records of a user dump that are not one user: after the users, by key,
 * come the totals of the users freed since the last reset (retired) and
 * the requests of users that found the table full (overflow), each only
 * once it holds something. The sums over every record equal the device's.
 */
enum fnblk_user_bucket {
	FNBLK_BUCKET_NONE,
	FNBLK_BUCKET_RETIRED,		/* users freed; their totals */
	FNBLK_BUCKET_OVERFLOW,		/* one shared user, while the table is full */
	__FNBLK_BUCKET_MAX
};

#define FNBLK_WEIGHT_MAX	1000000

/*
 * Fault injection rules (FNBLK_A_FAULT). A rule matches requests of its
 * op that overlap [START, START + LEN) (LEN 0: the whole device) and fires
 * on every EVERYth of them, each time with probability PROB (parts per
 * million), at most TIMES times (0: no limit).
 */
enum fnblk_fault_op {
	FNBLK_FAULT_ANY,
	FNBLK_FAULT_READ,
	FNBLK_FAULT_WRITE,	/* everything but reads: flush, discard too */
	__FNBLK_FAULT_OP_MAX
};

enum fnblk_fault_error {
	FNBLK_FAULT_NONE,
	FNBLK_FAULT_EIO,	/* fails with EIO when it completes */
	FNBLK_FAULT_TIMEOUT,	/* fails with ETIMEDOUT DELAY_NS after submission */
	FNBLK_FAULT_DELAY,	/* completes DELAY_NS late */
	__FNBLK_FAULT_MAX
};

enum fnblk_fault_attr {
	FNBLK_FAULT_UNSPEC,
	FNBLK_FAULT_PAD,
	FNBLK_FAULT_ID,			/* u32: given by the kernel, from 1 */
	FNBLK_FAULT_OP,			/* u8: enum fnblk_fault_op */
	FNBLK_FAULT_PROB,		/* u32: parts per million (default all) */
	FNBLK_FAULT_EVERY,		/* u32: every Nth match (default 1) */
	FNBLK_FAULT_TIMES,		/* u64: at most (default 0, no limit) */
	FNBLK_FAULT_START,		/* u64: bytes */
	FNBLK_FAULT_LEN,		/* u64: bytes; 0 the whole device */
	FNBLK_FAULT_ERROR,		/* u8: enum fnblk_fault_error */
	FNBLK_FAULT_DELAY_NS,		/* u64: delay, or timeout (30 s) */
	FNBLK_FAULT_MATCHED,		/* u64, reply: requests it matched */
	FNBLK_FAULT_INJECTED,		/* u64, reply: requests it hit */

	__FNBLK_FAULT_ATTR_MAX,
	FNBLK_FAULT_ATTR_MAX = __FNBLK_FAULT_ATTR_MAX - 1
};

#define FNBLK_FAULT_PROB_ONE		1000000
#define FNBLK_FAULT_RULES_MAX		16
#define FNBLK_FAULT_TIMEOUT_NS		30000000000ULL	/* blk-mq's default */
#define FNBLK_FAULT_DELAY_MAX_NS	600000000000ULL	/* 10 min */

#endif /* _UAPI_LINUX_FNBLK_H */
