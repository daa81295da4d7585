// SPDX-License-Identifier: GPL-2.0
/*
 * Writes through fnmap reach the file: after fnmap_sync() (checked with
 * pread on a descriptor of its own), at fnmap_close(), at normal exit of a
 * process that never synced, and through evictions of dirty blocks when
 * the budget is far below what is written. Writers that keep writing
 * while syncs run lose nothing, and each sync makes durable at least what
 * was written before it began. A crash (SIGKILL) keeps what was synced and
 * nothing that was not (no eviction happened). The unaligned end of a file
 * is written without growing it; a file truncated underneath is not grown
 * back. FNMAP_PRIVATE writes never reach the file. FNMAP_SYNC_INVALIDATE
 * makes a change made underneath visible. A block written page after
 * page costs two write faults, not one a page (its twin), and write-back
 * still sends only the pages this process changed: not a page changed
 * underneath by another writer, nor a page rewritten with what it held.
 * A program that updates what it reads pays the write fault of its first
 * few blocks only: later fills are mapped writable with a twin
 * (write-allocate), write-back still sends only the changed pages, and a
 * program that stops writing soon stops getting twins.
 * The write-back of dirty evictions is held back for the evictor's pass
 * and goes out in no more requests than the pass's runs of adjacent
 * pieces need.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "fnmap_test.h"
#include "fnmap_internal.h"	/* struct req: a piece of write-back */

#define SIZE	((8ULL << 20) + 1234)
#define SEED	0xabc
#define SEED2	0xdef

static uint64_t file_word(int fd, uint64_t off)
{
	uint64_t w = 0;

	if (pread(fd, &w, 8, (off_t)off) != 8)
		w = ~0ULL;
	return w;
}

/* Every 8-byte word of the file at path: words in [lo, hi) step `step`
 * pages hold pattern SEED2, all others SEED. Returns the mismatches. */
static uint64_t verify(const char *path, uint64_t lo, uint64_t hi,
		       uint64_t step_pages)
{
	int fd = open(path, O_RDONLY);
	uint64_t off, bad = 0;
	static uint64_t buf[8192];

	for (off = 0; off + 8 <= SIZE; off += sizeof(buf)) {
		size_t n = SIZE - off < sizeof(buf) ? SIZE - off : sizeof(buf);
		size_t i;

		if (pread(fd, buf, n, (off_t)off) != (ssize_t)n)
			return ~0ULL;
		for (i = 0; i + 8 <= n; i += 8) {
			uint64_t o = off + i;
			bool changed = o >= lo && o < hi &&
				       ((o - lo) / 4096) % step_pages == 0;

			if (buf[i / 8] != word_at(o, changed ? SEED2 : SEED))
				bad++;
		}
	}
	close(fd);
	return bad;
}

/* Write SEED2 into every step-th page of [lo, hi) of the mapping. */
static void scribble(char *base, uint64_t lo, uint64_t hi, uint64_t step_pages)
{
	uint64_t o;

	for (o = lo; o < hi; o += 4096 * step_pages) {
		uint64_t i;

		for (i = 0; i < 4096 && o + i + 8 <= SIZE; i += 8) {
			uint64_t w = word_at(o + i, SEED2);

			memcpy(base + o + i, &w, 8);
		}
	}
}

static struct fnmap *open_rw(const char *path, uint64_t bs, unsigned int flags)
{
	struct fnmap_options o = { .block_size = bs, .flags = flags };
	struct fnmap *m = fnmap_open(path, O_RDWR, &o);

	if (!m)
		diag("fnmap_open: %s", fnmap_errmsg());
	return m;
}

static void test_sync_close(const char *path)
{
	struct fnmap *m;
	struct fnmap_stats st;

	make_file(path, SIZE, SEED);
	/* Fault counts of the twins alone: no write-allocate. */
	runtime_with(64 << 20, 4, 8, FNMAP_CFG_NO_WRITE_ALLOC);
	m = open_rw(path, 64 << 10, 0);
	if (!ok(m != NULL, "sync: open read-write"))
		return;
	scribble(fnmap_addr(m), 1 << 20, 3 << 20, 3);
	ok(!fnmap_sync(m, NULL, 0, 0), "sync: fnmap_sync");
	is_u64(verify(path, 1 << 20, 3 << 20, 3), 0,
	       "sync: the file holds what was written, nothing else changed");
	fnmap_stats(m, &st);
	/* 171 pages written, each its own run (every third page), in 32
	 * blocks: two faults a block (the second twins it), and now and
	 * then a repeat (a thread woken before its page was unprotected). */
	ok(st.faults_wp >= 64 && st.faults_wp <= 80 &&
	   st.write_bytes == 171 * 4096,
	   "sync: at most two write faults a block, only dirty pages "
	   "written (%llu faults, %llu bytes)",
	   (unsigned long long)st.faults_wp,
	   (unsigned long long)st.write_bytes);
	scribble(fnmap_addr(m), 5 << 20, 6 << 20, 1);
	ok(!fnmap_close(m), "close: fnmap_close");
	{
		int fd = open(path, O_RDONLY);
		uint64_t bad = 0, o;

		for (o = 5 << 20; o < 6 << 20; o += 8)
			bad += file_word(fd, o) != word_at(o, SEED2);
		close(fd);
		is_u64(bad, 0, "close: writes after the last sync are written "
		       "at close");
	}
}

