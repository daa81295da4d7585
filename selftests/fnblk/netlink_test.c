// SPDX-License-Identifier: GPL-2.0
/*
 * The fnblk generic netlink interface: configuration round trips, every
 * kind of malformed request refused with an errno and an extack message,
 * permissions, dumps larger than one message, counters that add up, the
 * event stream, and a device with thousands of simultaneous users.
 */
#include <sys/syscall.h>

#include "../kselftest_harness.h"
#include "fnblk_test.h"

#define DEV "fnblk9"
#define DEVPATH "/dev/" DEV

FIXTURE(nl) {
	struct fnl c;
};

FIXTURE_SETUP(nl)
{
	ASSERT_EQ(0, fnblk_load());
	ASSERT_EQ(0, fnl_open(&self->c));
}

FIXTURE_TEARDOWN(nl)
{
	dev_del(&self->c, DEV);
	fnl_close(&self->c);
}

struct dev_info {
	uint64_t size, bw, latency, overhead, grace;
	uint8_t key, policy, users, store;
	char name[32], fn[128];
	uint32_t table[FNBLK_FN_MAX];
	int nr_table, count;
};

static void dev_reply(struct nlattr **tb, void *arg)
{
	struct dev_info *d = arg;

	d->count++;
	if (tb[FNBLK_A_DEV_NAME])
		snprintf(d->name, sizeof(d->name), "%s",
			 nla_get_string(tb[FNBLK_A_DEV_NAME]));
	if (tb[FNBLK_A_FN])
		snprintf(d->fn, sizeof(d->fn), "%s",
			 nla_get_string(tb[FNBLK_A_FN]));
	if (tb[FNBLK_A_FN_TABLE]) {
		d->nr_table = nla_len(tb[FNBLK_A_FN_TABLE]) / 4;
		memcpy(d->table, nla_data(tb[FNBLK_A_FN_TABLE]),
		       (size_t)d->nr_table * 4);
	}
#define GET(f, a, g) (d->f = tb[a] ? g(tb[a]) : 0)
	GET(size, FNBLK_A_SIZE, nla_get_u64);
	GET(bw, FNBLK_A_BW, nla_get_u64);
	GET(latency, FNBLK_A_LATENCY_NS, nla_get_u64);
	GET(overhead, FNBLK_A_OVERHEAD, nla_get_u64);
	GET(grace, FNBLK_A_GRACE_NS, nla_get_u64);
	GET(key, FNBLK_A_KEY, nla_get_u8);
	GET(policy, FNBLK_A_POLICY, nla_get_u8);
	GET(users, FNBLK_A_USERS, nla_get_u8);
	GET(store, FNBLK_A_STORE, nla_get_u8);
#undef GET
}

static int dev_get(struct fnl *c, const char *name, struct dev_info *d)
{
	memset(d, 0, sizeof(*d));
	return fnl_send(c, fnl_dev_msg(c, FNBLK_CMD_DEV_GET, 0, name),
			dev_reply, d);
}

TEST_F(nl, add_get_set_del_round_trip)
{
	struct dev_info d;
	int i;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .size = 64 * MiB,
			.bw = 12 * MiB, .fn = "linear:3", .latency_ns = 250000,
			.overhead = 8192, .grace_ns = 5000000,
			.key = FNBLK_KEY_PID, .policy = FNBLK_POLICY_WEIGHTED,
			.users = FNBLK_USERS_WRITES,
			.store = FNBLK_STORE_NONE))) TH_LOG("%s", self->c.err);
	ASSERT_EQ(0, access(DEVPATH, F_OK));
	ASSERT_EQ(0, dev_get(&self->c, DEV, &d));
	EXPECT_STREQ(DEV, d.name);
	EXPECT_EQ(64 * MiB, d.size);
	EXPECT_EQ(12 * MiB, d.bw);
	EXPECT_STREQ("linear:3", d.fn);
	EXPECT_EQ(250000u, d.latency);
	EXPECT_EQ(8192u, d.overhead);
	EXPECT_EQ(5000000u, d.grace);
	EXPECT_EQ(FNBLK_KEY_PID, d.key);
	EXPECT_EQ(FNBLK_POLICY_WEIGHTED, d.policy);
	EXPECT_EQ(FNBLK_USERS_WRITES, d.users);
	EXPECT_EQ(FNBLK_STORE_NONE, d.store);
	ASSERT_EQ(3, d.nr_table);
	for (i = 0; i < 3; i++)
		EXPECT_EQ((uint32_t)(i + 1) << FNBLK_FN_SHIFT, d.table[i]);

	ASSERT_EQ(0, dev_set(&self->c, &DEV_CFG(.name = DEV, .bw = 0,
						 .fn = "power:0.5")));
	ASSERT_EQ(0, dev_get(&self->c, DEV, &d));
	EXPECT_EQ(0u, d.bw);
	EXPECT_EQ(FNBLK_FN_MAX, d.nr_table);
	EXPECT_EQ((uint32_t)FNBLK_FN_ONE, d.table[0]);
	EXPECT_EQ((uint32_t)(2 * FNBLK_FN_ONE), d.table[3]);	/* 4^0.5 */
	EXPECT_EQ(0, dev_del(&self->c, DEV));
	EXPECT_NE(0, access(DEVPATH, F_OK));
	EXPECT_EQ(-ENODEV, dev_get(&self->c, DEV, &d));
}

