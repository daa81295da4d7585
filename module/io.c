// SPDX-License-Identifier: GPL-2.0
/*
 * Requests through the scheduler core. A bio becomes a request the moment
 * it is submitted (the submission point: fnblk_io_enqueue_locked); the
 * submitter then copies its data outside the lock while the core serves
 * it. The core completes it once its share of f(n)*B has served it and its
 * latency has passed (departure and completion points: the core's
 * leave_bw_stage and complete), and it is delivered (fnblk_complete, then
 * bio_endio after the lock is dropped) when its data have moved too. One
 * hrtimer per device, re-armed for the core's next event, drives the core:
 * no polling.
 *
 * Identity is captured here, in the submitter's context, because this is
 * the only place where "current" is the task that issued the I/O.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "fnblk.h"
#include "fnblk_trace.h"

static struct kmem_cache *fnblk_io_cache;

static struct fnblk_dev *sched_dev(struct fnblk_sched *s)
{
	return s->priv;
}

/*
 * The fast path's lease on u (see fnblk_io_fast): u's grace began at t
 * (under dev->lock). It only moves forward, and a fast path on another
 * CPU may have moved it already.
 */
static void fnblk_lease_open(struct fnblk_dev_user *u, u64 t)
{
	s64 old = atomic64_read(&u->lease);

	do {
		if (old >= (s64)t)
			return;
	} while (!atomic64_try_cmpxchg(&u->lease, &old, t));
}

/*
 * The core's grace_end hook: u's grace, begun at su->idle_ns, is due.
 * A later lease is the delivery time of a request the fast path took: the
 * grace runs on from it. Otherwise close the lease, so that no fast path
 * takes a request of u any more, and u leaves n; a fast path that loses
 * this race takes the locked path, which sees u idle.
 */
static u64 fnblk_grace_end(struct fnblk_sched *s, struct fnblk_user *su)
{
	struct fnblk_dev_user *u = container_of(su, struct fnblk_dev_user, su);
	s64 lease = atomic64_read(&u->lease);

	do {
		if (lease > (s64)su->idle_ns) {
			u->last_ns = lease;
			return lease;
		}
	} while (!atomic64_try_cmpxchg(&u->lease, &lease, 0));
	return su->idle_ns;
}

static void fnblk_complete(struct fnblk_sched *s, struct fnblk_req *rq)
{
	struct fnblk_dev *dev = sched_dev(s);
	struct fnblk_io *io = container_of(rq, struct fnblk_io, rq);
	struct fnblk_dev_user *u = container_of(rq->user,
						 struct fnblk_dev_user, su);

	fnblk_stats_complete(dev, io, u);
	trace_fnblk_complete(dev, io);
	if (rq->user->in_grace)
		fnblk_lease_open(u, rq->user->idle_ns);
	if (!fnblk_fault_deliver_locked(dev, &io->fault, io->bio,
					rq->submit_ns, s->now))
		bio_list_add(&dev->done, io->bio);
	if (!io->on_stack)
		kmem_cache_free(fnblk_io_cache, io);
}

static void fnblk_activity(struct fnblk_sched *s, struct fnblk_user *su,
			   bool active, u64 t)
{
	struct fnblk_dev_user *u = container_of(su, struct fnblk_dev_user, su);

	if (active)
		trace_fnblk_user_active(sched_dev(s), u, t);
	else
		trace_fnblk_user_idle(sched_dev(s), u, t);
	fnblk_event_user_locked(sched_dev(s), u, active, t);
}

static void fnblk_service_start(struct fnblk_sched *s,
				const struct fnblk_req *rq)
{
	trace_fnblk_service_start(sched_dev(s), rq);
}

static void fnblk_depart(struct fnblk_sched *s, const struct fnblk_req *rq)
{
	trace_fnblk_depart(sched_dev(s), rq);
}

/*
 * The core calls start and depart only for tracing: a kernel built
 * without tracepoints leaves them out, and pays nothing per request.
 */
const struct fnblk_sched_ops fnblk_sched_ops = {
	.complete = fnblk_complete,
	.activity = fnblk_activity,
	.start = IS_ENABLED(CONFIG_TRACEPOINTS) ? fnblk_service_start : NULL,
	.depart = IS_ENABLED(CONFIG_TRACEPOINTS) ? fnblk_depart : NULL,
	.grace_end = fnblk_grace_end,
};

