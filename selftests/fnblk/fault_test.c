// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection: a rule hits exactly the requests it should (every Nth,
 * at most N times, in its range, of its op), a hit moves no data, timeouts
 * and delays take their time and no more, the counters are exact, requests
 * outside a rule are untouched, rules are listed and removed, and the
 * kernel refuses malformed rules with a message.
 */
#include "../kselftest_harness.h"
#include "fnblk_test.h"

#define DEV "fnblk25"
#define DEVPATH "/dev/" DEV
#define BLK 4096

FIXTURE(fault) {
	struct fnl c;
	int fd;
	void *buf;
};

FIXTURE_SETUP(fault)
{
	ASSERT_EQ(0, fnblk_load());
	ASSERT_EQ(0, fnl_open(&self->c));
	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .size = 64 * MiB,
						 .bw = 64 * MiB)));
	self->fd = open(DEVPATH, O_RDWR | O_DIRECT);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, posix_memalign(&self->buf, BLK, BLK));
}

FIXTURE_TEARDOWN(fault)
{
	close(self->fd);
	dev_del(&self->c, DEV);
	fnl_close(&self->c);
	free(self->buf);
}

/* A rule; fields left 0 are not sent (kernel defaults). */
struct rule {
	int op, error;
	uint32_t id;		/* for FAULT_ADD: refused */
	uint32_t prob, every;
	uint64_t times, start, len, delay_ns;
};

struct rule_reply {
	uint32_t id;
	uint64_t matched, injected;
	int count;
};

static void rule_reply(struct nlattr **tb, void *arg)
{
	struct rule_reply *r = arg;
	struct nlattr *fa[FNBLK_FAULT_ATTR_MAX + 1];

	if (!tb[FNBLK_A_FAULT] ||
	    nla_parse_nested(fa, FNBLK_FAULT_ATTR_MAX, tb[FNBLK_A_FAULT], NULL))
		return;
	r->count++;
	r->id = fa[FNBLK_FAULT_ID] ? nla_get_u32(fa[FNBLK_FAULT_ID]) : 0;
	r->matched = fa[FNBLK_FAULT_MATCHED] ?
		     nla_get_u64(fa[FNBLK_FAULT_MATCHED]) : 0;
	r->injected = fa[FNBLK_FAULT_INJECTED] ?
		      nla_get_u64(fa[FNBLK_FAULT_INJECTED]) : 0;
}

static int rule_add(struct fnl *c, const struct rule *r, struct rule_reply *out)
{
	struct nl_msg *m = fnl_dev_msg(c, FNBLK_CMD_FAULT_ADD, 0, DEV);
	struct nlattr *n = nla_nest_start(m, FNBLK_A_FAULT);

	nla_put_u8(m, FNBLK_FAULT_OP, r->op);
	if (r->id)
		nla_put_u32(m, FNBLK_FAULT_ID, r->id);
	if (r->error)
		nla_put_u8(m, FNBLK_FAULT_ERROR, r->error);
	if (r->prob)
		nla_put_u32(m, FNBLK_FAULT_PROB, r->prob);
	if (r->every)
		nla_put_u32(m, FNBLK_FAULT_EVERY, r->every);
	if (r->times)
		nla_put_u64(m, FNBLK_FAULT_TIMES, r->times);
	if (r->len) {
		nla_put_u64(m, FNBLK_FAULT_START, r->start);
		nla_put_u64(m, FNBLK_FAULT_LEN, r->len);
	}
	if (r->delay_ns)
		nla_put_u64(m, FNBLK_FAULT_DELAY_NS, r->delay_ns);
	nla_nest_end(m, n);
	memset(out, 0, sizeof(*out));
	return fnl_send(c, m, rule_reply, out);
}

/* The rules now: the last one's counters, and how many there are. */
static int rules_get(struct fnl *c, struct rule_reply *out)
{
	memset(out, 0, sizeof(*out));
	return fnl_send(c, fnl_dev_msg(c, FNBLK_CMD_FAULT_GET, NLM_F_DUMP,
				       DEV), rule_reply, out);
}

