// SPDX-License-Identifier: GPL-2.0
/*
 * The table of users a device keeps: dumps that end (at the largest key,
 * and when the device is re-created under them), a cap with an overflow
 * bucket, idle users retired with their totals kept, a reused pid that
 * starts afresh, a key mode change, and users coming and going by the
 * hundred while the counters are reset under them, and key mode changes
 * racing the creation of new users.
 */
#define _GNU_SOURCE
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
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

/*
 * A user is inserted with the device lock dropped and queues its first
 * request only once the lock is back: the reaper, kicked by the crowd's
 * overflow, must not free it in between. Every writer writes once, so
 * every retired user was active once, and each writer is a user in the
 * table, a retired one or an overflow, never two of them.
 */
TEST_F(users, new_users_not_reaped_before_their_first_request)
{
	uint64_t deadline = now_ns() + 10000000000ULL;
	struct fnl_stats s;
	const struct fnl_user *r;
	uint64_t writers = 0;
	int rounds = 0;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 64 * MiB,
			.key = FNBLK_KEY_PID, .grace_ns = 1000000,
			.max_users = 8)));
	while (rounds < 300 && now_ns() < deadline) {
		ASSERT_EQ(0, crowd_write(24));
		writers += 24;
		rounds++;
	}
	usleep(300000);		/* the reaper kicked by the last round */
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	ASSERT_EQ(0, fnl_users(&self->c, DEV, &self->us));
	TH_LOG("%d rounds: %llu in the table, %llu retired, %llu overflows",
	       rounds, (unsigned long long)s.v[FNBLK_STAT_NR_USERS],
	       (unsigned long long)s.v[FNBLK_STAT_USERS_RETIRED],
	       (unsigned long long)s.v[FNBLK_STAT_USER_OVERFLOWS]);
	r = find_bucket(&self->us, FNBLK_BUCKET_RETIRED);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(r->count, r->activations);
	EXPECT_EQ(r->count, r->write_ops);
	EXPECT_EQ(writers, s.v[FNBLK_STAT_NR_USERS] +
		  s.v[FNBLK_STAT_USERS_RETIRED] +
		  s.v[FNBLK_STAT_USER_OVERFLOWS]);
	EXPECT_EQ(writers * 4096, s.v[FNBLK_STAT_WRITE_BYTES]);
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

/*
 * A retention shortened at run time applies at once: each reaper looks
 * again with it. (It used to keep idle users until the pass it had
 * planned under the old value, up to 10 s later: with an hour, its
 * period is 10 s.)
 */
TEST_F(users, shorter_retention_applies_at_once)
{
	struct fnl_stats s;
	uint64_t deadline;
	int i;

	ASSERT_EQ(0, write_param("user_retain_s", "3600"));
	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 0,
						 .grace_ns = 1000000)));
	for (i = 0; i < 4; i++)
		ASSERT_LT(0, child_write((uint64_t)i * 4096, 4096));
	usleep(300000);		/* idle (a 1 ms grace), kept for an hour */
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	ASSERT_EQ(4U, s.v[FNBLK_STAT_NR_USERS]);
	ASSERT_EQ(0, write_param("user_retain_s", "0"));
	/* Within 3 s (100 ms expected), well before the planned pass. */
	deadline = now_ns() + 3000000000ULL;
	do {
		usleep(50000);
		ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	} while (s.v[FNBLK_STAT_NR_USERS] && now_ns() < deadline);
	EXPECT_EQ(0U, s.v[FNBLK_STAT_NR_USERS]);
	EXPECT_EQ(4U, s.v[FNBLK_STAT_USERS_RETIRED]);
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

/* ---- key mode changes racing the creation of users ---- */

#define KC_WRITERS	4
#define KC_SLOTS	256	/* 4 KiB blocks each writer cycles over */

/*
 * What the writers did, shared with the test: the bytes they wrote, and
 * which ids wrote under which identity (bitmaps indexed by pid), so that
 * every user listed can be checked against the key mode in force.
 */
struct kc_shared {
	int fd;
	volatile int stop;
	uint64_t bytes;
	int errors;
	size_t words;		/* of each bitmap */
	uint64_t *thread_ids;	/* valid keys under key pid */
	uint64_t *process_ids;	/* valid keys under key tgid */
};

