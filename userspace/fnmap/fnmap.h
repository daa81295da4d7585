/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fnmap: mmap-style access to a file or block device whose data movement,
 * caching and write-back run in user space (fnmap(3)).
 *
 * fnmap_open() returns an anonymous region registered with userfaultfd. A
 * miss is filled with UFFDIO_COPY from a cache block (64 KiB to 2 MiB) read
 * from the file; misses on adjacent blocks are coalesced into large reads
 * served through several io_uring channels. A bounded cache evicts blocks
 * no thread is using; writes are tracked by userfaultfd write protection
 * and written back from shadow copies by fnmap_sync(), at fnmap_close()
 * and at normal process exit.
 *
 * Every function that can fail returns NULL or -1 and sets errno;
 * fnmap_errmsg() then says what was wrong in a sentence.
 */
#ifndef FNMAP_H
#define FNMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* man: begin */
#define FNMAP_VERSION_MAJOR	1
#define FNMAP_VERSION_MINOR	5

/* ---- The process-wide runtime ---------------------------------------- */

/* Runtime feature switches (fnmap_config.flags), mostly for ablations. */
#define FNMAP_CFG_NO_COALESCE	(1u << 0) /* one read per block */
#define FNMAP_CFG_SIMPLE_CACHE	(1u << 1) /* FIFO, global lock, full budget */
#define FNMAP_CFG_NO_GROWTH	(1u << 2) /* capacity = budget from the start */
#define FNMAP_CFG_NO_PRESSURE	(1u << 3) /* ignore the cgroup's pressure */
#define FNMAP_CFG_NO_PREFETCH	(1u << 4) /* ignore advice, detect no strides */
#define FNMAP_CFG_PSYNC		(1u << 5) /* preadv/pwritev, not io_uring */
#define FNMAP_CFG_DIRECT	(1u << 6) /* the default since 1.1: no effect */
#define FNMAP_CFG_CONTINUE	(1u << 7) /* read-only: zero-copy fills */
#define FNMAP_CFG_HANDOFF	(1u << 8) /* channels submit demand reads */
#define FNMAP_CFG_NO_TWINS	(1u << 9) /* every first write to a page faults */
#define FNMAP_CFG_NO_WRITE_ALLOC (1u << 10) /* fills stay write-protected */
#define FNMAP_CFG_FIXED_DEPTH	(1u << 11) /* channels keep queue_depth */
#define FNMAP_CFG_ALL		((1u << 12) - 1)

/* The depth channels may probe up to: queue_depth's own most. */
#define FNMAP_DEPTH_PROBE_MAX	256

struct fnmap_config {
	/* Bytes the cache may hold in all mappings; 0 = a quarter of the
	 * memory available to the process's cgroup (or the machine). */
	uint64_t budget;
	/* I/O channels (1..64): one io_uring and one thread each. */
	unsigned int channels;
	/* Requests in flight per channel (1..256) to start with and at
	 * least; while requests wait and the store's delay stays near its
	 * least (a slow store), channels go up to FNMAP_DEPTH_PROBE_MAX,
	 * unless FNMAP_CFG_FIXED_DEPTH. (Since 1.4; before, fixed.) */
	unsigned int queue_depth;
	/* Largest coalesced request in bytes (a multiple of 4 KiB, 4 KiB..
	 * 64 MiB); 0 = 1 MiB. */
	uint64_t max_request;
	/* FNMAP_CFG_* */
	unsigned int flags;
	/* Threads serving faults (1..64; 0 = 4), reading one userfaultfd. */
	unsigned int fault_threads;
};

/*
 * Defaults, then the FNMAP_BUDGET, FNMAP_CHANNELS, FNMAP_QUEUE_DEPTH,
 * FNMAP_MAX_REQUEST, FNMAP_FLAGS and FNMAP_FAULT_THREADS environment
 * variables. -1 (EINVAL) if
 * one of them is malformed; the defaults stay in *cfg then.
 */
int fnmap_config_init(struct fnmap_config *cfg);

/* "no-coalesce,psync" (the FNMAP_FLAGS syntax) into FNMAP_CFG_* bits; -1
 * (EINVAL) naming the unknown word. */
