// SPDX-License-Identifier: GPL-2.0
/*
 * The fnblk module as a block device: loading with parameters, data that
 * round-trips exactly under concurrent writers (direct and through the page
 * cache), discard, the "none" store, unloading refused while a device is
 * open, and a hundred devices added and deleted while another is busy.
 */
#include "../kselftest_harness.h"
#include "fnblk_test.h"

#include <linux/fs.h>
#include <sys/ioctl.h>

static int read_sysfs_u64(const char *path, uint64_t *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%lu", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* Compare a region with what writer pattern_fill() put there. */
static int verify_region(const char *path, uint64_t off, uint64_t len,
			 uint8_t fill)
{
	uint8_t *buf, *want;
	uint64_t pos;
	int fd, bad = 0;

	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&buf, 4096, MiB) ||
	    posix_memalign((void **)&want, 4096, MiB))
		return -1;
	for (pos = 0; pos < len && !bad; pos += MiB) {
		uint32_t n = len - pos < MiB ? (uint32_t)(len - pos) : MiB;

		if (pread(fd, buf, n, (off_t)(off + pos)) != (ssize_t)n) {
			bad = -1;
			break;
		}
		pattern_fill(want, n, off + pos, fill);
		bad = memcmp(buf, want, n) ? -1 : 0;
	}
	free(buf);
	free(want);
	close(fd);
	return bad;
}

static int region_is_zero(const char *path, uint64_t off, uint32_t len)
{
	uint8_t *buf;
	uint32_t i;
	int fd, zero = 1;

	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&buf, 4096, len))
		return 0;
	if (pread(fd, buf, len, (off_t)off) != (ssize_t)len)
		zero = 0;
	for (i = 0; i < len && zero; i++)
		zero = !buf[i];
	free(buf);
	close(fd);
	return zero;
}

TEST(params_create_default_devices)
{
	uint64_t sectors;
	int ret;

	ASSERT_EQ(0, module_reload("nr_devices=2 size_mb=64 bw_mbps=32 fn=linear:2 latency_us=100 key=cgroup"));
	EXPECT_EQ(0, access("/dev/fnblk0", F_OK));
	EXPECT_EQ(0, access("/dev/fnblk1", F_OK));
	ASSERT_EQ(0, read_sysfs_u64("/sys/block/fnblk1/size", &sectors));
	EXPECT_EQ(64 * MiB / 512, sectors);
	ASSERT_EQ(0, system("rmmod fnblk"));
	/* Bad parameters fail the load with nothing left behind. */
	ret = module_reload("fn=quadratic");
	EXPECT_NE(0, ret);
	EXPECT_NE(0, access("/sys/module/fnblk", F_OK));
	EXPECT_NE(0, module_reload("policy=lottery"));
	EXPECT_NE(0, module_reload("size_mb=0"));
	EXPECT_NE(0, access("/dev/fnblk0", F_OK));
}

TEST(unload_refused_while_open)
{
	int fd;

	ASSERT_EQ(0, module_reload("bw_mbps=64"));
	fd = open("/dev/fnblk0", O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_NE(0, system("rmmod fnblk 2>/dev/null"));
	EXPECT_EQ(0, access("/dev/fnblk0", F_OK));
	close(fd);
	EXPECT_EQ(0, system("rmmod fnblk"));
}

FIXTURE(data) {
	struct fnl c;
};

FIXTURE_SETUP(data)
{
	ASSERT_EQ(0, fnblk_load());
	ASSERT_EQ(0, fnl_open(&self->c));
	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = "fnblk5",
			.size = 256 * MiB, .bw = 48 * MiB, .fn = "linear:4",
			.latency_ns = 200000, .overhead = 4096)));
}

FIXTURE_TEARDOWN(data)
{
	EXPECT_EQ(0, dev_del(&self->c, "fnblk5"));
	fnl_close(&self->c);
}