static int rule_del(struct fnl *c, uint32_t id)
{
	struct nl_msg *m = fnl_dev_msg(c, FNBLK_CMD_FAULT_DEL, 0, DEV);
	struct nlattr *n;

	if (id) {
		n = nla_nest_start(m, FNBLK_A_FAULT);
		nla_put_u32(m, FNBLK_FAULT_ID, id);
		nla_nest_end(m, n);
	}
	return fnl_send(c, m, NULL, NULL);
}

static int put(int fd, void *buf, uint64_t blk, int byte)
{
	memset(buf, byte, BLK);
	return pwrite(fd, buf, BLK, (off_t)(blk * BLK)) == BLK ? 0 : -errno;
}

/* The byte block blk holds (all of it), -1 if mixed, -errno on error. */
static int get(int fd, void *buf, uint64_t blk)
{
	const uint8_t *p = buf;
	int i;

	if (pread(fd, buf, BLK, (off_t)(blk * BLK)) != BLK)
		return -errno;
	for (i = 1; i < BLK; i++)
		if (p[i] != p[0])
			return -1;
	return p[0];
}

/* Every third write fails, exactly, and changes nothing. */
TEST_F(fault, every_third_write_fails)
{
	struct rule_reply rr;
	struct fnl_stats s;
	int i, ret, failed = 0, wrong = 0;

	for (i = 0; i < 30; i++)
		ASSERT_EQ(0, put(self->fd, self->buf, (uint64_t)i, 'o'));
	ASSERT_EQ(0, rule_add(&self->c, &(struct rule){ .op = FNBLK_FAULT_WRITE,
			.every = 3, .error = FNBLK_FAULT_EIO }, &rr))
		TH_LOG("%s", self->c.err);
	EXPECT_EQ(1U, rr.id);
	for (i = 0; i < 30; i++) {
		ret = put(self->fd, self->buf, (uint64_t)i, 'n');
		failed += ret == -EIO;
		/* The 3rd, 6th, ... fail; the others succeed. */
		wrong += (i % 3 == 2) != (ret == -EIO);
	}
	EXPECT_EQ(10, failed);
	EXPECT_EQ(0, wrong);
	for (i = 0; i < 30; i++)
		EXPECT_EQ(i % 3 == 2 ? 'o' : 'n',
			  get(self->fd, self->buf, (uint64_t)i));
	ASSERT_EQ(0, rules_get(&self->c, &rr));
	EXPECT_EQ(1, rr.count);
	EXPECT_EQ(30U, rr.matched);
	EXPECT_EQ(10U, rr.injected);
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	EXPECT_EQ(10U, s.v[FNBLK_STAT_FAULT_EIO]);
	EXPECT_EQ(0U, s.v[FNBLK_STAT_FAULT_TIMEOUT]);
}

/* A range and a limit: only reads inside, only twice; writes untouched. */
TEST_F(fault, range_and_times)
{
	struct rule_reply rr;
	struct fnl_stats s;
	int i;

	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, put(self->fd, self->buf, (uint64_t)i, 'a' + i));
	ASSERT_EQ(0, rule_add(&self->c, &(struct rule){ .op = FNBLK_FAULT_READ,
			.start = 2 * BLK, .len = 2 * BLK, .times = 2,
			.error = FNBLK_FAULT_EIO }, &rr));
	EXPECT_EQ('a', get(self->fd, self->buf, 0));	/* outside */
	EXPECT_EQ(-EIO, get(self->fd, self->buf, 2));	/* hit 1 */
	EXPECT_EQ('h', get(self->fd, self->buf, 7));	/* outside */
	EXPECT_EQ(0, put(self->fd, self->buf, 3, 'X'));	/* a write */
	EXPECT_EQ(-EIO, get(self->fd, self->buf, 3));	/* hit 2 */
	EXPECT_EQ('c', get(self->fd, self->buf, 2));	/* used up */
	EXPECT_EQ('X', get(self->fd, self->buf, 3));
	ASSERT_EQ(0, rules_get(&self->c, &rr));
	EXPECT_EQ(4U, rr.matched);
	EXPECT_EQ(2U, rr.injected);
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	EXPECT_EQ(2U, s.v[FNBLK_STAT_FAULT_EIO]);
	/* A reset zeroes the device's fault counters. */
	ASSERT_EQ(0, fnl_simple(&self->c, FNBLK_CMD_STATS_RESET, DEV));
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	EXPECT_EQ(0U, s.v[FNBLK_STAT_FAULT_EIO]);
}

