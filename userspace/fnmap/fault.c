// SPDX-License-Identifier: GPL-2.0
/*
 * The fault threads: read userfaultfd and decide, per fault, without
 * waiting for I/O. Several threads read the one descriptor (each message
 * goes to one reader; an epoll with EPOLLEXCLUSIVE wakes one idle reader
 * per arrival), so a fault waits neither behind a batch another thread
 * is handling nor behind a system call that thread sleeps in (the mmap
 * lock of mincore() or UFFDIO_WRITEPROTECT while fills copy).
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
 * ahead of every miss). The windows are shared by the fault threads (any
 * of them may get a thread's next fault), in shards by thread id, each
 * with its own lock.
 *
 * No fault thread blocks on a block lock: a write fault on a block that
 * is being written back waits in that fault thread's deferred list and
 * is retried.
 *
 * Unless FNMAP_CFG_HANDOFF, a fault thread submits the demand reads it
 * queued on a ring of its own and finishes them (UFFDIO_COPY) when they
 * complete, so a miss needs no channel thread (channel.c); what its ring
 * cannot take goes to the channels. The price: a read completes in the thread that submitted it,
 * so a fill waits while its fault thread is asleep in a system call (the
 * mmap lock of mincore() while other fills copy), as the faults of its
 * batch always have.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fnmap_internal.h"
#include "uffd_compat.h"

#define WINDOW		2
#define BATCH		64
#define SWEEP_NS	1000000000ULL
#define SHARDS		16

struct hold {
	uint32_t slot, gen, blk;
};

struct twin {
	pid_t tid;		/* 0: free slot */
	unsigned int nhold;
	struct hold hold[WINDOW];
	struct stride stride;
};

/* Thread windows whose tid hashes here: open addressing on tid. */
struct shard {
	pthread_mutex_t lock;
	struct twin *tw;
	size_t cap, n;
};

struct fault_ctl {
	struct shard shard[SHARDS];
	_Atomic uint64_t last_sweep;
	pthread_t *threads;
	unsigned int nthreads;
};

/* One fault thread's own state. */
struct fault_thread {
	struct fnmap_runtime *rt;
	struct fault_ctl *fc;
	struct uffd_msg *deferred;
	size_t ndeferred, deferred_cap;
	struct channel *ring;	/* its own ring (NULL: channels only) */
};

static struct shard *shard_of(struct fault_ctl *fc, pid_t tid)
{
	return &fc->shard[(uint32_t)tid * 2654435761u >> 28];
}

/* ---- Thread windows ------------------------------------------------------ */

/* Shard lock held by the callers of these. */
static struct twin *tw_find(struct shard *sh, pid_t tid, bool add);

static int tw_grow(struct shard *sh)
{
	struct twin *old = sh->tw;
	size_t ocap = sh->cap, i;

	sh->cap = ocap ? ocap * 2 : 64;
	sh->tw = calloc(sh->cap, sizeof(*sh->tw));
	if (!sh->tw) {
		sh->tw = old;
		sh->cap = ocap;
		return -1;
	}
	sh->n = 0;
	for (i = 0; i < ocap; i++)
		if (old[i].tid)
			*tw_find(sh, old[i].tid, true) = old[i];
	free(old);
	return 0;
}

static struct twin *tw_find(struct shard *sh, pid_t tid, bool add)
{
	size_t i;

