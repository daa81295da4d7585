/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libfnmap's insides: the mapping, its cache entry table, the runtime that
 * serves every mapping of the process, and how the pieces call each other.
 *
 *   fault.c      the fault threads: read userfaultfd, keep each thread's
 *                blocks in use, queue misses and prefetches, handle
 *                first writes
 *   queue.c      the request queue: demand, prefetch and write FIFOs,
 *                coalescing of adjacent blocks into one request
 *   channel.c    I/O channels (io_uring or preadv/pwritev), one thread each
 *   cache.c      fills, the eviction clock, lazy growth, budget
 *   pressure.c   the cgroup's memory pressure and limit
 *   writeback.c  dirty pages, shadow copies, fnmap_sync()
 *   policy.c     pure decisions (growth, budget, strides) for unit tests
 *   map.c        fnmap_open()/fnmap_close() and the mapping table
 *   runtime.c    runtime start and stop, configuration, statistics, exit
 *   preload.c    the LD_PRELOAD shim (only in fnmap-preload.so)
 */
#ifndef FNMAP_INTERNAL_H
#define FNMAP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "fnmap.h"
#include "policy.h"
#include "uffd.h"

#define FNMAP_PAGE_SHIFT	12
#define FNMAP_PAGE_SIZE		(1UL << FNMAP_PAGE_SHIFT)
#define FNMAP_MIN_BLOCK		(64UL << 10)
#define FNMAP_MAX_BLOCK		(2UL << 20)
#define FNMAP_DEFAULT_BLOCK	(64UL << 10)
#define FNMAP_MAX_MAPS		4096
#define FNMAP_DEFAULT_FAULT_THREADS	4
#define FNMAP_ERRLEN		256

/* ---- Cache entry table --------------------------------------------- */

/* Block states (low 4 bits of fnmap_block.state). */
enum {
	B_EMPTY = 0,	/* not resident, nothing pending */
	B_QUEUED,	/* a read is queued (qnode says where) */
	B_READING,	/* the read is at the device */
	B_RESIDENT,	/* mapped in the region */
	B_EVICTING,	/* being written back and/or dropped */
	B_GONE,		/* unmapped by the program (partial munmap) */
};
#define B_STATE_MASK	0xfu
/* Flags above the state. */
#define BF_LOCK		(1u << 4)	/* dirty transitions hold it */
#define BF_DIRTY		(1u << 5)	/* some page's bit is set */
#define BF_RECENT	(1u << 6)	/* second chance: released lately */
#define BF_WANTED	(1u << 7)	/* faulted while evicting: refill */
#define BF_PREFETCH	(1u << 8)	/* queued or filled by prefetch */
#define BF_ADV_RANDOM	(1u << 9)	/* advice for this block */
#define BF_ADV_SEQ	(1u << 10)
#define BF_ADV_MASK	(BF_ADV_RANDOM | BF_ADV_SEQ)
#define BF_WBERR	(1u << 11)	/* an eviction's write-back failed */
#define BF_TWIN		(1u << 12)	/* writable as a whole, twin kept */
#define BF_FILL_TWIN	(1u << 13)	/* ... since its fill (write-allocate) */

struct fnmap_block {
	_Atomic uint32_t state;
	_Atomic uint16_t refs;		/* thread windows holding it */
	_Atomic uint16_t wb;		/* write-backs of it in flight */
	_Atomic uint32_t evict_seq;	/* eviction count when dropped */
	uint32_t qnode;			/* queued request (queue lock) */
};

static inline unsigned int b_state(uint32_t s)
{
	return s & B_STATE_MASK;
}

static inline uint32_t b_with_state(uint32_t s, unsigned int st)
{
	return (s & ~B_STATE_MASK) | st;
}

/* Move b to state st, clearing the flags in clear, keeping the others
 * (which other threads may set meanwhile); the old word. */
static inline uint32_t b_set_state(struct fnmap_block *b, unsigned int st,
				   uint32_t clear)
{
	uint32_t s = atomic_load(&b->state);

	while (!atomic_compare_exchange_weak(&b->state, &s,
					     b_with_state(s & ~clear, st)))
		;
	return s;
}

/* The block's bit lock, for the dirty transitions and write protection. */
void block_lock(struct fnmap_block *b);
bool block_trylock(struct fnmap_block *b);
void block_unlock(struct fnmap_block *b);