static void kc_mark(uint64_t *map, size_t words, pid_t id)
{
	if ((size_t)id / 64 < words)
		__atomic_or_fetch(&map[id / 64], 1ULL << (id % 64),
				  __ATOMIC_SEQ_CST);
}

static bool kc_marked(const uint64_t *map, size_t words, uint64_t id)
{
	return id / 64 < words &&
	       (__atomic_load_n(&map[id / 64], __ATOMIC_SEQ_CST) >>
		(id % 64)) & 1;
}

struct kc_write {
	struct kc_shared *sh;
	void *buf;
	uint64_t off;
};

/* One 4 KiB write, noted first under the calling thread's identity. */
static void kc_write_once(struct kc_write *w)
{
	struct kc_shared *sh = w->sh;

	kc_mark(sh->thread_ids, sh->words, (pid_t)syscall(SYS_gettid));
	if (pwrite(sh->fd, w->buf, 4096, (off_t)w->off) == 4096)
		__atomic_add_fetch(&sh->bytes, 4096, __ATOMIC_SEQ_CST);
	else
		__atomic_add_fetch(&sh->errors, 1, __ATOMIC_SEQ_CST);
}

static void *kc_thread(void *arg)
{
	kc_write_once(arg);
	return NULL;
}

/*
 * A writer process: every write comes from a new thread (a new user under
 * key pid), every eighth from a new child process (a new user under key
 * tgid too), until told to stop.
 */
static void kc_writer(struct kc_shared *sh, int idx)
{
	struct kc_write w = { .sh = sh };
	pthread_t t;
	unsigned int n;
	pid_t child;
	int status;

	if (posix_memalign(&w.buf, 4096, 4096))
		_exit(1);
	memset(w.buf, 0x5a, 4096);
	kc_mark(sh->process_ids, sh->words, getpid());
	for (n = 0; !sh->stop; n++) {
		w.off = ((uint64_t)idx * KC_SLOTS + n % KC_SLOTS) * 4096;
		if (n % 8 == 7) {
			child = fork();
			if (!child) {
				kc_mark(sh->process_ids, sh->words, getpid());
				kc_write_once(&w);
				_exit(0);
			}
			if (child < 0 || waitpid(child, &status, 0) != child)
				_exit(2);
		} else {
			if (pthread_create(&t, NULL, kc_thread, &w))
				_exit(3);
			pthread_join(t, NULL);
		}
	}
	_exit(0);
}

struct kc_cgroups {
	uint64_t root, id[KC_WRITERS];
};

static void kc_cgroup_name(char *name, size_t len, int i)
{
	snprintf(name, len, "fnblk-test-kc%d", i);
}

/* Whether a user listed under key mode is one that mode can produce. */
static bool kc_key_fits(int mode, const struct fnl_user *u,
			const struct kc_shared *sh,
			const struct kc_cgroups *cg)
{
	int i;

	switch (mode) {
	case FNBLK_KEY_SINGLE:
		return u->key == 0;
	case FNBLK_KEY_CGROUP:
		if (u->key == cg->root)
			return true;
		for (i = 0; i < KC_WRITERS; i++)
			if (cg->id[i] && u->key == cg->id[i])
				return true;
		return false;
	case FNBLK_KEY_PID:
		/* Key 0 is the kernel threads' (none write here). */
		return u->key ? kc_marked(sh->thread_ids, sh->words, u->key) :
				u->kthread;
	default:
		return u->key ? kc_marked(sh->process_ids, sh->words, u->key) :
				u->kthread;
	}
}

/*
 * The first user listed that the key mode cannot produce, or NULL. Users
 * that only read (the partition scan's) are not the writers'; a writer's
 * record may not count its write yet.
 */
static const struct fnl_user *kc_misfit(int mode, const struct fnl_users *us,
					const struct kc_shared *sh,
					const struct kc_cgroups *cg)
{
	size_t i;

	for (i = 0; i < us->nr; i++)
		if (!us->u[i].bucket &&
		    (us->u[i].write_ops || !us->u[i].read_ops) &&
		    !kc_key_fits(mode, &us->u[i], sh, cg))
			return &us->u[i];
	return NULL;
}

