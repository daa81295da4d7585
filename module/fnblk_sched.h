/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fnblk scheduler core: anonymous f(n) processor sharing in virtual time.
 *
 * Pure C with no kernel APIs: the same file builds into the module, the
 * host unit tests and the simulator (one model, three hosts). The host owns
 * all memory, all locking and the clock; the core never allocates, never
 * sleeps and never reads a clock. Every entry point takes "now" in ns.
 *
 * Model (Documentation/model.rst is the normative text):
 *  - a user is active from its first queued request until grace_ns after
 *    its last completion was delivered, with nothing new in flight; n is
 *    the number of active users;
 *  - every active user's head request is served at rate f(n)*B/n (weighted:
 *    f(n)*B*w/sum(w)); a user's requests are served in order; a request's
 *    demand is its size plus the per-request overhead;
 *  - after service a request completes latency_ns later, and is delivered
 *    once the host has also moved its data (fnblk_sched_data_done), so the
 *    copy overlaps the emulated service as a real device's transfer does.
 *
 * Virtual time V advances at the per-user rate, so a request's finish tag,
 * fixed at submission, stays right whatever n does later; one pairing heap
 * of flows keyed by their head's tag gives the next completion in O(log n).
 *
 * Build fnblk_sched.c together with fnblk_fn.c (f(n) parsing and printing).
 */
#ifndef FNBLK_SCHED_H
#define FNBLK_SCHED_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
/* The compiler's own names for the <stdint.h> types, under kernel names. */
typedef __UINT8_TYPE__ u8;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
#endif

#include "../uapi/linux/fnblk.h"

#define FNBLK_NEVER		((u64)~0ULL)
/* Latest time the core names for an event (the kernel's KTIME_MAX). */
#define FNBLK_TIME_MAX		((u64)0x7fffffffffffffffULL)
#define FNBLK_DEFAULT_BW	104857600ULL	/* 100 MiB/s */
/*
 * A synchronous writer leaves a gap between one request leaving the
 * bandwidth stage and its next submission: the latency plus its own
 * turnaround (microseconds on hardware, up to about a millisecond in an
 * emulated guest). 2 ms covers that gap, so a checkpoint written one
 * request at a time counts as one activity period, while staying far
 * below the compute phases (seconds) that separate checkpoints.
 */
#define FNBLK_DEFAULT_GRACE_NS	2000000ULL
#define FNBLK_FN_VAL_MAX	(1024U << FNBLK_FN_SHIFT)

/* Intrusive circular doubly linked list. */
struct fnblk_link {
	struct fnblk_link *next, *prev;
};

/* Intrusive pairing-heap node. */
struct fnblk_hnode {
	struct fnblk_hnode *child, *sibling;
	u64 key;
};

/* f(1..nr); f(n) for n > nr is val[nr - 1]. Fixed point FNBLK_FN_SHIFT. */
struct fnblk_fn {
	u32 nr;
	u32 val[FNBLK_FN_MAX];
};

struct fnblk_params {
	u64 bw;			/* B in bytes/s; 0 = unthrottled */
	u64 latency_ns;		/* added after service */
	u64 overhead;		/* bytes of demand added to every request */
	u64 grace_ns;		/* idle grace before a user leaves n */
	u8 policy;		/* enum fnblk_policy */
	u8 users;		/* enum fnblk_users */
	struct fnblk_fn fn;
};

/*
 * A flow is what the bandwidth stage serves: each user's own flow under
 * anon and weighted, one shared flow under fifo.
 */
struct fnblk_flow {
	struct fnblk_link queue;	/* requests in the bandwidth stage */
	struct fnblk_hnode hnode;	/* in sched->flows, key = head tag */
	u64 tail_tag;			/* finish tag of the last queued */
	u32 nr_queued;
};