/* ---- A mapping ------------------------------------------------------- */

/* Counters of one mapping; fnmap_stats() reads them. */
struct fnmap_counters {
	_Atomic uint64_t faults, faults_wp, faults_joined;
	_Atomic uint64_t twins, twin_pages;	/* writeback.c */
	_Atomic uint64_t twins_at_fill;
	_Atomic uint64_t fills, fill_bytes, prefetches, prefetch_late;
	_Atomic uint64_t reads, read_bytes, writes, write_bytes, io_errors;
	_Atomic uint64_t read_sizes[FNMAP_HIST_BUCKETS];
	_Atomic uint64_t write_sizes[FNMAP_HIST_BUCKETS];
	_Atomic uint64_t queue_wait_ns, queue_wait_max_ns;
	_Atomic uint64_t service_ns, service_max_ns;
	_Atomic uint64_t inflight_max, inflight_sum;
	_Atomic uint64_t syncs, sync_ns;
};

/* Write-back tickets: fnmap_sync() waits for those it issued and every
 * earlier one (eviction write-backs included). */
struct wb_tickets {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t next;		/* next ticket to hand out */
	uint64_t done;		/* every ticket below is complete */
	uint64_t *late;		/* completed out of order, above done */
	size_t nlate, late_cap;
};

struct fnmap {
	struct fnmap_runtime *rt;
	pid_t pid;			/* the process that opened it */
	unsigned int slot;		/* in the mapping table */
	uint32_t gen;			/* slot generation */
	char *base;			/* the region */
	size_t length;			/* region bytes (page multiple) */
	size_t file_bytes;		/* bytes of the file in the region */
	off_t offset;			/* file offset of base */
	int fd;				/* reads and writes (O_DIRECT if direct) */
	int fd_buffered;		/* unaligned tails; may equal fd */
	bool direct;
	bool writable;			/* the program may write (shared) */
	bool private_map;		/* FNMAP_PRIVATE: writes stay here */
	bool wp;			/* registered for write protection */
	/* Zero-copy fills (FNMAP_CFG_CONTINUE, read-only mappings): the
	 * region maps memfd, reads land in view (the same pages, mapped
	 * writable for the runtime alone) and UFFDIO_CONTINUE maps them. */
	bool zero_copy;
	int memfd;
	char *view;
	bool blockdev;
	dev_t dev;			/* the file, to find other mappings */
	ino_t ino;
	unsigned int bshift;		/* log2 of the block size */
	size_t bs;
	uint32_t nblocks;
	struct fnmap_block *blocks;
	_Atomic uint64_t *dirty_bits;	/* one bit per page */
	/* Per block (shared writable mappings): the copy of a block made
	 * writable as a whole (BF_TWIN) when it was; block lock. */
	char **twins;
	/* Does the program write what it reads here? Up on first writes to
	 * clean blocks and on fill twins found written, down on fill twins
	 * found unwritten; fills are twinned while it is high. */
	_Atomic int write_score;
	struct wb_tickets wb;
	_Atomic int io_error;		/* errno of a failed write-back */
	_Atomic uint32_t inflight;	/* requests at the channels */
	_Atomic uint32_t queued;	/* requests in the queue */
	_Atomic uint64_t unmapped;	/* bytes munmap()ed by the program */
	struct fnmap_counters c;
};

/* Where the runtime reads block blk in: the view (zero-copy). */
static inline char *map_view_addr(const struct fnmap *m, uint32_t blk)
{
	return m->view + ((size_t)blk << m->bshift);
}

static inline uint32_t map_block_of(const struct fnmap *m, const void *addr)
{
	return (uint32_t)(((const char *)addr - m->base) >> m->bshift);
}

static inline char *map_block_addr(const struct fnmap *m, uint32_t blk)
{
	return m->base + ((size_t)blk << m->bshift);
}

/* Bytes of block blk inside the region (the last one may be short). */
static inline size_t map_block_len(const struct fnmap *m, uint32_t blk)
{
	size_t start = (size_t)blk << m->bshift;

	return m->length - start < m->bs ? m->length - start : m->bs;
}

/* The mapping table: lookups by the fault threads and fnmap_lookup(). */
struct fnmap *map_get(struct fnmap_runtime *rt, unsigned int slot,
		      uint32_t gen);