static size_t kc_listed(const struct fnl_users *us)
{
	size_t i, n = 0;

	for (i = 0; i < us->nr; i++)
		n += !us->u[i].bucket;
	return n;
}

static pid_t kc_spawn(struct kc_shared *sh, int idx)
{
	char name[32];
	pid_t pid = fork();

	if (pid)
		return pid;
	/* Never outlive the test, whatever stops it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(4);
	kc_cgroup_name(name, sizeof(name), idx);
	cgroup_enter(name, getpid());	/* without cgroups, all in the root */
	kc_writer(sh, idx);
	return 0;
}

/*
 * Key mode changes race users being created: writer processes, each in
 * its own cgroup, write from a new thread or process every time, while
 * the key mode cycles pid, single, tgid, single, cgroup, single for
 * seconds. Creating a user drops dev->lock around the allocation, and a
 * change can land in that gap: the module then works the key out again.
 * After every change, each user listed must be one the new mode produces
 * (none left from the mode before); at the end no user is counted that is
 * not listed, the records add up to the device's counters, which count
 * every byte written, and the kernel logged no warning.
 */
TEST_F_TIMEOUT(users, key_change_races_new_users, 180)
{
	static const int cycle[] = {
		FNBLK_KEY_PID, FNBLK_KEY_SINGLE, FNBLK_KEY_TGID,
		FNBLK_KEY_SINGLE, FNBLK_KEY_CGROUP, FNBLK_KEY_SINGLE,
	};
	const char *secs_env = getenv("FNBLK_KEY_RACE_S");
	uint64_t secs = secs_env ? strtoull(secs_env, NULL, 10) : 6;
	struct fnl_users big = { .cap = 65536 };
	const struct fnl_user *bad;
	unsigned int changes = 0, busy = 0, misfits = 0, overlaps = 0;
	int mode = FNBLK_KEY_PID, step, status, i, ret, klog;
	uint64_t deadline, longest, settle, records;
	struct kc_cgroups cg = { 0 };
	pid_t writer[KC_WRITERS];
	struct kc_shared *sh;
	struct fnl_stats s;
	char name[32], rec[1024];
	size_t words, map_bytes;
	FILE *f;
	long pid_max = 4194304;

	big.u = calloc(big.cap, sizeof(*big.u));
	ASSERT_NE(NULL, big.u);
	f = fopen("/proc/sys/kernel/pid_max", "r");
	if (f) {
		if (fscanf(f, "%ld", &pid_max) != 1)
			pid_max = 4194304;
		fclose(f);
	}
	words = (size_t)pid_max / 64 + 1;
	map_bytes = sizeof(*sh) + 2 * words * sizeof(uint64_t);
	sh = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	sh->words = words;
	sh->thread_ids = (uint64_t *)(sh + 1);
	sh->process_ids = sh->thread_ids + words;

	/* Reaped within a second: stale users left by a race go quickly. */
	write_param("user_retain_s", "2");
	write_file(CG_ROOT "/cgroup.subtree_control", "+io");
	cg.root = cgroup_id_of(CG_ROOT);
	for (i = 0; i < KC_WRITERS; i++) {
		kc_cgroup_name(name, sizeof(name), i);
		cg.id[i] = cgroup_make(name);
	}
	/* Unthrottled, no grace: idle between writes, so changes succeed. */
	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 0,
			.latency_ns = 0, .grace_ns = 0, .key = mode)));
	sh->fd = open(DEVPATH, O_WRONLY | O_DIRECT);
	ASSERT_LE(0, sh->fd);
	klog = kmsg_follow();

	/* Whatever fails from here on, the writers are stopped first. */
	for (i = 0; i < KC_WRITERS; i++)
		writer[i] = kc_spawn(sh, i);
	deadline = now_ns() + secs * 1000000000ULL;
	/*
	 * The cycle goes round twice at least, however slow the kernel: a
	 * debug kernel beside other guests made 10 changes in 6 s.
	 */
	longest = deadline + 60000000000ULL;
	for (step = 1; now_ns() < deadline ||
	     (changes < 12 && now_ns() < longest); step++) {
		int next = cycle[step % 6];

		ret = dev_set(&self->c, &DEV_CFG(.name = DEV, .key = next));
		if (ret == -EBUSY) {	/* a user was active: try again */
			busy++;
			step--;
			continue;
		}
		EXPECT_EQ(0, ret) TH_LOG("dev set key: %s", self->c.err);
		if (ret)
			break;
		mode = next;
		changes++;
		/* Counted but not listed: created across the change. */
		ret = fnl_stats(&self->c, DEV, &s);
		if (!ret)
			ret = fnl_users(&self->c, DEV, &big);
		EXPECT_EQ(0, ret);
		if (ret)
			break;
		overlaps += s.v[FNBLK_STAT_NR_USERS] > kc_listed(&big);
		bad = kc_misfit(mode, &big, sh, &cg);
		if (bad && !misfits++)
			TH_LOG("after change %u to key %d: user %llu (%llu B written) is of another key mode",
			       changes, mode, (unsigned long long)bad->key,
			       (unsigned long long)bad->write_bytes);
	}
	sh->stop = 1;
	for (i = 0; i < KC_WRITERS; i++) {
		EXPECT_LT(0, writer[i]);
		if (writer[i] <= 0)
			continue;
		EXPECT_EQ(writer[i], waitpid(writer[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	close(sh->fd);
	TH_LOG("%u key changes (%u refused as busy), %u overlapped a user being created, %llu bytes written",
	       changes, busy, overlaps, (unsigned long long)sh->bytes);
	EXPECT_EQ(0, sh->errors);
	EXPECT_EQ(0U, misfits);
	/* Every step of the cycle happened twice at least. */
	EXPECT_LE(12U, changes);

	/* Users left over by a race are reaped (every second here). */
	settle = now_ns() + 20000000000ULL;
	do {
		usleep(200000);
		ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
		ASSERT_EQ(0, fnl_users(&self->c, DEV, &big));
	} while (s.v[FNBLK_STAT_NR_USERS] != kc_listed(&big) &&
		 now_ns() < settle);
	EXPECT_EQ(s.v[FNBLK_STAT_NR_USERS], kc_listed(&big));
	bad = kc_misfit(mode, &big, sh, &cg);
	EXPECT_EQ(NULL, bad) TH_LOG("at the end, under key %d: user %llu",
				    mode, (unsigned long long)bad->key);
	EXPECT_EQ(0U, s.v[FNBLK_STAT_INFLIGHT]);
	EXPECT_EQ(sh->bytes, s.v[FNBLK_STAT_WRITE_BYTES]);
	records = sum_write_bytes(&big);
	EXPECT_EQ(s.v[FNBLK_STAT_WRITE_BYTES], records);
	EXPECT_FALSE(klog >= 0 && kmsg_complained(klog, rec, sizeof(rec)))
		TH_LOG("kernel log: %s", rec);

	if (klog >= 0)
		close(klog);
	for (i = 0; i < KC_WRITERS; i++) {
		kc_cgroup_name(name, sizeof(name), i);
		cgroup_remove(name);
	}
	munmap(sh, map_bytes);
	free(big.u);
}

/*
 * ---- the fast path: requests of a user in its grace on a device
 * unthrottled without latency, counted without the device lock ----
 */

#define FP_THREADS	8
#define FP_SLOTS	1024	/* 4 KiB blocks each writer cycles over */

struct fp_writer {
	pthread_t tid;
	int fd;
	unsigned int idx;
	unsigned int writes;	/* that many, or 0: until *stop */
	unsigned int pause_us;	/* random pause up to this after each */
	volatile int *stop;
	uint64_t done;
	int error;
};

static void *fp_write(void *arg)
{
	struct fp_writer *w = arg;
	unsigned int seed = w->idx + 1, k;
	off_t off;
	void *buf;

	if (posix_memalign(&buf, 4096, 4096)) {
		w->error = ENOMEM;
		return NULL;
	}
	memset(buf, 0x5a, 4096);
	for (k = 0; w->writes ? k < w->writes : !*w->stop; k++) {
		off = (off_t)(w->idx * FP_SLOTS + k % FP_SLOTS) * 4096;
		if (pwrite(w->fd, buf, 4096, off) != 4096) {
			w->error = errno ? errno : EIO;
			break;
		}
		w->done++;
		if (w->pause_us)
			usleep(rand_r(&seed) % w->pause_us);
	}
	free(buf);
	return NULL;
}

/* n writer threads of this process (one user under key tgid). */
static int fp_start(struct fp_writer *w, unsigned int n, unsigned int writes,
		    unsigned int pause_us, volatile int *stop)
{
	int fd = open(DEVPATH, O_WRONLY | O_DIRECT);
	unsigned int i;

	if (fd < 0)
		return -1;
	for (i = 0; i < n; i++) {
		w[i] = (struct fp_writer){ .fd = fd, .idx = i, .writes = writes,
					   .pause_us = pause_us, .stop = stop };
		if (pthread_create(&w[i].tid, NULL, fp_write, &w[i]))
			return -1;
	}
	return 0;
}

/* Join them; the writes they made, or -1 if one failed. */
static int64_t fp_join(struct fp_writer *w, unsigned int n)
{
	uint64_t done = 0;
	unsigned int i;
	int error = 0;

	for (i = 0; i < n; i++) {
		pthread_join(w[i].tid, NULL);
		done += w[i].done;
		if (w[i].error)
			error = w[i].error;
	}
	close(w[0].fd);
	return error ? -1 : (int64_t)done;
}

/*
 * What every check of the fast path ends with, once the writers are done
 * and past the grace: the counters hold exactly the writes made, the
 * user's records add up to them, nothing is in flight or active, and the
 * histogram of n covers the elapsed time.
 */
static void fp_check_exact(struct __test_metadata *_metadata,
			   struct fnl *c, struct fnl_users *us,
			   uint64_t writes)
{
	const struct fnl_user *u;
	struct fnl_stats s;

	ASSERT_EQ(0, fnl_stats(c, DEV, &s));
	ASSERT_EQ(0, fnl_users(c, DEV, us));
	EXPECT_EQ(writes, s.v[FNBLK_STAT_WRITE_OPS]);
	EXPECT_EQ(writes * 4096, s.v[FNBLK_STAT_WRITE_BYTES]);
	EXPECT_EQ(0U, s.v[FNBLK_STAT_ERRORS]);
	EXPECT_EQ(writes, sum_u64(s.lat_hist, FNBLK_LHIST_BINS));
	EXPECT_EQ(writes, s.size_hist[1][3]);	/* [4 KiB, 8 KiB) */
	EXPECT_EQ(0U, s.v[FNBLK_STAT_INFLIGHT]);
	EXPECT_EQ(0U, s.v[FNBLK_STAT_NR_ACTIVE]);
	EXPECT_EQ(s.v[FNBLK_STAT_ELAPSED_NS],
		  sum_u64(s.n_hist, FNBLK_NHIST_BINS));
	EXPECT_EQ(s.v[FNBLK_STAT_WRITE_BYTES], sum_write_bytes(us));
	u = find_key(us, (uint64_t)getpid());
	ASSERT_NE(NULL, u);
	EXPECT_EQ(writes, u->write_ops);
	EXPECT_EQ(writes * 4096, u->write_bytes);
	EXPECT_FALSE(u->active);
	EXPECT_LE(1U, u->activations);
	EXPECT_EQ(s.v[FNBLK_STAT_ACTIVATIONS], u->activations);
}

/* Eight threads of one user: every write counted, once. */
TEST_F(users, fast_path_counts_exact)
{
	struct fp_writer w[FP_THREADS];
	int64_t done;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 0,
						 .grace_ns = 20000000)));
	ASSERT_EQ(0, fp_start(w, FP_THREADS, 1000, 0, NULL));
	done = fp_join(w, FP_THREADS);
	ASSERT_EQ(FP_THREADS * 1000, done);
	usleep(100000);		/* past the grace */
	fp_check_exact(_metadata, &self->c, &self->us, (uint64_t)done);
}