/* Write every page of blocks [lo, hi) in order; what the stats say. */
static void sweep_blocks(const char *path, unsigned int flags, uint64_t lo,
			 uint64_t hi, struct fnmap_stats *st)
{
	struct fnmap *m;

	make_file(path, SIZE, SEED);
	runtime_with(64 << 20, 4, 8, flags);
	m = open_rw(path, 64 << 10, 0);
	memset(st, 0, sizeof(*st));
	if (!m)
		return;
	scribble(fnmap_addr(m), lo, hi, 1);
	if (fnmap_sync(m, NULL, 0, 0))
		diag("fnmap_sync: %s", fnmap_errmsg());
	fnmap_stats(m, st);
	fnmap_close(m);
}

/*
 * Twins: a block written page after page faults twice, and write-back
 * compares its clean pages with the twin to find what changed.
 */
static void test_twins(const char *path)
{
	uint64_t blk = 4 << 20, bytes0;
	struct fnmap_stats st;
	struct fnmap *m;
	char *base;
	int fd, i;

	/* 16 blocks of 16 pages, each page written in order. */
	sweep_blocks(path, FNMAP_CFG_NO_WRITE_ALLOC, 1 << 20, 2 << 20, &st);
	ok(st.faults_wp >= 32 && st.faults_wp <= 40 && st.twins == 16 &&
	   st.twin_pages == 16 * 14 &&
	   st.write_bytes == 1 << 20,
	   "twins: 256 pages written in 16 blocks take 32 write faults, 16 "
	   "twins find the other 224 pages (%llu faults, %llu twins, %llu "
	   "pages, %llu bytes)", (unsigned long long)st.faults_wp,
	   (unsigned long long)st.twins, (unsigned long long)st.twin_pages,
	   (unsigned long long)st.write_bytes);
	is_u64(verify(path, 1 << 20, 2 << 20, 1), 0,
	       "twins: the file holds what was written");
	sweep_blocks(path, FNMAP_CFG_NO_TWINS | FNMAP_CFG_NO_WRITE_ALLOC,
		     1 << 20, 2 << 20, &st);
	ok(st.faults_wp >= 256 && st.twins == 0 && st.write_bytes == 1 << 20,
	   "no-twins: one write fault a page (%llu faults, %llu twins)",
	   (unsigned long long)st.faults_wp, (unsigned long long)st.twins);
	is_u64(verify(path, 1 << 20, 2 << 20, 1), 0,
	       "no-twins: the file holds what was written");

	/* A twinned block, a page of it changed underneath, a page
	 * rewritten with what it held: neither is written back. */
	make_file(path, SIZE, SEED);
	runtime_with(64 << 20, 4, 8, 0);
	m = open_rw(path, 64 << 10, 0);
	if (!ok(m != NULL, "twins: open read-write"))
		return;
	base = fnmap_addr(m);
	fnmap_stats(m, &st);
	bytes0 = st.write_bytes;
	for (i = 0; i < 2; i++)		/* the second page twins the block */
		scribble(base, blk + i * 4096, blk + (i + 1) * 4096, 1);
	fd = open(path, O_RDWR);
	{
		uint64_t w[512];

		for (i = 0; i < 512; i++)
			w[i] = word_at(blk + 7 * 4096 + i * 8, SEED2);
		ok(pwrite(fd, w, sizeof(w), (off_t)(blk + 7 * 4096)) ==
		   (ssize_t)sizeof(w), "twins: another writer changes page 7");
	}
	scribble(base, blk + 2 * 4096, blk + 4 * 4096, 1);
	for (i = 0; i < 512; i++) {	/* page 9: what it holds */
		uint64_t w = word_at(blk + 9 * 4096 + i * 8, SEED);

		memcpy(base + blk + 9 * 4096 + i * 8, &w, 8);
	}
	ok(!fnmap_sync(m, NULL, 0, 0), "twins: fnmap_sync");
	fnmap_stats(m, &st);
	ok(st.twins == 1 && st.write_bytes - bytes0 == 4 * 4096,
	   "twins: pages 0-3 written, not 7 nor 9 (%llu twins, %llu bytes)",
	   (unsigned long long)st.twins,
	   (unsigned long long)(st.write_bytes - bytes0));
	{
		uint64_t o, bad = 0;

		for (o = blk; o < blk + (64 << 10); o += 8) {
			uint64_t pg = (o - blk) / 4096;

			bad += file_word(fd, o) !=
			       word_at(o, pg < 4 || pg == 7 ? SEED2 : SEED);
		}
		is_u64(bad, 0, "twins: the file has this process's pages 0-3 "
		       "and the other writer's page 7");
	}
	/* Written again after the sync: the block is protected again. */
	scribble(base, blk + 12 * 4096, blk + 13 * 4096, 1);
	ok(!fnmap_close(m), "twins: close");
	is_u64(file_word(fd, blk + 12 * 4096), word_at(blk + 12 * 4096, SEED2),
	       "twins: a write after the sync is written at close");
	close(fd);
}

