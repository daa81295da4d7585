// SPDX-License-Identifier: GPL-2.0
/*
 * The write cache and power loss on the raw device: with cache volatile a
 * crash keeps exactly what a flush made durable and puts every other page
 * back as the last flush left it (FUA, which user space cannot send alone,
 * is exercised by ext4's journal in crash_ext4.sh); the device is down
 * (every I/O and open fails) until its last opener closes it; with cache
 * durable nothing is lost; the mode changes only while the device is
 * closed; writers racing flushes and a crash leave no torn page.
 */
#include "../kselftest_harness.h"
#include "fnblk_test.h"

#include <sys/uio.h>

#define DEV "fnblk24"
#define DEVPATH "/dev/" DEV
#define BLK 4096

FIXTURE(cache) {
	struct fnl c;
	void *buf;
};

FIXTURE_SETUP(cache)
{
	ASSERT_EQ(0, fnblk_load());
	ASSERT_EQ(0, fnl_open(&self->c));
	ASSERT_EQ(0, posix_memalign(&self->buf, BLK, BLK));
}

FIXTURE_TEARDOWN(cache)
{
	dev_del(&self->c, DEV);
	fnl_close(&self->c);
	free(self->buf);
}

/* Write block blk filled with byte; flags as pwritev2 takes them. */
static int put_block(int fd, void *buf, int blk, int byte, int flags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = BLK };

	memset(buf, byte, BLK);
	return pwritev2(fd, &iov, 1, (off_t)blk * BLK, flags) == BLK ? 0 : -1;
}

/* The byte block blk holds throughout, or -1 if it is not uniform. */
static int block_byte(int fd, void *buf, int blk)
{
	const uint8_t *p = buf;
	int i;

	if (pread(fd, buf, BLK, (off_t)blk * BLK) != BLK)
		return -2;
	for (i = 1; i < BLK; i++)
		if (p[i] != p[0])
			return -1;
	return p[0];
}

static int crash(struct fnl *c)
{
	return fnl_simple(c, FNBLK_CMD_DEV_CRASH, DEV);
}

TEST_F(cache, crash_keeps_what_was_made_durable)
{
	struct fnl_stats s;
	int fd, fd2;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .size = 16 * MiB,
			.bw = 0, .cache = FNBLK_CACHE_VOLATILE)));
	fd = open(DEVPATH, O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, put_block(fd, self->buf, 0, 'A', 0));
	ASSERT_EQ(0, put_block(fd, self->buf, 1, 'B', 0));
	ASSERT_EQ(0, fsync(fd));			/* a flush */
	ASSERT_EQ(0, put_block(fd, self->buf, 0, 'C', 0));
	ASSERT_EQ(0, put_block(fd, self->buf, 2, 'D', 0));
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	/* Pages 0 and 2 changed since the flush, saved as they were then. */
	EXPECT_EQ(2U * BLK, s.v[FNBLK_STAT_DIRTY_BYTES]);
	EXPECT_EQ('C', block_byte(fd, self->buf, 0));

	ASSERT_EQ(0, crash(&self->c));
	/* Down while open: I/O and new opens fail. */
	EXPECT_NE(0, put_block(fd, self->buf, 5, 'X', 0));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(-2, block_byte(fd, self->buf, 0));
	fd2 = open(DEVPATH, O_RDONLY);
	EXPECT_GT(0, fd2);
	EXPECT_EQ(EIO, errno);
	close(fd);

	/* Closed, it is back, as durable as it was. */
	fd = open(DEVPATH, O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd);
	EXPECT_EQ('A', block_byte(fd, self->buf, 0));	/* C was lost */
	EXPECT_EQ('B', block_byte(fd, self->buf, 1));
	EXPECT_EQ(0, block_byte(fd, self->buf, 2));	/* D was lost */
	EXPECT_EQ(0, block_byte(fd, self->buf, 5));
	/* And it works again. */
	EXPECT_EQ(0, put_block(fd, self->buf, 5, 'G', 0));
	EXPECT_EQ('G', block_byte(fd, self->buf, 5));
	close(fd);
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	EXPECT_EQ(1U, s.v[FNBLK_STAT_CRASHES]);
	EXPECT_EQ(2U * BLK, s.v[FNBLK_STAT_CRASH_LOST_BYTES]);
	EXPECT_EQ(1U * BLK, s.v[FNBLK_STAT_DIRTY_BYTES]);	/* G */
}

/*
 * An O_DSYNC write (FUA, and the block layer flushes after it) makes it
 * and everything written before it durable.
 */