int fnmap_parse_flags(const char *s, unsigned int *flags);

/*
 * Start the runtime with cfg (NULL: fnmap_config_init()). Optional:
 * fnmap_open() starts it with the defaults. -1 with EBUSY if it already
 * runs, EINVAL for a bad field, or the reason userfaultfd is unusable.
 */
int fnmap_init(const struct fnmap_config *cfg);

/* Stop the runtime (threads, rings, staging memory). -1 with EBUSY while
 * a mapping is open. */
int fnmap_shutdown(void);

/* ---- Mappings --------------------------------------------------------- */

/* Access advice (fnmap_options.advice, fnmap_advise()). */
enum fnmap_advice {
	FNMAP_ADV_NORMAL = 0,	/* prefetch along strides the runtime sees */
	FNMAP_ADV_RANDOM,	/* no prefetch */
	FNMAP_ADV_SEQUENTIAL,	/* read ahead of every miss */
	FNMAP_ADV_WILLNEED,	/* fnmap_advise() only: queue the range now */
	FNMAP_ADV_DONTNEED,	/* fnmap_advise() only: write back, then drop */
};

/* fnmap_options.flags */
#define FNMAP_PRIVATE		(1u << 0) /* writes stay in memory (MAP_PRIVATE) */
#define FNMAP_BUFFERED		(1u << 1) /* no O_DIRECT, even where it works */
#define FNMAP_OPT_ALL		((1u << 2) - 1)

struct fnmap_options {
	/* Cache block size: a power of two from 64 KiB to 2 MiB; 0 = the
	 * FNMAP_BLOCK_SIZE environment variable, else 64 KiB. */
	uint64_t block_size;
	enum fnmap_advice advice;
	unsigned int flags;	/* FNMAP_PRIVATE, FNMAP_BUFFERED */
};

struct fnmap;

/*
 * Map a whole file or block device. flags: O_RDONLY or O_RDWR (others are
 * refused). opt may be NULL.
 */
struct fnmap *fnmap_open(const char *path, int flags,
			 const struct fnmap_options *opt);

/*
 * Map length bytes of an open file from offset (a multiple of the page
 * size), like mmap(): prot is PROT_READ, optionally | PROT_WRITE (which
 * the descriptor must allow unless FNMAP_PRIVATE is set). addr is a hint
 * or, with fixed, the address to map at. The descriptor is duplicated;
 * the caller may close it.
 */
struct fnmap *fnmap_open_fd(int fd, off_t offset, size_t length, int prot,
			    void *addr, int fixed,
			    const struct fnmap_options *opt);

void *fnmap_addr(const struct fnmap *m);
size_t fnmap_length(const struct fnmap *m);
/* The mapping that contains addr, or NULL. */
struct fnmap *fnmap_lookup(const void *addr);

/* fnmap_sync() flags */
#define FNMAP_SYNC_ASYNC	(1u << 0) /* start write-back, do not wait */
#define FNMAP_SYNC_INVALIDATE	(1u << 1) /* then drop clean blocks */
#define FNMAP_SYNC_ALL		((1u << 2) - 1)

/*
 * Write the dirty pages in [addr, addr + len) back to the file (len 0 =
 * the whole mapping) from shadow copies, so writers continue meanwhile;
 * wait for them and fdatasync() unless FNMAP_SYNC_ASYNC. With
 * FNMAP_SYNC_INVALIDATE, clean blocks in the range are dropped afterwards:
 * the next access reads what the file holds then. -1 with EIO if a
 * write-back failed since the last sync reported it.
 */
int fnmap_sync(struct fnmap *m, void *addr, size_t len, unsigned int flags);

/* Advice for [addr, addr + len) (len 0 = the whole mapping). */
int fnmap_advise(struct fnmap *m, void *addr, size_t len,
		 enum fnmap_advice advice);

/*
 * Write back what is dirty, stop serving the region and unmap it. 0, or -1
 * (EIO) if data could not be written: the mapping is gone either way.
 */
int fnmap_close(struct fnmap *m);

