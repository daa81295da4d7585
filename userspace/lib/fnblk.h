/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libfnblk: a small client of the fnblk generic netlink family, shared by
 * fnblkctl, fnblk-fleet and the tests. One handle holds a request socket
 * and, once fnblk_monitor_open() ran, a separate socket subscribed to the
 * "events" multicast group, so replies and notifications never interleave.
 *
 * Devices are named by a string: "fnblkN" is sent as FNBLK_A_DEV_NAME, a
 * bare number "N" as FNBLK_A_DEV_ID. Functions return 0 (or a positive
 * count) on success and a negative errno on failure; fnblk_errmsg() then
 * says why, preferring the kernel's extended-ack message.
 */
#ifndef FNBLK_H
#define FNBLK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../uapi/linux/fnblk.h"
#include "units.h"

struct fnblk;

/* Bit for an enum fnblk_attr (or fnblk_stat, fnblk_user_attr) value. */
#define FNBLK_BIT(attr)		(1ULL << (attr))

/* Device configuration; present says which fields are meant. */
struct fnblk_dev_config {
	uint64_t present;		/* FNBLK_BIT(FNBLK_A_*) per field */
	uint64_t size;			/* FNBLK_A_SIZE, bytes */
	uint64_t bw;			/* FNBLK_A_BW, bytes/s, 0 unthrottled */
	uint64_t latency_ns;		/* FNBLK_A_LATENCY_NS */
	uint64_t overhead;		/* FNBLK_A_OVERHEAD, bytes */
	uint64_t grace_ns;		/* FNBLK_A_GRACE_NS */
	uint8_t key;			/* FNBLK_A_KEY, enum fnblk_key */
	uint8_t policy;			/* FNBLK_A_POLICY, enum fnblk_policy */
	uint8_t users;			/* FNBLK_A_USERS, enum fnblk_users */
	uint8_t store;			/* FNBLK_A_STORE, enum fnblk_store */
	uint32_t max_users;		/* FNBLK_A_MAX_USERS */
	uint8_t cache;			/* FNBLK_A_CACHE, enum fnblk_cache_mode */
	char fn[FNBLK_FN_SPEC_LEN];	/* FNBLK_A_FN, f(n) spec */
};

/* A device as DEV_GET describes it. */
struct fnblk_dev_info {
	uint32_t id;
	char name[FNBLK_NAME_LEN];
	struct fnblk_dev_config cfg;	/* fn holds the canonical spec */
	uint32_t nr_active;		/* n now */
	uint32_t fn_nr;			/* entries in fn_table */
	uint32_t fn_table[FNBLK_FN_MAX];	/* f(1..fn_nr), 16.16 fixed */
};

/* A STATS_GET snapshot. Scalars are indexed by enum fnblk_stat. */
struct fnblk_stats {
	uint32_t dev_id;
	char dev_name[FNBLK_NAME_LEN];
	uint64_t present;		/* FNBLK_BIT(FNBLK_STAT_*) */
	uint64_t val[__FNBLK_STAT_MAX];
	uint64_t n_hist[FNBLK_NHIST_BINS];	/* ns spent at each n bin */
	uint64_t lat_hist[FNBLK_LHIST_BINS];
	uint64_t queue_hist[FNBLK_LHIST_BINS];
	uint64_t read_size_hist[FNBLK_RSIZE_BINS];	/* requests per size */
	uint64_t write_size_hist[FNBLK_RSIZE_BINS];
};

/*
 * One user of a device. Scalars (flags as 0/1) by enum fnblk_user_attr.
 * A record with FNBLK_USER_BUCKET set is a bucket (retired users, or the
 * overflow user), not one user, and has no FNBLK_USER_KEY.
 */
struct fnblk_user_info {
	uint32_t dev_id;
	uint64_t present;		/* FNBLK_BIT(FNBLK_USER_*) */
	uint64_t val[__FNBLK_USER_MAX];
};

/*
 * A fault rule (enum fnblk_fault_attr). For fnblk_fault_add(), present
 * says which fields are meant; the others take the kernel's defaults.
 */
struct fnblk_fault_info {
	uint32_t dev_id;
	uint64_t present;		/* FNBLK_BIT(FNBLK_FAULT_*) */
	uint32_t id;
	uint8_t op;			/* enum fnblk_fault_op */
	uint8_t error;			/* enum fnblk_fault_error */
	uint32_t prob;			/* parts per million */
	uint32_t every;
	uint64_t times, start, len, delay_ns;
	uint64_t matched, injected;	/* replies only */
};

/* A notification from the "events" group. */
struct fnblk_dev_event {
	uint8_t cmd;			/* FNBLK_CMD_EVT_* */
	uint32_t dev_id;
	char dev_name[FNBLK_NAME_LEN];
	uint64_t time_ns;		/* CLOCK_MONOTONIC */
	uint64_t seq;			/* per device; a gap means loss */
	bool has_seq;
	/* User events only: */
	uint64_t user_key;
	uint32_t nr_active;		/* n after the event */
	bool has_nr_active;
	bool kthread;
	bool overflow;			/* the overflow bucket, no key */
};

