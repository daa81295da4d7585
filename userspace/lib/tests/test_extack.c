// SPDX-License-Identifier: GPL-2.0
/*
 * TAP tests of naming what a policy refusal was about (nl_extack.c): the
 * extended ack's offset into the request and its policy description, as
 * the kernel's netlink core sends them, become "KEY must be 0 to 3".
 */
#include <string.h>

#include <linux/netlink.h>
#include <netlink/genl/genl.h>

#include "nl_internal.h"
#include "tests/sched/tap.h"

/* Byte offset of attribute a in the message msg. */
static uint32_t offset_of(struct nl_msg *msg, const struct nlattr *a)
{
	return (uint32_t)((const char *)a - (const char *)nlmsg_hdr(msg));
}

static struct nl_msg *request(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, 16, 0, 0, cmd,
		    FNBLK_GENL_VERSION);
	return msg;
}

/* A policy description as the kernel writes it: unsigned min and max. */
static struct nlattr *range_policy(struct nl_msg *pol, uint64_t min,
				   uint64_t max)
{
	struct nlattr *nest = nla_nest_start(pol, NLMSGERR_ATTR_POLICY);

	nla_put_u32(pol, NL_POLICY_TYPE_ATTR_TYPE, NL_ATTR_TYPE_U8);
	nla_put_u64(pol, NL_POLICY_TYPE_ATTR_MIN_VALUE_U, min);
	nla_put_u64(pol, NL_POLICY_TYPE_ATTR_MAX_VALUE_U, max);
	nla_nest_end(pol, nest);
	return nest;
}

static void is_where(const struct nlmsghdr *req, uint32_t off,
		     const struct nlattr *pol, const char *want)
{
	char out[160] = "";
	int ret = fnblk_extack_where(out, sizeof(out), req, off, pol);

	if (!ok(ret == 0 && !strcmp(out, want), "offset %u: \"%s\"", off,
		want))
		diag("got %d, \"%s\"", ret, out);
}

int main(void)
{
	struct nl_msg *req = request(FNBLK_CMD_DEV_ADD);
	struct nl_msg *pol = nlmsg_alloc();
	struct nlattr *key, *nest, *weight, *p;
	char out[160];

	nla_put_u32(req, FNBLK_A_DEV_ID, 3);
	nla_put_u8(req, FNBLK_A_KEY, 9);
	key = (struct nlattr *)((char *)nlmsg_tail(nlmsg_hdr(req)) -
				NLA_HDRLEN - NLA_ALIGN(1));
	p = range_policy(pol, 0, __FNBLK_KEY_MAX - 1);
	is_where(nlmsg_hdr(req), offset_of(req, key), p, "KEY must be 0 to 3");
	is_where(nlmsg_hdr(req), offset_of(req, key), NULL, "KEY");

	/* An attribute inside the USER nest. */
	nlmsg_free(req);
	req = request(FNBLK_CMD_USER_SET);
	nla_put_string(req, FNBLK_A_DEV_NAME, "fnblk0");
	nest = nla_nest_start(req, FNBLK_A_USER);
	nla_put_u64(req, FNBLK_USER_KEY, 42);
	weight = (struct nlattr *)nlmsg_tail(nlmsg_hdr(req));
	nla_put_u32(req, FNBLK_USER_WEIGHT, 0);
	nla_nest_end(req, nest);
	nlmsg_free(pol);
	pol = nlmsg_alloc();
	p = range_policy(pol, 1, FNBLK_WEIGHT_MAX);
	is_where(nlmsg_hdr(req), offset_of(req, weight), p,
		 "USER_WEIGHT must be 1 to 1000000");
	is_where(nlmsg_hdr(req), offset_of(req, nest), NULL, "USER");

	/* An offset that is no attribute's start names nothing. */
	ok(fnblk_extack_where(out, sizeof(out), nlmsg_hdr(req),
			      offset_of(req, weight) + 2, p) < 0,
	   "an offset inside an attribute names none");
	ok(fnblk_extack_where(out, sizeof(out), nlmsg_hdr(req),
			      nlmsg_hdr(req)->nlmsg_len, p) < 0,
	   "an offset past the request names none");
	ok(fnblk_extack_where(out, sizeof(out), NULL, 20, p) < 0,
	   "no request, no name");

	nlmsg_free(req);
	nlmsg_free(pol);
	return tap_done();
}