/* A request and what the kernel must say to it. */
struct bad_case {
	const char *what;
	int cmd;
	void (*build)(struct nl_msg *m);
	int err;
	const char *msg;	/* substring of the extack message */
};

static void b_bw_u32(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, DEV);
	nla_put_u32(m, FNBLK_A_BW, 1000);
}

static void b_unknown_attr(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, DEV);
	nla_put_u32(m, FNBLK_A_MAX + 5, 1);
}

static void b_fn(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, DEV);
	nla_put_string(m, FNBLK_A_FN, "quadratic");
}

static void b_table(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, DEV);
	nla_put_string(m, FNBLK_A_FN, "table:1,0,2");
}

static void b_size(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, DEV);
	nla_put_u64(m, FNBLK_A_SIZE, 1000);
}

static void b_size_zero(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, DEV);
	nla_put_u64(m, FNBLK_A_SIZE, 0);
}

static void b_key(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, DEV);
	nla_put_u8(m, FNBLK_A_KEY, 9);
}

static void b_bw_small(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, DEV);
	nla_put_u64(m, FNBLK_A_BW, 100);
}

static void b_name(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, "sda");
}

static void b_latency(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, DEV);
	nla_put_u64(m, FNBLK_A_LATENCY_NS, 3600ULL * 1000000000ULL);
}

static void b_nodev(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, "fnblk999");
}

static void b_nothing(struct nl_msg *m)
{
	(void)m;
}

static void b_weight0(struct nl_msg *m)
{
	struct nlattr *u;

	nla_put_string(m, FNBLK_A_DEV_NAME, "fnblk8");
	u = nla_nest_start(m, FNBLK_A_USER);
	nla_put_u64(m, FNBLK_USER_KEY, 1);
	nla_put_u32(m, FNBLK_USER_WEIGHT, 0);
	nla_nest_end(m, u);
}

static void b_weight_nokey(struct nl_msg *m)
{
	struct nlattr *u;

	nla_put_string(m, FNBLK_A_DEV_NAME, "fnblk8");
	u = nla_nest_start(m, FNBLK_A_USER);
	nla_put_u32(m, FNBLK_USER_WEIGHT, 2);
	nla_nest_end(m, u);
}

static void b_set_size(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, "fnblk8");
	nla_put_u64(m, FNBLK_A_SIZE, 8 * MiB);
}

static void b_set_store(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, "fnblk8");
	nla_put_u8(m, FNBLK_A_STORE, FNBLK_STORE_NONE);
}

static void b_dup(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, "fnblk8");
}

/* Deleting "fnblk9" by name, with the id of fnblk8: neither goes. */
static void b_id_name(struct nl_msg *m)
{
	nla_put_u32(m, FNBLK_A_DEV_ID, 8);
	nla_put_string(m, FNBLK_A_DEV_NAME, DEV);
}

static void b_add_id_name(struct nl_msg *m)
{
	nla_put_u32(m, FNBLK_A_DEV_ID, 9);
	nla_put_string(m, FNBLK_A_DEV_NAME, "fnblk10");
}