struct fnmap *map_find(struct fnmap_runtime *rt, const void *addr);

/* ---- Requests and I/O ----------------------------------------------- */

enum req_kind { REQ_DEMAND, REQ_PREFETCH, REQ_WRITE, REQ_KINDS };

/* A queued block read, or a piece of a write-back. */
struct req {
	struct fnmap *m;
	uint32_t blk;
	uint8_t kind;
	bool evict;			/* write-back of an eviction */
	uint32_t prev, next;		/* FIFO links (pool indexes + 1) */
	uint64_t t_enq;
	/* Writes: file range [off, off + len) from buf. */
	off_t off;
	size_t len;
	char *buf;
	bool shadow;			/* buf is a staging buffer */
	bool tail;			/* ends at an unaligned end of file */
	uint64_t ticket;
};

/* One request at a channel: reads of adjacent blocks, or adjacent write
 * pieces, as one preadv/pwritev. */
struct io {
	struct fnmap *m;
	bool write;
	int fd;
	off_t off;
	size_t len;
	unsigned int n;			/* blocks (read) or pieces (write) */
	struct iovec *iov;
	struct req *pieces;		/* n copies of the queued requests */
	char **bufs;			/* read: staging buffer per block */
	unsigned int max_pieces;	/* room in iov, pieces, bufs */
	uint64_t t_enq_oldest, t_submit;
	int res;			/* bytes, or -errno */
	struct io *next_free;
};

/* ---- The runtime ------------------------------------------------------ */

struct fault_ctl;
struct channel;
struct queue;
struct cache;
struct pressure;
struct staging;

struct fnmap_runtime {
	struct fnmap_config cfg;
	struct uffd uffd;
	pid_t pid;
	_Atomic bool stopping;

	/* Mapping table: slots written under maps_lock (write), read under
	 * it (read) by the fault threads and the API. */
	pthread_rwlock_t maps_lock;
	struct fnmap *maps[FNMAP_MAX_MAPS];
	uint32_t gens[FNMAP_MAX_MAPS];
	unsigned int nmaps;
	struct fnmap_counters closed;	/* counters of closed mappings */
	pthread_mutex_t closed_lock;

	struct fault_ctl *fault;	/* the fault threads */
	int fault_wake;			/* eventfd: stop */

	struct queue *queue;
	struct channel *channels;
	unsigned int nchannels;
	_Atomic unsigned int direct_inflight;	/* at fault threads' rings */
	/* How many requests each channel may have out (channel.c): probed
	 * between the configured depth and channel_depth_max(). */
	_Atomic unsigned int depth_now;
	pthread_mutex_t depth_lock;
	struct depth_ctl depth;
	struct staging *staging;
	struct staging *twins;		/* writeback.c's block twins */
	struct cache *cache;
};

/* The runtime, started if needed (NULL with errno and message). */
struct fnmap_runtime *runtime_get(bool start);
/* The runtime if it runs, without waiting for anything (the shim calls it
 * from munmap(), which liburing calls while the runtime starts). */
struct fnmap_runtime *runtime_peek(void);

/* fault.c */
int fault_start(struct fnmap_runtime *rt);
void fault_stop(struct fnmap_runtime *rt);
unsigned int fault_threads(const struct fnmap_runtime *rt);
/* A missing fault (or prefetch) on m's block blk: queue a read unless the
 * block is resident, queued or being read. true if a read was queued. */
bool fault_miss(struct fnmap *m, uint32_t blk, bool prefetch);

/* queue.c */
struct queue *queue_create(const struct fnmap_runtime *rt);
void queue_destroy(struct queue *q);
/* Queue a read of m's block blk (caller saw it EMPTY). */
bool queue_read(struct fnmap_runtime *rt, struct fnmap *m, uint32_t blk,
		bool prefetch);
/* Hold back (true) or send (false) the kicks queue_read() gives the
 * channels, in this thread; whether one is due since the last ask. */
void queue_hold_kicks(bool hold);
bool queue_kick_due(void);
/* Queue a write piece; a copy of *r is kept. */
void queue_write(struct fnmap_runtime *rt, const struct req *r);
/* Hold back (true) the write pieces this thread queues, a request's
 * worth at a time, or queue what is held (false). */
