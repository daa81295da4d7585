/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a job record does when it is replayed: the one mapping from a record
 * to work that fnblk-replay (on fnblk devices) and fnblk-sim replay (on the
 * same scheduler core, simulated) both follow, so a difference between the
 * two is never a difference in what the jobs were asked to do.
 * Documentation/replay.rst is the normative text.
 *
 * A job runs at one site (an fnblk device with a number of job slots) and,
 * once it has a slot, is a list of operations done in order:
 *
 *   stage-in  copy:   READ all its input (to local scratch; a remote read
 *                     when the site does not hold the job's data)
 *   payload   copy:   COMPUTE, with a checkpoint WRITE every period
 *             direct: k times READ input/k then COMPUTE payload/k (remote
 *                     reads during the payload), checkpoints as above
 *   stage-out         WRITE all its output
 *
 * The payload computes for the record's CPU time over its cores. Times are
 * divided by the time scale and bytes by the byte scale; I/O sizes are
 * rounded up to whole 4 KiB blocks, as O_DIRECT needs.
 */
#ifndef FNBLK_REPLAY_H
#define FNBLK_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobrec.h"

#define REPLAY_BLOCK		4096U
#define REPLAY_MAX_CHUNKS	1024U
/* A plan longer than this is refused: the checkpoint period is too short. */
#define REPLAY_MAX_OPS		100000U

enum replay_phase {
	REPLAY_STAGEIN,
	REPLAY_PAYLOAD,
	REPLAY_STAGEOUT,
	REPLAY_NR_PHASES,
};

enum replay_op_kind {
	REPLAY_READ,
	REPLAY_COMPUTE,
	REPLAY_WRITE,
};

/* Which stage-in mode jobs use. */
enum replay_stagein_policy {
	REPLAY_STAGEIN_RECORDED,	/* the record's; unsaid = copy */
	REPLAY_STAGEIN_DIRECT,
	REPLAY_STAGEIN_COPY,
};

struct replay_op {
	uint8_t kind;		/* enum replay_op_kind */
	uint8_t phase;		/* enum replay_phase */
	bool remote;		/* a read of input during the payload */
	bool checkpoint;	/* a write of the payload's checkpoint */
	uint64_t amount;	/* bytes, or ns of compute */
};

struct replay_config {
	double time_scale;	/* record seconds per replayed second, > 0 */
	double byte_scale;	/* record bytes per replayed byte, > 0 */
	enum replay_stagein_policy stagein;
	unsigned int max_chunks;	/* direct reads in at most this many */
	uint64_t ckpt_period_ns;	/* payload compute between checkpoints */
	uint64_t ckpt_bytes;		/* checkpoint size (replayed bytes) */
	/* Failures: probability that a phase of an attempt fails. */
	double fail[REPLAY_NR_PHASES];
	bool fail_from_records;	/* a failed record fails each attempt */
	unsigned int max_attempts;	/* >= 1 */
	uint64_t backoff_ns;	/* before attempt a+1: backoff * 2^(a-1) */
	uint64_t seed;
};

struct replay_plan {
	struct replay_op *ops;
	size_t nr;
	size_t cap;
	uint64_t in_bytes;	/* replayed input bytes */
	uint64_t out_bytes;	/* replayed output bytes */
	bool direct;
};

extern const char *const replay_phase_names[REPLAY_NR_PHASES];
extern const char *const replay_stagein_names[];

void replay_config_default(struct replay_config *c);
/* 0, or -1 with what is wrong in *why. */
int replay_config_check(const struct replay_config *c, const char **why);

/* Replayed bytes of a record's count: scaled, rounded up to blocks. */
uint64_t replay_bytes(const struct replay_config *c, uint64_t record_bytes);
/* Replayed ns of a record's seconds. */
uint64_t replay_ns(const struct replay_config *c, double record_s);

/*
 * The operations of job r at a site that holds its input data (local) or
 * not: away from its data, its stage-in reads are remote too. Reuses p's
 * memory (zero-initialise p first; replay_plan_free releases it). Returns
 * 0, or -1 with a reason in *why (out of memory, plan too long).
 */
int replay_plan_build(const struct replay_config *c, const struct jobrec *r,
		      bool local, struct replay_plan *p, const char **why);
void replay_plan_free(struct replay_plan *p);

/*
 * Does phase ph of attempt a (1-based) of job r fail at a site whose own
 * failure probabilities are site_fail (NULL, or a negative entry: the
 * config's)? A pure function of the seed, the job's id, the attempt and
 * the phase, so the emulation and the simulation draw the same failures
 * whatever order they run jobs in.
 */
bool replay_fails(const struct replay_config *c, const double *site_fail,
		  const struct jobrec *r, unsigned int attempt,
		  enum replay_phase ph);
/* Parse "fail-PHASE=P" (P as 0.05 or 5%) into fail[]; 1 if key is not one. */
int replay_site_fail_set(double *fail, const char *key, const char *value,
			 const char **why);
/* Wait before attempt a + 1 (a >= 1) after attempt a failed. */
uint64_t replay_backoff_ns(const struct replay_config *c, unsigned int a);

/* Where a job goes when it arrives (and when it is retried). */
enum replay_assign {
	REPLAY_ASSIGN_RECORDED,		/* the site its record names */
	REPLAY_ASSIGN_RANDOM,		/* uniform, drawn from seed, id, attempt */
	REPLAY_ASSIGN_LEAST_LOADED,	/* fewest (running + queued) per slot */
	REPLAY_ASSIGN_DATA_LOCAL,	/* least-loaded of the sites with its data */
	REPLAY_NR_ASSIGN,
};

extern const char *const replay_assign_names[];

/* What assignment knows of a site when a job arrives. */
struct replay_site_load {
	unsigned int running;
	unsigned int queued;
	unsigned int slots;
};

struct replay_locality;

/*
 * The site (index into sites) for attempt a of job r; recorded is the
 * index of the site its record names (REPLAY_ASSIGN_RECORDED), loc where
 * categories have their data (may be NULL: everywhere).
 */
uint32_t replay_assign_site(enum replay_assign how,
			    const struct replay_config *c,
			    const struct jobrec *r, unsigned int attempt,
			    const struct replay_site_load *sites, uint32_t nr,
			    uint32_t recorded, const struct replay_locality *loc);

/*
 * The "# param site.NAME=" value both replay tools record for a site, so
 * that a run can be simulated again: "slots=N[,fail-PHASE=P]...,bw=RATE,
 * latency=DUR,overhead=SIZE,grace=DUR,policy=P,users=U,fn=SPEC" (fn last:
 * it may hold commas; fail only where the site has its own). bw 0 is
 * "unlimited"; bw 0 with policy NULL: a device that is not fnblk, only
 * the slots and failures. Returns buf.
 */
const char *replay_site_param(char *buf, size_t len, unsigned int slots,
			      const double *fail, uint64_t bw,
			      uint64_t latency_ns, uint64_t overhead,
			      uint64_t grace_ns, const char *policy,
			      const char *users, const char *fn);

/* A uniform double in [0, 1) from a 64-bit key (splitmix64). */
double replay_uniform(uint64_t key);

#endif /* FNBLK_REPLAY_H */