static void b_zero_name(struct nl_msg *m)
{
	nla_put_string(m, FNBLK_A_DEV_NAME, "fnblk08");
}

static const struct bad_case bad_cases[] = {
	{ "bw as u32", FNBLK_CMD_DEV_ADD, b_bw_u32, -EINVAL,
	  "invalid attribute length" },
	{ "unknown attribute", FNBLK_CMD_DEV_ADD, b_unknown_attr, -EINVAL,
	  "Unknown attribute type" },
	{ "unknown f(n) shape", FNBLK_CMD_DEV_ADD, b_fn, -EINVAL,
	  "unknown f(n) shape" },
	{ "zero in a table", FNBLK_CMD_DEV_ADD, b_table, -EINVAL,
	  "entries must be in (0, 1024]" },
	{ "size not 4 KiB", FNBLK_CMD_DEV_ADD, b_size, -EINVAL,
	  "size must be a multiple of 4 KiB from 4 KiB to 1 TiB" },
	{ "size zero", FNBLK_CMD_DEV_ADD, b_size_zero, -EINVAL,
	  "from 4 KiB to 1 TiB" },
	{ "key out of range", FNBLK_CMD_DEV_ADD, b_key, -ERANGE,
	  "integer out of range" },
	{ "bandwidth too small", FNBLK_CMD_DEV_ADD, b_bw_small, -EINVAL,
	  "bandwidth must be" },
	{ "latency too long", FNBLK_CMD_DEV_ADD, b_latency, -EINVAL,
	  "latency must be at most 10 s" },
	{ "bad device name", FNBLK_CMD_DEV_ADD, b_name, -EINVAL,
	  "name must be fnblkN" },
	{ "existing device", FNBLK_CMD_DEV_ADD, b_dup, -EEXIST,
	  "device exists" },
	{ "no such device", FNBLK_CMD_DEV_GET, b_nodev, -ENODEV,
	  "no such device" },
	{ "no device named", FNBLK_CMD_DEV_DEL, b_nothing, -EINVAL,
	  "device id or name required" },
	{ "weight zero", FNBLK_CMD_USER_SET, b_weight0, -ERANGE,
	  "integer out of range" },
	{ "weight without key", FNBLK_CMD_USER_SET, b_weight_nokey, -EINVAL,
	  "user key and weight required" },
	{ "size change", FNBLK_CMD_DEV_SET, b_set_size, -EINVAL,
	  "size is fixed at creation" },
	{ "store change", FNBLK_CMD_DEV_SET, b_set_store, -EINVAL,
	  "store is fixed at creation" },
	{ "delete by id and a different name", FNBLK_CMD_DEV_DEL, b_id_name,
	  -EINVAL, "device id and name disagree" },
	{ "add by id and a different name", FNBLK_CMD_DEV_ADD, b_add_id_name,
	  -EINVAL, "device id and name disagree" },
	{ "name with a leading zero", FNBLK_CMD_DEV_GET, b_zero_name, -EINVAL,
	  "name must be fnblkN" },
};

/*
 * DEV_ADD with one value the module (not the policy) checks, out of its
 * range: EINVAL, and the message states the range.
 */
static const struct {
	const char *what;
	int attr, width;	/* bytes of the value: 4, 8 */
	uint64_t value;
	const char *fn;		/* with this f(n), if any */
	const char *msg;
} bad_values[] = {
	{ "bandwidth too big", FNBLK_A_BW, 8, FNBLK_BW_MAX + 1, NULL,
	  "bandwidth must be 0 (unthrottled) or 1 KiB/s to 1 TiB/s" },
	{ "grace too long", FNBLK_A_GRACE_NS, 8, FNBLK_GRACE_MAX_NS + 1, NULL,
	  "grace must be at most 10 s" },
	{ "overhead too big", FNBLK_A_OVERHEAD, 8, FNBLK_OVERHEAD_MAX + 1,
	  NULL, "overhead must be at most 1 GiB" },
	/* 1 KiB/s for 1024 users at f = 0.00002: under 0.001 B/s each */
	{ "rate below the resolution", FNBLK_A_BW, 8, 1024, "table:0.00002",
	  "< 0.001 B/s per user for an n <= 1024" },
	{ "max_users 0", FNBLK_A_MAX_USERS, 4, 0, NULL,
	  "max_users must be 1 to 1048576" },
	{ "max_users too many", FNBLK_A_MAX_USERS, 4,
	  FNBLK_MAX_USERS_LIMIT + 1, NULL, "max_users must be 1 to 1048576" },
};

