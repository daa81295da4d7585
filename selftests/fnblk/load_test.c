// SPDX-License-Identifier: GPL-2.0
/*
 * Loading fnblk: every module parameter out of range is refused with a
 * message that names it and its range (no value wraps into range); user
 * space cannot add devices while the module loads; and a load that fails
 * after its devices exist leaves nothing behind, even with someone trying
 * to open them.
 */
#include "../kselftest_harness.h"
#include "fnblk_test.h"

#include <signal.h>

static int unload(void)
{
	return access("/sys/module/fnblk", F_OK) ? 0 : system("rmmod fnblk");
}

/* Does the kernel log hold a line with both strings? */
static int dmesg_has(const char *a, const char *b)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "dmesg | grep -F -- '%s' | grep -qF -- '%s'", a, b);
	return system(cmd) == 0;
}

FIXTURE(load) {
	int unused;
};

FIXTURE_SETUP(load)
{
}

FIXTURE_TEARDOWN(load)
{
}

TEST_F_TIMEOUT(load, parameters_out_of_range_refused, 120)
{
	static const struct {
		const char *param, *range;
	} cases[] = {
		/* << 20 of each of these used to wrap to a value in range */
		{ "bw_mbps=17592186044416", "1 to 1048576 MiB/s" },
		{ "size_mb=17592186044417", "1 to 1048576 MiB" },
		{ "latency_us=18446744073709552", "0 to 10000000 us" },
		{ "overhead_kb=18014398509481985", "0 to 1048576 KiB" },
		{ "grace_us=18446744073709552", "0 to 10000000 us" },
		{ "bw_mbps=1048577", "0 (unthrottled) or 1 to 1048576" },
		{ "size_mb=0", "1 to 1048576 MiB" },
		{ "max_users=0", "1 to 1048576" },
		{ "nr_devices=1025", "0 to 1024" },
		/* names: the message lists the ones the parameter knows */
		{ "key=foo", "use tgid, pid, cgroup or single" },
		{ "policy=fair", "use anon, fifo or weighted" },
		{ "users=some", "use all or writes" },
		{ "store=disk", "use memory or none" },
		{ "cache=maybe", "use durable or volatile" },
		{ "fn=quadratic", "use constant, linear:K, power:A or table" },
		/* known shapes, values out of their range */
		{ "fn=linear:0", "whole K from 1 to 1024" },
		{ "fn=power:9", "in [-8, 8]" },
		{ "fn=table:1,0", "in (0, 1024]" },
		/*
		 * No number at all, or more than an unsigned long holds: the
		 * kernel's own "invalid for parameter" named no range.
		 */
		{ "bw_mbps=64M", "not a whole number: 0 (unthrottled) or 1 to 1048576 MiB/s" },
		{ "size_mb=-1", "not a whole number: 1 to 1048576 MiB" },
		{ "latency_us=99999999999999999999", "0 to 10000000 us" },
		{ "nr_devices=4294967297", "0 to 1024" },
		{ "max_users=", "not a whole number: 1 to 1048576 users" },
		{ "user_retain_s=1h", "0 to 4294967295 s" },
	};
	unsigned int i;

	ASSERT_EQ(0, unload());
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EXPECT_NE(0, module_reload(cases[i].param))
			TH_LOG("%s was accepted", cases[i].param);
		EXPECT_NE(0, access("/sys/module/fnblk", F_OK));
		unload();
		EXPECT_TRUE(dmesg_has(cases[i].param, cases[i].range))
			TH_LOG("no message naming %s and its range \"%s\"",
			       cases[i].param, cases[i].range);
	}
	/* The largest values in range load. */
	EXPECT_EQ(0, module_reload("nr_devices=1 bw_mbps=1048576 size_mb=1048576 latency_us=10000000 overhead_kb=1048576 grace_us=10000000 max_users=1048576"));
	/* At run time too: a refused write names the range, keeps the value. */
	EXPECT_EQ(0, write_param("user_retain_s", "30"));
	EXPECT_NE(0, write_param("user_retain_s", "-5\n"));
	EXPECT_TRUE(dmesg_has("user_retain_s=-5 is not a whole number",
			      "0 to 4294967295 s"));
	EXPECT_EQ(0, system("grep -qx 30 /sys/module/fnblk/parameters/user_retain_s"));
	EXPECT_EQ(0, unload());
}

