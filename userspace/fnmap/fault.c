// SPDX-License-Identifier: GPL-2.0
/*
 * The fault thread: reads userfaultfd messages and decides, per fault,
 * without waiting for I/O.
 *
 * Missing page: queue a demand read of its block if nothing is under way
 * (a fault on a block already queued or being read joins it: the fill's
 * UFFDIO_COPY wakes every thread waiting in the block); a block being
 * evicted is marked wanted and refilled when the eviction ends.
 * Write to a write-protected page: writeback.c makes it dirty and
 * writable.
 *
 * Each faulting thread (the message says which, UFFD_FEATURE_THREAD_ID)
 * has a window holding its WINDOW most recently faulted blocks: held
 * blocks are "in use" and the evictor passes them over. Two, so that a
 * thread working across a block boundary (a copy, a comparison of two
 * places) keeps both sides. A thread that exits loses its window at the
 * next sweep (once a second). The window also feeds stride detection,
 * which queues prefetches ahead of a thread walking with a fixed step;
 * advice overrides it per block (random: none; sequential: a full request
 * ahead of every miss).
 *
 * The thread never blocks on a block lock: a write fault on a block that
 * is being written back waits in a deferred list and is retried.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fnmap_internal.h"
#include "uffd_compat.h"

#define WINDOW		2
#define BATCH		64
#define SWEEP_NS	1000000000ULL

struct hold {
	uint32_t slot, gen, blk;
};

struct twin {
	pid_t tid;		/* 0: free slot */
	unsigned int nhold;
	struct hold hold[WINDOW];
	struct stride stride;
};

struct fault_thread {
	struct fnmap_runtime *rt;
	struct twin *tw;	/* open addressing on tid */
	size_t cap, n;
	struct uffd_msg *deferred;
	size_t ndeferred, deferred_cap;
	uint64_t last_sweep;
};

/* ---- Thread windows ------------------------------------------------------ */

static struct twin *tw_find(struct fault_thread *ft, pid_t tid, bool add);

static int tw_grow(struct fault_thread *ft)
{
	struct twin *old = ft->tw;
	size_t ocap = ft->cap, i;

	ft->cap = ocap ? ocap * 2 : 256;
	ft->tw = calloc(ft->cap, sizeof(*ft->tw));
	if (!ft->tw) {
		ft->tw = old;
		ft->cap = ocap;
		return -1;
	}
	ft->n = 0;
	for (i = 0; i < ocap; i++)
		if (old[i].tid)
			*tw_find(ft, old[i].tid, true) = old[i];
	free(old);
	return 0;
}

static struct twin *tw_find(struct fault_thread *ft, pid_t tid, bool add)
{
	size_t i;

	if (add && (ft->n + 1) * 2 > ft->cap && tw_grow(ft))
		return NULL;
	if (!ft->cap)
		return NULL;
	for (i = (size_t)tid * 2654435761u % ft->cap;; i = (i + 1) % ft->cap) {
		if (ft->tw[i].tid == tid)
			return &ft->tw[i];
		if (!ft->tw[i].tid) {
			if (!add)
				return NULL;
			memset(&ft->tw[i], 0, sizeof(ft->tw[i]));
			ft->tw[i].tid = tid;
			ft->n++;
			return &ft->tw[i];
		}
	}
}

static void release(struct fnmap_runtime *rt, const struct hold *h)
{
	struct fnmap *m = map_get(rt, h->slot, h->gen);
	struct fnmap_block *b;

	if (!m || h->blk >= m->nblocks)
		return;
	b = &m->blocks[h->blk];
	if (atomic_fetch_sub(&b->refs, 1) == 1)
		cache_released(rt, b);
}

/* The thread faulted on (m, blk): it holds it, and lets go of the
 * oldest block of its window if that is full. */
static struct twin *touch(struct fault_thread *ft, pid_t tid, struct fnmap *m,
			  uint32_t blk)
{
	struct twin *t = tw_find(ft, tid, true);
	struct hold h = { m->slot, m->gen, blk };
	unsigned int i;

	if (!t)
		return NULL;
	for (i = 0; i < t->nhold; i++) {
		if (!memcmp(&t->hold[i], &h, sizeof(h))) {
			/* Most recent first. */
			memmove(&t->hold[1], &t->hold[0], i * sizeof(h));
			t->hold[0] = h;
			return t;
		}
	}
	if (t->nhold == WINDOW)
		release(ft->rt, &t->hold[--t->nhold]);
	memmove(&t->hold[1], &t->hold[0], t->nhold * sizeof(h));
	t->hold[0] = h;
	t->nhold++;
	atomic_fetch_add(&m->blocks[blk].refs, 1);
	return t;
}

