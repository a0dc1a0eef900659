// SPDX-License-Identifier: GPL-2.0
/*
 * The single-queue request_fn mode.
 *
 * Requests flow:
 *
 *   submit_bio -> blk_queue_bio()
 *     merge into a request in the task's plug, or into one the scheduler
 *     holds (blk_mq_sched_try_merge() asks the scheduler through the
 *     elevator seam), or take a request from the queue's pool (sleeping
 *     while q->nr_requests are out) and
 *       - hold it in the task's plug (lq_unplug() later), or
 *       - give it to the scheduler and run the queue
 *   __blk_run_queue(): the driver's request_fn, lock held;
 *     blk_fetch_request() takes the head of the dispatch list, which the
 *     scheduler refills when it runs dry
 *   driver completes: blk_end_request*() or blk_complete_request() ->
 *     softirq -> the driver's softirq_done -> blk_end_request*().
 *   REQ_PREFLUSH and REQ_FUA requests skip the scheduler and make one
 *     trip to the driver per step of their flush sequence.
 *
 * Documentation/block/request-fn.rst describes the interface.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/blk-legacy.h>
#include <linux/list_sort.h>
#include <linux/part_stat.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "blk.h"
#include "blk-mq.h"
#include "blk-request.h"
#include "blk-legacy.h"

/* Room in the pool for this many requests is kept even under pressure. */
#define LQ_POOL_RESERVE		BLKDEV_MIN_RQ
/* Largest nr_requests the sysfs attribute accepts. */
#define LQ_MAX_REQUESTS		65536
/* A plug holding this many requests of one queue is flushed at once. */
#define LQ_PLUG_MAX		BLK_MAX_REQUEST_COUNT

static void lq_add_request(struct lq_queue *lq, struct request *rq);

/* ---------------------------------------------------------------------
 * The request pool
 */

/* Leave the congested state only well below the limit. */
static void lq_update_congested(struct lq_queue *lq)
{
	unsigned int limit = lq->q->nr_requests;

	if (lq->nr_allocated >= limit - limit / 8)
		lq->congested = true;
	else if (lq->nr_allocated < limit - limit / 4)
		lq->congested = false;
}

/*
 * Count a request against q->nr_requests, sleeping while none is left.
 * The check and the wait both happen under the queue lock, and a freed
 * request wakes a waiter under it too, so no wake-up is lost.
 */
static bool lq_reserve_request(struct lq_queue *lq, bool nowait)
{
	DEFINE_WAIT(wait);
	bool ok = true;

	spin_lock_irq(lq->lock);
	while (lq->nr_allocated >= lq->q->nr_requests) {
		if (nowait) {
			ok = false;
			break;
		}
		prepare_to_wait_exclusive(&lq->wait, &wait,
					  TASK_UNINTERRUPTIBLE);
		if (lq->nr_allocated < lq->q->nr_requests)
			break;
		spin_unlock_irq(lq->lock);
		/* flushes our plug first, so its requests can complete */
		io_schedule();
		spin_lock_irq(lq->lock);
	}
	finish_wait(&lq->wait, &wait);
	if (ok) {
		lq->nr_allocated++;
		lq_update_congested(lq);
	}
	spin_unlock_irq(lq->lock);
	return ok;
}

/* Give back what lq_reserve_request() counted; the queue lock is held. */
static void __lq_unreserve_request(struct lq_queue *lq)
{
	lq->nr_allocated--;
	lq_update_congested(lq);
	if (wq_has_sleeper(&lq->wait))
		wake_up(&lq->wait);
}

/* The same, for a request that was counted but never made. */
static void lq_unreserve_request(struct lq_queue *lq)
{
	spin_lock_irq(lq->lock);
	__lq_unreserve_request(lq);
	spin_unlock_irq(lq->lock);
}

/*
 * Set up a request for @bio; the caller holds a q_usage_counter reference.
 * NULL only for a REQ_NOWAIT bio that would have to wait.
 */
static struct request *lq_get_request(struct lq_queue *lq, struct bio *bio,
				      unsigned int nr_segs)
{
	struct request_queue *q = lq->q;
	bool nowait = bio->bi_opf & REQ_NOWAIT;
	struct lq_rq *lrq;
	struct request *rq;

	if (!lq_reserve_request(lq, nowait))
		return NULL;

	/* a mempool: GFP_NOIO may wait, never fails; GFP_NOWAIT may fail */
	lrq = mempool_alloc(lq->pool, nowait ? GFP_NOWAIT : GFP_NOIO);
	if (unlikely(!lrq)) {
		lq_unreserve_request(lq);
		return NULL;
	}
	INIT_LIST_HEAD(&lrq->node);
	lrq->where = LQ_RQ_NEW;
	lrq->flush_steps = 0;
	rq = &lrq->rq;

	blk_rq_init(q, rq);
	rq->cmd_flags = bio->bi_opf;
	req_ref_set(rq, 1);
	rq->__sector = bio->bi_iter.bi_sector;
	if (bio->bi_opf & REQ_RAHEAD)
		rq->cmd_flags |= REQ_FAILFAST_MASK;
	blk_rq_bio_prep(rq, bio, nr_segs);

	/* blk_rq_init() took the start time */
	if (blk_queue_io_stat(q))
		__blk_mq_account_start(rq);
	if (rq->rq_flags & RQF_IO_STAT) {
		part_stat_lock();
		part_stat_local_inc(rq->part, in_flight[op_is_write(req_op(rq))]);
		part_stat_unlock();
	}
	return rq;
}