/* Read a word of page `page` of each block in [lo, hi), then (if
 * update) write that whole page: an update of what was read. */
static void touch_blocks(char *base, uint64_t lo, uint64_t hi, unsigned int page,
			 bool update)
{
	uint64_t o;

	for (o = lo; o < hi; o += 64 << 10) {
		uint64_t at = o + page * 4096ULL;

		if (*(volatile uint64_t *)(base + at) != word_at(at, SEED))
			diag("unexpected data at %llu", (unsigned long long)at);
		if (update)
			scribble(base, at, at + 4096, 1);
	}
}

/*
 * Write-allocate: 32 blocks each read and then written (one page), no
 * prefetch so that each fill follows the previous block's write. The
 * first four take a write fault each and raise the score to where fills
 * are twinned: the other 28 are filled writable and take none. A read-only
 * pass then gets twins until the sync finds them unwritten, after which
 * fills are write-protected again; a page another writer changed in a
 * fill-twinned block is not written back over.
 */
static void test_write_alloc(const char *path)
{
	uint64_t lo = 1 << 20, hi = 3 << 20, bytes0, fills0;
	struct fnmap_stats st;
	struct fnmap *m;
	char *base;
	int fd;

	make_file(path, SIZE, SEED);
	runtime_with(64 << 20, 4, 8, FNMAP_CFG_NO_PREFETCH);
	m = open_rw(path, 64 << 10, 0);
	if (!ok(m != NULL, "write-alloc: open read-write"))
		return;
	base = fnmap_addr(m);
	touch_blocks(base, lo, hi, 5, true);
	ok(!fnmap_sync(m, NULL, 0, 0), "write-alloc: fnmap_sync");
	fnmap_stats(m, &st);
	ok(st.faults_wp >= 4 && st.faults_wp <= 6 && st.twins_at_fill == 28 &&
	   st.twins == 0,
	   "write-alloc: 32 blocks updated take 4 write faults, 28 are filled "
	   "writable (%llu faults, %llu fill twins, %llu twins)",
	   (unsigned long long)st.faults_wp,
	   (unsigned long long)st.twins_at_fill,
	   (unsigned long long)st.twins);
	is_u64(st.write_bytes, 32 * 4096,
	       "write-alloc: only the 32 pages written are written back");
	is_u64(verify(path, lo + 5 * 4096, hi, 16), 0,
	       "write-alloc: the file holds what was written");

	/* Read only: twinned while the score is high, then not. */
	bytes0 = st.write_bytes;
	touch_blocks(base, 4 << 20, 6 << 20, 0, false);
	fd = open(path, O_RDWR);
	{
		uint64_t w[512], at = (4 << 20) + 3 * 4096;
		int i;

		for (i = 0; i < 512; i++)
			w[i] = word_at(at + i * 8, SEED2);
		ok(pwrite(fd, w, sizeof(w), (off_t)at) == (ssize_t)sizeof(w),
		   "write-alloc: another writer changes a page of a "
		   "fill-twinned block");
	}
	ok(!fnmap_sync(m, NULL, 0, 0), "write-alloc: sync after reading");
	fnmap_stats(m, &st);
	fills0 = st.twins_at_fill;
	ok(fills0 == 28 + 32 && st.write_bytes == bytes0,
	   "write-alloc: 32 blocks read after updates are twinned, nothing "
	   "is written back (%llu fill twins, %llu bytes)",
	   (unsigned long long)fills0,
	   (unsigned long long)(st.write_bytes - bytes0));
	is_u64(file_word(fd, (4 << 20) + 3 * 4096),
	       word_at((4 << 20) + 3 * 4096, SEED2),
	       "write-alloc: the other writer's page is not written over");
	touch_blocks(base, 6 << 20, 8 << 20, 0, false);
	fnmap_stats(m, &st);
	is_u64(st.twins_at_fill, fills0,
	       "write-alloc: once twins were found unwritten, reads are "
	       "filled write-protected");
	ok(!fnmap_close(m), "write-alloc: close");
	close(fd);

	/* The switch: every block takes its write fault. */
	make_file(path, SIZE, SEED);
	runtime_with(64 << 20, 4, 8,
		     FNMAP_CFG_NO_PREFETCH | FNMAP_CFG_NO_WRITE_ALLOC);
	m = open_rw(path, 64 << 10, 0);
	if (!ok(m != NULL, "no-write-alloc: open read-write"))
		return;
	touch_blocks(fnmap_addr(m), lo, hi, 5, true);
	ok(!fnmap_sync(m, NULL, 0, 0), "no-write-alloc: fnmap_sync");
	fnmap_stats(m, &st);
	ok(st.faults_wp >= 32 && st.twins_at_fill == 0 &&
	   st.write_bytes == 32 * 4096,
	   "no-write-alloc: one write fault a block (%llu faults, %llu fill "
	   "twins)", (unsigned long long)st.faults_wp,
	   (unsigned long long)st.twins_at_fill);
	ok(!fnmap_close(m), "no-write-alloc: close");
	is_u64(verify(path, lo + 5 * 4096, hi, 16), 0,
	       "no-write-alloc: the file holds what was written");
}