/* Callbacks of dumps; a non-zero return stops delivery and is returned. */
typedef int (*fnblk_dev_cb)(const struct fnblk_dev_info *dev, void *arg);
typedef int (*fnblk_stats_cb)(const struct fnblk_stats *st, void *arg);
typedef int (*fnblk_user_cb)(const struct fnblk_user_info *u, void *arg);
typedef int (*fnblk_fault_cb)(const struct fnblk_fault_info *f, void *arg);

/*
 * Connect and resolve the family. NULL with errno set on failure; ENOENT
 * means the family is not registered (module not loaded).
 */
struct fnblk *fnblk_open(void);
void fnblk_close(struct fnblk *h);

/* Why the last call failed: the kernel's extack text, else strerror. */
const char *fnblk_errmsg(const struct fnblk *h);
/* True when fnblk_errmsg() is the kernel's own extack message. */
bool fnblk_errmsg_is_kernel(const struct fnblk *h);

/* dev may be NULL to let the kernel pick N; out may be NULL. */
int fnblk_dev_add(struct fnblk *h, const char *dev,
		  const struct fnblk_dev_config *cfg,
		  struct fnblk_dev_info *out);
int fnblk_dev_del(struct fnblk *h, const char *dev);
int fnblk_dev_set(struct fnblk *h, const char *dev,
		  const struct fnblk_dev_config *cfg);
int fnblk_dev_get(struct fnblk *h, const char *dev,
		  struct fnblk_dev_info *out);
/* Power loss: drop what is not durable; the device is down until closed. */
int fnblk_dev_crash(struct fnblk *h, const char *dev);
int fnblk_dev_dump(struct fnblk *h, fnblk_dev_cb cb, void *arg);

int fnblk_stats_get(struct fnblk *h, const char *dev,
		    struct fnblk_stats *out);
int fnblk_stats_dump(struct fnblk *h, fnblk_stats_cb cb, void *arg);
int fnblk_stats_reset(struct fnblk *h, const char *dev);

int fnblk_users_dump(struct fnblk *h, const char *dev, fnblk_user_cb cb,
		     void *arg);
int fnblk_user_set_weight(struct fnblk *h, const char *dev, uint64_t key,
			  uint32_t weight);

/* Fault rules: add (out, if not NULL, gets the rule with its id), delete
 * one (id) or all (id 0), list. */
int fnblk_fault_add(struct fnblk *h, const char *dev,
		    const struct fnblk_fault_info *rule,
		    struct fnblk_fault_info *out);
int fnblk_fault_del(struct fnblk *h, const char *dev, uint32_t id);
int fnblk_fault_dump(struct fnblk *h, const char *dev, fnblk_fault_cb cb,
		     void *arg);

/*
 * Subscribe to the events group. rcvbuf > 0 sets the socket's receive
 * buffer (bytes; the kernel doubles it and enforces a minimum), so tests
 * can force overruns.
 */
int fnblk_monitor_open(struct fnblk *h, int rcvbuf);
/*
 * Ask the kernel not to report overruns (NETLINK_NO_ENOBUFS): drops are
 * then only visible as sequence gaps. For testing gap detection.
 */
int fnblk_monitor_no_enobufs(struct fnblk *h);
/* File descriptor to poll for events, or -1. */
int fnblk_monitor_fd(const struct fnblk *h);
/*
 * Next event: 1 with *ev filled, 0 when timeout_ms (-1 = forever) passed,
 * -ENOBUFS when the kernel dropped events because the socket buffer was
 * full (the caller should resync), other negative errno on failure.
 */
int fnblk_monitor_next(struct fnblk *h, struct fnblk_dev_event *ev,
		       int timeout_ms);

/* Names of the enum values ("tgid", "anon", ...); NULL if out of range. */
const char *fnblk_key_name(unsigned int key);
const char *fnblk_policy_name(unsigned int policy);
const char *fnblk_users_name(unsigned int users);
const char *fnblk_store_name(unsigned int store);
const char *fnblk_cache_name(unsigned int cache);
const char *fnblk_fault_op_name(unsigned int op);
const char *fnblk_fault_error_name(unsigned int error);
const char *fnblk_event_name(unsigned int cmd);
/* "retired", "overflow"; NULL for FNBLK_BUCKET_NONE (a user of its own). */
const char *fnblk_bucket_name(unsigned int bucket);
/* Inverse: the value, or -1 for an unknown name. */
int fnblk_key_value(const char *name);
int fnblk_policy_value(const char *name);
int fnblk_users_value(const char *name);
int fnblk_store_value(const char *name);
int fnblk_cache_value(const char *name);
int fnblk_fault_op_value(const char *name);
int fnblk_fault_error_value(const char *name);

/* Lowest n that histogram bin i of FNBLK_STAT_N_HIST holds. */
uint32_t fnblk_nhist_bin_low(unsigned int bin);
/* Highest n bin i holds (UINT32_MAX for the last bin). */
uint32_t fnblk_nhist_bin_high(unsigned int bin);
/* Smallest request size (bytes) bin i of the request-size histograms holds. */
uint64_t fnblk_rsize_bin_low(unsigned int bin);

#endif /* FNBLK_H */