/**
 * lq_free_request - give a request of a request_fn queue back to its pool
 * @lq: the queue
 * @rq: the request; its bios are ended or were handed to another request
 *
 * Context: the queue lock is held.
 */
void lq_free_request(struct lq_queue *lq, struct request *rq)
{
	struct request_queue *q = lq->q;
	struct lq_rq *lrq = lq_rq_of(rq);

	lockdep_assert_held(lq->lock);

	if (q->last_merge == rq)
		q->last_merge = NULL;
	if (lrq->where == LQ_RQ_DRIVER)
		list_del_init(&lrq->node);
	else if (lrq->where == LQ_RQ_DISPATCH)	/* ended without a start */
		list_del_init(&rq->queuelist);
	if (rq->rq_flags & RQF_IO_STAT) {
		part_stat_lock();
		part_stat_local_dec(rq->part, in_flight[op_is_write(req_op(rq))]);
		part_stat_unlock();
	}
	WRITE_ONCE(rq->state, MQ_RQ_IDLE);
	mempool_free(lrq, lq->pool);
	__lq_unreserve_request(lq);
	/* the request's reference from bio_queue_enter() */
	blk_queue_exit(q);
}

/*
 * Free @rq, merged into another request: attempt_merge() already took it
 * out of the disk's in-flight count (blk_account_io_merge_request()).
 */
static void lq_free_merged_request(struct lq_queue *lq, struct request *rq)
{
	rq->rq_flags &= ~RQF_IO_STAT;
	lq_free_request(lq, rq);
}

/* ---------------------------------------------------------------------
 * Running the queue
 */

/**
 * __blk_run_queue - call the driver's request_fn
 * @q: the queue
 *
 * Does nothing while the queue is stopped.  A run asked for while
 * request_fn is active (it may drop the lock) makes it run once more.
 *
 * Context: the queue lock is held, interrupts are disabled.
 */
void __blk_run_queue(struct request_queue *q)
{
	struct lq_queue *lq = lq_of(q);

	lockdep_assert_held(lq->lock);

	if (blk_queue_stopped(q))
		return;
	if (lq->in_request_fn) {
		lq->rerun = true;
		return;
	}
	lq->in_request_fn = true;
	do {
		lq->rerun = false;
		lq->request_fn(q);
	} while (lq->rerun && !blk_queue_stopped(q));
	lq->in_request_fn = false;
}
EXPORT_SYMBOL(__blk_run_queue);

/**
 * blk_run_queue - run a request_fn queue
 * @q: the queue
 *
 * It leaves bottom halves as it finds them.  A driver that calls it from
 * a task and completes requests from request_fn with
 * blk_complete_request() should turn them off around the call, as the
 * block layer's own runs do (see lq_lock_to_run()), or every completion
 * wakes ksoftirqd.
 *
 * Context: any; takes the queue lock.
 */
void blk_run_queue(struct request_queue *q)
{
	struct lq_queue *lq = lq_of(q);
	unsigned long flags;

	spin_lock_irqsave(lq->lock, flags);
	__blk_run_queue(q);
	spin_unlock_irqrestore(lq->lock, flags);
}
EXPORT_SYMBOL(blk_run_queue);

/**
 * blk_run_queue_async - run a request_fn queue from kblockd
 * @q: the queue
 *
 * Context: any.
 */
void blk_run_queue_async(struct request_queue *q)
{
	struct lq_queue *lq = lq_of(q);

	if (!blk_queue_stopped(q))
		kblockd_schedule_work(&lq->run_work);
}
EXPORT_SYMBOL(blk_run_queue_async);

/*
 * Lock @lq to run request_fn from a task, with bottom halves off: what the
 * driver completes from request_fn with blk_complete_request() then ends
 * in the softirq that local_bh_enable() runs in lq_unlock_after_run(),
 * right after the lock is dropped.  A softirq raised from a task with them
 * on wakes ksoftirqd instead, two context switches per request.
 */
static void lq_lock_to_run(struct lq_queue *lq)
	__acquires(lq->lock)
{
	local_bh_disable();
	spin_lock_irq(lq->lock);
}

static void lq_unlock_after_run(struct lq_queue *lq)
	__releases(lq->lock)
{
	spin_unlock_irq(lq->lock);
	local_bh_enable();
}

static void lq_run_work(struct work_struct *work)
{
	struct lq_queue *lq = container_of(work, struct lq_queue, run_work);

	lq_lock_to_run(lq);
	__blk_run_queue(lq->q);
	lq_unlock_after_run(lq);
}

/**
 * blk_stop_queue - stop calling request_fn
 * @q: the queue
 *
 * For a driver that cannot take more requests for now; blk_start_queue()
 * undoes it.  blk_queue_stopped() tells whether the queue is stopped.
 *
 * Context: the queue lock is held.
 */
void blk_stop_queue(struct request_queue *q)
{
	lockdep_assert_held(lq_of(q)->lock);
	blk_queue_flag_set(QUEUE_FLAG_STOPPED, q);
}
EXPORT_SYMBOL(blk_stop_queue);

/**
 * blk_start_queue - undo blk_stop_queue() and run the queue
 * @q: the queue
 *
 * Context: the queue lock is held, interrupts are disabled.
 */