/*
 * Write-back of evictions coalesces: every page of a 32 MiB file written
 * in order under an 8 MiB budget, so the evictor writes the dirty
 * (twinned) blocks back a pass at a time. Queued one by one, each piece
 * went alone to a channel that had room while the evictor compared the
 * next block with its twin (123-133 KiB a request, 138-151 of 215-235
 * requests one block); the evictor now holds a pass's pieces back and
 * queues them a request's worth at a time.
 *
 * How many blocks a pass evicts is scheduling: a pass evicts down to 7/8
 * of the capacity besides the blocks still being written back, so while
 * write-backs complete slowly, passes are small. An average request size
 * measured that as much as the coalescing (the debug kernel: 151 KiB, 79
 * of 191 requests one block; the host with the completion's madvise()
 * 1 ms slower: 170-194 KiB). So this program is linked with
 * --wrap=queue_write and --wrap=queue_hold_writes: it sees every piece
 * queued and the evictor's holds, and counts the requests each pass's
 * pieces need at least as the queue merges them (adjacent pieces of one
 * mapping, up to the largest request, in groups of a request's worth).
 * The channels must have sent no more than that, whatever the passes'
 * sizes: a piece queued alone and taken before its neighbour came makes
 * one more.
 */
void __real_queue_write(struct fnmap_runtime *rt, const struct req *r);
void __real_queue_hold_writes(struct fnmap_runtime *rt, bool hold);

static _Atomic bool wb_watch;
static _Atomic uint64_t wb_pieces, wb_held, wb_passes, wb_need;
static uint64_t wb_max_request;
static _Thread_local struct {
	bool on;			/* in a pass (the evictor holds) */
	const struct fnmap *m;		/* the request being built */
	off_t end;
	uint64_t len, group;
	unsigned int n;
	bool tail;
} wb;

void __wrap_queue_hold_writes(struct fnmap_runtime *rt, bool hold)
{
	if (atomic_load(&wb_watch)) {
		if (hold)
			atomic_fetch_add(&wb_passes, 1);
		wb.on = hold;
		wb.m = NULL;
		wb.group = 0;
	}
	__real_queue_hold_writes(rt, hold);
}

void __wrap_queue_write(struct fnmap_runtime *rt, const struct req *r)
{
	uint64_t max = wb_max_request;

	if (atomic_load(&wb_watch)) {
		atomic_fetch_add(&wb_pieces, 1);
		if (wb.on)
			atomic_fetch_add(&wb_held, 1);
		if (!wb.on || !wb.m || r->m != wb.m || wb.tail ||
		    r->off != wb.end || wb.len + r->len > max ||
		    wb.n >= max / FNMAP_MIN_BLOCK + 2) {
			atomic_fetch_add(&wb_need, 1);
			wb.m = r->m;
			wb.len = 0;
			wb.n = 0;
		}
		wb.end = r->off + (off_t)r->len;
		wb.len += r->len;
		wb.n++;
		wb.tail = r->tail;
		/* The queue lets a held group go once it reaches a
		 * request's worth: the next piece may find it taken. */
		wb.group += r->len;
		if (!wb.on || wb.group >= max) {
			wb.m = NULL;
			wb.group = 0;
		}
	}
	__real_queue_write(rt, r);
}

