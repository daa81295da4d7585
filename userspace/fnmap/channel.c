// SPDX-License-Identifier: GPL-2.0
/*
 * I/O channels. Each channel is a thread with its own io_uring holding up
 * to `depth` requests; it takes coalesced requests from the queue while it
 * has room, then sleeps in io_uring until a completion or a kick (a poll
 * of an eventfd, always pending in the ring) arrives. A poll, not a read:
 * on 6.1 io_uring completes a read of a non-blocking eventfd at once with
 * -EAGAIN, and a channel re-arming it would spin. Kicks go to the channel
 * with the fewest requests out, so the load spreads and the device sees
 * channels x depth requests when the queue is long.
 *
 * The depth is the store's to decide (policy.c, depth_ctl): from the
 * configured queue_depth, it doubles while requests wait for slots and
 * the store's service time stays near its least, and halves when the
 * store queues ours, so a slow store gets the requests in flight its
 * latency needs and a busy one no more than it serves
 * (FNMAP_CFG_FIXED_DEPTH: queue_depth, always).
 *
 * Where io_uring is unavailable (or FNMAP_CFG_PSYNC), a channel issues one
 * preadv/pwritev at a time instead: depth 1 per channel.
 *
 * The channel thread also finishes what completes: a read's blocks are
 * mapped into the region (UFFDIO_COPY, which wakes the waiting threads),
 * a write's pieces release their shadows and tickets.
 *
 * By default (since 1.1; FNMAP_CFG_HANDOFF for the hand-off) a fault
 * thread has a ring of its own (a "direct" channel, no thread): it
 * submits the demand reads it queued and finishes them itself. The
 * hand-off to a channel thread is a wake-up per miss (1.6-2 ms of a miss
 * in the TCG guest, where a wake-up of an idle vCPU waits for the host);
 * channel threads keep prefetches, writes and what a full ring or the
 * cache's admission left queued. io_uring completes a read in the task
 * that submitted it, so the submitter must be the one that reaps.
 */
#include <errno.h>
#include <limits.h>
#include <liburing.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fnmap_internal.h"

#define WAKE_TAG	((uint64_t)0)
#define MAX_RETRIES	3
/* The depth's verdicts: epochs of at least 100 ms. */
#define DEPTH_EPOCH_NS	100000000ULL

struct channel {
	struct fnmap_runtime *rt;
	pthread_t thread;
	bool started;
	int efd;
	bool uring;
	struct io_uring ring;
	uint64_t efd_buf;
	struct io *ios;
	struct io *free_ios;
	_Atomic unsigned int inflight;
	unsigned int depth;
	bool direct;		/* a fault thread's ring: demand reads only */
};

static unsigned int max_pieces(const struct fnmap_config *cfg)
{
	uint64_t n = cfg->max_request / FNMAP_MIN_BLOCK + 2;

	return n > IOV_MAX ? IOV_MAX : (unsigned int)n;
}

static void io_free_arrays(struct io *io)
{
	free(io->iov);
	free(io->pieces);
	free(io->bufs);
}

static void channel_free_ios(struct channel *ch)
{
	unsigned int k;

	if (!ch->ios)
		return;
	for (k = 0; k < ch->depth; k++)
		io_free_arrays(&ch->ios[k]);
	free(ch->ios);
	ch->ios = NULL;
}

static int channel_alloc_ios(struct channel *ch, unsigned int n,
			     unsigned int pieces)
{
	unsigned int i;

	ch->ios = calloc(n, sizeof(*ch->ios));
	if (!ch->ios)
		return -1;
	for (i = 0; i < n; i++) {
		struct io *io = &ch->ios[i];

		io->max_pieces = pieces;
		io->iov = calloc(pieces, sizeof(*io->iov));
		io->pieces = calloc(pieces, sizeof(*io->pieces));
		io->bufs = calloc(pieces, sizeof(*io->bufs));
		if (!io->iov || !io->pieces || !io->bufs)
			return -1;
		io->next_free = ch->free_ios;
		ch->free_ios = io;
	}
	return 0;
}

static void account_submit(struct channel *ch, struct io *io)
{
	struct fnmap *m = io->m;
	unsigned int depth = channels_inflight(ch->rt);

	io->t_submit = rt_now_ns();
	atomic_fetch_add(&m->inflight, 1);
	counter_add(&m->c.inflight_sum, depth);
	counter_max(&m->c.inflight_max, depth);
	if (io->t_enq_oldest < io->t_submit) {
		uint64_t w = io->t_submit - io->t_enq_oldest;

		counter_add(&m->c.queue_wait_ns, w);
		counter_max(&m->c.queue_wait_max_ns, w);
	}
}