	if (add && (sh->n + 1) * 2 > sh->cap && tw_grow(sh))
		return NULL;
	if (!sh->cap)
		return NULL;
	for (i = (size_t)tid * 40503u % sh->cap;; i = (i + 1) % sh->cap) {
		if (sh->tw[i].tid == tid)
			return &sh->tw[i];
		if (!sh->tw[i].tid) {
			if (!add)
				return NULL;
			memset(&sh->tw[i], 0, sizeof(sh->tw[i]));
			sh->tw[i].tid = tid;
			sh->n++;
			return &sh->tw[i];
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
		cache_released(rt, m, b);
}

/*
 * The thread tid faulted on (m, blk): it holds it, and lets go of the
 * oldest block of its window if that is full. With stride, the thread's
 * stride detection sees the miss: the stride to prefetch along (0: none)
 * and how far.
 */
static void touch(struct fault_thread *ft, pid_t tid, struct fnmap *m,
		  uint32_t blk, bool late, int64_t *stride, unsigned int *depth)
{
	struct shard *sh = shard_of(ft->fc, tid);
	struct hold h = { m->slot, m->gen, blk };
	struct twin *t;
	unsigned int i;

	pthread_mutex_lock(&sh->lock);
	t = tw_find(sh, tid, true);
	if (!t)
		goto out;
	for (i = 0; i < t->nhold; i++) {
		if (!memcmp(&t->hold[i], &h, sizeof(h))) {
			/* Most recent first. */
			memmove(&t->hold[1], &t->hold[0], i * sizeof(h));
			t->hold[0] = h;
			goto held;
		}
	}
	if (t->nhold == WINDOW)
		release(ft->rt, &t->hold[--t->nhold]);
	memmove(&t->hold[1], &t->hold[0], t->nhold * sizeof(h));
	t->hold[0] = h;
	t->nhold++;
	if (atomic_fetch_add(&m->blocks[blk].refs, 1) == 0)
		cache_held(ft->rt, m);
held:
	if (stride)
		*stride = stride_observe(&t->stride,
					 ((uint64_t)m->slot << 32) | m->gen,
					 blk, late,
					 stride_limit(atomic_load(&ft->rt->depth_now),
						      ft->rt->cfg.queue_depth),
					 depth);
out:
	pthread_mutex_unlock(&sh->lock);
}

/* Threads of shard sh that exited let go of their blocks. */
static void sweep_shard(struct fnmap_runtime *rt, struct shard *sh)
{
	pid_t pid = getpid();
	size_t i, j, ocap;
	struct twin *old;
	bool gone = false;

	pthread_mutex_lock(&sh->lock);
	old = sh->tw;
	ocap = sh->cap;
	for (i = 0; i < ocap; i++) {
		if (old[i].tid <= 0 ||
		    syscall(SYS_tgkill, pid, old[i].tid, 0) == 0 ||
		    errno != ESRCH)
			continue;
		for (j = 0; j < old[i].nhold; j++)
			release(rt, &old[i].hold[j]);
		old[i].nhold = 0;
		old[i].tid = -1;	/* rehashed away below */
		gone = true;
	}
	if (gone) {
		sh->tw = calloc(ocap, sizeof(*sh->tw));
		if (!sh->tw) {
			sh->tw = old;	/* -1 entries stay, holding nothing */
		} else {
			sh->n = 0;
			for (i = 0; i < ocap; i++)
				if (old[i].tid > 0)
					*tw_find(sh, old[i].tid, true) = old[i];
			free(old);
		}
	}
	pthread_mutex_unlock(&sh->lock);
}

/* Once a second, one of the fault threads sweeps every shard. */
static void sweep(struct fault_thread *ft)
{
	uint64_t now = rt_now_ns(), last = atomic_load(&ft->fc->last_sweep);
	unsigned int i;

	if (now - last <= SWEEP_NS ||
	    !atomic_compare_exchange_strong(&ft->fc->last_sweep, &last, now))
		return;
	pthread_rwlock_rdlock(&ft->rt->maps_lock);
	for (i = 0; i < SHARDS; i++)
		sweep_shard(ft->rt, &ft->fc->shard[i]);
	pthread_rwlock_unlock(&ft->rt->maps_lock);
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

/* A miss of thread tid on (m, blk): its window holds the block, and
 * blocks ahead are queued where advice or the thread's stride says (late:
 * the block was fetched ahead and is still at the store). */
static void touch_and_prefetch(struct fault_thread *ft, pid_t tid,
			       struct fnmap *m, uint32_t blk, bool late)
{
	struct fnmap_runtime *rt = ft->rt;
	uint32_t adv = atomic_load(&m->blocks[blk].state) & BF_ADV_MASK;
	bool none = (rt->cfg.flags & FNMAP_CFG_NO_PREFETCH) ||
		    (adv & BF_ADV_RANDOM);
	unsigned int depth = 0, i;
	int64_t stride = 0;

	if (none || (adv & BF_ADV_SEQ)) {
		touch(ft, tid, m, blk, false, NULL, NULL);
		if (none)
			return;
		stride = 1;
		depth = (unsigned int)(rt->cfg.max_request >> m->bshift);
		if (depth < 2)
			depth = 2;
	} else {
		touch(ft, tid, m, blk, late, &stride, &depth);
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
	uint32_t blk, s;
	bool late;

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
			touch(ft, tid, m, blk, false, NULL, NULL);
			return true;
		}
	}
	counter_add(&m->c.faults, 1);
	if (b_state(atomic_load(&m->blocks[blk].state)) == B_RESIDENT) {
		/* Zero-copy: the memfd holds the page but the region lost
		 * its entry (the program's MADV_DONTNEED, swap): map it. A
		 * minor fault elsewhere is a miss, the read may be landing
		 * in that page: never map it before the read completes. */
		if (flags & UFFD_PAGEFAULT_FLAG_MINOR) {
			if (uffd_continue(&rt->uffd, page, FNMAP_PAGE_SIZE))
				rt_log("UFFDIO_CONTINUE: %s", strerror(errno));
			uffd_wake(&rt->uffd, page, FNMAP_PAGE_SIZE);
		} else if (page_present(page) ||
			   (flags & UFFD_PAGEFAULT_FLAG_WP)) {
			uffd_wake(&rt->uffd, page, FNMAP_PAGE_SIZE);
		} else {
			cache_lost(rt, m, blk);
		}
		return true;
	}
	/* Late only where the store holds the block (submitted): one still
	 * in the queue waits for the runtime (channels, CPU), which more
	 * prefetch would only queue deeper (a fast store under a busy CPU:
	 * experiment 1, 1.4 before this, reads at 32 threads 26 % slower). */
	s = atomic_load(&m->blocks[blk].state);
	late = b_state(s) == B_READING && (s & BF_PREFETCH);
	fault_miss(m, blk, false);
	touch_and_prefetch(ft, tid, m, blk, late);
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

/*
 * Something is queued: demand reads on this thread's ring, then
 * prefetches and what the ring, the staging bound or the cache's
 * admission left to a channel. Again after this thread's reads complete:
 * they gave back staging buffers a queued read may have waited for (a
 * channel thread retries after its own completions, a fault thread must
 * do the same).
 */
static void dispatch(struct fault_thread *ft)
{
	struct fnmap_runtime *rt = ft->rt;

	if (ft->ring) {
		direct_ring_submit(ft->ring);
		if (direct_ring_reap(ft->ring, false)) {
			direct_ring_submit(ft->ring);
			direct_ring_reap(ft->ring, false);
		}
	}
	if (!ft->ring || queue_pending(rt))
		channels_kick(rt);
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
		dispatch(ft);
}

static void *fault_main(void *arg)
{
	struct fault_thread ft = { .rt = arg };
	struct fnmap_runtime *rt = ft.rt;
	struct uffd_msg msgs[BATCH];
	struct epoll_event ev[3];
	sigset_t all;
	int ep;

	ft.fc = rt->fault;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "fnmap-fault");
	/* One idle reader woken per message burst, not all of them; the
	 * stop eventfd wakes everyone. */
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, rt->uffd.fd, &(struct epoll_event){
			.events = EPOLLIN | EPOLLEXCLUSIVE }) ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, rt->fault_wake, &(struct epoll_event){
			.events = EPOLLIN })) {
		rt_log("fault thread epoll: %s", strerror(errno));
		if (ep >= 0)
			close(ep);
		return NULL;
	}
	/* Readable when a read of its own ring completed. */
	ft.ring = direct_ring_open(rt);
	if (ft.ring && epoll_ctl(ep, EPOLL_CTL_ADD, direct_ring_fd(ft.ring),
				 &(struct epoll_event){ .events = EPOLLIN })) {
		direct_ring_close(ft.ring);
		ft.ring = NULL;
	}
	while (!atomic_load(&rt->stopping)) {
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
		if (epoll_wait(ep, ev, 3, ft.ndeferred ||
			       (ft.ring && direct_ring_pending(ft.ring)) ?
			       1 : 250) < 0 && errno != EINTR)
			rt_log("fault thread epoll_wait: %s", strerror(errno));
		if (ft.ring && (direct_ring_reap(ft.ring, false) ||
				direct_ring_pending(ft.ring)))
			dispatch(&ft);
		while ((r = read(rt->uffd.fd, msgs, sizeof(msgs))) > 0)
			handle_batch(&ft, msgs, (size_t)r / sizeof(msgs[0]));
		if (r < 0 && errno != EAGAIN && errno != EINTR) {
			rt_log("reading userfaultfd: %s", strerror(errno));
			break;
		}
		sweep(&ft);
	}
	direct_ring_close(ft.ring);
	close(ep);
	free(ft.deferred);
	return NULL;
}

