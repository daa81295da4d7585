// SPDX-License-Identifier: GPL-2.0
/*
 * How bios become requests and what they cost: a large write is cut at
 * exactly 1 MiB whatever its pages; discard and write-zeroes cost the
 * per-request overhead, not a transfer of their size; many small discards
 * do not each wait for an RCU grace period; and a REQ_NOWAIT bio that
 * meets an allocation failure asks to be retried (EAGAIN), which io_uring
 * does, instead of failing with EIO.
 */
#include "../kselftest_harness.h"
#include "fnblk_test.h"

#include <linux/fs.h>
#include <liburing.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#define DEV "fnblk23"
#define DEVPATH "/dev/" DEV

FIXTURE(rq) {
	struct fnl c;
};

FIXTURE_SETUP(rq)
{
	ASSERT_EQ(0, fnblk_load());
	ASSERT_EQ(0, fnl_open(&self->c));
}

FIXTURE_TEARDOWN(rq)
{
	write_param("inject_alloc_failures", "0");
	dev_del(&self->c, DEV);
	fnl_close(&self->c);
}

static int write_at(int fd, uint64_t off, uint32_t len)
{
	void *buf;
	int ok;

	if (posix_memalign(&buf, 4096, len))
		return -1;
	memset(buf, 0x6b, len);
	ok = pwrite(fd, buf, len, (off_t)off) == (ssize_t)len;
	free(buf);
	return ok ? 0 : -1;
}

/*
 * 4 MiB written from 1024 iovecs that all point at one page: no two
 * neighbours can merge into one segment, whatever the allocator did, so
 * each 1 MiB bio O_DIRECT builds (256 vectors) carries 256 segments. The
 * device's segment limits let it through whole: four requests of 1 MiB.
 * A guard, not a reproducer: the module before the limits also gave four
 * on 6.1 (seen), so no split by segments happened there either.
 */
TEST_F(rq, large_write_cut_at_1mib)
{
	struct iovec iov[1024];
	struct fnl_stats s;
	unsigned int i;
	void *page;
	int fd;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .size = 64 * MiB,
						 .bw = 64 * MiB)));
	ASSERT_EQ(0, posix_memalign(&page, 4096, 4096));
	memset(page, 0x5a, 4096);
	for (i = 0; i < 1024; i++)
		iov[i] = (struct iovec){ .iov_base = page, .iov_len = 4096 };
	fd = open(DEVPATH, O_WRONLY | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)(4 * MiB), pwritev(fd, iov, 1024, 16 * MiB));
	close(fd);
	free(page);
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	EXPECT_EQ(4 * MiB, s.v[FNBLK_STAT_WRITE_BYTES]);
	EXPECT_EQ(4U, s.v[FNBLK_STAT_WRITE_OPS]);
}

/*
 * Discarding all of a 64 MiB device at 8 MiB/s costs a few requests'
 * overhead (4 KiB each), not 8 s of transfer; so does zeroing it.
 */
TEST_F(rq, discard_costs_overhead_only)
{
	uint64_t range[2] = { 0, 64 * MiB }, t0, dt;
	struct fnl_stats s;
	int fd;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .size = 64 * MiB,
			.bw = 8 * MiB, .overhead = 4096)));
	fd = open(DEVPATH, O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, write_at(fd, 0, MiB));
	t0 = now_ns();
	ASSERT_EQ(0, ioctl(fd, BLKDISCARD, range));
	ASSERT_EQ(0, ioctl(fd, BLKZEROOUT, range));
	dt = now_ns() - t0;
	close(fd);
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	TH_LOG("discard and zero-out of 64 MiB: %.3f s, %llu requests",
	       secs(dt), (unsigned long long)s.v[FNBLK_STAT_DISCARD_OPS]);
	EXPECT_EQ(128 * MiB, s.v[FNBLK_STAT_DISCARD_BYTES]);
	EXPECT_LE(2U, s.v[FNBLK_STAT_DISCARD_OPS]);
	/* 8 s or more if charged by size; ms otherwise. Loose for TCG. */
	EXPECT_TIMING(dt < 2000000000ULL);
}

/*
 * 1000 discards of a written page each: freeing pages after an RCU grace
 * period must not make each one wait for it (a file system mounted with
 * -o discard sends one per freed extent).
 */
TEST_F(rq, discards_do_not_wait_for_rcu)
{
	uint64_t range[2], t0, dt;
	struct fnl_stats s;
	int fd, i;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .size = 64 * MiB,
						 .bw = 0)));
	fd = open(DEVPATH, O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, write_at(fd, 0, 4 * MiB));
	t0 = now_ns();
	for (i = 0; i < 1000; i++) {
		range[0] = (uint64_t)i * 4096;
		range[1] = 4096;
		ASSERT_EQ(0, ioctl(fd, BLKDISCARD, range));
	}
	dt = now_ns() - t0;
	close(fd);
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	TH_LOG("1000 discards: %.3f s", secs(dt));
	EXPECT_EQ(1000U, s.v[FNBLK_STAT_DISCARD_OPS]);
	EXPECT_TIMING(dt < 3000000000ULL);
}

/* A NOWAIT write whose page allocation fails: EAGAIN, never EIO. */
TEST_F(rq, nowait_allocation_failure_is_eagain)
{
	struct iovec iov;
	void *buf;
	int fd;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .size = 64 * MiB,
						 .bw = 0)));
	ASSERT_EQ(0, posix_memalign(&buf, 4096, 4096));
	memset(buf, 0x11, 4096);
	iov = (struct iovec){ .iov_base = buf, .iov_len = 4096 };
	fd = open(DEVPATH, O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, write_param("inject_alloc_failures", "1"));
	EXPECT_EQ(-1, pwritev2(fd, &iov, 1, 0, RWF_NOWAIT));
	EXPECT_EQ(EAGAIN, errno);
	/* Allowed to block, the same write succeeds. */
	EXPECT_EQ(4096, pwritev2(fd, &iov, 1, 0, 0));
	close(fd);
	free(buf);
}

/* io_uring retries a NOWAIT attempt that got EAGAIN: the user sees none. */
TEST_F(rq, io_uring_write_survives_allocation_failure)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	struct fnl_stats s;
	void *buf, *back;
	int fd, res;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .size = 64 * MiB,
						 .bw = 0)));
	ASSERT_EQ(0, posix_memalign(&buf, 4096, 4096));
	ASSERT_EQ(0, posix_memalign(&back, 4096, 4096));
	memset(buf, 0x22, 4096);
	fd = open(DEVPATH, O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, io_uring_queue_init(4, &ring, 0));
	ASSERT_EQ(0, write_param("inject_alloc_failures", "1"));
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, fd, buf, 4096, 8192);
	ASSERT_EQ(1, io_uring_submit(&ring));
	ASSERT_EQ(0, io_uring_wait_cqe(&ring, &cqe));
	res = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	EXPECT_EQ(4096, res) TH_LOG("io_uring write: %s", strerror(-res));
	ASSERT_EQ(4096, pread(fd, back, 4096, 8192));
	EXPECT_EQ(0, memcmp(buf, back, 4096));
	close(fd);
	/* The refused attempt is counted. */
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	EXPECT_EQ(1U, s.v[FNBLK_STAT_ERRORS]);
	free(buf);
	free(back);
}

TEST_HARNESS_MAIN