/* Arm the timer for the scheduler's next event. */
static void fnblk_io_arm_locked(struct fnblk_dev *dev)
	__must_hold(&dev->lock)
{
	u64 next = fnblk_sched_next_event(&dev->sched);

	/* A dying device keeps its timer only to finish what is in flight. */
	if (next == FNBLK_NEVER || (dev->dying && !dev->sched.nr_inflight))
		return;
	/*
	 * A timer that fires early only finds nothing due and re-arms, so an
	 * armed timer is moved only to an earlier time. This spares a
	 * reprogramming per I/O when each one pushes a grace period back.
	 */
	if (hrtimer_is_queued(&dev->timer) &&
	    ktime_to_ns(hrtimer_get_expires(&dev->timer)) <= next)
		return;
	/* The core names no time past KTIME_MAX; never let one wrap. */
	hrtimer_start(&dev->timer, ns_to_ktime(min_t(u64, next, KTIME_MAX)),
		      HRTIMER_MODE_ABS_SOFT);
}

void fnblk_io_run_locked(struct fnblk_dev *dev, u64 now)
	__must_hold(&dev->lock)
{
	fnblk_sched_run(&dev->sched, now);
	fnblk_io_arm_locked(dev);
}

void fnblk_io_kick_locked(struct fnblk_dev *dev)
	__must_hold(&dev->lock)
{
	fnblk_io_run_locked(dev, ktime_get_ns());
}

static bool fnblk_io_idle(struct fnblk_dev *dev)
{
	bool idle;

	spin_lock_bh(&dev->lock);
	idle = !dev->sched.nr_inflight;
	spin_unlock_bh(&dev->lock);
	return idle;
}

void fnblk_io_unlock(struct fnblk_dev *dev)
	__releases(&dev->lock)
{
	struct bio_list done = dev->done;
	struct bio *bio;

	bio_list_init(&dev->done);
	spin_unlock_bh(&dev->lock);
	while ((bio = bio_list_pop(&done)))
		bio_endio(bio);
	if (READ_ONCE(dev->dying) && fnblk_io_idle(dev))
		wake_up_all(&dev->drain_wq);
}

static enum hrtimer_restart fnblk_timer_fn(struct hrtimer *timer)
{
	struct fnblk_dev *dev = container_of(timer, struct fnblk_dev, timer);

	spin_lock_bh(&dev->lock);
	fnblk_io_kick_locked(dev);
	fnblk_io_unlock(dev);
	return HRTIMER_NORESTART;
}