TEST_F(nl, malformed_requests_refused)
{
	struct dev_info d;
	unsigned int i;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = "fnblk8",
						 .size = 16 * MiB)));
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *b = &bad_cases[i];
		struct nl_msg *m = fnl_msg(&self->c, b->cmd, 0);
		int ret;

		b->build(m);
		ret = fnl_send(&self->c, m, NULL, NULL);
		TH_LOG("%s: %d \"%s\"", b->what, ret, self->c.err);
		EXPECT_EQ(b->err, ret);
		/* Every refusal explains itself. */
		EXPECT_NE('\0', self->c.err[0]);
		EXPECT_NE(NULL, strstr(self->c.err, b->msg));
	}
	for (i = 0; i < sizeof(bad_values) / sizeof(bad_values[0]); i++) {
		struct nl_msg *m = fnl_dev_msg(&self->c, FNBLK_CMD_DEV_ADD, 0,
					       DEV);
		int ret;

		if (bad_values[i].width == 8)
			nla_put_u64(m, bad_values[i].attr, bad_values[i].value);
		else
			nla_put_u32(m, bad_values[i].attr,
				    (uint32_t)bad_values[i].value);
		if (bad_values[i].fn)
			nla_put_string(m, FNBLK_A_FN, bad_values[i].fn);
		ret = fnl_send(&self->c, m, NULL, NULL);
		TH_LOG("%s: %d \"%s\"", bad_values[i].what, ret, self->c.err);
		EXPECT_EQ(-EINVAL, ret);
		EXPECT_NE(NULL, strstr(self->c.err, bad_values[i].msg));
	}
	/* Nothing was created or changed by the refused requests. */
	EXPECT_EQ(-ENODEV, dev_get(&self->c, DEV, &d));
	ASSERT_EQ(0, dev_get(&self->c, "fnblk8", &d));
	EXPECT_EQ(16 * MiB, d.size);
	EXPECT_EQ(FNBLK_STORE_MEMORY, d.store);
	EXPECT_EQ(0, dev_del(&self->c, "fnblk8"));
}

/*
 * Values the policy refuses: the core's text is generic ("integer out of
 * range"), so the extended ack must point at the attribute and state its
 * range, for every range-checked attribute. Each case puts one bad value
 * (nested where its command nests it) on fnblk8.
 */
struct range_case {
	const char *what;
	uint8_t cmd;
	int nest;		/* 0, FNBLK_A_USER or FNBLK_A_FAULT */
	int attr;
	int width;		/* bytes of the value: 1, 4 */
	uint32_t value;
	uint64_t min, max;
};

