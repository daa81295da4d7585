// SPDX-License-Identifier: GPL-2.0
/*
 * The table of users a device keeps: dumps that end (at the largest key,
 * and when the device is re-created under them), a cap with an overflow
 * bucket, idle users retired with their totals kept, a reused pid that
 * starts afresh, a key mode change, and users coming and going by the
 * hundred while the counters are reset under them.
 */
#define _GNU_SOURCE
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>

#include "../kselftest_harness.h"
#include "fnblk_test.h"

#define DEV "fnblk21"
#define DEVPATH "/dev/" DEV

FIXTURE(users) {
	struct fnl c;
	struct fnl_users us;
};

FIXTURE_SETUP(users)
{
	ASSERT_EQ(0, fnblk_load());
	ASSERT_EQ(0, fnl_open(&self->c));
	self->us.cap = 4096;
	self->us.u = calloc(self->us.cap, sizeof(struct fnl_user));
	ASSERT_NE(NULL, self->us.u);
}

FIXTURE_TEARDOWN(users)
{
	write_param("user_retain_s", "60");
	dev_del(&self->c, DEV);
	fnl_close(&self->c);
	free(self->us.u);
}

static int set_weight(struct fnl *c, const char *dev, uint64_t key,
		      uint32_t weight)
{
	struct nl_msg *m = fnl_dev_msg(c, FNBLK_CMD_USER_SET, 0, dev);
	struct nlattr *u = nla_nest_start(m, FNBLK_A_USER);

	nla_put_u64(m, FNBLK_USER_KEY, key);
	nla_put_u32(m, FNBLK_USER_WEIGHT, weight);
	nla_nest_end(m, u);
	return fnl_send(c, m, NULL, NULL);
}

/* One direct write of len bytes at off, from the calling process. */
static int write_once(uint64_t off, uint32_t len)
{
	void *buf;
	int fd, ok;

	fd = open(DEVPATH, O_WRONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, len))
		return -1;
	memset(buf, 0x3c, len);
	ok = pwrite(fd, buf, len, (off_t)off) == (ssize_t)len;
	free(buf);
	close(fd);
	return ok ? 0 : -1;
}

/* Run write_once in a child process; returns its pid, or -1. */
static pid_t child_write(uint64_t off, uint32_t len)
{
	int status;
	pid_t pid = fork();

	if (!pid)
		_exit(write_once(off, len) ? 1 : 0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return pid;
}

static const struct fnl_user *find_key(const struct fnl_users *us,
				       uint64_t key)
{
	size_t i;

	for (i = 0; i < us->nr; i++)
		if (!us->u[i].bucket && us->u[i].key == key)
			return &us->u[i];
	return NULL;
}

static const struct fnl_user *find_bucket(const struct fnl_users *us,
					  int bucket)
{
	size_t i;

	for (i = 0; i < us->nr; i++)
		if (us->u[i].bucket == bucket)
			return &us->u[i];
	return NULL;
}

static uint64_t sum_write_bytes(const struct fnl_users *us)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < us->nr; i++)
		sum += us->u[i].write_bytes;
	return sum;
}

/* A user of key 2^64-1 is the last the dump sends; then the dump ends. */
TEST_F(users, dump_ends_after_largest_key)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV,
						 .policy = FNBLK_POLICY_WEIGHTED)));
	ASSERT_EQ(0, set_weight(&self->c, DEV, UINT64_MAX, 1));
	ASSERT_EQ(0, set_weight(&self->c, DEV, 7, 2));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct fnl c;
		struct fnl_user u[16];
		struct fnl_users us = { .u = u, .cap = 16 };

		alarm(10);	/* a dump that never ends fails the test */
		if (fnl_open(&c) || fnl_users(&c, DEV, &us))
			_exit(100);
		_exit((int)us.nr);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("the user dump never ended");
	EXPECT_EQ(2, WEXITSTATUS(status));
}

