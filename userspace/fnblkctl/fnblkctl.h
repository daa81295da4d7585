/* SPDX-License-Identifier: GPL-2.0 */
/* fnblkctl: what the per-object command files share. */
#ifndef FNBLKCTL_H
#define FNBLKCTL_H

#include <stdbool.h>

#include "cli.h"
#include "fnblk.h"

/* -j, before or after the object. */
extern bool ctl_json;

/* "fnblkctl: <message>" on stderr, then a hint; returns CLI_EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "fnblkctl: <message>" on stderr; returns CLI_EXIT_FAILURE. */
int runtime_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A failed libfnblk call: "fnblkctl: kernel: <extack>" when the kernel
 * explained, else "fnblkctl: <what>: <error>". Returns CLI_EXIT_FAILURE.
 */
int nl_error(struct fnblk *h, const char *what);

/* The netlink handle, opened on first use; exits 1 if that fails. */
struct fnblk *ctl_handle(void);
/*
 * Parse an object's options (p, libfnblk's cli); afterwards (*argv)[1..]
 * are its operands and the printer knows -j. CLI_CONTINUE, or the status
 * to exit with.
 */
int object_args(const struct cli_program *p, int *argc, char ***argv);
/* One per object; argv[0] is the object's own name. */
int do_dev(int argc, char **argv);
int do_stats(int argc, char **argv);
int do_users(int argc, char **argv);
int do_weight(int argc, char **argv);
int do_monitor(int argc, char **argv);
int do_top(int argc, char **argv);
int do_json(int argc, char **argv);
int do_fault(int argc, char **argv);

/* Shared by users and top: is it the same user (or bucket)? */
bool same_user(const struct fnblk_user_info *a,
	       const struct fnblk_user_info *b);
/* Its key, or the bucket it is ("retired(N)", "overflow"), 12 wide. */
void print_user_key(const struct fnblk_user_info *u);

/* Shared by stats and top: the n histogram as a table with bars. */
void print_n_hist(const uint64_t *hist, const char *key);
/* Time-weighted percentile p (0..1) of the n histogram: the bin index. */
unsigned int n_hist_percentile_bin(const uint64_t *hist, double p);

#endif /* FNBLKCTL_H */