/*
 * A user whose grace (1 ms) ends again and again while its other threads
 * take the fast path, and stats snapshots run the core meanwhile.
 */
TEST_F(users, fast_path_races_grace_end)
{
	struct fp_writer w[FP_THREADS];
	volatile int stop = 0;
	struct fnl_stats s;
	uint64_t deadline;
	int64_t done;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 0,
						 .grace_ns = 1000000)));
	ASSERT_EQ(0, fp_start(w, 4, 0, 3000, &stop));
	deadline = now_ns() + 1500000000ULL;
	while (now_ns() < deadline)
		ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	stop = 1;
	done = fp_join(w, 4);
	ASSERT_LT(0, done);
	usleep(100000);
	fp_check_exact(_metadata, &self->c, &self->us, (uint64_t)done);
	TH_LOG("%lld writes, %llu activations", (long long)done,
	       (unsigned long long)find_key(&self->us, getpid())->activations);
}

/* Set the key mode, once no user is active (it changes only then). */
static int fp_set_key(struct fnl *c, uint8_t key, unsigned int *busy)
{
	uint64_t give_up = now_ns() + 10000000000ULL;
	int ret;

	while ((ret = dev_set(c, &DEV_CFG(.name = DEV, .key = key))) ==
	       -EBUSY && now_ns() < give_up) {
		++*busy;
		usleep(1000);
	}
	return ret;
}