/* A dump resumed after its device was deleted and re-created stops. */
TEST_F(users, dump_ends_on_recreated_device)
{
	static char buf[65536];
	struct nlmsghdr *nlh;
	struct fnl c2;
	int fd, err = 1, records = 0, len, rounds = 0;
	uint64_t k;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV,
						 .policy = FNBLK_POLICY_WEIGHTED)));
	for (k = 1; k <= 1500; k++)
		ASSERT_EQ(0, set_weight(&self->c, DEV, k, 2));
	ASSERT_EQ(0, fnl_open(&c2));
	ASSERT_LE(0, nl_send_auto(self->c.sk, fnl_dev_msg(&self->c,
				FNBLK_CMD_USER_GET, NLM_F_DUMP, DEV)));
	fd = nl_socket_get_fd(self->c.sk);
	while (err > 0) {
		len = (int)recv(fd, buf, sizeof(buf), 0);
		ASSERT_LT(0, len);
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_type == NLMSG_DONE) {
				err = *(int *)NLMSG_DATA(nlh);
				break;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				err = ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
				break;
			}
			records++;
		}
		/* The kernel ran the next round while we read this one. */
		if (++rounds == 1) {
			ASSERT_EQ(0, dev_del(&c2, DEV));
			ASSERT_EQ(0, dev_add(&c2, &DEV_CFG(.name = DEV)));
		}
	}
	TH_LOG("%d records in %d rounds, then %d", records, rounds, err);
	EXPECT_EQ(-ENODEV, err);
	EXPECT_LT(records, 1500);
	fnl_close(&c2);
}

struct crowd {
	pthread_barrier_t go;
	int fails;
};

static void *crowd_member(void *arg)
{
	struct crowd *cr = arg;
	long tid = syscall(SYS_gettid);

	pthread_barrier_wait(&cr->go);
	if (write_once((uint64_t)(tid % 1024) * 4096, 4096))
		__atomic_add_fetch(&cr->fails, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* Threads of one process each write once, together: n users under pid. */
static int crowd_write(int n)
{
	pthread_t tid[256];
	struct crowd cr = { .fails = 0 };
	int i;

	if (n > 256)
		return -1;
	pthread_barrier_init(&cr.go, NULL, (unsigned int)n);
	for (i = 0; i < n; i++)
		if (pthread_create(&tid[i], NULL, crowd_member, &cr))
			return -1;
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&cr.go);
	return cr.fails ? -1 : 0;
}

/* Past max_users, new users share the overflow bucket, counted. */
TEST_F(users, full_table_overflows)
{
	struct fnl_stats s;
	const struct fnl_user *o;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 16 * MiB,
			.key = FNBLK_KEY_PID, .grace_ns = 5000000000ULL,
			.max_users = 8)));
	ASSERT_EQ(0, crowd_write(32));
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	ASSERT_EQ(0, fnl_users(&self->c, DEV, &self->us));
	EXPECT_EQ(8U, s.v[FNBLK_STAT_NR_USERS]);
	/* Still in their grace, the first eight cannot be reclaimed. */
	EXPECT_EQ(24U, s.v[FNBLK_STAT_USER_OVERFLOWS]);
	o = find_bucket(&self->us, FNBLK_BUCKET_OVERFLOW);
	ASSERT_NE(NULL, o);
	EXPECT_EQ(24U, o->write_ops);
	EXPECT_EQ(9U, self->us.nr);
	EXPECT_EQ(32U * 4096, s.v[FNBLK_STAT_WRITE_BYTES]);
	EXPECT_EQ(s.v[FNBLK_STAT_WRITE_BYTES], sum_write_bytes(&self->us));
	/* A weight for one more user is refused while the table is full. */
	EXPECT_EQ(-ENOSPC, set_weight(&self->c, DEV, 424242, 3));
	EXPECT_NE(NULL, strstr(self->c.err, "user table full"));
}

/* Idle past the retention, users are freed; their totals remain. */
TEST_F(users, idle_users_retired)
{
	struct fnl_stats s;
	const struct fnl_user *r;
	int i;

	ASSERT_EQ(0, write_param("user_retain_s", "0"));
	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 0,
						 .grace_ns = 1000000)));
	for (i = 0; i < 20; i++)
		ASSERT_LT(0, child_write((uint64_t)i * 4096, 4096));
	usleep(500000);		/* the reaper looks every 100 ms */
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	ASSERT_EQ(0, fnl_users(&self->c, DEV, &self->us));
	EXPECT_EQ(0U, s.v[FNBLK_STAT_NR_USERS]);
	EXPECT_EQ(20U, s.v[FNBLK_STAT_USERS_RETIRED]);
	ASSERT_EQ(1U, self->us.nr);
	r = find_bucket(&self->us, FNBLK_BUCKET_RETIRED);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(20U, r->count);
	EXPECT_EQ(20U, r->write_ops);
	EXPECT_EQ(20U, r->activations);
	EXPECT_EQ(s.v[FNBLK_STAT_WRITE_BYTES], r->write_bytes);
	EXPECT_EQ(s.v[FNBLK_STAT_ACTIVATIONS], r->activations);
}

/* clone3() with set_tid: a process with the pid another one had. */
static pid_t spawn_with_pid(pid_t want)
{
	struct clone_args args = {
		.exit_signal = SIGCHLD,
		.set_tid = (uint64_t)(uintptr_t)&want,
		.set_tid_size = 1,
	};

	return (pid_t)syscall(SYS_clone3, &args, sizeof(args));
}