void queue_hold_writes(struct fnmap_runtime *rt, bool hold);
/* The next request for a channel, coalesced, with its buffers; NULL if
 * nothing may go now. demand_only: only a read a thread waits for (a
 * fault thread's own ring). */
struct io *queue_take(struct fnmap_runtime *rt, struct io *io,
		      bool demand_only);
/* Drop m's queued reads (close); its writes stay queued. */
void queue_forget(struct fnmap_runtime *rt, struct fnmap *m);
/* A read of io finished: its prefetches no longer count as out. */
void queue_prefetch_done(struct fnmap_runtime *rt, const struct io *io);
/* Requests queued, not yet taken by a channel (without the lock: a
 * moment's count). */
size_t queue_pending(const struct fnmap_runtime *rt);

/* channel.c */
/* The most requests a channel may come to have out. */
unsigned int channel_depth_max(const struct fnmap_config *cfg);
int channels_start(struct fnmap_runtime *rt);
void channels_stop(struct fnmap_runtime *rt);
/* Wake a channel with room: something was queued or freed. */
void channels_kick(struct fnmap_runtime *rt);
/*
 * A fault thread's own ring (NULL with FNMAP_CFG_HANDOFF, or where
 * channels use psync or io_uring refuses): the thread submits the demand reads it queued and finishes
 * them itself, which saves the hand-off to a channel thread (a wake-up
 * per miss). Its descriptor is readable when something completed.
 */
struct channel *direct_ring_open(struct fnmap_runtime *rt);
int direct_ring_fd(const struct channel *ch);
/* Submit queued demand reads while the ring has room. */
void direct_ring_submit(struct channel *ch);
/* Something is in the ring that io_uring has not taken yet. */
bool direct_ring_pending(const struct channel *ch);
/* Finish what completed (wait: until nothing is in flight); how many
 * requests did. */
unsigned int direct_ring_reap(struct channel *ch, bool wait);
void direct_ring_close(struct channel *ch);
unsigned int channels_inflight(struct fnmap_runtime *rt);
const char *channels_engine(struct fnmap_runtime *rt);

/* cache.c */
int cache_start(struct fnmap_runtime *rt);
void cache_stop(struct fnmap_runtime *rt);
/* May a read of bytes more go to the device now? */
bool cache_admit(struct fnmap_runtime *rt, size_t bytes);
void cache_reading(struct fnmap_runtime *rt, ssize_t bytes);
/* A read finished: map each block (data in bufs) and account it. */
void cache_fill_done(struct fnmap_runtime *rt, struct io *io);
/* A miss on a block evicted before: feeds lazy growth. */
void cache_note_miss(struct fnmap_runtime *rt, struct fnmap *m, uint32_t blk);
/* A thread window took the first hold on a block of m (in use: the cache
 * may exceed its capacity by the blocks in use), or released the last. */
void cache_held(struct fnmap_runtime *rt, const struct fnmap *m);
void cache_released(struct fnmap_runtime *rt, const struct fnmap *m,
		    struct fnmap_block *b);
/* Drop clean, unused-by-I/O blocks of m in [first, last]. */
void cache_invalidate(struct fnmap_runtime *rt, struct fnmap *m,
		      uint32_t first, uint32_t last);
/* The last write-back of an evicting block completed: the block leaves
 * (or, if one failed (BF_WBERR), stays resident and dirty). */
void cache_evict_written(struct fnmap_runtime *rt, struct fnmap *m,
			 uint32_t blk);
/* A missing fault on a page of a resident block: the program dropped it. */
void cache_lost(struct fnmap_runtime *rt, struct fnmap *m, uint32_t blk);
/* Dirty bytes changed. */
void cache_dirty(struct fnmap_runtime *rt, ssize_t bytes);
/* Bytes of block twins (writeback.c) in use changed: resident bytes. */
void cache_twin(struct fnmap_runtime *rt, ssize_t bytes);
/* FNMAP_CFG_SIMPLE_CACHE: one lock around faults, fills and evictions. */
void cache_global_lock(struct fnmap_runtime *rt);
void cache_global_unlock(struct fnmap_runtime *rt);
/* m is closing: forget its blocks, subtract them from the cache. */
void cache_forget(struct fnmap_runtime *rt, struct fnmap *m);
void cache_stats(struct fnmap_runtime *rt, struct fnmap_stats *st);