/* Threads that exited let go of their blocks. */
static void sweep(struct fault_thread *ft)
{
	pid_t pid = getpid();
	size_t i, j, ocap = ft->cap;
	struct twin *old = ft->tw;
	bool gone = false;

	for (i = 0; i < ocap; i++) {
		if (!old[i].tid || syscall(SYS_tgkill, pid, old[i].tid, 0) == 0 ||
		    errno != ESRCH)
			continue;
		for (j = 0; j < old[i].nhold; j++)
			release(ft->rt, &old[i].hold[j]);
		old[i].tid = -1;	/* rehashed away below */
		gone = true;
	}
	if (!gone)
		return;
	ft->tw = calloc(ocap, sizeof(*ft->tw));
	if (!ft->tw) {
		ft->tw = old;
		for (i = 0; i < ocap; i++)
			if (old[i].tid == -1)
				old[i].nhold = 0; /* keep as a dead entry */
		return;
	}
	ft->n = 0;
	for (i = 0; i < ocap; i++)
		if (old[i].tid > 0)
			*tw_find(ft, old[i].tid, true) = old[i];
	free(old);
}

/* ---- Misses and prefetch ---------------------------------------------- */

static bool page_present(void *page)
{
	unsigned char v = 0;

	return !mincore(page, FNMAP_PAGE_SIZE, &v) && (v & 1);
}

bool fault_miss(struct fnmap *m, uint32_t blk, bool prefetch)
{
	struct fnmap_runtime *rt = m->rt;
	struct fnmap_block *b = &m->blocks[blk];

	for (;;) {
		uint32_t s = atomic_load(&b->state);

		switch (b_state(s)) {
		case B_EMPTY:
			/* A read of a block evicted before is a reuse the
			 * capacity missed, whether a thread waits for it or
			 * a prefetch hides the wait: both feed growth. */
			if (queue_read(rt, m, blk, prefetch)) {
				cache_note_miss(rt, m, blk);
				if (prefetch)
					counter_add(&m->c.prefetches, 1);
				return true;
			}
			if (prefetch)
				return false;
			continue;	/* it changed under us */
		case B_QUEUED:
			if (!prefetch) {
				queue_read(rt, m, blk, false);	/* promote */
				counter_add(&m->c.faults_joined, 1);
			}
			return false;
		case B_READING:
			if (!prefetch) {
				if (s & BF_PREFETCH)
					counter_add(&m->c.prefetch_late, 1);
				counter_add(&m->c.faults_joined, 1);
			}
			return false;
		case B_EVICTING:
			if (prefetch)
				return false;
			if (atomic_compare_exchange_weak(&b->state, &s,
							 s | BF_WANTED))
				return false;
			continue;
		default:
			return false;
		}
	}
}

static void prefetch(struct fault_thread *ft, struct twin *t, struct fnmap *m,
		     uint32_t blk)
{
	struct fnmap_runtime *rt = ft->rt;
	uint32_t adv = atomic_load(&m->blocks[blk].state) & BF_ADV_MASK;
	unsigned int depth = 0, i;
	int64_t stride;

	if ((rt->cfg.flags & FNMAP_CFG_NO_PREFETCH) || (adv & BF_ADV_RANDOM))
		return;
	if (adv & BF_ADV_SEQ) {
		stride = 1;
		depth = (unsigned int)(rt->cfg.max_request >> m->bshift);
		if (depth < 2)
			depth = 2;
	} else {
		if (!t)
			return;
		stride = stride_observe(&t->stride,
					((uint64_t)m->slot << 32) | m->gen,
					blk, &depth);
	}
	for (i = 1; i <= depth && stride; i++) {
		int64_t b = (int64_t)blk + (int64_t)i * stride;

		if (b < 0 || b >= m->nblocks)
			break;
		fault_miss(m, (uint32_t)b, true);
	}
}

/* ---- Messages ---------------------------------------------------------- */

/* false: retry later (the block is locked). */
static bool handle(struct fault_thread *ft, const struct uffd_msg *msg)
{
	struct fnmap_runtime *rt = ft->rt;
	uint64_t flags = msg->arg.pagefault.flags;
	char *page = (char *)(uintptr_t)(msg->arg.pagefault.address &
					 ~(FNMAP_PAGE_SIZE - 1));
	pid_t tid = (pid_t)msg->arg.pagefault.feat.ptid;
	struct fnmap *m;
	struct twin *t;
	uint32_t blk;

	if (msg->event != UFFD_EVENT_PAGEFAULT)
		return true;
	m = map_find(rt, page);
	if (!m) {
		/* Closed meanwhile: let the thread run into what is there. */
		uffd_wake(&rt->uffd, page, FNMAP_PAGE_SIZE);
		return true;
	}
	blk = map_block_of(m, page);
	if (flags & UFFD_PAGEFAULT_FLAG_WP) {
		int r = wb_fault(m, blk, page);

		if (r == -EAGAIN)
			return false;
		if (r == 1) {
			counter_add(&m->c.faults_wp, 1);
			touch(ft, tid, m, blk);
			return true;
		}
	}
	counter_add(&m->c.faults, 1);
	if (b_state(atomic_load(&m->blocks[blk].state)) == B_RESIDENT) {
		if (page_present(page) || (flags & UFFD_PAGEFAULT_FLAG_WP))
			uffd_wake(&rt->uffd, page, FNMAP_PAGE_SIZE);
		else
			cache_lost(rt, m, blk);
		return true;
	}
	fault_miss(m, blk, false);
	t = touch(ft, tid, m, blk);
	prefetch(ft, t, m, blk);
	return true;
}