/* A new process with a reused pid does not inherit the old counters. */
TEST_F(users, reused_pid_starts_afresh)
{
	const struct fnl_user *u, *r;
	int status;
	pid_t pid, again;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 0,
						 .grace_ns = 1000000)));
	pid = child_write(0, 4096);
	ASSERT_LT(0, pid);
	usleep(20000);		/* past the grace */
	again = spawn_with_pid(pid);
	if (again < 0)
		SKIP(return, "clone3 with set_tid: %s", strerror(errno));
	if (!again)
		_exit(write_once(8192, 8192) ? 1 : 0);
	ASSERT_EQ(pid, again);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, fnl_users(&self->c, DEV, &self->us));
	u = find_key(&self->us, (uint64_t)pid);
	ASSERT_NE(NULL, u);
	EXPECT_EQ(8192U, u->write_bytes);
	EXPECT_EQ(1U, u->activations);
	r = find_bucket(&self->us, FNBLK_BUCKET_RETIRED);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(1U, r->count);
	EXPECT_EQ(4096U, r->write_bytes);
}

/* Changing the key mode retires the users of the old one. */
TEST_F(users, key_change_retires_users)
{
	const struct fnl_user *r;
	struct fnl_stats s;
	int i;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 0,
						 .grace_ns = 1000000)));
	for (i = 0; i < 3; i++)
		ASSERT_LT(0, child_write((uint64_t)i * 4096, 4096));
	usleep(20000);
	ASSERT_EQ(0, dev_set(&self->c, &DEV_CFG(.name = DEV,
						 .key = FNBLK_KEY_PID)));
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	ASSERT_EQ(0, fnl_users(&self->c, DEV, &self->us));
	EXPECT_EQ(0U, s.v[FNBLK_STAT_NR_USERS]);
	ASSERT_EQ(1U, self->us.nr);
	r = find_bucket(&self->us, FNBLK_BUCKET_RETIRED);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(3U, r->count);
	EXPECT_EQ(3U * 4096, r->write_bytes);
}

/*
 * Threads come and go (a new user each, key pid, a small table that
 * overflows and is reaped) while counters are reset again and again and
 * the timer completes requests: the path where the XArray's lock met
 * dev->lock the wrong way round. Afterwards the records add up.
 */
TEST_F_TIMEOUT(users, churn_with_resets, 120)
{
	struct fnl_stats s;
	uint64_t deadline;
	pid_t churn, reset;
	int status, ok = 0;

	ASSERT_EQ(0, write_param("user_retain_s", "0"));
	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 32 * MiB,
			.latency_ns = 100000, .key = FNBLK_KEY_PID,
			.grace_ns = 1000000, .max_users = 64)));
	deadline = now_ns() + 4000000000ULL;
	churn = fork();
	ASSERT_LE(0, churn);
	if (!churn) {
		alarm(60);
		while (now_ns() < deadline)
			if (crowd_write(16))
				_exit(1);
		_exit(0);
	}
	reset = fork();
	ASSERT_LE(0, reset);
	if (!reset) {
		struct fnl c;

		alarm(60);
		if (fnl_open(&c))
			_exit(1);
		while (now_ns() < deadline)
			if (fnl_simple(&c, FNBLK_CMD_STATS_RESET, DEV))
				_exit(2);
		_exit(0);
	}
	ASSERT_EQ(churn, waitpid(churn, &status, 0));
	ok += WIFEXITED(status) && !WEXITSTATUS(status);
	ASSERT_EQ(reset, waitpid(reset, &status, 0));
	ok += WIFEXITED(status) && !WEXITSTATUS(status);
	EXPECT_EQ(2, ok);
	usleep(100000);
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	ASSERT_EQ(0, fnl_users(&self->c, DEV, &self->us));
	TH_LOG("users %llu, retired %llu, overflows %llu",
	       (unsigned long long)s.v[FNBLK_STAT_NR_USERS],
	       (unsigned long long)s.v[FNBLK_STAT_USERS_RETIRED],
	       (unsigned long long)s.v[FNBLK_STAT_USER_OVERFLOWS]);
	EXPECT_EQ(0U, s.v[FNBLK_STAT_INFLIGHT]);
	EXPECT_GE(64U, s.v[FNBLK_STAT_NR_USERS]);
	EXPECT_EQ(s.v[FNBLK_STAT_WRITE_BYTES], sum_write_bytes(&self->us));
}

TEST_HARNESS_MAIN