/*
 * Stats resets and key mode changes under the fast path: the writers
 * pause for up to 4 ms (the grace is 0.5 ms), so the device is idle now
 * and then and the key mode can change. Afterwards the records add up,
 * and a run of known writes is counted exactly.
 */
TEST_F_TIMEOUT(users, fast_path_races_reset_and_key_change, 120)
{
	static const uint8_t keys[] = { FNBLK_KEY_PID, FNBLK_KEY_SINGLE,
					FNBLK_KEY_TGID };
	unsigned int i, changes = 0, busy = 0;
	struct fp_writer w[FP_THREADS];
	volatile int stop = 0;
	struct fnl_stats s;
	uint64_t deadline;
	int64_t done;
	int ret;

	ASSERT_EQ(0, write_param("user_retain_s", "0"));
	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 0,
						 .grace_ns = 500000)));
	ASSERT_EQ(0, fp_start(w, 4, 0, 4000, &stop));
	deadline = now_ns() + 1500000000ULL;
	for (i = 0; now_ns() < deadline; i++) {
		ret = fnl_simple(&self->c, FNBLK_CMD_STATS_RESET, DEV);
		if (!ret)
			ret = dev_set(&self->c, &DEV_CFG(.name = DEV,
						.key = keys[changes % 3]));
		if (ret == -EBUSY) {	/* a user was active */
			busy++;
			continue;
		}
		EXPECT_EQ(0, ret);
		if (ret)
			break;
		changes++;
		ret = fnl_stats(&self->c, DEV, &s);
		EXPECT_EQ(0, ret);
		if (ret)
			break;
	}
	stop = 1;
	ASSERT_LT(0, fp_join(w, 4));
	TH_LOG("%u key changes, %u refused while a user was active", changes,
	       busy);
	ASSERT_EQ(0, fp_set_key(&self->c, FNBLK_KEY_TGID, &busy));
	/* Users of the other key modes are retired (the reaper, 100 ms). */
	usleep(500000);
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	ASSERT_EQ(0, fnl_users(&self->c, DEV, &self->us));
	EXPECT_EQ(0U, s.v[FNBLK_STAT_INFLIGHT]);
	EXPECT_EQ(s.v[FNBLK_STAT_WRITE_BYTES], sum_write_bytes(&self->us));
	EXPECT_EQ(s.v[FNBLK_STAT_WRITE_OPS] * 4096,
		  s.v[FNBLK_STAT_WRITE_BYTES]);

	/* The user of the run below stays listed (not retired when idle). */
	ASSERT_EQ(0, write_param("user_retain_s", "60"));
	ASSERT_EQ(0, fnl_simple(&self->c, FNBLK_CMD_STATS_RESET, DEV));
	ASSERT_EQ(0, fp_start(w, 4, 500, 0, NULL));
	done = fp_join(w, 4);
	ASSERT_EQ(2000, done);
	usleep(100000);
	fp_check_exact(_metadata, &self->c, &self->us, (uint64_t)done);
}

TEST_HARNESS_MAIN