static void test_evict_coalesce(const char *path)
{
	const uint64_t size = 32ULL << 20;
	struct fnmap_config cfg;
	struct fnmap_stats st;
	struct fnmap *m;
	uint64_t o, bad = 0, wr, single, pieces, need;
	char *base;
	int fd;

	make_file(path, size, SEED);
	runtime_with(8 << 20, 4, 8, 0);
	/* The largest request, as the runtime took it (FNMAP_MAX_REQUEST). */
	wb_max_request = !fnmap_config_init(&cfg) && cfg.max_request ?
			 cfg.max_request : 1 << 20;
	m = open_rw(path, 64 << 10, 0);
	if (!ok(m != NULL, "evictions: open read-write"))
		return;
	base = fnmap_addr(m);
	atomic_store(&wb_pieces, 0);
	atomic_store(&wb_held, 0);
	atomic_store(&wb_passes, 0);
	atomic_store(&wb_need, 0);
	atomic_store(&wb_watch, true);
	for (o = 0; o < size; o += 8) {
		uint64_t w = word_at(o, SEED2);

		memcpy(base + o, &w, 8);
	}
	fnmap_stats(m, &st);
	atomic_store(&wb_watch, false);
	wr = st.writes;
	single = st.write_sizes[4];
	pieces = atomic_load(&wb_pieces);
	need = atomic_load(&wb_need);
	ok(st.evictions_dirty >= 256 && pieces >= st.evictions_dirty &&
	   atomic_load(&wb_held) == pieces,
	   "evictions: %llu dirty blocks, %llu pieces, each held back for "
	   "its pass (%llu held, %llu passes)",
	   (unsigned long long)st.evictions_dirty,
	   (unsigned long long)pieces,
	   (unsigned long long)atomic_load(&wb_held),
	   (unsigned long long)atomic_load(&wb_passes));
	ok(need < pieces && wr && wr <= need,
	   "evictions: written back in %llu requests, at most the %llu "
	   "their passes need (%llu KiB on average, %llu of one block)",
	   (unsigned long long)wr, (unsigned long long)need,
	   (unsigned long long)(wr ? st.write_bytes / wr >> 10 : 0),
	   (unsigned long long)single);
	ok(!fnmap_close(m), "evictions: close");
	fd = open(path, O_RDONLY);
	for (o = 0; o < size; o += 4096)
		bad += file_word(fd, o) != word_at(o, SEED2) ||
		       file_word(fd, o + 4088) != word_at(o + 4088, SEED2);
	close(fd);
	is_u64(bad, 0, "evictions: the file holds every page written");
}

/*
 * Lazy growth on a write stream. One pass of writes never comes back, so
 * reuse distances never grow the cache; on a slow store, the fills then
 * wait for room that dirty evictions hold while they are written, and the
 * store's write latency paces the writer (experiment 5 capacity: 64 ms a
 * request, 2.05x mmap random at a sixteenth of the budget, 3.10x with all
 * of it). Misses behind write-back must grow the cache. This program is
 * also linked with --wrap=cache_evict_written: while slow_writes is set,
 * each dirty eviction's write-back costs 3 ms more, as a slow store's
 * write latency.
 */
void __real_cache_evict_written(struct fnmap_runtime *rt, struct fnmap *m,
				uint32_t blk);
static _Atomic bool slow_writes;

void __wrap_cache_evict_written(struct fnmap_runtime *rt, struct fnmap *m,
				uint32_t blk)
{
	struct timespec ts = { 0, 3 * 1000 * 1000 };

	if (atomic_load(&slow_writes))
		nanosleep(&ts, NULL);
	__real_cache_evict_written(rt, m, blk);
}

static void test_held_growth(const char *path)
{
	const uint64_t size = 48ULL << 20;
	struct fnmap_stats st;
	struct fnmap *m;
	uint64_t o, bad = 0;
	char *base;
	int fd;

	make_file(path, size, SEED);
	runtime_with(64 << 20, 4, 8, 0);
	m = open_rw(path, 64 << 10, 0);
	if (!ok(m != NULL, "write stream: open read-write"))
		return;
	base = fnmap_addr(m);
	fnmap_stats(m, &st);
	is_u64(st.capacity, 16 << 20, "write stream: capacity starts at 16 MiB");
	atomic_store(&slow_writes, true);
	for (o = 0; o < size; o += 4096) {
		uint64_t w = word_at(o, SEED2);

		memcpy(base + o, &w, 8);
	}
	atomic_store(&slow_writes, false);
	fnmap_stats(m, &st);
	/* Before growth for write-back it stayed at 16 MiB. How far it
	 * grows depends on how many fills the prefetch has waiting, which
	 * follows the channels' depth (1.5): 22-64 MiB on the developers'
	 * host. */
	ok(st.held_ns > 0 && st.evictions_dirty > 0 && st.grows > 0 &&
	   st.capacity > 16 << 20,
	   "write stream over 48 MiB on a slow store: fills waited behind "
	   "write-back (%llu ms, %llu dirty evictions), the cache grew "
	   "%llu times to %llu MiB (more than 16)",
	   (unsigned long long)(st.held_ns / 1000000),
	   (unsigned long long)st.evictions_dirty,
	   (unsigned long long)st.grows,
	   (unsigned long long)(st.capacity >> 20));
	ok(st.capacity <= st.budget_now, "write stream: within the budget");
	ok(!fnmap_close(m), "write stream: close");
	fd = open(path, O_RDONLY);
	for (o = 0; o < size; o += 4096)
		bad += file_word(fd, o) != word_at(o, SEED2) ||
		       file_word(fd, o + 4088) != word_at(o + 4088, SEED);
	close(fd);
	is_u64(bad, 0, "write stream: the file holds every page written");
}