void blk_start_queue(struct request_queue *q)
{
	struct lq_queue *lq = lq_of(q);

	lockdep_assert_held(lq->lock);
	WARN_ON_ONCE(!irqs_disabled());
	blk_queue_flag_clear(QUEUE_FLAG_STOPPED, q);
	__blk_run_queue(q);
}
EXPORT_SYMBOL(blk_start_queue);

/**
 * blk_queue_congested - are most of the queue's requests in use?
 * @q: a request_fn queue
 *
 * A queue turns congested when seven eighths of q->nr_requests are
 * allocated and stops being so below three quarters.
 *
 * Return: whether @q is congested.
 */
bool blk_queue_congested(struct request_queue *q)
{
	return READ_ONCE(lq_of(q)->congested);
}
EXPORT_SYMBOL(blk_queue_congested);

/* ---------------------------------------------------------------------
 * Handing requests to the driver
 */

/**
 * blk_peek_request - the next request for the driver, left queued
 * @q: the queue
 *
 * Return: the request blk_fetch_request() would take, or %NULL.
 *
 * Context: the queue lock is held.
 */
struct request *blk_peek_request(struct request_queue *q)
{
	struct lq_queue *lq = lq_of(q);

	lockdep_assert_held(lq->lock);

	while (list_empty(&lq->dispatch)) {
		if (!lq->nr_sorted || !lq->sched->ops.dispatch(lq))
			return NULL;
	}
	return list_first_entry(&lq->dispatch, struct request, queuelist);
}
EXPORT_SYMBOL(blk_peek_request);

/**
 * blk_start_request - the driver takes a request
 * @rq: the request blk_peek_request() returned
 *
 * Removes @rq from the queue and starts its timeout.  The driver owns it
 * now, @rq->queuelist included, until it ends or requeues it.
 *
 * Context: the queue lock is held.
 */
void blk_start_request(struct request *rq)
{
	struct lq_queue *lq = lq_of(rq->q);
	struct lq_rq *lrq = lq_rq_of(rq);

	lockdep_assert_held(lq->lock);
	WARN_ON_ONCE(lrq->where != LQ_RQ_DISPATCH);

	list_del_init(&rq->queuelist);
	lrq->where = LQ_RQ_DRIVER;
	list_add_tail(&lrq->node, &lq->in_driver);
	rq->rq_flags |= RQF_STARTED;
	if (!rq->io_start_time_ns)
		rq->io_start_time_ns = ktime_get_ns();
	blk_rq_integrity_prepare(rq);

	blk_add_timer(rq);
	/* the deadline is set before the state says in flight */
	smp_store_release(&rq->state, MQ_RQ_IN_FLIGHT);
}
EXPORT_SYMBOL(blk_start_request);

/**
 * blk_fetch_request - take the next request for the driver
 * @q: the queue
 *
 * blk_peek_request() and blk_start_request() in one.
 *
 * Return: the started request, or %NULL if none is ready.
 *
 * Context: the queue lock is held.
 */
struct request *blk_fetch_request(struct request_queue *q)
{
	struct request *rq = blk_peek_request(q);

	if (rq)
		blk_start_request(rq);
	return rq;
}
EXPORT_SYMBOL(blk_fetch_request);

/**
 * blk_requeue_request - give a started request back to the queue
 * @q: the queue
 * @rq: the request
 *
 * @rq goes to the head of the dispatch list, to be fetched again first.
 * The driver runs the queue (or starts it) when it can take it again.
 *
 * Context: the queue lock is held.
 */
void blk_requeue_request(struct request_queue *q, struct request *rq)
{
	struct lq_queue *lq = lq_of(q);
	struct lq_rq *lrq = lq_rq_of(rq);

	lockdep_assert_held(lq->lock);

	if (lrq->where == LQ_RQ_DRIVER)
		list_del_init(&lrq->node);
	else if (lrq->where == LQ_RQ_DISPATCH)
		list_del_init(&rq->queuelist);
	WRITE_ONCE(rq->state, MQ_RQ_IDLE);
	rq->rq_flags &= ~RQF_TIMED_OUT;
	lrq->where = LQ_RQ_DISPATCH;
	list_add(&rq->queuelist, &lq->dispatch);
}
EXPORT_SYMBOL(blk_requeue_request);

/* ---------------------------------------------------------------------
 * Completion
 */

/* All of @rq is done: account it and give it back. */
static void lq_finish_request(struct lq_queue *lq, struct request *rq)
{
	blk_mq_account_done(rq, ktime_get_ns());
	lq_free_request(lq, rq);
}

/* ---------------------------------------------------------------------
 * Flush sequences
 *
 * On a queue with a volatile write cache (blk_queue_write_cache()), a
 * request with REQ_PREFLUSH or REQ_FUA goes to the driver in up to three
 * steps, each one only after the one before it completed:
 *
 *   LQ_FLUSH_PRE	REQ_OP_FLUSH, no data: for REQ_PREFLUSH
 *   LQ_FLUSH_DATA	the data, with REQ_FUA only if the driver has FUA
 *   LQ_FLUSH_POST	REQ_OP_FLUSH, no data: REQ_FUA without driver FUA
 *
 * The request itself makes every trip; for a flush step it carries no
 * bio and no bytes.  RQF_FLUSH_SEQ keeps blk_update_request() from
 * ending the bio when the data step completes: lq_flush_finish() ends
 * it once the last step is done, or at the first step that fails.
 * Flush requests never merge, so rq->biotail is the request's only bio.
 */
