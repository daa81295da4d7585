// SPDX-License-Identifier: GPL-2.0
/*
 * Who counts as a user under each key mode: processes (tgid), threads
 * (pid), cgroups, or everyone as one (single); and the writeback flusher,
 * a kernel thread, as user 0 under tgid but charged to the dirtying job's
 * cgroup under key cgroup.
 */
#include "../kselftest_harness.h"
#include "fnblk_test.h"

#define DEV "fnblk12"
#define DEVPATH "/dev/" DEV

FIXTURE(id) {
	struct fnl c;
	struct fnl_users us;
};

FIXTURE_SETUP(id)
{
	ASSERT_EQ(0, fnblk_load());
	ASSERT_EQ(0, fnl_open(&self->c));
	self->us.u = calloc(64, sizeof(struct fnl_user));
	self->us.cap = 64;
}

FIXTURE_TEARDOWN(id)
{
	dev_del(&self->c, DEV);
	free(self->us.u);
	fnl_close(&self->c);
}

static int users_of(struct fnl *c, struct fnl_users *us)
{
	return fnl_users(c, DEV, us);
}

static const struct fnl_user *find_user(const struct fnl_users *us,
					uint64_t key)
{
	size_t i;

	for (i = 0; i < us->nr; i++)
		if (us->u[i].key == key)
			return &us->u[i];
	return NULL;
}

static void keep_pids(const pid_t *pids, int n, void *arg)
{
	memcpy(arg, pids, (size_t)n * sizeof(*pids));
}

/* Two processes, one of them with four threads: two users, by tgid. */
TEST_F(id, key_tgid_counts_processes)
{
	struct wspec ws[2] = {
		{ .path = DEVPATH, .bytes = MiB, .bs = 65536, .qd = 4, .fill = 1 },
		{ .path = DEVPATH, .offset = 8 * MiB, .bytes = MiB,
		  .bs = 65536, .qd = 1, .fill = 2 },
	};
	struct wres res[2];
	pid_t pids[2];

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 32 * MiB,
						 .key = FNBLK_KEY_TGID)));
	ASSERT_EQ(0, run_writers_hook(ws, 2, res, 0, keep_pids, pids));
	ASSERT_EQ(0, users_of(&self->c, &self->us));
	EXPECT_EQ(2u, self->us.nr);
	ASSERT_NE(NULL, find_user(&self->us, pids[0]));
	ASSERT_NE(NULL, find_user(&self->us, pids[1]));
	EXPECT_EQ(MiB, find_user(&self->us, pids[0])->write_bytes);
	EXPECT_EQ(0, find_user(&self->us, pids[0])->kthread);
}

/* One process with three threads: three users under key pid. */
TEST_F(id, key_pid_counts_threads)
{
	struct wspec ws = { .path = DEVPATH, .bytes = 3 * 65536 * 4,
			    .bs = 65536, .qd = 3, .fill = 3 };
	struct wres res;
	uint64_t total = 0;
	size_t i;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 32 * MiB,
						 .key = FNBLK_KEY_PID)));
	ASSERT_EQ(0, run_writers(&ws, 1, &res, 0));
	ASSERT_EQ(0, users_of(&self->c, &self->us));
	EXPECT_EQ(3u, self->us.nr);
	for (i = 0; i < self->us.nr; i++)
		total += self->us.u[i].write_bytes;
	EXPECT_EQ(ws.bytes, total);
}

/* Three processes, one user: key single. */
TEST_F(id, key_single_is_one_user)
{
	struct wspec ws[3];
	struct wres res[3];
	int i;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 32 * MiB,
						 .key = FNBLK_KEY_SINGLE)));
	for (i = 0; i < 3; i++)
		ws[i] = (struct wspec){ .path = DEVPATH,
			.offset = (uint64_t)i * 8 * MiB, .bytes = MiB,
			.bs = 65536, .qd = 1, .fill = 4 };
	ASSERT_EQ(0, run_writers(ws, 3, res, 0));
	ASSERT_EQ(0, users_of(&self->c, &self->us));
	ASSERT_EQ(1u, self->us.nr);
	EXPECT_EQ(0u, self->us.u[0].key);
	EXPECT_EQ(3 * MiB, self->us.u[0].write_bytes);
}

struct cg_pair {
	uint64_t a, b;
};