/* Tail of a file whose size is not a page multiple, and truncation. */
static void test_tail(const char *path)
{
	struct fnmap *m;
	struct stat st;
	char *base;
	uint64_t o;
	int fd, bad = 0;

	make_file(path, SIZE, SEED);
	runtime_with(64 << 20, 4, 8, 0);
	m = open_rw(path, 64 << 10, 0);
	if (!ok(m != NULL, "tail: open"))
		return;
	base = fnmap_addr(m);
	for (o = SIZE - 100; o < SIZE; o++)
		base[o] = (char)0x5a;
	/* Past the end of the file (the rest of the last page). */
	base[SIZE + 10] = 1;
	ok(!fnmap_sync(m, NULL, 0, 0), "tail: sync");
	stat(path, &st);
	is_u64((uint64_t)st.st_size, SIZE, "tail: the file did not grow");
	fd = open(path, O_RDONLY);
	for (o = SIZE - 100; o < SIZE; o++) {
		char c = 0;

		if (pread(fd, &c, 1, (off_t)o) != 1 || c != 0x5a)
			bad++;
	}
	is_u64((uint64_t)bad, 0, "tail: the last 100 bytes were written");
	ok(byte_at(SIZE - 101, SEED) == (uint8_t)base[SIZE - 101],
	   "tail: the byte before them is the file's");

	/* Truncated underneath: write-back stops at the new end. */
	if (truncate(path, 4 << 20))
		diag("truncate: %s", strerror(errno));
	base[5 << 20] = 7;
	base[(4 << 20) - 1] = 9;
	ok(!fnmap_close(m), "truncated: close");
	stat(path, &st);
	is_u64((uint64_t)st.st_size, 4 << 20,
	       "truncated: write-back did not grow the file back");
	{
		char c = 0;

		ok(pread(fd, &c, 1, (4 << 20) - 1) == 1 && c == 9,
		   "truncated: a write before the new end reached it");
	}
	close(fd);
}

/* Many threads, a budget far below what they write: dirty evictions. */
struct writer {
	char *base;
	unsigned int id, n;
	_Atomic uint64_t done_version;	/* passes completed */
	_Atomic bool *stop;
	uint64_t version;
};

/*
 * Word i (thread i % n) at version v: the word's index in the low
 * VSHIFT bits (the file has about 2^20 words), the version above them.
 */
#define VSHIFT	24

static uint64_t vword(uint64_t i, uint64_t v)
{
	return (v << VSHIFT) | i;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	uint64_t words = (SIZE / 8) & ~63ULL, v, i;
	char name[16];

	/* Named, so that a stall's diagnostics show the writers' stacks. */
	snprintf(name, sizeof(name), "writer%u", w->id);
	pthread_setname_np(pthread_self(), name);

	/*
	 * Until told to stop, however many passes that is: a writer that
	 * stopped by itself (at pass 999,999, once) could never make the
	 * passes the test waits for. The versions 2^40 leaves do not run
	 * out.
	 */
	for (v = 1; !atomic_load(w->stop); v++) {
		/* Every n-th word of every n-th page is this thread's. */
		for (i = w->id; i < words; i += w->n * 512)
			*(volatile uint64_t *)(w->base + i * 8) = vword(i, v);
		atomic_store(&w->done_version, v);
	}
	w->version = v - 1;
	return NULL;
}

/* One line of a /proc file (first line only), trailing newline cut. */
static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)size, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

/*
 * A thread of this process as one diagnostic line: name, state, CPU time
 * (clock ticks), wait channel; then, for a writer or a thread in D state
 * (where a stall would be), the first frames of its kernel stack if
 * readable (root).
 */
