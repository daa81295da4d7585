/* SPDX-License-Identifier: GPL-2.0 */
/* Private to libfnblk: the handle and helpers nl.c shares with nl_monitor.c. */
#ifndef FNBLK_NL_INTERNAL_H
#define FNBLK_NL_INTERNAL_H

#include <netlink/genl/genl.h>

#include "fnblk.h"

struct fnblk {
	struct nl_sock *sk;		/* requests and their replies */
	int family;
	/* Last failure. */
	int err;			/* positive errno */
	bool extack;			/* msg came from the kernel */
	char msg[256];
	/* Event subscription (fnblk_monitor_open). */
	struct nl_sock *mon;
	unsigned char *buf;		/* one datagram */
	size_t buflen, len, off;
};

/* Attribute validation policy of every fnblk message. */
extern struct nla_policy fnblk_attr_policy[FNBLK_A_MAX + 1];

/* Record a failure; returns -err. */
int fnblk_fail(struct fnblk *h, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* FNBLK_NL_INTERNAL_H */