#define LQ_FLUSH_PRE	BIT(0)
#define LQ_FLUSH_DATA	BIT(1)
#define LQ_FLUSH_POST	BIT(2)

/* Make @rq look like its next step to the driver. */
static void lq_flush_prep(struct request *rq)
{
	struct lq_rq *lrq = lq_rq_of(rq);

	if (lrq->flush_steps & LQ_FLUSH_PRE ||
	    !(lrq->flush_steps & LQ_FLUSH_DATA)) {
		rq->cmd_flags = REQ_OP_FLUSH | REQ_PREFLUSH |
				(lrq->flush_opf & REQ_FAILFAST_MASK);
		rq->bio = NULL;
		rq->__data_len = 0;
	} else {
		rq->cmd_flags = lrq->flush_opf;
		rq->bio = rq->biotail;
		rq->__data_len = rq->bio->bi_iter.bi_size;
	}
}

/* End the sequence: the bio gets @error, the request goes back. */
static void lq_flush_finish(struct lq_queue *lq, struct request *rq,
			    blk_status_t error)
{
	struct lq_rq *lrq = lq_rq_of(rq);

	lrq->flush_steps = 0;
	rq->rq_flags &= ~RQF_FLUSH_SEQ;
	rq->cmd_flags = lrq->flush_opf;
	rq->bio = rq->biotail;
	rq->__data_len = rq->bio->bi_iter.bi_size;
	blk_update_request(rq, error, blk_rq_bytes(rq));
	lq_finish_request(lq, rq);
}

/* A flush step is counted in the disk's flush statistics, as in mq. */
static void lq_account_flush(struct request *rq)
{
	struct gendisk *disk = rq->q->disk;

	if (!disk || !blk_queue_io_stat(rq->q))
		return;
	part_stat_lock();
	part_stat_inc(disk->part0, ios[STAT_FLUSH]);
	part_stat_add(disk->part0, nsecs[STAT_FLUSH],
		      ktime_get_ns() - rq->io_start_time_ns);
	part_stat_unlock();
}

/*
 * Start the flush sequence of a new request: queue its first step, or
 * end it at once if there is nothing to do.
 */
static void lq_flush_start(struct lq_queue *lq, struct request *rq)
{
	struct request_queue *q = lq->q;
	struct lq_rq *lrq = lq_rq_of(rq);
	bool fua = test_bit(QUEUE_FLAG_FUA, &q->queue_flags);
	blk_opf_t opf = rq->cmd_flags;
	unsigned int steps = 0;

	if (!test_bit(QUEUE_FLAG_WC, &q->queue_flags))
		opf &= ~(REQ_PREFLUSH | REQ_FUA);
	if (opf & REQ_PREFLUSH)
		steps |= LQ_FLUSH_PRE;
	if (blk_rq_bytes(rq)) {
		steps |= LQ_FLUSH_DATA;
		if ((opf & REQ_FUA) && !fua)
			steps |= LQ_FLUSH_POST;
	}
	opf &= ~REQ_PREFLUSH;
	if (!fua)
		opf &= ~REQ_FUA;
	lrq->flush_opf = opf;

	if (steps == LQ_FLUSH_DATA) {
		/* a FUA write the driver takes as it is */
		rq->cmd_flags = opf;
		lq_dispatch_add(lq, rq);
		return;
	}
	rq->rq_flags |= RQF_FLUSH_SEQ;
	lrq->flush_steps = steps;
	if (!steps) {
		lq_flush_finish(lq, rq, BLK_STS_OK);
		return;
	}
	lq_flush_prep(rq);
	lq_dispatch_add(lq, rq);
}

/*
 * The driver ended @nr_bytes of a request in a flush sequence with
 * @error: finish the data step piece by piece; once a step is done,
 * queue the next one at the head of the queue, or end the sequence.
 * Returns what __blk_end_request() returns.
 */
static bool lq_flush_end(struct lq_queue *lq, struct request *rq,
			 blk_status_t error, unsigned int nr_bytes)
{
	struct lq_rq *lrq = lq_rq_of(rq);
	unsigned int step = lrq->flush_steps & -lrq->flush_steps;

	lockdep_assert_held(lq->lock);

	if (step == LQ_FLUSH_DATA) {
		if (blk_update_request(rq, error, nr_bytes))
			return true;
	} else {
		lq_account_flush(rq);
	}

	lrq->flush_steps &= ~step;
	if (error || !lrq->flush_steps) {
		lq_flush_finish(lq, rq, error);
		return false;
	}
	blk_requeue_request(lq->q, rq);
	lq_flush_prep(rq);
	/* each step's time, for the flush statistics */
	rq->io_start_time_ns = 0;
	/* not from here: the driver may be ending it inside request_fn */
	blk_run_queue_async(lq->q);
	return false;
}

/**
 * __blk_end_request - complete part of a request
 * @rq: a started request
 * @error: status of the completed part
 * @nr_bytes: bytes completed
 *
 * Ends the bios that are now complete; if that was all of @rq, frees it.
 *
 * Return: %true if part of @rq is still to do, %false if it is freed.
 *
 * Context: the queue lock is held.
 */
