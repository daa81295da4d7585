/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line arguments of fnblkctl that need more than a lookup: the
 * KEY VALUE device configuration of "dev add" and "dev set", device
 * names, user keys and weights. Every parser fills err with a message
 * that names the argument and says what was wrong ("size '3Q': unknown
 * unit ..."), and returns 0 or -1. Kept apart from netlink so the host
 * tests can check every message.
 */
#ifndef FNBLKCTL_ARGS_H
#define FNBLKCTL_ARGS_H

#include <stddef.h>

#include "cli.h"
#include "fnblk.h"

/* The settings as --help and the man page list them ("size SIZE", help). */
const struct cli_term *args_setting_terms(void);

/* "fnblkN" or "N". */
int args_check_dev(const char *s, char *err, size_t errlen);

/*
 * Parse config arguments into cfg (zeroed first). With name non-NULL a
 * leading argument that is not a keyword is the device name (dev add);
 * *name stays NULL if there is none.
 */
int args_parse_config(int argc, char **argv, const char **name,
		      struct fnblk_dev_config *cfg, char *err, size_t errlen);

int args_parse_user_key(const char *s, uint64_t *key, char *err,
			size_t errlen);
int args_parse_weight(const char *s, uint32_t *weight, char *err,
		      size_t errlen);
/* A positive duration such as a refresh interval. */
int args_parse_interval(const char *what, const char *s, uint64_t *ns,
			char *err, size_t errlen);
/* Plain count in [min, max]. */
int args_parse_count(const char *what, const char *s, uint64_t min,
		     uint64_t max, uint64_t *v, char *err, size_t errlen);

/*
 * The rule of "fault add NAME ...": OP [prob P%] [every N] [times N]
 * [range START+LEN] error eio|timeout [DUR]|delay DUR (argv from OP).
 */
int args_parse_fault(int argc, char **argv, struct fnblk_fault_info *f,
		     char *err, size_t errlen);

#endif /* FNBLKCTL_ARGS_H */
