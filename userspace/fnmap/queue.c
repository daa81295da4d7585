// SPDX-License-Identifier: GPL-2.0
/*
 * The request queue. Misses wait in FIFOs by kind: demand reads (a thread
 * is blocked on them), writes (fnmap_sync() or an eviction waits), and
 * prefetches (nobody waits yet). A channel with room takes the older of
 * the demand and write heads, then prefetches when those are empty and
 * few prefetches are out. A read absorbs every queued read of the blocks
 * next to it, either side, up to the largest request: the cache entry of a
 * queued block points at its node, so finding a neighbour costs one look.
 * A write absorbs the write pieces that follow it in the FIFO while they
 * continue it (fnmap_sync() queues them in address order). The evictor
 * holds the pieces of its pass back and queues them a request's worth
 * at a time: queued one by one, each was taken alone by a channel that
 * had room (block twins, whose write-back compares each block with its
 * twin, left channels waiting between the blocks of a pass).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "fnmap_internal.h"

struct fifo {
	uint32_t head, tail;	/* node indexes + 1; 0 = none */
	uint32_t n;
};

struct queue {
	pthread_mutex_t lock;
	struct req *pool;	/* nodes; pool[i - 1] is node i */
	uint32_t cap, free;	/* free list through next */
	struct fifo fifo[REQ_KINDS];
	_Atomic size_t queued;	/* in all FIFOs; read without the lock */
	unsigned int prefetch_inflight;
	bool coalesce;
	uint64_t max_request;
};

static struct req *node(struct queue *q, uint32_t i)
{
	return &q->pool[i - 1];
}

struct queue *queue_create(const struct fnmap_runtime *rt)
{
	struct queue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	pthread_mutex_init(&q->lock, NULL);
	q->coalesce = !(rt->cfg.flags & FNMAP_CFG_NO_COALESCE);
	q->max_request = rt->cfg.max_request;
	return q;
}

/* The channels' slots as deep as they are now (channel.c probes it):
 * prefetches may hold half of them and queue four times as many. */
static unsigned int slots(const struct fnmap_runtime *rt)
{
	unsigned int n = rt->cfg.channels * atomic_load(&rt->depth_now);

	return n ? n : 1;
}

void queue_destroy(struct queue *q)
{
	if (!q)
		return;
	pthread_mutex_destroy(&q->lock);
	free(q->pool);
	free(q);
}

static uint32_t node_alloc(struct queue *q)
{
	uint32_t i;

	if (!q->free) {
		uint32_t ncap = q->cap ? q->cap * 2 : 256;
		struct req *p = realloc(q->pool, ncap * sizeof(*p));

		if (!p)
			return 0;
		q->pool = p;
		for (i = ncap; i > q->cap; i--) {
			p[i - 1].next = q->free;
			q->free = i;
		}
		q->cap = ncap;
	}
	i = q->free;
	q->free = node(q, i)->next;
	return i;
}

static void node_free(struct queue *q, uint32_t i)
{
	node(q, i)->next = q->free;
	q->free = i;
}

static void fifo_push(struct queue *q, struct fifo *f, uint32_t i)
{
	struct req *r = node(q, i);

	r->next = 0;
	r->prev = f->tail;
	if (f->tail)
		node(q, f->tail)->next = i;
	else
		f->head = i;
	f->tail = i;
	f->n++;
	atomic_fetch_add(&q->queued, 1);
	atomic_fetch_add(&r->m->queued, 1);
}

static void fifo_unlink(struct queue *q, struct fifo *f, uint32_t i)
{
	struct req *r = node(q, i);

	if (r->prev)
		node(q, r->prev)->next = r->next;
	else
		f->head = r->next;
	if (r->next)
		node(q, r->next)->prev = r->prev;
	else
		f->tail = r->prev;
	f->n--;
	atomic_fetch_sub(&q->queued, 1);
	atomic_fetch_sub(&r->m->queued, 1);
}

