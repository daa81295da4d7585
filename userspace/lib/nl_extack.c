// SPDX-License-Identifier: GPL-2.0
/*
 * What a refusal by the netlink core's policy was about. The kernel's own
 * text is generic ("integer out of range"), but its extended ack points
 * at the attribute (NLMSGERR_ATTR_OFFS, a byte offset into the request)
 * and describes the policy it broke (NLMSGERR_ATTR_POLICY: type, range,
 * length). This turns the two into "KEY must be 0 to 3".
 */
#include <inttypes.h>
#include <stdio.h>

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "nl_internal.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Attributes a request may carry, named as in uapi/linux/fnblk.h. */
static const char *const top_names[] = {
	[FNBLK_A_DEV_ID] = "DEV_ID",
	[FNBLK_A_DEV_NAME] = "DEV_NAME",
	[FNBLK_A_SIZE] = "SIZE",
	[FNBLK_A_BW] = "BW",
	[FNBLK_A_FN] = "FN",
	[FNBLK_A_LATENCY_NS] = "LATENCY_NS",
	[FNBLK_A_OVERHEAD] = "OVERHEAD",
	[FNBLK_A_KEY] = "KEY",
	[FNBLK_A_POLICY] = "POLICY",
	[FNBLK_A_USERS] = "USERS",
	[FNBLK_A_GRACE_NS] = "GRACE_NS",
	[FNBLK_A_STORE] = "STORE",
	[FNBLK_A_USER] = "USER",
	[FNBLK_A_MAX_USERS] = "MAX_USERS",
	[FNBLK_A_CACHE] = "CACHE",
	[FNBLK_A_FAULT] = "FAULT",
};

static const char *const user_names[] = {
	[FNBLK_USER_KEY] = "USER_KEY",
	[FNBLK_USER_WEIGHT] = "USER_WEIGHT",
};

static const char *const fault_names[] = {
	[FNBLK_FAULT_ID] = "FAULT_ID",
	[FNBLK_FAULT_OP] = "FAULT_OP",
	[FNBLK_FAULT_PROB] = "FAULT_PROB",
	[FNBLK_FAULT_EVERY] = "FAULT_EVERY",
	[FNBLK_FAULT_TIMES] = "FAULT_TIMES",
	[FNBLK_FAULT_START] = "FAULT_START",
	[FNBLK_FAULT_LEN] = "FAULT_LEN",
	[FNBLK_FAULT_ERROR] = "FAULT_ERROR",
	[FNBLK_FAULT_DELAY_NS] = "FAULT_DELAY_NS",
};

static void name_attr(char *out, size_t size, int nest, int type)
{
	const char *const *names = top_names;
	size_t nr = ARRAY_SIZE(top_names);

	if (nest == FNBLK_A_USER) {
		names = user_names;
		nr = ARRAY_SIZE(user_names);
	} else if (nest == FNBLK_A_FAULT) {
		names = fault_names;
		nr = ARRAY_SIZE(fault_names);
	}
	if (type >= 0 && (size_t)type < nr && names[type])
		snprintf(out, size, "%s", names[type]);
	else if (nest)
		snprintf(out, size, "attribute %d in %s", type,
			 top_names[nest]);
	else
		snprintf(out, size, "attribute %d", type);
}

/*
 * The attribute that starts at byte off of req, top level or inside a
 * USER or FAULT nest: its type and the nest's (0 at top level).
 */
static bool find_attr(const struct nlmsghdr *req, uint32_t off, int *nest,
		      int *type)
{
	const size_t base = NLMSG_HDRLEN + GENL_HDRLEN;
	struct nlattr *a, *b;
	int rem, rem2;

	if (!req || off < base || off >= req->nlmsg_len)
		return false;
	nla_for_each_attr(a, (struct nlattr *)((char *)req + base),
			  (int)(req->nlmsg_len - base), rem) {
		size_t at = (size_t)((char *)a - (char *)req);

		if (at == off) {
			*nest = 0;
			*type = nla_type(a);
			return true;
		}
		if (off < at || off >= at + (size_t)nla_len(a) + NLA_HDRLEN ||
		    (nla_type(a) != FNBLK_A_USER &&
		     nla_type(a) != FNBLK_A_FAULT))
			continue;
		nla_for_each_nested(b, a, rem2) {
			if ((size_t)((char *)b - (char *)req) == off) {
				*nest = nla_type(a);
				*type = nla_type(b);
				return true;
			}
		}
	}
	return false;
}

/* "must be MIN to MAX" or "must be N to M bytes long" from the policy. */
static void describe_policy(char *out, size_t size, const struct nlattr *pol)
{
	struct nlattr *tb[NL_POLICY_TYPE_ATTR_MAX + 1] = { 0 };

	out[0] = '\0';
	if (!pol || nla_parse_nested(tb, NL_POLICY_TYPE_ATTR_MAX,
				     (struct nlattr *)pol, NULL) < 0)
		return;
	if (tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U] &&
	    tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U])
		snprintf(out, size, " must be %" PRIu64 " to %" PRIu64,
			 nla_get_u64(tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U]),
			 nla_get_u64(tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U]));
	else if (tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_S] &&
		 tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_S])
		snprintf(out, size, " must be %" PRId64 " to %" PRId64,
			 (int64_t)nla_get_u64(tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_S]),
			 (int64_t)nla_get_u64(tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_S]));
	else if (tb[NL_POLICY_TYPE_ATTR_MAX_LENGTH])
		snprintf(out, size, " must be at most %" PRIu32 " bytes long",
			 nla_get_u32(tb[NL_POLICY_TYPE_ATTR_MAX_LENGTH]));
}

int fnblk_extack_where(char *out, size_t size, const struct nlmsghdr *req,
		       uint32_t off, const struct nlattr *policy)
{
	char name[64], range[96];
	int nest, type;

	if (!find_attr(req, off, &nest, &type))
		return -1;
	name_attr(name, sizeof(name), nest, type);
	describe_policy(range, sizeof(range), policy);
	snprintf(out, size, "%s%s", name, range);
	return 0;
}