/*
 * While fnblk loads with 256 devices, a racer waits for the netlink family
 * to appear and at once tries to add fnblk255 itself, while holding fnblk0
 * open whenever it can. The family must appear only once every default
 * device exists (user space cannot interfere with a load that may still
 * fail), so the racer's device is refused and the load succeeds.
 */
TEST_F_TIMEOUT(load, netlink_only_after_the_load, 120)
{
	volatile int *shared;
	int status, n = 0;
	pid_t racer;

	ASSERT_EQ(0, unload());
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, shared);
	racer = fork();
	ASSERT_LE(0, racer);
	if (!racer) {
		struct fnl c;
		int fd = -1, held = 0;

		alarm(100);
		while (!shared[0]) {
			if (!shared[1] && !fnl_open(&c)) {
				shared[1] = 1;
				/* Did the family come before the devices? */
				shared[2] = !access("/sys/block/fnblk255",
						    F_OK);
				shared[3] = dev_add(&c, &DEV_CFG(
						.name = "fnblk255",
						.size = 4 * MiB));
				fnl_close(&c);
			}
			/* Hold fnblk0 open for a while whenever it opens. */
			if (fd < 0) {
				fd = open("/dev/fnblk0", O_RDONLY);
				held = 0;
			} else if (++held == 2000) {
				close(fd);
				fd = -1;
			}
			usleep(200);
		}
		_exit(0);
	}
	usleep(100000);
	EXPECT_EQ(0, module_reload("nr_devices=256 size_mb=4"));
	usleep(100000);
	shared[0] = 1;
	ASSERT_EQ(racer, waitpid(racer, &status, 0));
	EXPECT_EQ(1, shared[1]);
	EXPECT_EQ(1, shared[2]) TH_LOG("the netlink family came before the devices");
	EXPECT_EQ(-EEXIST, shared[3]);
	for (n = 0; n < 256; n++) {
		char path[32];

		snprintf(path, sizeof(path), "/sys/block/fnblk%d", n);
		if (access(path, F_OK))
			break;
	}
	EXPECT_EQ(256, n);
	EXPECT_EQ(0, unload());
}

/*
 * A load that fails after creating its devices removes them all; a
 * process trying to open one meanwhile never gets it open, so no device
 * outlives the module's code.
 */
TEST_F_TIMEOUT(load, failed_load_leaves_nothing, 60)
{
	volatile int *shared;
	int status;
	pid_t opener;

	ASSERT_EQ(0, unload());
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, shared);
	opener = fork();
	ASSERT_LE(0, opener);
	if (!opener) {
		int fd;

		alarm(50);
		while (!shared[0]) {
			fd = open("/dev/fnblk0", O_RDONLY);
			if (fd >= 0) {
				shared[1]++;
				usleep(2000000);
				close(fd);
			} else if (errno == ENXIO) {
				shared[2]++;
			}
			usleep(200);
		}
		_exit(0);
	}
	EXPECT_NE(0, module_reload("nr_devices=2 inject_load_failure=1500"));
	shared[0] = 1;
	ASSERT_EQ(opener, waitpid(opener, &status, 0));
	TH_LOG("opens: %d succeeded, %d refused while loading", shared[1],
	       shared[2]);
	EXPECT_EQ(0, shared[1]);
	EXPECT_LT(0, shared[2]);
	EXPECT_NE(0, access("/sys/module/fnblk", F_OK));
	EXPECT_NE(0, access("/sys/block/fnblk0", F_OK));
	EXPECT_TRUE(dmesg_has("inject_load_failure", "failing the load"));
	/* And a normal load still works afterwards. */
	EXPECT_EQ(0, module_reload("nr_devices=1"));
	EXPECT_EQ(0, unload());
}

TEST_HARNESS_MAIN