static _Thread_local bool kicks_held, kick_due;

bool queue_read(struct fnmap_runtime *rt, struct fnmap *m, uint32_t blk,
		bool prefetch)
{
	struct queue *q = rt->queue;
	struct fnmap_block *b = &m->blocks[blk];
	bool queued = false;
	uint32_t s, i;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		s = atomic_load(&b->state);
		if (b_state(s) == B_QUEUED) {
			/* A thread now waits for a prefetch: promote it. */
			struct req *r = node(q, b->qnode);

			if (!prefetch && r->kind == REQ_PREFETCH) {
				fifo_unlink(q, &q->fifo[REQ_PREFETCH], b->qnode);
				r->kind = REQ_DEMAND;
				fifo_push(q, &q->fifo[REQ_DEMAND], b->qnode);
				atomic_fetch_and(&b->state, ~BF_PREFETCH);
				counter_add(&m->c.prefetch_late, 1);
			}
			break;
		}
		if (b_state(s) != B_EMPTY)
			break;
		if (prefetch && q->fifo[REQ_PREFETCH].n >= slots(rt) * 4)
			break;
		i = node_alloc(q);
		if (!i)
			break;
		if (!atomic_compare_exchange_weak(&b->state, &s,
				b_with_state(s, B_QUEUED) |
				(prefetch ? BF_PREFETCH : 0))) {
			node_free(q, i);
			continue;
		}
		memset(node(q, i), 0, sizeof(struct req));
		node(q, i)->m = m;
		node(q, i)->blk = blk;
		node(q, i)->kind = prefetch ? REQ_PREFETCH : REQ_DEMAND;
		node(q, i)->t_enq = rt_now_ns();
		b->qnode = i;
		fifo_push(q, &q->fifo[node(q, i)->kind], i);
		queued = true;
		break;
	}
	pthread_mutex_unlock(&q->lock);
	if (queued && kicks_held)
		kick_due = true;
	else if (queued)
		channels_kick(rt);
	return queued;
}

/*
 * A fault thread queues many reads per batch of messages: it holds the
 * kicks back and sends one at the end (a kick is a system call).
 */
void queue_hold_kicks(bool hold)
{
	kicks_held = hold;
}

bool queue_kick_due(void)
{
	bool due = kick_due;

	kick_due = false;
	return due;
}

/* Write pieces this thread holds back (queue_hold_writes()). */
static _Thread_local struct {
	bool on;
	struct req *r;
	size_t n, cap;
	uint64_t bytes;
} held;

static void push_writes(struct fnmap_runtime *rt, const struct req *r,
			size_t n)
{
	struct queue *q = rt->queue;
	uint64_t now = rt_now_ns();
	uint32_t i;
	size_t k;

	pthread_mutex_lock(&q->lock);
	for (k = 0; k < n; k++) {
		while (!(i = node_alloc(q))) {
			/* Out of memory for a node: let the channels
			 * drain what is queued. */
			pthread_mutex_unlock(&q->lock);
			channels_kick(rt);
			sched_yield();
			pthread_mutex_lock(&q->lock);
		}
		*node(q, i) = r[k];
		node(q, i)->kind = REQ_WRITE;
		node(q, i)->t_enq = now;
		fifo_push(q, &q->fifo[REQ_WRITE], i);
	}
	pthread_mutex_unlock(&q->lock);
	channels_kick(rt);
}

static void flush_writes(struct fnmap_runtime *rt)
{
	if (held.n)
		push_writes(rt, held.r, held.n);
	held.n = 0;
	held.bytes = 0;
}

void queue_hold_writes(struct fnmap_runtime *rt, bool hold)
{
	held.on = hold;
	if (hold)
		return;
	flush_writes(rt);
	free(held.r);
	held.r = NULL;
	held.cap = 0;
}

