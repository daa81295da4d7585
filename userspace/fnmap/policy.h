/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runtime's decisions as pure functions of what it measured, so host
 * unit tests can drive them: lazy growth of the cache from reuse
 * distances, the memory budget under pressure, stride prefetch, and the
 * request-size histogram.
 */
#ifndef FNMAP_POLICY_H
#define FNMAP_POLICY_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Lazy growth. Each miss on a block evicted before reports how many bytes
 * were evicted after that block: a cache larger by that much would have
 * kept it (its reuse distance beyond the capacity). Every `window` misses
 * the controller grows the capacity if at least one miss in eight was such
 * a reuse within reach of the limit, by the median of those distances (so
 * half of them would have hit), at least `step` bytes; if more than half
 * the misses were such reuses (a cold start far below the working set), by
 * at least the capacity itself: it doubles.
 *
 * A write stream never comes back, yet a cache too small for it costs
 * time: its fills wait for room that dirty evictions hold until their
 * write-back completes, so the store's write latency paces the writers.
 * The window also reports how long fills waited so, and the most bytes of
 * write-back in flight meanwhile: a cache larger by that much would have
 * filled at once (room for the write rate times the latency, Little's
 * law). If fills waited at least an eighth of the window, the capacity
 * grows by those bytes (at least `step`); more than half of it, it at
 * least doubles. The larger of the two growths wins.
 */
#define GROWTH_WINDOW_MAX	256

struct growth {
	unsigned int window;
	unsigned int misses;
	unsigned int nreuse;
	uint64_t reuse[GROWTH_WINDOW_MAX];
	uint64_t held_ns, span_ns, held_bytes;
};

void growth_init(struct growth *g, unsigned int window);
/* A miss; beyond = bytes evicted since the block left, 0 if it never was
 * cached or left too long ago to tell. true when a decision is due. */
bool growth_miss(struct growth *g, uint64_t beyond);
/* Before a decision: of the window's span_ns, fills waited held_ns for
 * room that write-back held, with up to bytes of it in flight. */
void growth_held(struct growth *g, uint64_t held_ns, uint64_t span_ns,
		 uint64_t bytes);
/* The new capacity, between capacity and limit; starts a new window. */
uint64_t growth_decide(struct growth *g, uint64_t capacity, uint64_t limit,
		       uint64_t step);

/*
 * The budget under memory pressure: multiplicative decrease on a pressure
 * signal (PSI trigger, memory.events high/max/oom, usage above 95 % of the
 * limit), at most every cut_gap_ns; additive increase back to the
 * configured budget after calm_ns without pressure; and never more than
 * the limit's headroom (90 % of it minus what others use) allows.
 */
struct budget_ctl {
	uint64_t max;		/* configured budget */
	uint64_t now;		/* current budget */
	uint64_t floor;		/* never below */
	uint64_t last_cut_ns;
	uint64_t last_pressure_ns;
	uint64_t cut_gap_ns, calm_ns;
};

struct pressure_sample {
	bool signal;		/* PSI trigger fired or memory.events moved */
	uint64_t usage;		/* memory.current of the limiting cgroup */
	uint64_t limit;		/* its memory.max/high; 0 = none */
};

void budget_init(struct budget_ctl *b, uint64_t max, uint64_t floor);
/* resident: bytes this process's cache holds. Returns the new budget. */
uint64_t budget_step(struct budget_ctl *b, const struct pressure_sample *s,
		     uint64_t resident, uint64_t now_ns);

/*
 * Stride detection over one thread's misses: positions are block numbers
 * in one mapping (a new mapping restarts). Once the same non-zero stride
 * was seen twice in a row, returns it and how many strides ahead to fetch
 * (2, 4, then `ahead` as it keeps holding); 0 otherwise. While the run
 * holds, a step of several strides (the thread skipped blocks that were
 * fetched ahead) continues it. `ahead` starts at STRIDE_MAX_DEPTH; a miss
 * on a block fetched ahead but not arrived yet (late: the thread caught
 * up with its prefetches) doubles it, up to `limit`, for as long as the
 * run holds. Late means the store's latency is longer than the
 * prefetches cover only if the store has room for more; on a busy one
 * they are late because it is busy, and going further ahead only queues
 * more there and takes from coalescing (libfnmap 1.4 on the matrix store:
 * reads at 32 threads in 3,100-3,500 requests of 75-85 KiB instead of
 * 600-1,200 of 220-450). So the limit follows the channels' depth, which
 * grows only while the store's delay stays near its least
 * (stride_limit()).
 */
#define STRIDE_MAX_DEPTH	8
#define STRIDE_DEPTH_LIMIT	64

struct stride {
	bool valid;
	uint64_t map;		/* mapping the positions belong to */
	int64_t last;
	int64_t stride;
	unsigned int run;	/* consecutive steps of this stride */
	unsigned int ahead;	/* strides fetched ahead once the run holds */
};

int64_t stride_observe(struct stride *s, uint64_t map, int64_t pos, bool late,
		       unsigned int limit, unsigned int *depth);
/* How far ahead a late run may go: STRIDE_MAX_DEPTH at the channels'
 * least depth, in proportion above it, at most STRIDE_DEPTH_LIMIT. */
unsigned int stride_limit(unsigned int depth_now, unsigned int depth_min);

/*
 * The channels' depth, from the store's delay. A slow store (a long
 * latency, as a remote file system far away) needs many requests in
 * flight to be kept busy; a fast one that is busy gains nothing from more
 * but longer waits. The least service time seen stands for the store's
 * round trip with nothing queued (`base_ns`). An epoch at a time (at
 * least `epoch_ns` and 32 completions, counting only requests submitted
 * since the depth last changed, so each verdict is about the depth of the
 * moment), the mean service time is compared with it: below 3/2 of it the
 * store queues nothing of ours, so if requests waited for a slot in at
 * least half the completions (the depth is what limits the program) the
 * depth doubles; past 3 times it the store queues our requests for two
 * round trips or more, and the depth halves; between, it stays. A depth
 * is a limit, not a target: a program that asks for little keeps little
 * in flight whatever it is. (1.4 doubled on trial and kept the double if
 * the completion rate rose by an eighth: one try a second at 256 ms,
 * eight seconds held after any try a lull spoiled.)
 */
struct depth_ctl {
	unsigned int min, max, now;
	uint64_t epoch_ns, t0_ns;
	uint64_t since_ns;		/* the depth's last change */
	uint64_t n, waited, sum_ns;	/* this epoch's counted completions */
	uint64_t base_ns;		/* least service time seen */
};

void depth_init(struct depth_ctl *d, unsigned int min, unsigned int max,
		uint64_t epoch_ns, uint64_t now_ns);
/* A request completed after service_ns (`waited`: requests were queued
 * for a slot when it did); returns the depth each channel may keep in
 * flight from now on. */
unsigned int depth_complete(struct depth_ctl *d, uint64_t service_ns,
			    uint64_t now_ns, bool waited);

/* Request-size histogram bucket: [4 KiB << i, 8 KiB << i), clamped. */
unsigned int size_bucket(uint64_t bytes, unsigned int nbuckets);

#endif /* FNMAP_POLICY_H */