bool __blk_end_request(struct request *rq, blk_status_t error,
		       unsigned int nr_bytes)
{
	struct lq_queue *lq = lq_of(rq->q);

	lockdep_assert_held(lq->lock);

	if (unlikely(rq->rq_flags & RQF_FLUSH_SEQ))
		return lq_flush_end(lq, rq, error, nr_bytes);
	if (blk_update_request(rq, error, nr_bytes))
		return true;
	lq_finish_request(lq, rq);
	return false;
}
EXPORT_SYMBOL(__blk_end_request);

/**
 * blk_end_request - complete part of a request
 * @rq: a started request
 * @error: status of the completed part
 * @nr_bytes: bytes completed
 *
 * As __blk_end_request(), for a caller without the queue lock; the bios
 * are ended without it.
 *
 * Return: %true if part of @rq is still to do, %false if it is freed.
 */
bool blk_end_request(struct request *rq, blk_status_t error,
		     unsigned int nr_bytes)
{
	struct lq_queue *lq = lq_of(rq->q);
	unsigned long flags;
	bool more;

	if (unlikely(rq->rq_flags & RQF_FLUSH_SEQ)) {
		spin_lock_irqsave(lq->lock, flags);
		more = lq_flush_end(lq, rq, error, nr_bytes);
		spin_unlock_irqrestore(lq->lock, flags);
		return more;
	}
	if (blk_update_request(rq, error, nr_bytes))
		return true;
	spin_lock_irqsave(lq->lock, flags);
	lq_finish_request(lq, rq);
	spin_unlock_irqrestore(lq->lock, flags);
	return false;
}
EXPORT_SYMBOL(blk_end_request);

/**
 * __blk_end_request_all - complete all of a request
 * @rq: a started request
 * @error: its status
 *
 * Context: the queue lock is held.
 */
void __blk_end_request_all(struct request *rq, blk_status_t error)
{
	WARN_ON_ONCE(__blk_end_request(rq, error, blk_rq_bytes(rq)));
}
EXPORT_SYMBOL(__blk_end_request_all);

/**
 * blk_end_request_all - complete all of a request
 * @rq: a started request
 * @error: its status
 *
 * Context: the queue lock is not held.
 */
void blk_end_request_all(struct request *rq, blk_status_t error)
{
	WARN_ON_ONCE(blk_end_request(rq, error, blk_rq_bytes(rq)));
}
EXPORT_SYMBOL(blk_end_request_all);

/* Softirq: the driver's softirq_done for each request completed. */
static void lq_done_tasklet(struct tasklet_struct *t)
{
	struct lq_queue *lq = from_tasklet(lq, t, done_tasklet);
	struct llist_node *node = llist_del_all(&lq->done);
	struct request *rq, *next;

	node = llist_reverse_order(node);
	llist_for_each_entry_safe(rq, next, node, ipi_list)
		lq->softirq_done(rq);
}

/**
 * blk_complete_request - complete a request from interrupt context
 * @rq: a started request
 *
 * The queue's softirq_done handler (blk_queue_softirq_done()) runs for
 * @rq in softirq context and ends it.  Once called, the request no
 * longer times out; a second call, or one for a request whose timeout
 * already ended it, is ignored.
 *
 * Context: any.
 */
void blk_complete_request(struct request *rq)
{
	struct lq_queue *lq = lq_of(rq->q);

	if (cmpxchg(&rq->state, MQ_RQ_IN_FLIGHT, MQ_RQ_COMPLETE) !=
	    MQ_RQ_IN_FLIGHT)
		return;
	if (WARN_ON_ONCE(!lq->softirq_done))
		return;
	/*
	 * Once @rq is on the list, a tasklet run elsewhere may end it before
	 * we schedule ours, and it may be the last request of a queue being
	 * torn down: blk_cleanup_queue() waits for this section to end.
	 */
	rcu_read_lock();
	if (llist_add(&rq->ipi_list, &lq->done))
		tasklet_schedule(&lq->done_tasklet);
	rcu_read_unlock();
}
EXPORT_SYMBOL(blk_complete_request);

/**
 * blk_queue_softirq_done - set the softirq completion handler
 * @q: a request_fn queue
 * @fn: ends the request, usually with blk_end_request_all()
 */
void blk_queue_softirq_done(struct request_queue *q, softirq_done_fn *fn)
{
	lq_of(q)->softirq_done = fn;
}
EXPORT_SYMBOL(blk_queue_softirq_done);

/* ---------------------------------------------------------------------
 * Timeouts
 */

/**
 * blk_queue_rq_timed_out - set the timeout handler
 * @q: a request_fn queue
 * @fn: called with the queue lock held for a started request whose
 *	deadline (q->rq_timeout after blk_start_request()) passed;
 *	%BLK_EH_RESET_TIMER gives it another full timeout, %BLK_EH_DONE
 *	says the driver ended it or will end it
 *
 * Without a handler, a timed out request's deadline is simply rearmed, as
 * if the handler had returned %BLK_EH_RESET_TIMER: the driver still owns
 * the request and will end it.
 */
void blk_queue_rq_timed_out(struct request_queue *q, rq_timed_out_fn *fn)
{
	lq_of(q)->timed_out = fn;
}
EXPORT_SYMBOL(blk_queue_rq_timed_out);