void queue_write(struct fnmap_runtime *rt, const struct req *r)
{
	if (held.on && held.n == held.cap) {
		size_t ncap = held.cap ? held.cap * 2 : 64;
		struct req *p = realloc(held.r, ncap * sizeof(*p));

		if (p) {
			held.r = p;
			held.cap = ncap;
		}
	}
	if (!held.on || held.n == held.cap) {
		push_writes(rt, r, 1);
		return;
	}
	held.r[held.n++] = *r;
	held.bytes += r->len;
	if (held.bytes >= rt->queue->max_request)
		flush_writes(rt);
}

/* Move node i into io as piece k (caller unlinked it). */
static void take_node(struct queue *q, struct io *io, unsigned int k,
		      uint32_t i)
{
	io->pieces[k] = *node(q, i);
	if (io->pieces[k].t_enq < io->t_enq_oldest)
		io->t_enq_oldest = io->pieces[k].t_enq;
	node_free(q, i);
}

/* Is block blk of m queued for reading, and may it join this request? */
static bool queued_neighbour(struct fnmap *m, int64_t blk)
{
	return blk >= 0 && blk < m->nblocks &&
	       b_state(atomic_load(&m->blocks[blk].state)) == B_QUEUED;
}

/* Where block blk is read to: a staging buffer, or (zero-copy) its
 * place in the view, where it is mapped from. */
static char *read_buffer(struct fnmap_runtime *rt, struct fnmap *m,
			 uint32_t blk)
{
	if (m->zero_copy)
		return map_view_addr(m, blk);
	return staging_get(rt->staging, m->bs, false);
}

static struct io *take_read(struct fnmap_runtime *rt, struct queue *q,
			    struct io *io, uint32_t first)
{
	struct fnmap *m = node(q, first)->m;
	uint32_t blk = node(q, first)->blk, lo = blk, hi = blk, lo0, b;
	uint64_t max = q->coalesce ? q->max_request >> m->bshift : 1;
	char **bufs = io->bufs;
	unsigned int k;

	if (!max)
		max = 1;
	if (max > io->max_pieces)
		max = io->max_pieces;
	/* The queued run around blk, then buffers for as much of it as the
	 * cache and the staging bound admit (blk's first). */
	while (hi - lo + 1 < max && queued_neighbour(m, (int64_t)hi + 1))
		hi++;
	while (hi - lo + 1 < max && queued_neighbour(m, (int64_t)lo - 1))
		lo--;
	lo0 = lo;
	if (!cache_admit(rt, m->bs))
		return NULL;
	bufs[blk - lo0] = read_buffer(rt, m, blk);
	if (!bufs[blk - lo0])
		return NULL;
	for (b = blk + 1; b <= hi; b++) {
		bufs[b - lo0] = cache_admit(rt, (b - blk + 1) * m->bs) ?
			read_buffer(rt, m, b) : NULL;
		if (!bufs[b - lo0]) {
			hi = b - 1;
			break;
		}
	}
	for (b = blk; b > lo; b--) {
		bufs[b - 1 - lo0] = cache_admit(rt, (hi - b + 2) * m->bs) ?
			read_buffer(rt, m, b - 1) : NULL;
		if (!bufs[b - 1 - lo0]) {
			lo = b;
			break;
		}
	}
	if (lo != lo0)
		memmove(bufs, bufs + (lo - lo0), (hi - lo + 1) * sizeof(*bufs));

	io->m = m;
	io->write = false;
	io->fd = m->fd;
	io->n = hi - lo + 1;
	io->t_enq_oldest = UINT64_MAX;
	io->len = 0;
	for (k = 0; k < io->n; k++) {
		struct fnmap_block *e = &m->blocks[lo + k];
		uint32_t i = e->qnode;
		size_t len = map_block_len(m, lo + k);

		fifo_unlink(q, &q->fifo[node(q, i)->kind], i);
		if (node(q, i)->kind == REQ_PREFETCH)
			q->prefetch_inflight++;
		take_node(q, io, k, i);
		b_set_state(e, B_READING, 0);
		io->iov[k].iov_base = bufs[k];
		io->iov[k].iov_len = len;
		io->len += len;
	}
	io->off = m->offset + ((off_t)lo << m->bshift);
	cache_reading(rt, (ssize_t)(io->n * m->bs));
	return io;
}