/* One user, as f(n) counts them. Embedded in the host's user object. */
struct fnblk_user {
	u64 key;
	struct fnblk_flow flow;
	struct fnblk_link grace;	/* on sched->grace while idling */
	u64 idle_ns;			/* its last completion was delivered */
	u64 done_vtime;			/* V when a request of it last completed */
	u64 leave_vtime;		/* V when its last request left the bw stage */
	u64 active_since_ns;
	u64 active_ns;			/* completed active periods */
	u64 activations;
	u32 weight;			/* 1..FNBLK_WEIGHT_MAX; weighted only */
	u32 nr_queued;			/* in the bandwidth stage */
	u32 nr_pending;			/* shared requests not yet delivered */
	bool active;
	bool in_grace;			/* active, nothing in flight */
};

/* One request. Embedded in the host's request object. */
struct fnblk_req {
	struct fnblk_link link;		/* in its flow's queue */
	struct fnblk_hnode hnode;	/* in sched->delay, key = due time */
	struct fnblk_user *user;
	struct fnblk_flow *flow;
	u64 bytes;
	u64 tag;			/* virtual finish tag */
	u64 late_v;			/* V past the tag when it left */
	u64 submit_ns;
	u64 start_ns;			/* service started */
	u64 leave_ns;			/* left the bandwidth stage */
	u64 due_ns;			/* completes (leave + latency) */
	u64 done_ns;			/* delivered to the host */
	bool write;
	bool shared;			/* counted in n and served by f(n) */
	/*
	 * Set by the host before submission when it moves the data itself
	 * and will call fnblk_sched_data_done(); the request is delivered
	 * when both its service and its data are done.
	 */
	bool data_pending;
	bool served;			/* due, waiting for its data */
};

struct fnblk_sched;

/*
 * Callbacks run inside fnblk_sched_submit/run/configure with the host's
 * lock held; they must not call back into the scheduler.
 */
struct fnblk_sched_ops {
	/*
	 * rq is delivered at rq->done_ns (its service ended at leave_ns, its
	 * latency at due_ns, its data had moved); the host may free it.
	 */
	void (*complete)(struct fnblk_sched *s, struct fnblk_req *rq);
	/* u became active or idle at time t; s->nr_active is the new n. */
	void (*activity)(struct fnblk_sched *s, struct fnblk_user *u,
			 bool active, u64 t);
	/*
	 * Optional, for tracing (NULL: never called, so hosts that do not
	 * trace pay nothing): rq's service began at rq->start_ns; rq left
	 * the bandwidth stage at rq->leave_ns. A request outside the pool
	 * is served at the full rate from its submission, so both are known,
	 * and reported, then.
	 */
	void (*start)(struct fnblk_sched *s, const struct fnblk_req *rq);
	void (*depart)(struct fnblk_sched *s, const struct fnblk_req *rq);
	/*
	 * Optional, for a host that takes some requests past the core (the
	 * module's fast path, Documentation/model.rst "Requests past the
	 * core"): u's grace, counted from u->idle_ns, is due. Return the
	 * delivery time of u's last request the core did not see, if later
	 * than u->idle_ns (its grace then runs from that time), or else
	 * u->idle_ns, after which the host takes no such request of u until
	 * the core has seen one again: u leaves n.
	 */
	u64 (*grace_end)(struct fnblk_sched *s, struct fnblk_user *u);
};

struct fnblk_sched {
	struct fnblk_params p;
	const struct fnblk_sched_ops *ops;
	void *priv;			/* for the host */

	struct fnblk_hnode *flows;	/* backlogged flows by head tag */
	struct fnblk_hnode *delay;	/* requests by due time */
	struct fnblk_link grace;	/* idling users, oldest first */
	struct fnblk_flow fifo;		/* the shared flow of policy fifo */

	u64 now;			/* time of the last update */
	u64 deliver_ns;			/* time of the host's current call */
	u64 vtime;			/* V, in 1/256 byte per unit weight */
	u64 vfrac;			/* fraction of V, 32 bits */
	u64 rate;			/* dV/dt in V units per ns << 32 */
	u64 wsum;			/* sum of active users' weights */
	u32 nr_active;			/* n */
	u32 nr_backlogged;		/* flows in the heap */
	u32 nr_inflight;		/* submitted, not completed */