/* staging.c: read buffers and shadow copies, bounded. */
struct staging *staging_create(uint64_t cap);
void staging_destroy(struct staging *s);
/* A buffer of size bytes (a power of two >= 4 KiB), NULL if the bound is
 * reached (wait: wait for one). */
void *staging_get(struct staging *s, size_t size, bool wait);
void staging_put(struct staging *s, void *buf, size_t size);
/* Unmap the free buffers (memory pressure, shutdown). */
void staging_trim(struct staging *s);
uint64_t staging_bytes(struct staging *s);

/* writeback.c */
void wb_init(struct wb_tickets *t);
void wb_destroy(struct wb_tickets *t);
uint64_t wb_ticket(struct wb_tickets *t);
void wb_complete(struct wb_tickets *t, uint64_t ticket);
void wb_wait(struct wb_tickets *t, uint64_t upto);
/*
 * A first write to a clean page: 1 if the block is resident (the page is
 * now dirty and writable), 0 if not (handle it as a miss), -EAGAIN if the
 * block is locked (try again later: a fault thread never waits).
 */
int wb_fault(struct fnmap *m, uint32_t blk, char *page);
/*
 * Map block blk, just read into buf, at dst writable with a twin of buf
 * if this mapping's program writes what it reads (write-allocate): 1 if
 * it did (the block is resident), 0 if the caller fills it as usual, -1
 * if UFFDIO_COPY failed (errno).
 */
int wb_fill_twin(struct fnmap *m, uint32_t blk, char *dst, const char *buf,
		 size_t len);
/* Write-back finished (all pieces of io). */
void wb_write_done(struct fnmap_runtime *rt, struct io *io);
/* Start writing back block blk of m (evicting: from the region, the
 * block leaves afterwards). Caller holds the block lock. Returns how many
 * pieces were queued. */
unsigned int wb_block(struct fnmap *m, uint32_t blk, bool evict);
int wb_sync(struct fnmap *m, char *addr, size_t len, unsigned int flags);
/* Clear block blk's dirty bits (its pages are gone). Block lock held. */
void wb_forget_block(struct fnmap *m, uint32_t blk);
/* Drop block blk's twin, if it has one (its pages are gone or written). */
void wb_drop_twin(struct fnmap *m, uint32_t blk);

/* A block of m left with a partial munmap(). */
void cache_gone(struct fnmap_runtime *rt, struct fnmap *m);
/* Zero-copy mappings: drop block blk's pages from the memfd. */
void cache_punch(struct fnmap *m, uint32_t blk);

/* map.c */
void map_sync_all(struct fnmap_runtime *rt);
/* The mapping with the lowest address among those overlapping
 * [addr, addr + len), or NULL. */
struct fnmap *map_overlapping(const void *addr, size_t len);
/* munmap() of part of (or all) m, by the shim. */
int map_unmap_range(struct fnmap *m, char *addr, size_t len);

/* runtime.c */
uint64_t rt_now_ns(void);
/* Record errno e and a message for fnmap_errmsg() (and err if given);
 * returns -1 with errno set. */
int rt_fail(char *err, size_t errlen, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void rt_counters_add(struct fnmap_counters *to,
			const struct fnmap_counters *from);
void rt_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A size from environment variable name ("64KiB"); -1 with a message. */
int rt_parse_size_env(const char *name, const char *value, uint64_t *v);
/* Write back every mapping of this process's runtime, if it has one (at
 * exit(3), and the shim's _exit(2)). */
void rt_sync_at_exit(void);

/* Raw system calls: the shim interposes the libc names. */
void *sys_mmap(void *addr, size_t len, int prot, int flags, int fd,
	       off_t off);
int sys_munmap(void *addr, size_t len);
int sys_madvise(void *addr, size_t len, int advice);
int sys_mprotect(void *addr, size_t len, int prot);

static inline void counter_max(_Atomic uint64_t *c, uint64_t v)
{
	uint64_t old = atomic_load_explicit(c, memory_order_relaxed);

	while (v > old && !atomic_compare_exchange_weak(c, &old, v))
		;
}

static inline void counter_add(_Atomic uint64_t *c, uint64_t v)
{
	atomic_fetch_add_explicit(c, v, memory_order_relaxed);
}

#endif /* FNMAP_INTERNAL_H */
