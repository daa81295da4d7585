/* SPDX-License-Identifier: GPL-2.0 */
/* Error messages as every fnblk program words them. */
#ifndef FNBLK_DIAG_H
#define FNBLK_DIAG_H

#include <stddef.h>

/* Format a message into err (errlen bytes) for the caller to report; -1. */
int fnblk_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "PROG: message" and a pointer to --help on stderr; returns 2. */
int fnblk_usage_error(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* FNBLK_DIAG_H */