static void fault_free(struct fnmap_runtime *rt)
{
	struct fault_ctl *fc = rt->fault;
	unsigned int i;

	for (i = 0; i < SHARDS; i++) {
		pthread_mutex_destroy(&fc->shard[i].lock);
		free(fc->shard[i].tw);
	}
	free(fc->threads);
	free(fc);
	rt->fault = NULL;
	if (rt->fault_wake >= 0)
		close(rt->fault_wake);
	rt->fault_wake = -1;
}

int fault_start(struct fnmap_runtime *rt)
{
	struct fault_ctl *fc = calloc(1, sizeof(*fc));
	unsigned int i;

	rt->fault_wake = -1;
	if (!fc)
		return -1;
	rt->fault = fc;
	for (i = 0; i < SHARDS; i++)
		pthread_mutex_init(&fc->shard[i].lock, NULL);
	atomic_store(&fc->last_sweep, rt_now_ns());
	fc->threads = calloc(rt->cfg.fault_threads, sizeof(*fc->threads));
	rt->fault_wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!fc->threads || rt->fault_wake < 0) {
		fault_free(rt);
		return -1;
	}
	for (i = 0; i < rt->cfg.fault_threads; i++) {
		if (pthread_create(&fc->threads[i], NULL, fault_main, rt)) {
			fault_stop(rt);
			return -1;
		}
		fc->nthreads++;
	}
	return 0;
}

void fault_stop(struct fnmap_runtime *rt)
{
	struct fault_ctl *fc = rt->fault;
	uint64_t one = 1;
	unsigned int i;

	if (!fc)
		return;
	atomic_store(&rt->stopping, true);
	if (fc->nthreads && write(rt->fault_wake, &one, sizeof(one)) < 0)
		rt_log("waking the fault threads: %s", strerror(errno));
	for (i = 0; i < fc->nthreads; i++)
		pthread_join(fc->threads[i], NULL);
	fault_free(rt);
}

unsigned int fault_threads(const struct fnmap_runtime *rt)
{
	return rt->fault ? rt->fault->nthreads : 0;
}