static const struct range_case range_cases[] = {
	{ "DEV_ID", FNBLK_CMD_DEV_GET, 0, FNBLK_A_DEV_ID, 4,
	  FNBLK_MAX_DEVICES, 0, FNBLK_MAX_DEVICES - 1 },
	{ "KEY", FNBLK_CMD_DEV_SET, 0, FNBLK_A_KEY, 1,
	  __FNBLK_KEY_MAX, 0, __FNBLK_KEY_MAX - 1 },
	{ "POLICY", FNBLK_CMD_DEV_SET, 0, FNBLK_A_POLICY, 1,
	  __FNBLK_POLICY_MAX, 0, __FNBLK_POLICY_MAX - 1 },
	{ "USERS", FNBLK_CMD_DEV_SET, 0, FNBLK_A_USERS, 1,
	  __FNBLK_USERS_MAX, 0, __FNBLK_USERS_MAX - 1 },
	{ "STORE", FNBLK_CMD_DEV_ADD, 0, FNBLK_A_STORE, 1,
	  __FNBLK_STORE_MAX, 0, __FNBLK_STORE_MAX - 1 },
	{ "CACHE", FNBLK_CMD_DEV_SET, 0, FNBLK_A_CACHE, 1,
	  __FNBLK_CACHE_MAX, 0, __FNBLK_CACHE_MAX - 1 },
	{ "USER_WEIGHT 0", FNBLK_CMD_USER_SET, FNBLK_A_USER,
	  FNBLK_USER_WEIGHT, 4, 0, 1, FNBLK_WEIGHT_MAX },
	{ "USER_WEIGHT max + 1", FNBLK_CMD_USER_SET, FNBLK_A_USER,
	  FNBLK_USER_WEIGHT, 4, FNBLK_WEIGHT_MAX + 1, 1, FNBLK_WEIGHT_MAX },
	{ "FAULT_OP", FNBLK_CMD_FAULT_ADD, FNBLK_A_FAULT, FNBLK_FAULT_OP, 1,
	  FNBLK_FAULT_WRITE + 1, 0, FNBLK_FAULT_WRITE },
	{ "FAULT_PROB", FNBLK_CMD_FAULT_ADD, FNBLK_A_FAULT, FNBLK_FAULT_PROB,
	  4, FNBLK_FAULT_PROB_ONE + 1, 1, FNBLK_FAULT_PROB_ONE },
	{ "FAULT_EVERY", FNBLK_CMD_FAULT_ADD, FNBLK_A_FAULT, FNBLK_FAULT_EVERY,
	  4, 0, 1, UINT32_MAX },
	{ "FAULT_ERROR", FNBLK_CMD_FAULT_ADD, FNBLK_A_FAULT, FNBLK_FAULT_ERROR,
	  1, FNBLK_FAULT_NONE, FNBLK_FAULT_EIO, __FNBLK_FAULT_MAX - 1 },
};

TEST_F(nl, out_of_range_values_named_with_their_range)
{
	unsigned int i;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = "fnblk8",
						 .size = 16 * MiB)));
	for (i = 0; i < sizeof(range_cases) / sizeof(range_cases[0]); i++) {
		const struct range_case *r = &range_cases[i];
		struct nl_msg *m = fnl_msg(&self->c, r->cmd, 0);
		struct nlattr *nest = NULL;
		int offs, ret;

		if (r->attr != FNBLK_A_DEV_ID)
			nla_put_string(m, FNBLK_A_DEV_NAME, "fnblk8");
		if (r->nest)
			nest = nla_nest_start(m, r->nest);
		if (r->nest == FNBLK_A_USER)
			nla_put_u64(m, FNBLK_USER_KEY, 1);
		offs = (int)((char *)nlmsg_tail(nlmsg_hdr(m)) -
			     (char *)nlmsg_hdr(m));
		if (r->width == 1)
			nla_put_u8(m, r->attr, (uint8_t)r->value);
		else
			nla_put_u32(m, r->attr, r->value);
		if (nest)
			nla_nest_end(m, nest);
		ret = fnl_send(&self->c, m, NULL, NULL);
		TH_LOG("%s: %d \"%s\" at %d (want %d), range %llu..%llu",
		       r->what, ret, self->c.err, self->c.err_offs, offs,
		       (unsigned long long)self->c.range_min,
		       (unsigned long long)self->c.range_max);
		EXPECT_EQ(-ERANGE, ret);
		EXPECT_NE(NULL, strstr(self->c.err, "out of range"));
		EXPECT_EQ(offs, self->c.err_offs);
		EXPECT_TRUE(self->c.has_range);
		EXPECT_EQ(r->min, self->c.range_min);
		EXPECT_EQ(r->max, self->c.range_max);
	}
	EXPECT_EQ(0, dev_del(&self->c, "fnblk8"));
}

TEST_F(nl, busy_device_not_deleted)
{
	int fd;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV)));
	fd = open(DEVPATH, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EBUSY, fnl_simple(&self->c, FNBLK_CMD_DEV_DEL, DEV));
	EXPECT_STREQ("device is open", self->c.err);
	EXPECT_EQ(0, access(DEVPATH, F_OK));
	close(fd);
	EXPECT_EQ(0, dev_del(&self->c, DEV));
}

/*
 * Changes need CAP_NET_ADMIN, and so do per-user records and the event
 * stream; device-level reads do not.
 */
