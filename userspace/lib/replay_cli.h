/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options fnblk-replay and fnblk-sim replay share, in one table with
 * one help text, so the emulation and its prediction take the same
 * settings by the same names (Documentation/replay.rst), and record them
 * as the same "# param" lines.
 */
#ifndef FNBLK_REPLAY_CLI_H
#define FNBLK_REPLAY_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "events.h"
#include "fleet.h"
#include "replay.h"

struct replay_cli {
	struct replay_config rc;
	unsigned int stagein;		/* enum replay_stagein_policy */
	unsigned int assign;		/* enum replay_assign */
	bool ignore_record_failures;
	uint64_t bs;			/* request size, a multiple of 4 KiB */
	unsigned int qd;		/* requests in flight per job */
	const char *locality_path;	/* --locality FILE */
};

/* Defaults: replay_config_default(), assignment as recorded, 1 MiB, 4. */
void replay_cli_init(struct replay_cli *a);
/* Set a->rc from the choices; 0, or -1 with *why. */
int replay_cli_finish(struct replay_cli *a, const char **why);
/*
 * Every setting as a "# param" line of e, under its option's name. 0, or
 * -1 when out of memory.
 */
int replay_cli_params(const struct replay_cli *a, struct fnblk_events *e);
/*
 * Set the option name (a param line read back) to value: 0, -1 with err
 * when the value is bad, 1 when name is not a replay option. Call
 * replay_cli_finish() after the last.
 */
int replay_cli_set(struct replay_cli *a, const char *name, const char *value,
		   char *err, size_t errlen);

struct replay_locality;

/*
 * The locality map of --locality (none: loc stays empty), its sites named
 * among names[0..nr). 0, or -1 with err.
 */
int replay_cli_locality(const struct replay_cli *a, const char *const *names,
			unsigned int nr, struct replay_locality *loc, char *err,
			size_t errlen);

/* For REPLAY_CLI_OPTIONS. */
const char *replay_cli_stagein_choice(unsigned int i);
const char *replay_cli_assign_choice(unsigned int i);
int replay_cli_set_scale(void *ctx, const struct cli_option *o,
			 const char *arg, char *err, size_t errlen);
const char *replay_cli_show_scale(void *ctx, const struct cli_option *o,
				  char *buf, size_t len);
int replay_cli_set_fail(void *ctx, const struct cli_option *o,
			const char *arg, char *err, size_t errlen);
const char *replay_cli_show_fail(void *ctx, const struct cli_option *o,
				 char *buf, size_t len);

/*
 * The options, for a table of cli_option; a (a struct replay_cli *) must
 * also be the ctx of their group.
 */
#define REPLAY_CLI_OPTIONS(a)						\
	{ .name = "assign", .arg = "POLICY", .type = CLI_CHOICE,	\
	  .var = &(a)->assign, .choice = replay_cli_assign_choice,	\
	  .help = "where a job runs: recorded (its record's site), "	\
		  "random, least-loaded (fewest running and queued jobs " \
		  "per slot when it arrives) or data-local (the least "	\
		  "loaded of the sites --locality gives its category)" }, \
	{ .name = "locality", .arg = "FILE", .type = CLI_STRING,	\
	  .var = &(a)->locality_path, .dflt = "data at every site",	\
	  .help = "where each category's input data are: lines "	\
		  "'CATEGORY SITE[,SITE]...'; a job away from its data "	\
		  "reads its input remotely" },				\
	{ .name = "stagein", .arg = "MODE", .type = CLI_CHOICE,	\
	  .var = &(a)->stagein, .choice = replay_cli_stagein_choice,	\
	  .help = "recorded (the record's transfertype; empty = copy), " \
		  "direct (read the input during the payload) or copy "	\
		  "(read it all first)" },				\
	{ .name = "time-scale", .arg = "X", .type = CLI_CALL,		\
	  .set = replay_cli_set_scale, .show = replay_cli_show_scale,	\
	  .help = "record seconds per replayed second" },		\
	{ .name = "byte-scale", .arg = "X", .type = CLI_CALL,		\
	  .set = replay_cli_set_scale, .show = replay_cli_show_scale,	\
	  .help = "record bytes per replayed byte (then rounded up to "	\
		  "4KiB)" },						\
	{ .name = "chunks", .arg = "N", .type = CLI_UINT,		\
	  .var = &(a)->rc.max_chunks, .min = 1, .max = REPLAY_MAX_CHUNKS, \
	  .help = "a direct job reads its input in as many pieces as it " \
		  "has files, at most N, each followed by its share of "	\
		  "the payload" },					\
	{ .name = "ckpt-period", .arg = "DUR", .type = CLI_DURATION,	\
	  .var = &(a)->rc.ckpt_period_ns,				\
	  .help = "payload compute between checkpoints (replayed time); " \
		  "0 = none" },						\
	{ .name = "ckpt-size", .arg = "SIZE", .type = CLI_SIZE,		\
	  .var = &(a)->rc.ckpt_bytes, .align = 4096,			\
	  .help = "bytes of each checkpoint" },				\
	{ .name = "fail-stagein", .arg = "P", .type = CLI_CALL,	\
	  .set = replay_cli_set_fail, .show = replay_cli_show_fail,	\
	  .help = "probability that an attempt's stage-in fails (0.05 "	\
		  "or 5%)" },						\
	{ .name = "fail-payload", .arg = "P", .type = CLI_CALL,	\
	  .set = replay_cli_set_fail, .show = replay_cli_show_fail,	\
	  .help = "probability that an attempt's payload fails" },	\
	{ .name = "fail-stageout", .arg = "P", .type = CLI_CALL,	\
	  .set = replay_cli_set_fail, .show = replay_cli_show_fail,	\
	  .help = "probability that an attempt's stage-out fails" },	\
	{ .name = "ignore-record-failures", .type = CLI_FLAG,		\
	  .var = &(a)->ignore_record_failures,				\
	  .help = "replay failed records as if they had succeeded (by "	\
		  "default every attempt of a job whose record failed "	\
		  "fails in its payload)" },				\
	{ .name = "attempts", .arg = "N", .type = CLI_UINT,		\
	  .var = &(a)->rc.max_attempts, .min = 1, .max = 100,		\
	  .help = "attempts per job before it counts as failed" },	\
	{ .name = "backoff", .arg = "DUR", .type = CLI_DURATION,	\
	  .var = &(a)->rc.backoff_ns,					\
	  .help = "wait before the second attempt; doubles for each "	\
		  "further one" },					\
	{ .name = "seed", .arg = "N", .type = CLI_U64, .var = &(a)->rc.seed, \
	  .help = "seed of the failure and random-site draws" },	\
	FLEET_OPTION_BS(&(a)->bs, "every read and write is split into " \
			"requests of SIZE"),				\
	FLEET_OPTION_QD(&(a)->qd, "requests in flight per job")

#endif /* FNBLK_REPLAY_CLI_H */