/* Read the rest of a short read; zeros past the end of the file. */
static void finish_short_read(struct io *io)
{
	size_t done = (size_t)io->res;
	unsigned int k;
	size_t at = 0;

	for (k = 0; k < io->n; k++) {
		size_t len = io->iov[k].iov_len;

		if (at + len > done) {
			size_t skip = done > at ? done - at : 0;
			char *p = (char *)io->iov[k].iov_base + skip;
			ssize_t r;

			r = pread(io->m->fd_buffered, p, len - skip,
				  io->off + (off_t)(at + skip));
			if (r < 0)
				r = 0;
			memset(p + r, 0, len - skip - (size_t)r);
			done = at + skip + (size_t)r;
			if (r < (ssize_t)(len - skip))
				done = at + len;
		}
		at += len;
	}
	io->res = (int)io->len;
}

/* The channels' depth after a completion; a deeper one is told to them. */
static void depth_complete_io(struct fnmap_runtime *rt, uint64_t service_ns,
			      uint64_t now_ns)
{
	unsigned int before, after;

	if (rt->depth.min == rt->depth.max)
		return;
	pthread_mutex_lock(&rt->depth_lock);
	before = rt->depth.now;
	after = depth_complete(&rt->depth, service_ns, now_ns,
			       queue_pending(rt) > 0);
	pthread_mutex_unlock(&rt->depth_lock);
	if (after != before) {
		atomic_store(&rt->depth_now, after);
		if (after > before)
			channels_kick(rt);
	}
}

static void account_complete(struct fnmap_runtime *rt, struct io *io)
{
	struct fnmap *m = io->m;
	uint64_t now = rt_now_ns(), t = now - io->t_submit;
	unsigned int bkt = size_bucket(io->len, FNMAP_HIST_BUCKETS);

	counter_add(&m->c.service_ns, t);
	counter_max(&m->c.service_max_ns, t);
	if (io->write) {
		counter_add(&m->c.writes, 1);
		counter_add(&m->c.write_bytes, io->len);
		counter_add(&m->c.write_sizes[bkt], 1);
	} else {
		counter_add(&m->c.reads, 1);
		counter_add(&m->c.read_bytes, io->len);
		counter_add(&m->c.read_sizes[bkt], 1);
	}
	if (io->res < 0)
		counter_add(&m->c.io_errors, 1);
	depth_complete_io(rt, t, now);
}

static void complete(struct channel *ch, struct io *io)
{
	struct fnmap_runtime *rt = ch->rt;
	struct fnmap *m = io->m;

	if (!io->write && io->res >= 0 && (size_t)io->res < io->len)
		finish_short_read(io);
	account_complete(rt, io);
	if (io->write) {
		wb_write_done(rt, io);
	} else {
		cache_fill_done(rt, io);
		queue_prefetch_done(rt, io);
	}
	atomic_fetch_sub(&m->inflight, 1);
	io->next_free = ch->free_ios;
	ch->free_ios = io;
	atomic_fetch_sub(&ch->inflight, 1);
	if (ch->direct)
		atomic_fetch_sub(&rt->direct_inflight, 1);
}

/* One request, synchronously: the psync engine, and retries. */
static int do_sync_io(struct io *io)
{
	ssize_t r;

	do {
		r = io->write ? pwritev(io->fd, io->iov, (int)io->n, io->off) :
				preadv(io->fd, io->iov, (int)io->n, io->off);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : (int)r;
}

/*
 * A failed request: O_DIRECT refused (EINVAL) switches the mapping to
 * buffered I/O; other errors are retried a few times synchronously.
 */
static void retry_failed(struct io *io)
{
	struct fnmap *m = io->m;
	int tries = 0;

	if (io->res == -EINVAL && m->direct) {
		m->direct = false;
		m->fd = m->fd_buffered;
		io->fd = m->fd;
		rt_log("O_DIRECT refused on this file: buffered I/O from now on");
	}
	while (io->res < 0 && tries++ < MAX_RETRIES)
		io->res = do_sync_io(io);
	if (io->write && io->res >= 0 && (size_t)io->res < io->len)
		io->res = -EIO;
}

static void arm_wake(struct channel *ch)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ch->ring);

	io_uring_prep_poll_add(sqe, ch->efd, POLLIN);
	io_uring_sqe_set_data64(sqe, WAKE_TAG);
}

/* A kick arrived: consume it (the eventfd is non-blocking), poll again. */
static void rearm_wake(struct channel *ch)
{
	if (read(ch->efd, &ch->efd_buf, sizeof(ch->efd_buf)) < 0)
		ch->efd_buf = 0;
	arm_wake(ch);
}

