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
	/* The request being answered: extack offsets point into it. */
	const struct nlmsghdr *req;
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

/*
 * Name the attribute at byte off of req (an extended ack's
 * NLMSGERR_ATTR_OFFS) and, from policy (its NLMSGERR_ATTR_POLICY, may be
 * NULL), the range it broke: "KEY must be 0 to 3". -1 if off is no
 * attribute of req.
 */
int fnblk_extack_where(char *out, size_t size, const struct nlmsghdr *req,
		       uint32_t off, const struct nlattr *policy);

#endif /* FNBLK_NL_INTERNAL_H */