TEST_F(nl, changes_need_cap_net_admin)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV)));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct fnl_user u[4];
		struct fnl_users us = { .u = u, .cap = 4 };
		struct fnl_stats s;
		struct dev_info d;
		struct fnl c;
		int grp;

		/* Dropping root drops every capability. */
		if (setresuid(65534, 65534, 65534) || fnl_open(&c))
			_exit(10);
		if (dev_get(&c, DEV, &d) || strcmp(d.name, DEV))
			_exit(11);
		if (dev_set(&c, &DEV_CFG(.name = DEV, .bw = MiB)) != -EPERM)
			_exit(12);
		if (fnl_simple(&c, FNBLK_CMD_DEV_DEL, DEV) != -EPERM)
			_exit(13);
		if (dev_add(&c, &DEV_CFG(.name = "fnblk8")) != -EPERM)
			_exit(14);
		/* Per-user records and events name other users' processes. */
		us.nr = 0;
		if (fnl_users(&c, DEV, &us) != -EPERM || us.nr)
			_exit(15);
		grp = genl_ctrl_resolve_grp(c.sk, FNBLK_GENL_NAME,
					    FNBLK_MCGRP_EVENTS);
		if (grp < 0 || !setsockopt(nl_socket_get_fd(c.sk), SOL_NETLINK,
					   NETLINK_ADD_MEMBERSHIP, &grp,
					   sizeof(grp)) || errno != EPERM)
			_exit(16);
		/* Device-level counters remain readable. */
		if (fnl_stats(&c, DEV, &s) || s.got != 1)
			_exit(17);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* Dumps larger than one message: many devices with 1024-entry tables. */
TEST_F(nl, dump_spans_messages)
{
	struct dev_info d;
	char name[16];
	int i;

	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "fnblk%d", 100 + i);
		ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = name,
						.fn = "power:-0.5")));
	}
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(0, fnl_send(&self->c, fnl_msg(&self->c, FNBLK_CMD_DEV_GET,
						NLM_F_DUMP), dev_reply, &d));
	EXPECT_LE(40, d.count);
	EXPECT_EQ(FNBLK_FN_MAX, d.nr_table);
	EXPECT_EQ((uint32_t)(FNBLK_FN_ONE / 2), d.table[3]);	/* 4^-0.5 */
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(0, fnl_send(&self->c, fnl_msg(&self->c,
				FNBLK_CMD_STATS_GET, NLM_F_DUMP), NULL, NULL));
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "fnblk%d", 100 + i);
		EXPECT_EQ(0, dev_del(&self->c, name));
	}
}