void fnblk_io_setup(struct fnblk_dev *dev)
{
	hrtimer_init(&dev->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	dev->timer.function = fnblk_timer_fn;
	bio_list_init(&dev->done);
	init_waitqueue_head(&dev->drain_wq);
	fnblk_sched_init(&dev->sched, &dev->cfg.sched, &fnblk_sched_ops, dev,
			 ktime_get_ns());
}

static u8 fnblk_bio_op(struct bio *bio)
{
	switch (bio_op(bio)) {
	case REQ_OP_READ:
		return FNBLK_OP_READ;
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		return FNBLK_OP_DISCARD;
	case REQ_OP_FLUSH:
		return FNBLK_OP_FLUSH;
	default:
		return bio_sectors(bio) ? FNBLK_OP_WRITE : FNBLK_OP_FLUSH;
	}
}

/*
 * A bio that failed is ended with this status. A REQ_NOWAIT bio that ran
 * out of memory asks to be retried (EAGAIN: io_uring then submits it again,
 * allowed to block); any other failure is an I/O error.
 */
static blk_status_t fnblk_io_status(struct bio *bio, int err)
{
	if ((bio->bi_opf & REQ_NOWAIT) && (err == -ENOMEM || err == -EAGAIN))
		err = -EAGAIN;
	else
		err = -EIO;
	return errno_to_blk_status(err);
}

/* End a bio that never reached the scheduler. */
static void fnblk_io_fail(struct fnblk_dev *dev, struct bio *bio, int err)
{
	spin_lock_bh(&dev->lock);
	dev->stats.errors++;
	spin_unlock_bh(&dev->lock);
	bio->bi_status = fnblk_io_status(bio, err);
	bio_endio(bio);
}

/*
 * Move the bio's data; a failure is delivered with the request. A request
 * a fault rule fails or times out moves none (its status is set already).
 */
static void fnblk_io_copy(struct fnblk_dev *dev, struct fnblk_io *io,
			  gfp_t gfp)
{
	struct bio *bio = io->bio;
	int err;

	if (bio->bi_status)
		return;
	err = fnblk_store_bio(&dev->store, bio, gfp);
	if (err)
		bio->bi_status = fnblk_io_status(bio, err);
}

static gfp_t fnblk_io_gfp(const struct bio *bio)
{
	return bio->bi_opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO;
}

static void fnblk_io_prepare(struct fnblk_io *io, struct bio *bio,
			     const struct fnblk_fault *fault, bool on_stack)
{
	io->bio = bio;
	io->fault = *fault;
	io->op = fnblk_bio_op(bio);
	io->kthread = current->flags & PF_KTHREAD;
	io->on_stack = on_stack;
	io->bytes = bio->bi_iter.bi_size;
	/* Discard and write-zeroes move no data: they cost the overhead. */
	io->rq.bytes = io->op == FNBLK_OP_DISCARD ? 0 : io->bytes;
	io->rq.write = io->op != FNBLK_OP_READ;
	/* Delivered only once fnblk_sched_data_done() says the data moved. */
	io->rq.data_pending = true;
}

/* Queue io in the scheduler for user u at time now (the submission point). */
static void fnblk_io_enqueue_locked(struct fnblk_dev *dev,
				    struct fnblk_dev_user *u,
				    struct fnblk_io *io, u64 now)
	__must_hold(&dev->lock)
{
	if (io->kthread && !u->kthread)
		WRITE_ONCE(u->kthread, true);	/* read by fnblk_io_fast */
	u->inflight++;
	trace_fnblk_submit(dev, io, u->su.key);
	fnblk_sched_submit(&dev->sched, &u->su, &io->rq, now);
}

/* io's data have moved (the completion point if its service is over). */
static void fnblk_io_data_done_locked(struct fnblk_dev *dev,
				      struct fnblk_io *io, u64 now)
	__must_hold(&dev->lock)
{
	fnblk_sched_data_done(&dev->sched, &io->rq, now);
	fnblk_io_arm_locked(dev);
}

/*
 * Unthrottled without latency, a request completes as soon as it is
 * submitted, so it can live on the submitter's stack and the fastest
 * configuration allocates nothing per I/O.
 */
static bool fnblk_io_completes_inline(const struct fnblk_dev *dev)
{
	return !READ_ONCE(dev->sched.p.bw) &&
	       !READ_ONCE(dev->sched.p.latency_ns);
}

/* Is a tracepoint of the request path on? Then every request is traced. */
static bool fnblk_io_traced(void)
{
	return trace_fnblk_submit_enabled() ||
	       trace_fnblk_service_start_enabled() ||
	       trace_fnblk_depart_enabled() ||
	       trace_fnblk_complete_enabled();
}

/*
 * The fast path (Documentation/model.rst, "Requests past the core"): a
 * read or write counted in n whose data have moved, on a device unthrottled without
 * latency, of a user in its grace since a request at most a grace ago,
 * is accounted without dev->lock and without the core. For the core it
 * is one more request of an active user, delivered when it arrived: it
 * changes no n, only the time the user's grace runs from, which the
 * fast path moves forward in the user's lease (a compare-and-exchange
 * against the core closing the lease when that grace ends, see
 * fnblk_grace_end). Its counters are per CPU and per user. False: take
 * the locked path.
 */
static bool fnblk_io_fast(struct fnblk_dev *dev, struct bio *bio,
			  const struct fnblk_fault *fault)
{
	bool kthread = current->flags & PF_KTHREAD;
	struct fnblk_dev_user *u;
	s64 grace, lease, now;
	u8 op = fnblk_bio_op(bio);

	if ((op != FNBLK_OP_READ && op != FNBLK_OP_WRITE) ||
	    fault->error != FNBLK_FAULT_NONE || bio->bi_status ||
	    fnblk_io_traced())
		return false;
	rcu_read_lock();
	/*
	 * Throttled or stopped (a stats reset) since we looked; a read that
	 * is not counted in n (users writes) is left to the locked path.
	 */
	if (!fnblk_io_completes_inline(dev) || READ_ONCE(dev->fast_off) ||
	    (op == FNBLK_OP_READ &&
	     READ_ONCE(dev->sched.p.users) != FNBLK_USERS_ALL))
		goto locked;
	u = fnblk_user_find_rcu(dev, bio);
	if (!u || (kthread && !READ_ONCE(u->kthread)))
		goto locked;
	grace = READ_ONCE(dev->sched.p.grace_ns);
	now = ktime_get_ns();
	lease = atomic64_read(&u->lease);
	do {
		/* Closed, or its grace is over: the core must see the end. */
		if (!lease || now - lease >= grace)
			goto locked;
		/* A request of u on another CPU came later. */
		if (now <= lease)
			break;
	} while (!atomic64_try_cmpxchg(&u->lease, &lease, now));
	fnblk_stats_fast(dev, u, op == FNBLK_OP_WRITE, bio->bi_iter.bi_size,
			 kthread);
	rcu_read_unlock();
	return true;
locked:
	rcu_read_unlock();
	return false;
}

/*
 * The request takes no time in the model: copy first, then submit and
 * deliver it under one lock, at one reading of the clock (in an emulated
 * guest a clock read is an HPET access costing about a microsecond). Its
 * user's activity thus starts when its copy ends: only the copy of the
 * first request of an active period is left out of it.
 */
static void fnblk_io_submit_inline(struct fnblk_dev *dev, struct bio *bio,
				   struct fnblk_fault *fault)
{
	gfp_t gfp = fnblk_io_gfp(bio);
	struct fnblk_io on_stack, *io = &on_stack;
	struct fnblk_dev_user *u;
	int err = 0;

	on_stack.bio = bio;
	fnblk_io_copy(dev, &on_stack, gfp);
	if (fnblk_io_fast(dev, bio, fault)) {
		bio_endio(bio);
		return;
	}
	spin_lock_bh(&dev->lock);
	u = fnblk_user_get_locked(dev, bio, gfp);
	if (IS_ERR(u)) {
		err = PTR_ERR(u);
	} else if (!fnblk_io_completes_inline(dev)) {
		/* Throttled since we looked (rare): it must outlive this call. */
		io = kmem_cache_alloc(fnblk_io_cache, GFP_ATOMIC);
		if (!io)
			err = -ENOMEM;
	}
	if (err) {
		spin_unlock_bh(&dev->lock);
		fnblk_fault_cancel(fault);
		fnblk_io_fail(dev, bio, err);
		return;
	}
	fnblk_io_prepare(io, bio, fault, io == &on_stack);
	io->rq.data_pending = false;	/* moved already: delivered at once */
	fnblk_io_enqueue_locked(dev, u, io, ktime_get_ns());
	fnblk_io_arm_locked(dev);
	fnblk_io_unlock(dev);
}

/*
 * The request enters the scheduler first, so its service starts now; its
 * data move afterwards, outside the lock, while it is served, and it is
 * delivered when both are done (as a real device transfers while serving).
 */
static void fnblk_io_submit_queued(struct fnblk_dev *dev, struct bio *bio,
				   struct fnblk_fault *fault)
{
	gfp_t gfp = fnblk_io_gfp(bio);
	struct fnblk_dev_user *u;
	struct fnblk_io *io;

	io = kmem_cache_alloc(fnblk_io_cache, gfp);
	if (!io) {
		fnblk_fault_cancel(fault);
		fnblk_io_fail(dev, bio, -ENOMEM);
		return;
	}
	fnblk_io_prepare(io, bio, fault, false);
	spin_lock_bh(&dev->lock);
	u = fnblk_user_get_locked(dev, bio, gfp);
	if (IS_ERR(u)) {
		spin_unlock_bh(&dev->lock);
		fnblk_fault_cancel(&io->fault);
		kmem_cache_free(fnblk_io_cache, io);
		fnblk_io_fail(dev, bio, PTR_ERR(u));
		return;
	}
	fnblk_io_enqueue_locked(dev, u, io, ktime_get_ns());
	fnblk_io_arm_locked(dev);
	fnblk_io_unlock(dev);

	fnblk_io_copy(dev, io, gfp);

	spin_lock_bh(&dev->lock);
	fnblk_io_data_done_locked(dev, io, ktime_get_ns());
	fnblk_io_unlock(dev);
}

void fnblk_io_submit(struct fnblk_dev *dev, struct bio *bio)
{
	struct fnblk_fault fault;
	int err;

	/* A fault rule decides first: a failed request moves no data. */
	err = fnblk_fault_submit(dev, bio, &fault, fnblk_io_gfp(bio));
	if (err) {
		fnblk_io_fail(dev, bio, err);
		return;
	}
	if (fnblk_io_completes_inline(dev))
		fnblk_io_submit_inline(dev, bio, &fault);
	else
		fnblk_io_submit_queued(dev, bio, &fault);
}

/* Wait until the scheduler has completed every request of a dying device. */
void fnblk_io_drain(struct fnblk_dev *dev)
{
	wait_event(dev->drain_wq, fnblk_io_idle(dev));
	hrtimer_cancel(&dev->timer);
}

int fnblk_io_init(void)
{
	fnblk_io_cache = KMEM_CACHE(fnblk_io, 0);
	return fnblk_io_cache ? 0 : -ENOMEM;
}

void fnblk_io_exit(void)
{
	kmem_cache_destroy(fnblk_io_cache);
}