/* The first expired, unhandled request the driver holds, or NULL. */
static struct request *lq_find_expired(struct lq_queue *lq,
				       unsigned long *next, bool *have_next)
{
	struct lq_rq *lrq;

	*have_next = false;
	list_for_each_entry(lrq, &lq->in_driver, node) {
		struct request *rq = &lrq->rq;
		unsigned long deadline = READ_ONCE(rq->deadline);

		if (READ_ONCE(rq->state) != MQ_RQ_IN_FLIGHT ||
		    (rq->rq_flags & RQF_TIMED_OUT))
			continue;
		if (time_after_eq(jiffies, deadline))
			return rq;
		if (!*have_next || time_before(deadline, *next))
			*next = deadline;
		*have_next = true;
	}
	return NULL;
}

/* q->timeout_work: the queue's timeout timer fired. */
static void lq_timeout_work(struct work_struct *work)
{
	struct request_queue *q =
		container_of(work, struct request_queue, timeout_work);
	struct lq_queue *lq;
	unsigned long next = 0;
	struct request *rq;
	bool have_next;

	if (!percpu_ref_tryget(&q->q_usage_counter))
		return;
	lq = lq_of(q);

	spin_lock_irq(lq->lock);
	while ((rq = lq_find_expired(lq, &next, &have_next))) {
		/* without a handler the driver still owns it: wait longer */
		enum blk_eh_timer_return ret = BLK_EH_RESET_TIMER;

		rq->rq_flags |= RQF_TIMED_OUT;
		if (lq->timed_out)
			ret = lq->timed_out(rq);
		/* clears RQF_TIMED_OUT */
		if (ret == BLK_EH_RESET_TIMER)
			blk_add_timer(rq);
	}
	spin_unlock_irq(lq->lock);

	if (have_next)
		mod_timer(&q->timeout, blk_rq_timeout(round_jiffies_up(next)));
	blk_queue_exit(q);
}

/* ---------------------------------------------------------------------
 * Submission and plugging
 */

/* The requests of one request_fn queue held in the task's plug. */
struct lq_plug {
	struct blk_plug_cb	cb;
	struct list_head	list;
	unsigned int		count;
};

static int lq_plug_cmp(void *priv, const struct list_head *a,
		       const struct list_head *b)
{
	struct request *ra = list_entry(a, struct request, queuelist);
	struct request *rb = list_entry(b, struct request, queuelist);

	return blk_rq_pos(ra) > blk_rq_pos(rb);
}

/* Queue the plugged requests in sector order, then run the queue. */
static void lq_plug_flush(struct lq_queue *lq, struct list_head *list,
			  bool from_schedule)
{
	struct request *rq, *next;

	list_sort(NULL, list, lq_plug_cmp);

	if (!from_schedule)
		local_bh_disable();	/* see lq_lock_to_run() */
	spin_lock_irq(lq->lock);
	list_for_each_entry_safe(rq, next, list, queuelist) {
		list_del_init(&rq->queuelist);
		lq_add_request(lq, rq);
	}
	/* the task is about to sleep: don't make it run the driver */
	if (from_schedule) {
		blk_run_queue_async(lq->q);
		spin_unlock_irq(lq->lock);
		return;
	}
	__blk_run_queue(lq->q);
	spin_unlock_irq(lq->lock);
	local_bh_enable();
}

static void lq_unplug(struct blk_plug_cb *cb, bool from_schedule)
{
	struct lq_plug *lp = container_of(cb, struct lq_plug, cb);
	struct request_queue *q = cb->data;

	if (!list_empty(&lp->list))
		lq_plug_flush(lq_of(q), &lp->list, from_schedule);
	kfree(lp);
}

static struct lq_plug *lq_get_plug(struct request_queue *q)
{
	struct blk_plug_cb *cb;

	struct lq_plug *lp;

	cb = blk_check_plugged(lq_unplug, q, sizeof(struct lq_plug));
	if (!cb)
		return NULL;
	lp = container_of(cb, struct lq_plug, cb);
	/* blk_check_plugged() zeroes a new callback: set up its list */
	if (!lp->list.next)
		INIT_LIST_HEAD(&lp->list);
	return lp;
}

/*
 * Give @rq to the scheduler, merged into the request it continues if
 * there is one; passthrough requests go straight to the dispatch list,
 * flush and FUA requests through their flush sequence.
 */
static void lq_add_request(struct lq_queue *lq, struct request *rq)
{
	struct request_queue *q = lq->q;
	struct request *prev;

	lockdep_assert_held(lq->lock);

	if (blk_rq_is_passthrough(rq)) {
		lq_dispatch_add(lq, rq);
		return;
	}
	if (op_is_flush(rq->cmd_flags)) {
		lq_flush_start(lq, rq);
		return;
	}

	if (rq_mergeable(rq) && !blk_queue_nomerges(q)) {
		prev = NULL;
		if (lq_merge(q, &prev, rq->bio) == ELEVATOR_BACK_MERGE &&
		    blk_attempt_req_merge(q, prev, rq)) {
			lq_free_merged_request(lq, rq);
			return;
		}
	}
	lq_sched_add(lq, rq);
}

/**
 * blk_queue_bio - turn a bio for a request_fn queue into a request
 * @bio: the bio
 *
 * Called by __submit_bio() for every bio to a request_fn queue.
 */