TEST_F(cache, dsync_write_is_durable)
{
	struct fnl_stats s;
	int fd;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .size = 16 * MiB,
			.bw = 0, .cache = FNBLK_CACHE_VOLATILE)));
	fd = open(DEVPATH, O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, put_block(fd, self->buf, 3, 'E', 0));
	ASSERT_EQ(0, put_block(fd, self->buf, 4, 'F', RWF_DSYNC));
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	EXPECT_EQ(0U, s.v[FNBLK_STAT_DIRTY_BYTES]);
	close(fd);
	ASSERT_EQ(0, crash(&self->c));
	fd = open(DEVPATH, O_RDONLY | O_DIRECT);
	ASSERT_LE(0, fd);
	EXPECT_EQ('E', block_byte(fd, self->buf, 3));
	EXPECT_EQ('F', block_byte(fd, self->buf, 4));
	close(fd);
}

/* With cache durable a completed write survives a crash. */
TEST_F(cache, durable_cache_loses_nothing)
{
	struct fnl_stats s;
	int fd;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .size = 16 * MiB,
						 .bw = 0)));
	fd = open(DEVPATH, O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, put_block(fd, self->buf, 7, 'H', 0));
	close(fd);
	ASSERT_EQ(0, crash(&self->c));
	fd = open(DEVPATH, O_RDONLY | O_DIRECT);
	ASSERT_LE(0, fd);
	EXPECT_EQ('H', block_byte(fd, self->buf, 7));
	close(fd);
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	EXPECT_EQ(1U, s.v[FNBLK_STAT_CRASHES]);
	EXPECT_EQ(0U, s.v[FNBLK_STAT_CRASH_LOST_BYTES]);
}

/* Switching to volatile is refused while open; leaving it flushes. */
TEST_F(cache, mode_changes_only_while_closed)
{
	struct fnl_stats s;
	int fd;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .size = 16 * MiB,
						 .bw = 0)));
	fd = open(DEVPATH, O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EBUSY, dev_set(&self->c, &DEV_CFG(.name = DEV,
					.cache = FNBLK_CACHE_VOLATILE)));
	EXPECT_NE(NULL, strstr(self->c.err, "while the device is closed"));
	close(fd);
	ASSERT_EQ(0, dev_set(&self->c, &DEV_CFG(.name = DEV,
					.cache = FNBLK_CACHE_VOLATILE)));
	fd = open(DEVPATH, O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, put_block(fd, self->buf, 0, 'I', 0));
	close(fd);
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	EXPECT_EQ(1U * BLK, s.v[FNBLK_STAT_DIRTY_BYTES]);
	ASSERT_EQ(0, dev_set(&self->c, &DEV_CFG(.name = DEV,
					.cache = FNBLK_CACHE_DURABLE)));
	ASSERT_EQ(0, fnl_stats(&self->c, DEV, &s));
	EXPECT_EQ(0U, s.v[FNBLK_STAT_DIRTY_BYTES]);
	ASSERT_EQ(0, crash(&self->c));
	fd = open(DEVPATH, O_RDONLY | O_DIRECT);
	ASSERT_LE(0, fd);
	EXPECT_EQ('I', block_byte(fd, self->buf, 0));
	close(fd);
}

struct racer {
	int fd, id;
	volatile int *stop;
};

static void *race_writer(void *arg)
{
	struct racer *r = arg;
	unsigned int seed = (unsigned int)r->id * 7919U + 1;
	void *buf;
	int n = 0;

	if (posix_memalign(&buf, BLK, BLK))
		return NULL;
	while (!*r->stop) {
		/* Every block is written whole with one byte value. */
		n++;
		if (put_block(r->fd, buf, (int)(rand_r(&seed) % 256),
			      1 + (r->id * 61 + n) % 255,
			      n % 7 ? 0 : RWF_DSYNC))
			break;
	}
	free(buf);
	return NULL;
}

/* Writers racing flushes and a crash: every page ends whole. */
TEST_F(cache, no_torn_page_under_writers_flushes_and_crash)
{
	volatile int stop = 0;
	struct racer r[4];
	pthread_t tid[4];
	int fd, i, blk, torn = 0;

	ASSERT_EQ(0, dev_add(&self->c, &DEV_CFG(.name = DEV, .size = 16 * MiB,
			.bw = 0, .cache = FNBLK_CACHE_VOLATILE)));
	fd = open(DEVPATH, O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd);
	for (i = 0; i < 4; i++) {
		r[i] = (struct racer){ .fd = fd, .id = i, .stop = &stop };
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, race_writer, &r[i]));
	}
	for (i = 0; i < 50; i++) {
		usleep(10000);
		ASSERT_EQ(0, fsync(fd));
	}
	ASSERT_EQ(0, crash(&self->c));	/* writers now fail and stop */
	stop = 1;
	for (i = 0; i < 4; i++)
		pthread_join(tid[i], NULL);
	close(fd);
	fd = open(DEVPATH, O_RDONLY | O_DIRECT);
	ASSERT_LE(0, fd);
	for (blk = 0; blk < 256; blk++)
		torn += block_byte(fd, self->buf, blk) < 0;
	close(fd);
	EXPECT_EQ(0, torn);
}

TEST_HARNESS_MAIN