	/* Accounting since init or the last reset. */
	u64 stats_since_ns;
	u32 peak_active;
	u64 activations;
	u64 n_time_sum;			/* integral of n dt, ns */
	u64 n_hist[FNBLK_NHIST_BINS];	/* ns spent at each n */
};

/* Names of the uapi's enumerated settings, as every tool spells them. */
extern const char *const fnblk_key_names[__FNBLK_KEY_MAX];
extern const char *const fnblk_policy_names[__FNBLK_POLICY_MAX];
extern const char *const fnblk_users_names[__FNBLK_USERS_MAX];
extern const char *const fnblk_store_names[__FNBLK_STORE_MAX];
extern const char *const fnblk_cache_names[__FNBLK_CACHE_MAX];

/* Parse "constant", "linear:K", "power:A", "table:f1,f2,..." into fn. */
int fnblk_fn_parse(const char *spec, struct fnblk_fn *fn, const char **err);
/* Canonical spec text of fn into buf (size len); returns the length. */
int fnblk_fn_format(const struct fnblk_fn *fn, char *buf, unsigned int len);
/* f(n) in fixed point, n >= 1. */
u32 fnblk_fn_value(const struct fnblk_fn *fn, u32 n);
#define FNBLK_EBUSY	16	/* same values as the kernel's errno */
#define FNBLK_EINVAL	22
/* The model's defaults: 100 MiB/s, constant f, anon, all, 2 ms grace. */
void fnblk_params_default(struct fnblk_params *p);
/* Validate a parameter set; returns 0 or -FNBLK_EINVAL with err set. */
int fnblk_params_check(const struct fnblk_params *p, const char **err);
/* Bin of the n histogram that holds n. */
unsigned int fnblk_nhist_bin(u32 n);

void fnblk_sched_init(struct fnblk_sched *s, const struct fnblk_params *p,
		      const struct fnblk_sched_ops *ops, void *priv, u64 now);
/*
 * Change parameters live. Requests already queued keep their finish tags;
 * the new rate applies from now. Policy and users may change only while
 * nothing is in flight (returns -FNBLK_EBUSY).
 */
int fnblk_sched_configure(struct fnblk_sched *s, const struct fnblk_params *p,
			  u64 now);
void fnblk_user_init(struct fnblk_user *u, u64 key);
/*
 * Queue rq (bytes, write and data_pending set by the host) for user u at
 * time now. Completions are delivered at the time of the host's call that
 * processes them: the grace of a user runs from then.
 */
void fnblk_sched_submit(struct fnblk_sched *s, struct fnblk_user *u,
			struct fnblk_req *rq, u64 now);
/*
 * The host has moved rq's data at time now; rq is delivered now if its
 * service and latency are over, else when they are.
 */
void fnblk_sched_data_done(struct fnblk_sched *s, struct fnblk_req *rq,
			   u64 now);
/* Process every event up to now. */
void fnblk_sched_run(struct fnblk_sched *s, u64 now);
/* Absolute time of the next event, or FNBLK_NEVER. */
u64 fnblk_sched_next_event(const struct fnblk_sched *s);
/* Change u's weight (weighted policy); applies to requests queued later. */
void fnblk_sched_set_weight(struct fnblk_sched *s, struct fnblk_user *u,
			    u32 weight, u64 now);
/* Zero the device accounting (the host resets each user too). */
void fnblk_sched_reset_stats(struct fnblk_sched *s, u64 now);
/* Zero a user's accounting; an active period restarts at now. */
void fnblk_user_reset_stats(struct fnblk_user *u, u64 now);
/* Active time of u up to now, including a period in progress. */
u64 fnblk_user_active_ns(const struct fnblk_user *u, u64 now);

#endif /* FNBLK_SCHED_H */