static void task_diag(const char *tid)
{
	char path[64], stat[256], wchan[64], line[256];
	unsigned long ut = 0, stime = 0;
	const char *name, *end;
	unsigned int frames = 0;
	char state = '?';
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%.16s/stat", tid);
	read_line(path, stat, sizeof(stat));
	snprintf(path, sizeof(path), "/proc/self/task/%.16s/wchan", tid);
	read_line(path, wchan, sizeof(wchan));
	/* pid (comm) state ppid ... utime stime: 11 fields after state. */
	name = strchr(stat, '(');
	end = strrchr(stat, ')');
	if (!name || !end || end < name)
		name = end = stat;
	else if (sscanf(end + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s "
			"%*s %lu %lu", &state, &ut, &stime) != 3)
		state = '?';
	diag("  task %s %.*s: %c utime %lu stime %lu wchan %s", tid,
	     (int)(end - name + (end > name)), name, state, ut, stime,
	     wchan[0] ? wchan : "-");
	if (state != 'D' && strncmp(name, "(writer", 7))
		return;
	snprintf(path, sizeof(path), "/proc/self/task/%.16s/stack", tid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (frames++ < 6 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		diag("    %s", line);
	}
	fclose(f);
}

/*
 * Why writers are slow, as TAP diagnostics, the most telling first (make
 * check's summary keeps a failure's first lines): each writer's passes
 * against the target, the runtime's counters, then every thread of this
 * process.
 */
static void concurrent_diag(struct fnmap *m, const struct writer *w,
			    const uint64_t *after, unsigned int n,
			    uint64_t waited_ms)
{
	struct fnmap_stats st;
	struct dirent *de;
	unsigned int i;
	DIR *d;

	diag("concurrent: after %llu waits of 1 ms:",
	     (unsigned long long)waited_ms);
	for (i = 0; i < n; i++)
		diag("  writer %u: pass %llu, waiting for %llu", i,
		     (unsigned long long)atomic_load(&w[i].done_version),
		     (unsigned long long)after[i]);
	fnmap_stats(m, &st);
	diag("  faults %llu wp %llu joined %llu fills %llu reads %llu "
	     "writes %llu io_errors %llu twins %llu", (unsigned long long)st.faults,
	     (unsigned long long)st.faults_wp,
	     (unsigned long long)st.faults_joined,
	     (unsigned long long)st.fills, (unsigned long long)st.reads,
	     (unsigned long long)st.writes, (unsigned long long)st.io_errors,
	     (unsigned long long)st.twins);
	diag("  budget now %llu capacity %llu grows %llu pressure events %llu "
	     "shrinks %llu overcommit %llu reuse hits %llu",
	     (unsigned long long)st.budget_now,
	     (unsigned long long)st.capacity, (unsigned long long)st.grows,
	     (unsigned long long)st.pressure_events,
	     (unsigned long long)st.shrinks,
	     (unsigned long long)st.overcommit,
	     (unsigned long long)st.reuse_hits);
	diag("  resident %llu dirty %llu staging %llu evictions %llu (dirty "
	     "%llu) syncs %llu service max %llu ns queue wait max %llu ns "
	     "inflight max %llu",
	     (unsigned long long)st.resident, (unsigned long long)st.dirty,
	     (unsigned long long)st.staging,
	     (unsigned long long)st.evictions,
	     (unsigned long long)st.evictions_dirty,
	     (unsigned long long)st.syncs,
	     (unsigned long long)st.service_max_ns,
	     (unsigned long long)st.queue_wait_max_ns,
	     (unsigned long long)st.inflight_max);
	d = opendir("/proc/self/task");
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			task_diag(de->d_name);
	if (d)
		closedir(d);
}

static void test_concurrent(const char *path, uint64_t budget)
{
	enum { N = 4 };
	struct writer w[N];
	pthread_t th[N];
	_Atomic bool stop = false;
	struct fnmap *m;
	struct fnmap_stats st;
	unsigned int i, round, bad_round = 0;
	uint64_t words = (SIZE / 8) & ~63ULL, j, bad = 0;
	int fd;

	make_file(path, SIZE, SEED);
	runtime_with(budget, 4, 8, 0);
	m = open_rw(path, 64 << 10, 0);
	if (!ok(m != NULL, "concurrent, budget %llu MiB: open",
		(unsigned long long)budget >> 20))
		return;
	fd = open(path, O_RDONLY);
	for (i = 0; i < N; i++) {
		w[i] = (struct writer){ .base = fnmap_addr(m), .id = i, .n = N,
					.stop = &stop };
		pthread_create(&th[i], NULL, writer_main, &w[i]);
	}
	for (round = 0; round < 20; round++) {
		uint64_t before[N];

		for (i = 0; i < N; i++)
			before[i] = atomic_load(&w[i].done_version);
		if (fnmap_sync(m, NULL, 0, 0))
			diag("sync: %s", fnmap_errmsg());
		/* What was complete before the sync began is durable. */
		for (j = 0; j < words; j += N * 512) {
			for (i = 0; i < N; i++) {
				uint64_t got = file_word(fd, (j + i) * 8);

				if (before[i] &&
				    (got != vword(j + i, got >> VSHIFT) ||
				     (got >> VSHIFT) < before[i]))
					bad_round++;
			}
		}
	}
	/*
	 * Two whole passes with no sync between them dirty every block, more
	 * than the budget holds, so blocks must be evicted dirty. Waiting for
	 * them (not for a time) keeps that true however slow the host is.
	 */
	{
		uint64_t after[N], waited_ms = 0;

		for (i = 0; i < N; i++)
			after[i] = atomic_load(&w[i].done_version) + 2;
		for (i = 0; i < N && waited_ms < 120000; ) {
			if (atomic_load(&w[i].done_version) >= after[i]) {
				i++;
				continue;
			}
			usleep(1000);
			/* Slow (a few seconds is usual): say where it is. */
			if (++waited_ms == 20000)
				concurrent_diag(m, w, after, N, waited_ms);
		}
		if (!ok(waited_ms < 120000, "concurrent: every writer made two "
			"more passes after the last sync"))
			concurrent_diag(m, w, after, N, waited_ms);
	}
	atomic_store(&stop, true);
	for (i = 0; i < N; i++)
		pthread_join(th[i], NULL);
	is_u64(bad_round, 0, "concurrent: each sync made every pass completed "
	       "before it durable");
	fnmap_stats(m, &st);
	if (budget < (8 << 20))
		ok(st.evictions_dirty > 0, "concurrent: dirty blocks were "
		   "evicted (%llu) and written back",
		   (unsigned long long)st.evictions_dirty);
	ok(!fnmap_close(m), "concurrent: close");
	for (j = 0; j < words; j++) {
		unsigned int t = (unsigned int)(j % N);
		uint64_t want = word_at(j * 8, SEED);

		if ((j / N) % 512 == 0 && w[t].version)
			want = vword(j, w[t].version);
		/* Words of other threads' strides stay as they were. */
		if ((j / N) % 512 != 0)
			want = word_at(j * 8, SEED);
		bad += file_word(fd, j * 8) != want;
	}
	close(fd);
	is_u64(bad, 0, "concurrent: after close the file holds each word's "
	       "last version");
}

/*
 * A child writes [lo, hi), then (crash) syncs and writes [lo2, hi2) too
 * and is killed, or (no crash) returns from main without sync or close.
 */
static int child(const char *path, bool crash, uint64_t lo, uint64_t hi,
		 uint64_t lo2, uint64_t hi2)
{
	pid_t pid;
	int status;

	make_file(path, SIZE, SEED);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		struct fnmap *m;

		runtime_with(64 << 20, 4, 8, 0);
		m = open_rw(path, 64 << 10, 0);
		if (!m)
			_exit(3);
		scribble(fnmap_addr(m), lo, hi, 1);
		if (!crash)
			exit(0);	/* no sync, no close */
		if (fnmap_sync(m, NULL, 0, 0))
			_exit(4);
		scribble(fnmap_addr(m), lo2, hi2, 1);
		kill(getpid(), SIGKILL);
		_exit(5);
	}
	waitpid(pid, &status, 0);
	return status;
}