/* Writers 0 and 1 go to cgroup A, writer 2 to B, before they start. */
static void into_cgroups(const pid_t *pids, int n, void *arg)
{
	(void)arg;
	(void)n;
	cgroup_enter("fnblk-test-a", pids[0]);
	cgroup_enter("fnblk-test-a", pids[1]);
	cgroup_enter("fnblk-test-b", pids[2]);
}

/* Three processes in two cgroups: two users, keyed by cgroup id. */
TEST_F(id, key_cgroup_counts_cgroups)
{
	struct wspec ws[3];
	struct wres res[3];
	struct cg_pair cg;
	const struct fnl_user *ua, *ub;
	int i;

	write_file(CG_ROOT "/cgroup.subtree_control", "+io");
	cg.a = cgroup_make("fnblk-test-a");
	cg.b = cgroup_make("fnblk-test-b");
	ASSERT_NE(0u, cg.a);
	ASSERT_NE(0u, cg.b);
	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 32 * MiB,
						 .key = FNBLK_KEY_CGROUP)));
	for (i = 0; i < 3; i++)
		ws[i] = (struct wspec){ .path = DEVPATH,
			.offset = (uint64_t)i * 8 * MiB, .bytes = MiB,
			.bs = 65536, .qd = 2, .fill = 5 };
	ASSERT_EQ(0, run_writers_hook(ws, 3, res, 0, into_cgroups, NULL));
	ASSERT_EQ(0, users_of(&self->c, &self->us));
	ua = find_user(&self->us, cg.a);
	ub = find_user(&self->us, cg.b);
	EXPECT_EQ(2u, self->us.nr);
	ASSERT_NE(NULL, ua);
	ASSERT_NE(NULL, ub);
	EXPECT_EQ(2 * MiB, ua->write_bytes);
	EXPECT_EQ(MiB, ub->write_bytes);
	cgroup_remove("fnblk-test-a");
	cgroup_remove("fnblk-test-b");
}

/*
 * Dirty pages left for the flusher: written back by a kernel thread. Under
 * key tgid that is user 0, flagged; under key cgroup it is charged to the
 * cgroup of the job that dirtied them, still flagged as kernel-thread I/O.
 * The flusher is made to run within a second (expire 10 ms, wake 100 ms).
 */
static void write_back_later(struct __test_metadata *_metadata,
			     const char *cgroup)
{
	static uint8_t buf[MiB];
	int fd, status;
	pid_t pid;

	ASSERT_EQ(0, write_file("/proc/sys/vm/dirty_expire_centisecs", "1"));
	ASSERT_EQ(0, write_file("/proc/sys/vm/dirty_writeback_centisecs",
				"10"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (cgroup && cgroup_enter(cgroup, getpid()))
			_exit(1);
		fd = open(DEVPATH, O_WRONLY);
		memset(buf, 7, sizeof(buf));
		if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf))
			_exit(2);
		sleep(2);	/* open, so closing does not write back */
		close(fd);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	write_file("/proc/sys/vm/dirty_expire_centisecs", "3000");
	write_file("/proc/sys/vm/dirty_writeback_centisecs", "500");
}

TEST_F(id, writeback_is_a_kernel_user)
{
	const struct fnl_user *k;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 64 * MiB,
						 .key = FNBLK_KEY_TGID)));
	write_back_later(_metadata, NULL);
	ASSERT_EQ(0, users_of(&self->c, &self->us));
	k = find_user(&self->us, 0);
	ASSERT_NE(NULL, k);
	EXPECT_TRUE(k->kthread);
	EXPECT_EQ(MiB, k->write_bytes);
}

TEST_F(id, writeback_charged_to_the_cgroup)
{
	const struct fnl_user *u;
	uint64_t cg;

	write_file(CG_ROOT "/cgroup.subtree_control", "+io");
	cg = cgroup_make("fnblk-test-wb");
	ASSERT_NE(0u, cg);
	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .bw = 64 * MiB,
						 .key = FNBLK_KEY_CGROUP)));
	write_back_later(_metadata, "fnblk-test-wb");
	ASSERT_EQ(0, users_of(&self->c, &self->us));
	u = find_user(&self->us, cg);
	ASSERT_NE(NULL, u) TH_LOG("no user with the cgroup's id %llu",
				  (unsigned long long)cg);
	EXPECT_TRUE(u->kthread);
	EXPECT_EQ(MiB, u->write_bytes);
	cgroup_remove("fnblk-test-wb");
}

TEST_HARNESS_MAIN