static struct io *take_write(struct queue *q, struct io *io, uint32_t first)
{
	struct req *r = node(q, first);
	struct fnmap *m = r->m;
	unsigned int k = 0;
	uint32_t i = first;

	io->m = m;
	io->write = true;
	io->off = r->off;
	io->len = 0;
	io->t_enq_oldest = UINT64_MAX;
	io->fd = r->tail ? m->fd_buffered : m->fd;
	while (i) {
		uint32_t next = node(q, i)->next;

		r = node(q, i);
		if (k && (r->m != m || r->tail || r->off != io->off + (off_t)io->len ||
			  io->len + r->len > q->max_request ||
			  !q->coalesce || k >= io->max_pieces))
			break;
		io->iov[k].iov_base = r->buf;
		io->iov[k].iov_len = r->len;
		io->len += r->len;
		fifo_unlink(q, &q->fifo[REQ_WRITE], i);
		take_node(q, io, k, i);
		k++;
		if (io->pieces[k - 1].tail)
			break;
		i = next;
	}
	io->n = k;
	return io;
}

struct io *queue_take(struct fnmap_runtime *rt, struct io *io,
		       bool demand_only)
{
	struct queue *q = rt->queue;
	struct fifo *d = &q->fifo[REQ_DEMAND], *w = &q->fifo[REQ_WRITE];
	struct fifo *p = &q->fifo[REQ_PREFETCH];
	struct io *got = NULL;

	if (demand_only) {
		pthread_mutex_lock(&q->lock);
		if (d->head)
			got = take_read(rt, q, io, d->head);
		pthread_mutex_unlock(&q->lock);
		return got;
	}
	pthread_mutex_lock(&q->lock);
	if (w->head && (!d->head ||
			node(q, w->head)->t_enq <= node(q, d->head)->t_enq))
		got = take_write(q, io, w->head);
	if (!got && d->head)
		got = take_read(rt, q, io, d->head);
	if (!got && w->head)
		got = take_write(q, io, w->head);
	if (!got && p->head &&
	    q->prefetch_inflight < (slots(rt) + 1) / 2)
		got = take_read(rt, q, io, p->head);
	pthread_mutex_unlock(&q->lock);
	return got;
}

void queue_prefetch_done(struct fnmap_runtime *rt, const struct io *io)
{
	struct queue *q = rt->queue;
	unsigned int k, n = 0;

	for (k = 0; k < io->n; k++)
		n += io->pieces[k].kind == REQ_PREFETCH;
	if (!n)
		return;
	pthread_mutex_lock(&q->lock);
	q->prefetch_inflight -= n;
	pthread_mutex_unlock(&q->lock);
}

void queue_forget(struct fnmap_runtime *rt, struct fnmap *m)
{
	struct queue *q = rt->queue;
	unsigned int k;

	pthread_mutex_lock(&q->lock);
	for (k = 0; k < REQ_KINDS; k++) {
		uint32_t i = k == REQ_WRITE ? 0 : q->fifo[k].head;

		while (i) {
			uint32_t next = node(q, i)->next;

			if (node(q, i)->m == m) {
				struct fnmap_block *b = &m->blocks[node(q, i)->blk];

				b_set_state(b, B_EMPTY, BF_PREFETCH);
				fifo_unlink(q, &q->fifo[k], i);
				node_free(q, i);
			}
			i = next;
		}
	}
	pthread_mutex_unlock(&q->lock);
}

size_t queue_pending(const struct fnmap_runtime *rt)
{
	return atomic_load(&rt->queue->queued);
}