static void test_exit_and_crash(const char *path)
{
	int status = child(path, false, 2 << 20, 4 << 20, 0, 0);

	ok(WIFEXITED(status) && !WEXITSTATUS(status), "exit: child exited");
	is_u64(verify(path, 2 << 20, 4 << 20, 1), 0,
	       "exit: writes are in the file after a normal exit");
	status = child(path, true, 1 << 20, 2 << 20, 3 << 20, 4 << 20);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	   "crash: child killed");
	is_u64(verify(path, 1 << 20, 2 << 20, 1), 0,
	       "crash: what was synced survives, what was not is not there "
	       "(nothing was evicted)");
}

static void test_private_and_invalidate(const char *path)
{
	struct fnmap *m;
	char *base;
	uint64_t w = 0x1122334455667788ULL, got;
	int fd;

	make_file(path, SIZE, SEED);
	runtime_with(64 << 20, 4, 8, 0);
	m = open_rw(path, 64 << 10, FNMAP_PRIVATE);
	if (!ok(m != NULL, "private: open"))
		return;
	scribble(fnmap_addr(m), 0, 1 << 20, 1);
	ok(!fnmap_sync(m, NULL, 0, 0), "private: sync succeeds");
	is_u64(verify(path, 0, 0, 1), 0, "private: the file is unchanged");
	got = *(uint64_t *)fnmap_addr(m);
	is_u64(got, word_at(0, SEED2), "private: the mapping keeps the writes");
	ok(!fnmap_close(m), "private: close");
	is_u64(verify(path, 0, 0, 1), 0, "private: unchanged after close");

	m = fnmap_open(path, O_RDONLY, NULL);
	if (!ok(m != NULL, "invalidate: open read-only"))
		return;
	base = fnmap_addr(m);
	got = *(volatile uint64_t *)(base + 4096);
	fd = open(path, O_RDWR);
	if (pwrite(fd, &w, 8, 4096) != 8)
		diag("pwrite: %s", strerror(errno));
	close(fd);
	is_u64(*(volatile uint64_t *)(base + 4096), word_at(4096, SEED),
	       "invalidate: a cached block keeps what it read");
	ok(!fnmap_sync(m, NULL, 0, FNMAP_SYNC_INVALIDATE), "invalidate: sync");
	is_u64(*(volatile uint64_t *)(base + 4096), w,
	       "invalidate: the next access reads the file's change");
	ok(!fnmap_close(m), "invalidate: close");
}

int main(void)
{
	const char *path = test_path("write.dat");

	runtime_or_skip(NULL);
	test_sync_close(path);
	test_twins(path);
	test_write_alloc(path);
	test_evict_coalesce(path);
	test_held_growth(path);
	test_tail(path);
	test_concurrent(path, 64 << 20);
	test_concurrent(path, 2 << 20);
	test_exit_and_crash(path);
	test_private_and_invalidate(path);
	fnmap_shutdown();
	test_cleanup();
	return tap_done();
}