static void defer(struct fault_thread *ft, const struct uffd_msg *msg)
{
	if (ft->ndeferred == ft->deferred_cap) {
		size_t ncap = ft->deferred_cap ? ft->deferred_cap * 2 : 64;
		struct uffd_msg *p = realloc(ft->deferred, ncap * sizeof(*p));

		if (!p) {
			/* The thread will fault again after this wake. */
			uffd_wake(&ft->rt->uffd,
				  (void *)(uintptr_t)(msg->arg.pagefault.address &
						      ~(FNMAP_PAGE_SIZE - 1)),
				  FNMAP_PAGE_SIZE);
			return;
		}
		ft->deferred = p;
		ft->deferred_cap = ncap;
	}
	ft->deferred[ft->ndeferred++] = *msg;
}

static void handle_batch(struct fault_thread *ft, struct uffd_msg *msgs,
			 size_t n)
{
	struct fnmap_runtime *rt = ft->rt;
	size_t i;

	pthread_rwlock_rdlock(&rt->maps_lock);
	queue_hold_kicks(true);
	for (i = 0; i < n; i++) {
		bool done;

		cache_global_lock(rt);
		done = handle(ft, &msgs[i]);
		cache_global_unlock(rt);
		if (!done)
			defer(ft, &msgs[i]);
	}
	queue_hold_kicks(false);
	pthread_rwlock_unlock(&rt->maps_lock);
	if (queue_kick_due())
		channels_kick(rt);
}

static void *fault_main(void *arg)
{
	struct fault_thread ft = { .rt = arg };
	struct fnmap_runtime *rt = ft.rt;
	struct uffd_msg msgs[BATCH];
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (!atomic_load(&rt->stopping)) {
		struct pollfd fds[2] = {
			{ .fd = rt->uffd.fd, .events = POLLIN },
			{ .fd = rt->fault_wake, .events = POLLIN },
		};
		uint64_t now;
		ssize_t r;

		if (ft.ndeferred) {
			/* Retry the deferred ones (they may defer again). */
			size_t n = ft.ndeferred;
			struct uffd_msg *d = malloc(n * sizeof(*d));

			if (d) {
				memcpy(d, ft.deferred, n * sizeof(*d));
				ft.ndeferred = 0;
				handle_batch(&ft, d, n);
				free(d);
			}
		}
		if (poll(fds, 2, ft.ndeferred ? 1 : 250) < 0 && errno != EINTR)
			rt_log("fault thread poll: %s", strerror(errno));
		while ((r = read(rt->uffd.fd, msgs, sizeof(msgs))) > 0)
			handle_batch(&ft, msgs, (size_t)r / sizeof(msgs[0]));
		if (r < 0 && errno != EAGAIN && errno != EINTR) {
			rt_log("reading userfaultfd: %s", strerror(errno));
			break;
		}
		now = rt_now_ns();
		if (now - ft.last_sweep > SWEEP_NS) {
			pthread_rwlock_rdlock(&rt->maps_lock);
			sweep(&ft);
			pthread_rwlock_unlock(&rt->maps_lock);
			ft.last_sweep = now;
		}
	}
	free(ft.tw);
	free(ft.deferred);
	return NULL;
}

int fault_start(struct fnmap_runtime *rt)
{
	rt->fault_wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (rt->fault_wake < 0)
		return -1;
	if (pthread_create(&rt->fault_thread, NULL, fault_main, rt)) {
		close(rt->fault_wake);
		rt->fault_wake = -1;
		return -1;
	}
	return 0;
}

void fault_stop(struct fnmap_runtime *rt)
{
	uint64_t one = 1;

	if (rt->fault_wake < 0)
		return;
	atomic_store(&rt->stopping, true);
	if (write(rt->fault_wake, &one, sizeof(one)) < 0)
		rt_log("waking the fault thread: %s", strerror(errno));
	pthread_join(rt->fault_thread, NULL);
	close(rt->fault_wake);
	rt->fault_wake = -1;
}
