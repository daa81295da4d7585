// SPDX-License-Identifier: GPL-2.0
/*
 * The request-size histograms count exactly: O_DIRECT calls of known
 * sizes land one each in the bin of their size, reads and writes apart;
 * nothing is ever counted above the 1 MiB request limit; a reset zeroes
 * them.
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"
#include "fnblk_test.h"

#define DEV "fnblk6"
#define PATH "/dev/" DEV

/* bin of a size: [512 << i, 1024 << i) */
static unsigned int bin_of(uint64_t bytes)
{
	unsigned int b = 0;

	while (b + 1 < FNBLK_RSIZE_BINS && (1024ULL << b) <= bytes)
		b++;
	return b;
}

FIXTURE(rsize) {
	struct fnl c;
	uint8_t *buf;
	int fd;
};

FIXTURE_SETUP(rsize)
{
	ASSERT_EQ(0, fnblk_load());
	ASSERT_EQ(0, fnl_open(&self->c));
	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .size = 64 * MiB,
						 .bw = 0)));
	ASSERT_EQ(0, posix_memalign((void **)&self->buf, 4096, 4 * MiB));
	memset(self->buf, 0x5a, 4 * MiB);
	self->fd = open(PATH, O_RDWR | O_DIRECT);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, fnl_simple(&self->c, FNBLK_CMD_STATS_RESET, DEV));
}

FIXTURE_TEARDOWN(rsize)
{
	close(self->fd);
	free(self->buf);
	EXPECT_EQ(0, dev_del(&self->c, DEV));
	fnl_close(&self->c);
}

struct call {
	bool write;
	uint32_t bytes;
	unsigned int times;
};

/* Known calls, one request each: every bin holds exactly its calls. */
TEST_F(rsize, each_call_counts_once_in_its_bin)
{
	static const struct call calls[] = {
		{ false, 512, 3 }, { false, 4096, 5 }, { false, 12288, 2 },
		{ false, 65536, 4 }, { false, 1 << 20, 2 }, { true, 4096, 7 },
		{ true, 131072, 1 }, { true, 1 << 20, 1 }, { true, 1536, 2 },
	};
	uint64_t want[2][FNBLK_RSIZE_BINS] = { { 0 } }, bytes[2] = { 0 };
	uint64_t off = 0, ops[2] = { 0 };
	struct fnl_stats s;
	unsigned int i, k, d;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		const struct call *c = &calls[i];

		for (k = 0; k < c->times; k++) {
			ssize_t n = c->write ?
				pwrite(self->fd, self->buf, c->bytes, (off_t)off) :
				pread(self->fd, self->buf, c->bytes, (off_t)off);

			ASSERT_EQ((ssize_t)c->bytes, n);
			off += 1 << 20;
		}
		want[c->write][bin_of(c->bytes)] += c->times;
		bytes[c->write] += (uint64_t)c->bytes * c->times;
		ops[c->write] += c->times;
	}
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	EXPECT_EQ(ops[0], s.v[FNBLK_STAT_READ_OPS]);
	EXPECT_EQ(ops[1], s.v[FNBLK_STAT_WRITE_OPS]);
	EXPECT_EQ(bytes[0], s.v[FNBLK_STAT_READ_BYTES]);
	EXPECT_EQ(bytes[1], s.v[FNBLK_STAT_WRITE_BYTES]);
	for (d = 0; d < 2; d++)
		for (i = 0; i < FNBLK_RSIZE_BINS; i++)
			EXPECT_EQ(want[d][i], s.size_hist[d][i])
				TH_LOG("%s bin %u (%llu bytes and up)",
				       d ? "write" : "read", i, 512ULL << i);
}

/*
 * A 4 MiB write is split at the 1 MiB request limit, and only there (the
 * segment limits never split it further): four requests in the 1 MiB bin.
 * It is written from 1024 iovecs of one page, so that each bio O_DIRECT
 * builds holds 1 MiB whatever the allocator did (from one contiguous
 * buffer, 6.1 merges pages into larger bios, which the limit then cuts
 * into five requests or more, none above 1 MiB; requests_test does the
 * same).
 */
TEST_F(rsize, nothing_above_the_request_limit)
{
	struct iovec iov[1024];
	struct fnl_stats s;
	uint64_t reqs = 0;
	unsigned int i;

	for (i = 0; i < 1024; i++)
		iov[i] = (struct iovec){ .iov_base = self->buf, .iov_len = 4096 };
	ASSERT_EQ((ssize_t)(4 * MiB), pwritev(self->fd, iov, 1024, 0));
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	for (i = 0; i < FNBLK_RSIZE_BINS; i++) {
		reqs += s.size_hist[1][i];
		if (i > bin_of(MiB))
			EXPECT_EQ(0ULL, s.size_hist[1][i])
				TH_LOG("a write of %llu bytes or more", 512ULL << i);
	}
	EXPECT_EQ(s.v[FNBLK_STAT_WRITE_OPS], reqs);
	EXPECT_EQ(4ULL, reqs);
	EXPECT_EQ(4ULL, s.size_hist[1][bin_of(MiB)]);
	EXPECT_EQ(4 * MiB, s.v[FNBLK_STAT_WRITE_BYTES]);
}

/* A reset zeroes the histograms with the other counters. */
TEST_F(rsize, reset_zeroes_them)
{
	struct fnl_stats s;
	unsigned int d, i;

	ASSERT_EQ((ssize_t)65536, pread(self->fd, self->buf, 65536, 0));
	ASSERT_EQ((ssize_t)65536, pwrite(self->fd, self->buf, 65536, 0));
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	ASSERT_EQ(1ULL, s.size_hist[0][bin_of(65536)]);
	ASSERT_EQ(1ULL, s.size_hist[1][bin_of(65536)]);
	ASSERT_EQ(0, fnl_simple(&self->c, FNBLK_CMD_STATS_RESET, DEV));
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	for (d = 0; d < 2; d++)
		for (i = 0; i < FNBLK_RSIZE_BINS; i++)
			EXPECT_EQ(0ULL, s.size_hist[d][i]);
}

TEST_HARNESS_MAIN