void blk_queue_bio(struct bio *bio)
{
	struct request_queue *q = bdev_get_queue(bio->bi_bdev);
	unsigned int nr_segs = 1;
	struct request *rq, *free = NULL;
	struct lq_queue *lq;
	struct lq_plug *lp;
	bool merged;

	bio = blk_queue_bounce(bio, q);
	if (bio_may_exceed_limits(bio, &q->limits)) {
		bio = __bio_split_to_limits(bio, &q->limits, &nr_segs);
		if (!bio)
			return;
	}
	if (!bio_integrity_prep(bio))
		return;
	if (unlikely(bio_queue_enter(bio)))
		return;
	lq = lq_of(q);

	if (!blk_queue_nomerges(q) && bio_mergeable(bio)) {
		lp = current->plug ? lq_get_plug(q) : NULL;
		if (lp && !list_empty(&lp->list) &&
		    blk_bio_list_merge(q, &lp->list, bio, nr_segs))
			goto merged;

		spin_lock_irq(lq->lock);
		merged = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
		if (free)
			lq_free_merged_request(lq, free);
		spin_unlock_irq(lq->lock);
		if (merged)
			goto merged;
	}

	rq = lq_get_request(lq, bio, nr_segs);
	if (unlikely(!rq)) {
		bio_wouldblock_error(bio);
		blk_queue_exit(q);
		return;
	}

	/* looked up again: allocation may have slept and flushed the plug */
	lp = current->plug && !op_is_flush(bio->bi_opf) ? lq_get_plug(q) : NULL;
	if (lp) {
		list_add_tail(&rq->queuelist, &lp->list);
		if (++lp->count >= LQ_PLUG_MAX) {
			LIST_HEAD(list);

			list_splice_init(&lp->list, &list);
			lp->count = 0;
			lq_plug_flush(lq, &list, false);
		}
		return;
	}

	lq_lock_to_run(lq);
	lq_add_request(lq, rq);
	__blk_run_queue(q);
	lq_unlock_after_run(lq);
	return;

merged:
	blk_queue_exit(q);
}

/* ---------------------------------------------------------------------
 * Draining and the nr_requests attribute
 */

/**
 * lq_drain_begin - wait until a request_fn queue has no request left
 * @q: the queue
 *
 * New bios wait in bio_queue_enter() until lq_drain_end().
 */
void lq_drain_begin(struct request_queue *q)
{
	blk_freeze_queue_start(q);
	blk_run_queue(q);
	blk_mq_freeze_queue_wait(q);
}

/**
 * lq_drain_end - let bios in again after lq_drain_begin()
 * @q: the queue
 */
void lq_drain_end(struct request_queue *q)
{
	blk_mq_unfreeze_queue(q);
}

/**
 * blk_legacy_nr_requests_store - set q->nr_requests of a request_fn queue
 * @q: the queue
 * @page: the new value, from 1 to 65536; values below BLKDEV_MIN_RQ are
 *	raised to it
 * @count: length of @page
 *
 * Drains the queue, sets the new limit and wakes every waiting submitter.
 *
 * Return: @count, or -EINVAL for a value out of range.
 */
ssize_t blk_legacy_nr_requests_store(struct request_queue *q,
				     const char *page, size_t count)
{
	struct lq_queue *lq = lq_of(q);
	unsigned long nr;
	int ret;

	ret = kstrtoul(page, 10, &nr);
	if (ret)
		return ret;
	if (nr == 0 || nr > LQ_MAX_REQUESTS)
		return -EINVAL;
	nr = max_t(unsigned long, nr, BLKDEV_MIN_RQ);

	lq_drain_begin(q);
	spin_lock_irq(lq->lock);
	q->nr_requests = nr;
	lq_update_congested(lq);
	wake_up_all(&lq->wait);
	spin_unlock_irq(lq->lock);
	lq_drain_end(q);
	return count;
}

/* ---------------------------------------------------------------------
 * Queue setup and teardown
 */

static void lq_elevator_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct elevator_queue, kobj));
}

static struct kobj_type lq_elevator_ktype = {
	.release	= lq_elevator_release,
};

static void lq_free(struct lq_queue *lq)
{
	mempool_destroy(lq->pool);
	kfree(lq);
}

/**
 * blk_init_queue_cmd - allocate a request_fn queue with per-request data
 * @rfn: the driver's request_fn
 * @lock: the queue lock, or %NULL for one of the queue's own
 * @node: NUMA node for the allocations, or %NUMA_NO_NODE
 * @cmd_size: bytes of driver data behind each request (blk_mq_rq_to_pdu())
 *
 * The queue starts with the default scheduler, q->nr_requests = 128 and
 * a 30 second request timeout.  The caller holds a reference, dropped by
 * blk_cleanup_queue().
 *
 * Return: the queue, or %NULL when out of memory.
 */