/* Requests this channel may have out now. */
static unsigned int channel_limit(const struct channel *ch)
{
	unsigned int d;

	if (ch->direct)
		return ch->depth;
	d = atomic_load(&ch->rt->depth_now);
	return d < ch->depth ? d : ch->depth;
}

static void fill_ring(struct channel *ch)
{
	struct io *io;

	while (ch->free_ios && atomic_load(&ch->inflight) < channel_limit(ch) &&
	       !atomic_load(&ch->rt->stopping)) {
		struct io_uring_sqe *sqe;

		io = queue_take(ch->rt, ch->free_ios, ch->direct);
		if (!io)
			break;
		ch->free_ios = io->next_free;
		atomic_fetch_add(&ch->inflight, 1);
		if (ch->direct)
			atomic_fetch_add(&ch->rt->direct_inflight, 1);
		account_submit(ch, io);
		sqe = io_uring_get_sqe(&ch->ring);
		if (!sqe) {
			io_uring_submit(&ch->ring);
			sqe = io_uring_get_sqe(&ch->ring);
		}
		if (io->write)
			io_uring_prep_writev(sqe, io->fd, io->iov, io->n,
					     (uint64_t)io->off);
		else
			io_uring_prep_readv(sqe, io->fd, io->iov, io->n,
					    (uint64_t)io->off);
		io_uring_sqe_set_data(sqe, io);
	}
}

/* Finish every completion in the ring (a kick re-arms its poll); how
 * many requests completed. */
static unsigned int reap(struct channel *ch)
{
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;

	io_uring_for_each_cqe(&ch->ring, head, cqe) {
		uint64_t tag = io_uring_cqe_get_data64(cqe);

		seen++;
		if (tag == WAKE_TAG) {
			rearm_wake(ch);
			continue;
		}
		struct io *io = (struct io *)(uintptr_t)tag;

		io->res = cqe->res;
		if (io->res < 0)
			retry_failed(io);
		complete(ch, io);
	}
	io_uring_cq_advance(&ch->ring, seen);
	return seen;
}

static void *uring_loop(struct channel *ch)
{
	arm_wake(ch);
	while (!atomic_load(&ch->rt->stopping)) {
		int r;

		fill_ring(ch);
		r = io_uring_submit_and_wait(&ch->ring, 1);
		if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
			rt_log("io_uring_submit_and_wait: %s", strerror(-r));
			break;
		}
		reap(ch);
	}
	return NULL;
}

static void *psync_loop(struct channel *ch)
{
	struct pollfd pfd = { .fd = ch->efd, .events = POLLIN };

	while (!atomic_load(&ch->rt->stopping)) {
		struct io *io = queue_take(ch->rt, ch->free_ios, false);
		uint64_t v;

		if (!io) {
			if (poll(&pfd, 1, 100) > 0 &&
			    read(ch->efd, &v, sizeof(v)) < 0)
				v = 0;
			continue;
		}
		ch->free_ios = io->next_free;
		atomic_fetch_add(&ch->inflight, 1);
		account_submit(ch, io);
		io->res = do_sync_io(io);
		if (io->res < 0)
			retry_failed(io);
		complete(ch, io);
	}
	return NULL;
}

static void *channel_main(void *arg)
{
	struct channel *ch = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "fnmap-io");
	return ch->uring ? uring_loop(ch) : psync_loop(ch);
}

unsigned int channel_depth_max(const struct fnmap_config *cfg)
{
	if (cfg->flags & (FNMAP_CFG_FIXED_DEPTH | FNMAP_CFG_PSYNC))
		return cfg->queue_depth;
	return FNMAP_DEPTH_PROBE_MAX;
}

int channels_start(struct fnmap_runtime *rt)
{
	unsigned int n = rt->cfg.channels, i;
	bool psync = rt->cfg.flags & FNMAP_CFG_PSYNC;

	depth_init(&rt->depth, rt->cfg.queue_depth,
		   channel_depth_max(&rt->cfg), DEPTH_EPOCH_NS, rt_now_ns());
	atomic_store(&rt->depth_now, rt->cfg.queue_depth);
	rt->channels = calloc(n, sizeof(*rt->channels));
	if (!rt->channels)
		return -1;
	/* destroyed by channels_stop(), which needs rt->channels */
	pthread_mutex_init(&rt->depth_lock, NULL);
	rt->nchannels = n;
	for (i = 0; i < n; i++) {
		struct channel *ch = &rt->channels[i];

		ch->rt = rt;
		ch->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		ch->depth = psync ? 1 : channel_depth_max(&rt->cfg);
		if (ch->efd < 0 ||
		    channel_alloc_ios(ch, ch->depth, max_pieces(&rt->cfg)))
			goto fail;
		if (!psync) {
			int r = io_uring_queue_init(ch->depth + 2, &ch->ring, 0);

			if (r == 0) {
				ch->uring = true;
			} else if (i == 0) {
				rt_log("io_uring unavailable (%s): preadv/"
					  "pwritev instead", strerror(-r));
				psync = true;
				ch->depth = 1;
				depth_init(&rt->depth, 1, 1, DEPTH_EPOCH_NS,
					   rt_now_ns());
			} else {
				errno = -r;
				goto fail;
			}
		}
		if (pthread_create(&ch->thread, NULL, channel_main, ch))
			goto fail;
		ch->started = true;
	}
	return 0;
fail:
	channels_stop(rt);
	return -1;
}