/* Half the reads, by probability: as many as the counters say. */
TEST_F(fault, probability)
{
	struct rule_reply rr;
	struct fnl_stats s;
	int i, failed = 0;

	ASSERT_EQ(0, put(self->fd, self->buf, 0, 'p'));
	ASSERT_EQ(0, rule_add(&self->c, &(struct rule){ .op = FNBLK_FAULT_READ,
			.prob = FNBLK_FAULT_PROB_ONE / 2,
			.error = FNBLK_FAULT_EIO }, &rr));
	for (i = 0; i < 400; i++)
		failed += get(self->fd, self->buf, 0) == -EIO;
	ASSERT_EQ(0, rules_get(&self->c, &rr));
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	TH_LOG("%d of 400 reads failed", failed);
	EXPECT_EQ((uint64_t)failed, rr.injected);
	EXPECT_EQ((uint64_t)failed, s.v[FNBLK_STAT_FAULT_EIO]);
	EXPECT_EQ(400U, rr.matched);
	/* Binomial(400, 0.5): 6 standard deviations either side. */
	EXPECT_LT(140, failed);
	EXPECT_GT(260, failed);
}

/* A timeout fails with ETIMEDOUT after its time, moving nothing. */
TEST_F(fault, timeout_takes_its_time)
{
	struct rule_reply rr;
	struct fnl_stats s;
	uint64_t t0, dt;
	int ret;

	ASSERT_EQ(0, put(self->fd, self->buf, 4, 'T'));
	ASSERT_EQ(0, rule_add(&self->c, &(struct rule){ .op = FNBLK_FAULT_WRITE,
			.times = 1, .error = FNBLK_FAULT_TIMEOUT,
			.delay_ns = 1500000000ULL }, &rr));
	t0 = now_ns();
	ret = put(self->fd, self->buf, 4, 'U');
	dt = now_ns() - t0;
	TH_LOG("timed out after %.3f s", secs(dt));
	EXPECT_EQ(-ETIMEDOUT, ret);
	EXPECT_LE(1500000000ULL, dt);
	EXPECT_TIMING(dt < 8000000000ULL);
	EXPECT_EQ('T', get(self->fd, self->buf, 4));
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	EXPECT_EQ(1U, s.v[FNBLK_STAT_FAULT_TIMEOUT]);
}

/* A delay: the read succeeds, with its data, that much later. */
TEST_F(fault, delay_then_success)
{
	struct rule_reply rr;
	struct fnl_stats s;
	uint64_t t0, dt;

	ASSERT_EQ(0, put(self->fd, self->buf, 5, 'D'));
	ASSERT_EQ(0, rule_add(&self->c, &(struct rule){ .op = FNBLK_FAULT_READ,
			.error = FNBLK_FAULT_DELAY, .delay_ns = 300000000 },
			&rr));
	t0 = now_ns();
	EXPECT_EQ('D', get(self->fd, self->buf, 5));
	dt = now_ns() - t0;
	TH_LOG("read took %.3f s", secs(dt));
	EXPECT_LE(300000000ULL, dt);
	EXPECT_TIMING(dt < 3000000000ULL);
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	EXPECT_EQ(1U, s.v[FNBLK_STAT_FAULT_DELAY]);
}

/*
 * While one process's region times out (held for 3 s), another process
 * writes and reads its own region: untouched and not held up.
 */