/* Per-user bytes add up to the device's; the n histogram to elapsed time. */
TEST_F(nl, counters_add_up)
{
	struct wspec ws[3];
	struct wres res[3];
	struct fnl_stats s;
	struct fnl_users us = { .u = calloc(64, sizeof(struct fnl_user)),
				.cap = 64 };
	uint64_t ub = 0, uops = 0, uact = 0, weighted = 0;
	char buf[4096] __attribute__((aligned(4096)));
	size_t i;
	int fd;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 32 * MiB,
			.fn = "linear:2", .grace_ns = 20000000)));
	for (i = 0; i < 3; i++)
		ws[i] = (struct wspec){ .path = DEVPATH, .offset = i * 8 * MiB,
			.bytes = (i + 1) * MiB, .bs = 64 * 1024,
			.qd = (uint32_t)i + 1, .fill = 0x5a };
	ASSERT_EQ(0, run_writers(ws, 3, res, 0));
	usleep(100000);	/* the writers have gone idle */
	fd = open(DEVPATH, O_RDONLY | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ(4096, pread(fd, buf, 4096, 0));
	close(fd);
	usleep(50000);	/* past the grace period: nobody active */

	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	ASSERT_EQ(0, fnl_users(&self->c, DEV, &us));
	for (i = 0; i < us.nr; i++) {
		ub += us.u[i].write_bytes + us.u[i].read_bytes;
		uops += us.u[i].write_ops + us.u[i].read_ops;
		uact += us.u[i].activations;
	}
	EXPECT_EQ(6 * MiB, s.v[FNBLK_STAT_WRITE_BYTES]);
	EXPECT_EQ(4096u, s.v[FNBLK_STAT_READ_BYTES]);
	EXPECT_EQ(s.v[FNBLK_STAT_WRITE_BYTES] + s.v[FNBLK_STAT_READ_BYTES], ub);
	EXPECT_EQ(s.v[FNBLK_STAT_WRITE_OPS] + s.v[FNBLK_STAT_READ_OPS] +
		  s.v[FNBLK_STAT_FLUSH_OPS] + s.v[FNBLK_STAT_DISCARD_OPS], uops);
	EXPECT_EQ(s.v[FNBLK_STAT_ACTIVATIONS], uact);
	EXPECT_LE(4u, us.nr);	/* three writers and the reader */
	EXPECT_EQ(0u, s.v[FNBLK_STAT_NR_ACTIVE]);
	EXPECT_EQ(3u, s.v[FNBLK_STAT_PEAK_ACTIVE]);
	EXPECT_EQ(0u, s.v[FNBLK_STAT_INFLIGHT]);
	/* Every nanosecond is at some n; integral of n matches the bins. */
	EXPECT_EQ(s.v[FNBLK_STAT_ELAPSED_NS], sum_u64(s.n_hist, FNBLK_NHIST_BINS));
	for (i = 0; i < FNBLK_NHIST_EXACT; i++)
		weighted += i * s.n_hist[i];
	EXPECT_EQ(s.v[FNBLK_STAT_N_TIME_SUM], weighted);
	EXPECT_EQ(uops, sum_u64(s.lat_hist, FNBLK_LHIST_BINS));
	/* Each activation and each return to idle is one event. */
	EXPECT_EQ(2 * s.v[FNBLK_STAT_ACTIVATIONS] + 1, s.v[FNBLK_STAT_EVENTS]);

	ASSERT_EQ(0, fnl_simple(&self->c, FNBLK_CMD_STATS_RESET, DEV));
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	EXPECT_EQ(0u, s.v[FNBLK_STAT_WRITE_BYTES]);
	EXPECT_EQ(0u, s.v[FNBLK_STAT_ACTIVATIONS]);
	EXPECT_LT(s.v[FNBLK_STAT_ELAPSED_NS], 1000000000ULL);
	free(us.u);
}

struct evlog {
	int active, idle, other;
	uint64_t first_seq, last_seq, gaps;
	uint32_t max_n;
};

static int ev_cb(struct nl_msg *m, void *arg)
{
	struct evlog *e = arg;
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(m));
	struct nlattr *tb[FNBLK_A_MAX + 1];
	uint64_t seq;

	if (genlmsg_parse(nlmsg_hdr(m), 0, tb, FNBLK_A_MAX, NULL) ||
	    !tb[FNBLK_A_EVT_SEQ] || !tb[FNBLK_A_DEV_NAME] ||
	    strcmp(nla_get_string(tb[FNBLK_A_DEV_NAME]), DEV))
		return NL_OK;
	seq = nla_get_u64(tb[FNBLK_A_EVT_SEQ]);
	if (e->last_seq && seq != e->last_seq + 1)
		e->gaps++;
	if (!e->first_seq)
		e->first_seq = seq;
	e->last_seq = seq;
	if (g->cmd == FNBLK_CMD_EVT_USER_ACTIVE)
		e->active++;
	else if (g->cmd == FNBLK_CMD_EVT_USER_IDLE)
		e->idle++;
	else
		e->other++;
	if (tb[FNBLK_A_EVT_NR_ACTIVE] &&
	    nla_get_u32(tb[FNBLK_A_EVT_NR_ACTIVE]) > e->max_n)
		e->max_n = nla_get_u32(tb[FNBLK_A_EVT_NR_ACTIVE]);
	return NL_OK;
}