void channels_stop(struct fnmap_runtime *rt)
{
	unsigned int i;

	if (!rt->channels)
		return;
	atomic_store(&rt->stopping, true);
	for (i = 0; i < rt->nchannels; i++) {
		struct channel *ch = &rt->channels[i];
		uint64_t one = 1;

		if (ch->started) {
			if (write(ch->efd, &one, sizeof(one)) < 0)
				rt_log("waking a channel: %s", strerror(errno));
			pthread_join(ch->thread, NULL);
		}
		if (ch->uring)
			io_uring_queue_exit(&ch->ring);
		if (ch->efd >= 0)
			close(ch->efd);
		channel_free_ios(ch);
	}
	free(rt->channels);
	rt->channels = NULL;
	rt->nchannels = 0;
	pthread_mutex_destroy(&rt->depth_lock);
}

void channels_kick(struct fnmap_runtime *rt)
{
	struct channel *best = NULL;
	unsigned int i, least = UINT_MAX;
	uint64_t one = 1;

	for (i = 0; i < rt->nchannels; i++) {
		struct channel *ch = &rt->channels[i];
		unsigned int n = atomic_load(&ch->inflight);

		if (n < channel_limit(ch) && n < least) {
			least = n;
			best = ch;
		}
	}
	if (best && write(best->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		rt_log("kicking a channel: %s", strerror(errno));
}

unsigned int channels_inflight(struct fnmap_runtime *rt)
{
	unsigned int i, n = atomic_load(&rt->direct_inflight);

	for (i = 0; i < rt->nchannels; i++)
		n += atomic_load(&rt->channels[i].inflight);
	return n;
}

const char *channels_engine(struct fnmap_runtime *rt)
{
	return rt->nchannels && rt->channels[0].uring ? "io_uring" : "psync";
}

/* ---- A fault thread's own ring ------------------------------------------ */

struct channel *direct_ring_open(struct fnmap_runtime *rt)
{
	struct channel *ch;

	if (!rt->nchannels || !rt->channels[0].uring ||
	    (rt->cfg.flags & FNMAP_CFG_HANDOFF))
		return NULL;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return NULL;
	ch->rt = rt;
	ch->efd = -1;
	ch->direct = true;
	ch->depth = rt->cfg.queue_depth;
	if (channel_alloc_ios(ch, ch->depth, max_pieces(&rt->cfg)) ||
	    io_uring_queue_init(ch->depth, &ch->ring, 0)) {
		/* The channel threads serve this fault thread's misses. */
		channel_free_ios(ch);
		free(ch);
		return NULL;
	}
	ch->uring = true;
	return ch;
}

int direct_ring_fd(const struct channel *ch)
{
	return ch->ring.ring_fd;
}

void direct_ring_submit(struct channel *ch)
{
	int r;

	fill_ring(ch);
	if (!io_uring_sq_ready(&ch->ring))
		return;
	/* Refused now (-EAGAIN, -EBUSY): the fault thread's loop submits
	 * again within a millisecond (direct_ring_pending()). */
	r = io_uring_submit(&ch->ring);
	if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
		rt_log("io_uring_submit: %s", strerror(-r));
}

bool direct_ring_pending(const struct channel *ch)
{
	return io_uring_sq_ready(&ch->ring) > 0;
}

unsigned int direct_ring_reap(struct channel *ch, bool wait)
{
	unsigned int n = 0;

	for (;;) {
		n += reap(ch);
		if (!wait || !atomic_load(&ch->inflight))
			return n;
		io_uring_submit_and_wait(&ch->ring, 1);
	}
}

void direct_ring_close(struct channel *ch)
{
	if (!ch)
		return;
	direct_ring_reap(ch, true);
	io_uring_queue_exit(&ch->ring);
	channel_free_ios(ch);
	free(ch);
}