/* ---- Statistics ------------------------------------------------------- */

#define FNMAP_HIST_BUCKETS	16	/* log2 buckets from 4 KiB to 128 MiB */

struct fnmap_stats {
	/* Faults the runtime served. */
	uint64_t faults;	/* missing-page faults */
	uint64_t faults_wp;	/* first writes to a clean page */
	uint64_t faults_joined;	/* on a block already queued or in flight */
	uint64_t fills;		/* blocks read and mapped */
	uint64_t fill_bytes;
	uint64_t prefetches;	/* blocks queued by advice or stride */
	uint64_t prefetch_late;	/* of those, faulted on before they arrived */
	/* Requests to the file, after coalescing. */
	uint64_t reads, read_bytes;
	uint64_t writes, write_bytes;
	uint64_t read_sizes[FNMAP_HIST_BUCKETS];  /* [i]: 4 KiB << i up to */
	uint64_t write_sizes[FNMAP_HIST_BUCKETS]; /* 8 KiB << i, exclusive */
	uint64_t io_errors;
	/* The queue: wait from fault to submission, time at the device. */
	uint64_t queue_wait_ns, queue_wait_max_ns;
	uint64_t service_ns, service_max_ns;
	uint64_t inflight_max;	/* deepest the device queue was */
	uint64_t inflight_sum;	/* depth seen by each submission, summed */
	/* The cache (the whole runtime, whichever mapping is asked). */
	uint64_t budget;	/* configured */
	uint64_t budget_now;	/* after memory pressure */
	uint64_t capacity;	/* grown lazily up to budget_now */
	uint64_t resident, resident_max;
	uint64_t dirty;		/* bytes of dirty pages */
	uint64_t staging;	/* bytes of read and shadow buffers */
	uint64_t evictions, evictions_dirty;
	uint64_t reuse_hits;	/* misses an earlier eviction caused */
	uint64_t grows, shrinks, pressure_events;
	uint64_t overcommit;	/* fills beyond capacity: all blocks in use */
	/* Write-back. */
	uint64_t syncs, sync_ns;
	/* How the runtime runs here. */
	unsigned int block_size;
	unsigned int channels, queue_depth;
	unsigned int fault_threads;
	unsigned int direct_io;	/* 1 if the file is read with O_DIRECT */
	const char *uffd_source; /* "syscall", "/dev/userfaultfd", "user-mode-only" */
	const char *io_engine;	/* "io_uring", "psync" */
	/* How m's blocks are mapped: "copy" (UFFDIO_COPY from a staging
	 * buffer) or "continue" (read in place, UFFDIO_CONTINUE); NULL for
	 * all mappings. (Since 1.1.) */
	const char *fill_method;
	/* Blocks a second first-write made writable as a whole, keeping a
	 * twin, and the pages write-back found changed against their twins
	 * (besides the faulting ones); FNMAP_CFG_NO_TWINS: 0. (Since 1.2.) */
	uint64_t twins, twin_pages;
	/* Blocks filled writable with a twin because this mapping's
	 * program writes what it reads (write-allocate); FNMAP_CFG_NO_TWINS
	 * or FNMAP_CFG_NO_WRITE_ALLOC: 0. (Since 1.3.) */
	uint64_t twins_at_fill;
	/* Time fills waited for room that dirty evictions held (their
	 * write-back in flight): much of it grows the cache (lazy growth).
	 * (Since 1.4.) */
	uint64_t held_ns;
	/* Requests each channel may have out now, and the most it may
	 * come to (queue_depth with FNMAP_CFG_FIXED_DEPTH). (Since 1.4.) */
	unsigned int queue_depth_now, queue_depth_max;
};

/*
 * Counters of m, plus the runtime's cache state; m NULL: every mapping
 * opened since the runtime started, closed ones included.
 */
int fnmap_stats(const struct fnmap *m, struct fnmap_stats *st);

/* What the last failed call in this thread found wrong, in a sentence. */
const char *fnmap_errmsg(void);
/* man: end */

#ifdef __cplusplus
}
#endif

#endif /* FNMAP_H */