/* Eight writers of mixed sizes and depths; every byte reads back. */
TEST_F(data, concurrent_writers_round_trip)
{
	static const uint32_t bs[] = { 4096, 8192, 65536, 1 << 20 };
	struct wspec ws[8];
	struct wres res[8];
	int i;

	for (i = 0; i < 8; i++)
		ws[i] = (struct wspec){ .path = "/dev/fnblk5",
			.offset = (uint64_t)i * 8 * MiB + (i & 1) * 4096,
			.bytes = 2 * MiB, .bs = bs[i % 4],
			.qd = (uint32_t)(i % 3) * 3 + 1 };
	ASSERT_EQ(0, run_writers(ws, 8, res, 0));
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(0, verify_region("/dev/fnblk5", ws[i].offset,
					   ws[i].bytes, 0))
			TH_LOG("writer %d's region differs", i);
	}
	/* Never written: reads as zeros. */
	EXPECT_TRUE(region_is_zero("/dev/fnblk5", 200 * MiB, MiB));
}

/* Through the page cache, flushed with fsync, read back after dropping it. */
TEST_F(data, buffered_write_fsync_round_trip)
{
	static uint8_t buf[3 * 4096 + 100], back[sizeof(buf)];
	int fd, drop;

	pattern_fill(buf, sizeof(buf), 12345, 0);
	fd = open("/dev/fnblk5", O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)sizeof(buf), pwrite(fd, buf, sizeof(buf), 12345));
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	drop = open("/proc/sys/vm/drop_caches", O_WRONLY);
	ASSERT_LE(0, drop);
	ASSERT_EQ(2, write(drop, "3\n", 2));
	close(drop);
	fd = open("/dev/fnblk5", O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)sizeof(back), pread(fd, back, sizeof(back), 12345));
	close(fd);
	EXPECT_EQ(0, memcmp(buf, back, sizeof(buf)));
}

/* Discard frees whole pages and zeroes the partial ends. */
TEST_F(data, discard_reads_zero)
{
	struct wspec ws = { .path = "/dev/fnblk5", .offset = 0,
			    .bytes = MiB, .bs = 65536, .qd = 2 };
	uint64_t range[2] = { 4096 + 512, 64 * 1024 };
	uint8_t *buf;
	struct wres res;
	int fd, i, zeros = 1;

	ASSERT_EQ(0, run_writers(&ws, 1, &res, 0));
	fd = open("/dev/fnblk5", O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, BLKDISCARD, range));
	ASSERT_EQ(0, posix_memalign((void **)&buf, 4096, 128 * 1024));
	ASSERT_EQ(128 * 1024, pread(fd, buf, 128 * 1024, 0));
	for (i = 4096 + 512; i < 4096 + 512 + 64 * 1024; i++)
		zeros &= buf[i] == 0;
	EXPECT_TRUE(zeros);
	/* Outside the range the data is intact. */
	EXPECT_EQ(pattern_byte(4096 + 511), buf[4096 + 511]);
	EXPECT_EQ(pattern_byte(4096 + 512 + 64 * 1024),
		  buf[4096 + 512 + 64 * 1024]);
	free(buf);
	close(fd);
}

/* A store allocation that fails fails its write, and only that write. */
TEST_F(data, allocation_failure_fails_the_io)
{
	uint8_t *buf;
	struct fnl_stats s;
	int fd, i, eio = 0;

	ASSERT_EQ(0, posix_memalign((void **)&buf, 4096, 4096));
	fd = open("/dev/fnblk5", O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd);
	pattern_fill(buf, 4096, 0, 0);
	ASSERT_EQ(4096, pwrite(fd, buf, 4096, 0));
	ASSERT_EQ(0, write_param("inject_alloc_failures", "3"));
	for (i = 1; i <= 4; i++) {
		pattern_fill(buf, 4096, (uint64_t)i * 4096, 0);
		if (pwrite(fd, buf, 4096, (off_t)i * 4096) != 4096) {
			EXPECT_EQ(EIO, errno);
			eio++;
		}
	}
	close(fd);
	EXPECT_EQ(3, eio);
	ASSERT_EQ(0, fnl_stats(&self->c, "fnblk5", &s));
	EXPECT_EQ(3u, s.v[FNBLK_STAT_ERRORS]);
	EXPECT_EQ(0u, s.v[FNBLK_STAT_INFLIGHT]);
	/* What was stored before and after the failures is intact. */
	EXPECT_EQ(0, verify_region("/dev/fnblk5", 0, 4096, 0));
	EXPECT_EQ(0, verify_region("/dev/fnblk5", 4 * 4096, 4096, 0));
	free(buf);
}