struct request_queue *blk_init_queue_cmd(request_fn_proc *rfn,
					 spinlock_t *lock, int node,
					 unsigned int cmd_size)
{
	struct elevator_queue *e;
	struct request_queue *q;
	struct lq_queue *lq;
	unsigned int i;
	void *data;

	q = blk_alloc_queue(node, false);
	if (!q)
		return NULL;
	lq = kzalloc_node(sizeof(*lq), GFP_KERNEL, node);
	e = kzalloc_node(sizeof(*e), GFP_KERNEL, node);
	if (!lq || !e)
		goto fail;

	e->ops = &lq_elevator_ops;
	spin_lock_init(&lq->own_lock);
	lq->lock = lock ?: &lq->own_lock;
	lq->q = q;
	lq->request_fn = rfn;
	INIT_LIST_HEAD(&lq->dispatch);
	INIT_LIST_HEAD(&lq->in_driver);
	for (i = 0; i < ARRAY_SIZE(lq->hash); i++)
		INIT_HLIST_HEAD(&lq->hash[i]);
	init_waitqueue_head(&lq->wait);
	INIT_WORK(&lq->run_work, lq_run_work);
	init_llist_head(&lq->done);
	tasklet_setup(&lq->done_tasklet, lq_done_tasklet);

	lq->pool = mempool_create_node(LQ_POOL_RESERVE, mempool_kmalloc,
				       mempool_kfree,
				       (void *)(sizeof(struct lq_rq) +
						(unsigned long)cmd_size),
				       GFP_KERNEL, node);
	if (!lq->pool)
		goto fail;

	/* none before subsys_initcall: a driver built in must come later */
	lq->sched = lq_sched_default();
	if (WARN_ON_ONCE(!lq->sched))
		goto fail;
	data = lq->sched->ops.init(q);
	if (IS_ERR(data))
		goto fail;
	lq->sched_data = data;

	kobject_init(&e->kobj, &lq_elevator_ktype);
	e->lq = lq;
	q->elevator = e;
	q->nr_requests = BLKDEV_DEFAULT_RQ;
	/* request_fn queues were always accounted in the disk statistics */
	blk_queue_flag_set(QUEUE_FLAG_IO_STAT, q);
	/* blk_queue_bio() fails a REQ_NOWAIT bio instead of sleeping */
	blk_queue_flag_set(QUEUE_FLAG_NOWAIT, q);
	blk_queue_rq_timeout(q, 30 * HZ);
	INIT_WORK(&q->timeout_work, lq_timeout_work);
	return q;

fail:
	if (lq)
		lq_free(lq);
	kfree(e);
	blk_put_queue(q);
	return NULL;
}
EXPORT_SYMBOL(blk_init_queue_cmd);

/**
 * blk_init_queue_node - allocate a request_fn queue on a NUMA node
 * @rfn: the driver's request_fn
 * @lock: the queue lock, or %NULL for one of the queue's own
 * @node: NUMA node for the allocations, or %NUMA_NO_NODE
 *
 * blk_init_queue_cmd() without per-request driver data.
 *
 * Return: the queue, or %NULL when out of memory.
 */
struct request_queue *blk_init_queue_node(request_fn_proc *rfn,
					  spinlock_t *lock, int node)
{
	return blk_init_queue_cmd(rfn, lock, node, 0);
}
EXPORT_SYMBOL(blk_init_queue_node);

/**
 * blk_init_queue - allocate a request_fn queue
 * @rfn: the driver's request_fn
 * @lock: the queue lock, or %NULL for one of the queue's own
 *
 * Return: the queue, or %NULL when out of memory.
 */
struct request_queue *blk_init_queue(request_fn_proc *rfn, spinlock_t *lock)
{
	return blk_init_queue_cmd(rfn, lock, NUMA_NO_NODE, 0);
}
EXPORT_SYMBOL(blk_init_queue);

/**
 * __blk_alloc_disk_for_queue - allocate a gendisk for a request_fn queue
 * @q: the queue
 * @lkclass: lockdep class of the disk's bio completions
 *
 * Use blk_alloc_disk_for_queue().
 *
 * Return: the disk, or %NULL when out of memory.
 */
struct gendisk *__blk_alloc_disk_for_queue(struct request_queue *q,
					   struct lock_class_key *lkclass)
{
	struct gendisk *disk;

	if (!blk_get_queue(q))
		return NULL;
	disk = __alloc_disk_node(q, q->node, lkclass);
	if (!disk)
		blk_put_queue(q);
	return disk;
}
EXPORT_SYMBOL(__blk_alloc_disk_for_queue);

/**
 * blk_cleanup_queue - shut a request_fn queue down
 * @q: the queue
 *
 * Marks @q dying, waits for every request to complete, stops its timers
 * and work and frees the scheduler and the request pool, then drops the
 * reference blk_init_queue() gave.  Call it after del_gendisk() and
 * before put_disk().  The driver must still complete what it holds.
 *
 * Context: can sleep.
 */
void blk_cleanup_queue(struct request_queue *q)
{
	struct elevator_queue *e = q->elevator;
	struct lq_queue *lq = e->lq;

	blk_queue_flag_set(QUEUE_FLAG_DYING, q);
	lq_drain_begin(q);

	del_timer_sync(&q->timeout);
	cancel_work_sync(&q->timeout_work);
	cancel_work_sync(&lq->run_work);
	/* a blk_complete_request() may still schedule the tasklet */
	synchronize_rcu();
	tasklet_kill(&lq->done_tasklet);
	/* the last request freed may still hold the lock */
	spin_lock_irq(lq->lock);
	WARN_ON_ONCE(lq->nr_allocated || lq->nr_sorted);
	spin_unlock_irq(lq->lock);

	mutex_lock(&q->sysfs_lock);
	q->elevator = NULL;
	mutex_unlock(&q->sysfs_lock);

	lq->sched->ops.exit(lq->sched_data);
	lq_free(lq);
	kobject_put(&e->kobj);
	blk_put_queue(q);
}
EXPORT_SYMBOL(blk_cleanup_queue);