TEST_F(fault, others_are_not_affected)
{
	struct rule_reply rr;
	uint64_t t0, dt;
	int status, i, bad = 0;
	pid_t victim;

	ASSERT_EQ(0, rule_add(&self->c, &(struct rule){ .op = FNBLK_FAULT_ANY,
			.start = 0, .len = MiB, .error = FNBLK_FAULT_TIMEOUT,
			.delay_ns = 3000000000ULL }, &rr));
	victim = fork();
	ASSERT_LE(0, victim);
	if (!victim)
		_exit(put(self->fd, self->buf, 0, 'v') == -ETIMEDOUT ? 0 : 1);
	usleep(200000);
	t0 = now_ns();
	for (i = 0; i < 50; i++) {
		bad += put(self->fd, self->buf, 1024 + (uint64_t)i, 'w') != 0;
		bad += get(self->fd, self->buf, 1024 + (uint64_t)i) != 'w';
	}
	dt = now_ns() - t0;
	EXPECT_EQ(0, bad);
	TH_LOG("100 requests beside a held one took %.3f s", secs(dt));
	EXPECT_TIMING(dt < 2000000000ULL);
	ASSERT_EQ(victim, waitpid(victim, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* Rules are numbered, listed, removed one by one or all at once. */
TEST_F(fault, rules_listed_and_removed)
{
	struct rule_reply rr;
	int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, rule_add(&self->c, &(struct rule){
				.op = FNBLK_FAULT_WRITE, .times = 1,
				.error = FNBLK_FAULT_EIO }, &rr));
	EXPECT_EQ(3U, rr.id);
	ASSERT_EQ(0, rules_get(&self->c, &rr));
	EXPECT_EQ(3, rr.count);
	ASSERT_EQ(0, rule_del(&self->c, 2));
	ASSERT_EQ(0, rules_get(&self->c, &rr));
	EXPECT_EQ(2, rr.count);
	EXPECT_EQ(3U, rr.id);
	EXPECT_EQ(-ENOENT, rule_del(&self->c, 2));
	EXPECT_NE(NULL, strstr(self->c.err, "no such fault rule"));
	ASSERT_EQ(0, rule_del(&self->c, 0));
	ASSERT_EQ(0, rules_get(&self->c, &rr));
	EXPECT_EQ(0, rr.count);
	EXPECT_EQ(0, put(self->fd, self->buf, 9, 'z'));
}

/* Malformed rules are refused, each with a message. */
TEST_F(fault, bad_rules_refused)
{
	static const struct {
		const char *what;
		struct rule r;
		int err;
		const char *msg;
	} bad[] = {
		{ "no error", { .op = FNBLK_FAULT_READ }, -EINVAL,
		  "fault error required" },
		{ "delay without time", { .error = FNBLK_FAULT_DELAY },
		  -EINVAL, "fault delay must be" },
		{ "probability above 1", { .error = FNBLK_FAULT_EIO,
		  .prob = FNBLK_FAULT_PROB_ONE + 1 }, -ERANGE,
		  "integer out of range" },
		{ "bad op", { .op = 7, .error = FNBLK_FAULT_EIO }, -ERANGE,
		  "integer out of range" },
		{ "wrapping range", { .error = FNBLK_FAULT_EIO,
		  .start = UINT64_MAX - 10, .len = 100 }, -EINVAL,
		  "fault range wraps around" },
		{ "eio with a time", { .error = FNBLK_FAULT_EIO,
		  .delay_ns = 5 }, -EINVAL, "takes no time" },
		{ "timeout over 10 min", { .error = FNBLK_FAULT_TIMEOUT,
		  .delay_ns = FNBLK_FAULT_DELAY_MAX_NS + 1 }, -EINVAL,
		  "fault timeout must be at most 10 min" },
		{ "delay over 10 min", { .error = FNBLK_FAULT_DELAY,
		  .delay_ns = FNBLK_FAULT_DELAY_MAX_NS + 1 }, -EINVAL,
		  "fault delay must be 1 ns to 10 min" },
		{ "an id chosen by the caller", { .id = 3,
		  .error = FNBLK_FAULT_EIO }, -EINVAL,
		  "the kernel numbers fault rules" },
	};
	struct rule_reply rr;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(bad[i].err, rule_add(&self->c, &bad[i].r, &rr))
			TH_LOG("%s", bad[i].what);
		EXPECT_NE(NULL, strstr(self->c.err, bad[i].msg))
			TH_LOG("%s: \"%s\"", bad[i].what, self->c.err);
	}
	for (i = 0; i < FNBLK_FAULT_RULES_MAX; i++)
		ASSERT_EQ(0, rule_add(&self->c, &(struct rule){
				.error = FNBLK_FAULT_EIO, .times = 1,
				.start = UINT64_MAX / 2, .len = 1 }, &rr));
	EXPECT_EQ(-ENOSPC, rule_add(&self->c, &(struct rule){
			.error = FNBLK_FAULT_EIO }, &rr));
	EXPECT_NE(NULL, strstr(self->c.err, "at most 16 fault rules"));
	ASSERT_EQ(0, rules_get(&self->c, &rr));
	EXPECT_EQ(FNBLK_FAULT_RULES_MAX, rr.count);
}

TEST_HARNESS_MAIN