/*
 * One 4 MiB write becomes requests of at most 1 MiB (how the pages fall
 * decides whether there are four or a few more), each paying overhead.
 */
TEST_F(data, large_io_split_into_requests)
{
	struct fnl_stats s;
	uint8_t *buf;
	int fd;

	ASSERT_EQ(0, posix_memalign((void **)&buf, 4096, 4 * MiB));
	pattern_fill(buf, 4 * MiB, 16 * MiB, 0);
	ASSERT_EQ(0, fnl_simple(&self->c, FNBLK_CMD_STATS_RESET, "fnblk5"));
	fd = open("/dev/fnblk5", O_WRONLY | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)(4 * MiB), pwrite(fd, buf, 4 * MiB, 16 * MiB));
	close(fd);
	ASSERT_EQ(0, fnl_stats(&self->c, "fnblk5", &s));
	EXPECT_EQ(4 * MiB, s.v[FNBLK_STAT_WRITE_BYTES]);
	EXPECT_LE(4u, s.v[FNBLK_STAT_WRITE_OPS]);
	EXPECT_GE(8u, s.v[FNBLK_STAT_WRITE_OPS]);
	EXPECT_EQ(0, verify_region("/dev/fnblk5", 16 * MiB, 4 * MiB, 0));
	free(buf);
}

TEST(store_none_reads_zero)
{
	struct wspec ws = { .path = "/dev/fnblk6", .bytes = MiB, .bs = 65536,
			    .qd = 1 };
	struct fnl c;
	struct wres res;

	ASSERT_EQ(0, fnblk_load());
	ASSERT_EQ(0, fnl_open(&c));
	ASSERT_EQ(0, dev_add(&c, &DEV_CFG(.name = "fnblk6", .bw = 0,
					   .store = FNBLK_STORE_NONE)));
	ASSERT_EQ(0, run_writers(&ws, 1, &res, 0));
	EXPECT_TRUE(region_is_zero("/dev/fnblk6", 0, MiB));
	EXPECT_EQ(0, dev_del(&c, "fnblk6"));
	fnl_close(&c);
}

/* Devices come and go by the hundred while another one is written. */
TEST(hundred_devices_under_io)
{
	struct wspec ws = { .path = "/dev/fnblk5", .offset = 0,
			    .bytes = 8 * MiB, .bs = 65536, .qd = 4 };
	struct fnl c;
	char name[16];
	pid_t pid;
	int i, status, failed = 0;

	ASSERT_EQ(0, fnblk_load());
	ASSERT_EQ(0, fnl_open(&c));
	ASSERT_EQ(0, dev_add(&c, &DEV_CFG(.name = "fnblk5", .bw = 4 * MiB)));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct wres res;

		_exit(run_writers(&ws, 1, &res, 0) ? 1 : 0);
	}
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "fnblk%d", 200 + i);
		failed += dev_add(&c, &DEV_CFG(.name = name, .size = 4 * MiB,
					       .bw = 8 * MiB)) != 0;
	}
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "fnblk%d", 200 + i);
		failed += dev_del(&c, name) != 0;
	}
	EXPECT_EQ(0, failed);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, verify_region("/dev/fnblk5", 0, ws.bytes, 0));
	EXPECT_EQ(0, dev_del(&c, "fnblk5"));
	fnl_close(&c);
}

TEST_HARNESS_MAIN