/* Activations and idles arrive in order, numbered without gaps. */
TEST_F(nl, event_stream)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct wspec ws[2];
	struct wres res[2];
	struct fnl_stats s;
	struct evlog e = { 0 };
	int grp, i;

	ASSERT_EQ(0, genl_connect(sk));
	grp = genl_ctrl_resolve_grp(sk, FNBLK_GENL_NAME, FNBLK_MCGRP_EVENTS);
	ASSERT_LE(0, grp);
	ASSERT_EQ(0, nl_socket_add_membership(sk, grp));
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, ev_cb, &e);
	nl_socket_set_nonblocking(sk);

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 16 * MiB)));
	for (i = 0; i < 2; i++)
		ws[i] = (struct wspec){ .path = DEVPATH, .offset = i * 8 * MiB,
			.bytes = MiB, .bs = 128 * 1024, .qd = 2, .fill = 1 };
	ASSERT_EQ(0, run_writers(ws, 2, res, 0));
	usleep(100000);
	while (nl_recvmsgs_default(sk) >= 0)
		;
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	TH_LOG("events: %d active, %d idle, seq %llu..%llu, max n %u",
	       e.active, e.idle, (unsigned long long)e.first_seq,
	       (unsigned long long)e.last_seq, e.max_n);
	EXPECT_EQ(0u, e.gaps);
	EXPECT_EQ(e.active, e.idle);
	EXPECT_EQ((uint64_t)e.active, s.v[FNBLK_STAT_ACTIVATIONS]);
	EXPECT_EQ(s.v[FNBLK_STAT_EVENTS], e.last_seq);
	EXPECT_EQ(2u, e.max_n);
	nl_socket_free(sk);
}

struct crowd {
	int fd;
	pthread_barrier_t go;
};

static void *crowd_member(void *arg)
{
	struct crowd *cr = arg;
	char buf[4096] __attribute__((aligned(4096)));
	long tid = syscall(SYS_gettid);

	memset(buf, (int)tid, sizeof(buf));
	pthread_barrier_wait(&cr->go);
	if (pwrite(cr->fd, buf, 4096, (tid % 4096) * 4096) != 4096)
		return (void *)1;
	return NULL;
}

/* key pid, 2,100 threads writing at once: every one of them counts. */
TEST_F_TIMEOUT(nl, thousands_of_users, 180)
{
	enum { N = 2100 };
	struct fnl_users us = { .u = calloc(N + 64, sizeof(struct fnl_user)),
				.cap = N + 64 };
	static pthread_t tid[N];
	struct crowd cr;
	struct fnl_stats s;
	pthread_attr_t attr;
	uint64_t ub = 0;
	size_t i, nu = 0;
	int fails = 0;

	/*
	 * Every write stays in flight for 10 s after its service, then its
	 * user idles for 10 s more: all 2,100 must merely submit within 20 s,
	 * which a loaded TCG guest does.
	 */
	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 64 * MiB,
			.key = FNBLK_KEY_PID, .latency_ns = 10000000000ULL,
			.grace_ns = 10000000000ULL)));
	cr.fd = open(DEVPATH, O_WRONLY | O_DIRECT);
	ASSERT_LE(0, cr.fd);
	pthread_barrier_init(&cr.go, NULL, N);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, pthread_create(&tid[i], &attr, crowd_member, &cr));
	for (i = 0; i < N; i++) {
		void *ret;

		pthread_join(tid[i], &ret);
		fails += ret != NULL;
	}
	close(cr.fd);
	EXPECT_EQ(0, fails);
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	ASSERT_EQ(0, fnl_users(&self->c, DEV, &us));
	for (i = 0; i < us.nr; i++) {
		ub += us.u[i].write_bytes;
		nu += !us.u[i].bucket;
	}
	TH_LOG("peak n %llu, users %llu, dumped %zu (%zu users)",
	       (unsigned long long)s.v[FNBLK_STAT_PEAK_ACTIVE],
	       (unsigned long long)s.v[FNBLK_STAT_NR_USERS], us.nr, nu);
	EXPECT_TIMING(N <= s.v[FNBLK_STAT_PEAK_ACTIVE]);
	/*
	 * A user idle past its grace and retention is reaped (its bytes go
	 * to the retired bucket) if the last thread submits that much later,
	 * as on a slow debug kernel: timing, unlike the counts below.
	 */
	EXPECT_TIMING(N <= s.v[FNBLK_STAT_NR_USERS]);
	/* The dump's users, not its retired/overflow bucket rows. */
	EXPECT_EQ(s.v[FNBLK_STAT_NR_USERS], nu);
	EXPECT_EQ(s.v[FNBLK_STAT_WRITE_BYTES], ub);
	EXPECT_EQ((uint64_t)N * 4096, ub);
	free(us.u);
}

TEST_HARNESS_MAIN
