// SPDX-License-Identifier: GPL-2.0
/*
 * The multiqueue request engine.
 *
 * Requests flow:
 *
 *   submit_bio -> blk_mq_submit_bio()
 *     merge into the task's plug or the CPU's software context, or
 *     take a tag (= a preallocated request) from the hardware context
 *     the CPU maps to, fill it from the bio, and
 *       - hold it in the task's plug (blk_mq_flush_plug_list() later), or
 *       - queue it on the CPU's software context (struct blk_mq_ctx)
 *   hardware context run (inline or from kblockd):
 *     take the busy leftovers (hctx->dispatch), then every software
 *     context with pending requests (hctx->ctx_map), and call ->queue_rq()
 *   driver completes: blk_mq_complete_request() -> ->complete() on the
 *     submitting CPU -> blk_mq_end_request() -> bios end, tag freed.
 *
 * Documentation/block/blk-mq.rst describes the design in more detail.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/blk-integrity.h>
#include <linux/mm.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/smp.h>
#include <linux/interrupt.h>
#include <linux/llist.h>
#include <linux/cpu.h>
#include <linux/cache.h>
#include <linux/delay.h>
#include <linux/sched/sysctl.h>
#include <linux/sched/topology.h>
#include <linux/part_stat.h>
#include <linux/percpu-refcount.h>

#include "blk.h"
#include "blk-mq.h"
#include "blk-request.h"
#include "blk-mq-tag.h"
#include "blk-stat.h"
#include "blk-rq-qos.h"
#include "blk-crypto-internal.h"

/* How long to wait before retrying a queue the driver said is busy. */
#define BLK_MQ_BUSY_DELAY_MS	3

/*
 * Requests whose completion arrived on another CPU than the one that
 * submitted them wait here, on the submitting CPU, for BLOCK_SOFTIRQ.
 */
static DEFINE_PER_CPU(struct llist_head, blk_mq_done_list);
static DEFINE_PER_CPU(call_single_data_t, blk_mq_done_csd);

static void blk_mq_run_inline(struct blk_mq_hw_ctx *hctx);

/* ---------------------------------------------------------------------
 * Requests in flight
 */

struct blk_mq_inflight {
	struct request_queue *q;
	struct block_device *part;
	unsigned int count[2];
};

/**
 * blk_mq_tag_get_rq - the allocated request behind a tag, held
 * @tags: the tags
 * @tag: the tag
 *
 * For a tag iterator: the request the driver was last given with @tag,
 * with a reference that keeps it from being freed and reused, or NULL
 * if it is free.  Drop the reference with blk_mq_put_rq_ref().
 *
 * Return: the request, or NULL.
 */
struct request *blk_mq_tag_get_rq(struct blk_mq_tags *tags, unsigned int tag)
{
	struct request *rq = READ_ONCE(tags->rqs[tag]);
	unsigned long flags;

	if (!rq)
		return NULL;
	/* the tag's own request lives as long as the tags do */
	if (rq == tags->static_rqs[tag])
		return req_ref_inc_not_zero(rq) ? rq : NULL;

	/*
	 * A flush request that borrowed the tag, maybe of another queue on
	 * the set: blk_mq_exit_hctx() cannot forget and free it while we
	 * hold the lock.  One that gave the tag back has another or none.
	 */
	spin_lock_irqsave(&tags->lock, flags);
	rq = READ_ONCE(tags->rqs[tag]);
	if (rq && (rq->tag != tag || !req_ref_inc_not_zero(rq)))
		rq = NULL;
	spin_unlock_irqrestore(&tags->lock, flags);
	return rq;
}

/*
 * Call @fn for each allocated request of @q on its tags, holding it.  A
 * drained queue (usage counter at zero) has none, and is skipped: after
 * del_gendisk() its driver may free the tags while /proc/diskstats still
 * walks the disk.
 */
static void blk_mq_queue_tag_iter(struct request_queue *q,
				  bool (*fn)(struct request *rq, void *data),
				  void *data)
{
	struct blk_mq_tags *last = NULL;
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;
	unsigned int tag;

	if (!percpu_ref_tryget(&q->q_usage_counter))
		return;
	queue_for_each_hw_ctx(q, hctx, i) {
		struct blk_mq_tags *tags = hctx->tags;

		/* hardware contexts may share one set of tags */
		if (tags == last)
			continue;
		last = tags;
		for (tag = 0; tag < tags->nr_tags; tag++) {
			struct request *rq = blk_mq_tag_get_rq(tags, tag);
			bool more;

			if (!rq)
				continue;
			more = rq->q != q || fn(rq, data);
			blk_mq_put_rq_ref(rq);
			if (!more)
				goto out;
		}
	}
out:
	blk_queue_exit(q);
}

static bool blk_mq_count_inflight(struct request *rq, void *data)
{
	struct blk_mq_inflight *mi = data;

	if (blk_mq_rq_state(rq) == MQ_RQ_IN_FLIGHT && blk_do_io_stat(rq) &&
	    rq->part && (bdev_is_partition(mi->part) ? rq->part == mi->part :
			 true))
		mi->count[rq_data_dir(rq)]++;
	return true;
}

/**
 * blk_mq_in_flight - requests of a partition the driver is working on
 * @q: the queue
 * @part: the partition, or the whole disk (part0) for all of them
 */
unsigned int blk_mq_in_flight(struct request_queue *q,
			      struct block_device *part)
{
	struct blk_mq_inflight mi = { .q = q, .part = part };

	blk_mq_queue_tag_iter(q, blk_mq_count_inflight, &mi);
	return mi.count[READ] + mi.count[WRITE];
}

/**
 * blk_mq_in_flight_rw - like blk_mq_in_flight(), split by direction
 * @q: the queue
 * @part: the partition
 * @inflight: reads and writes in flight
 */
void blk_mq_in_flight_rw(struct request_queue *q, struct block_device *part,
			 unsigned int inflight[2])
{
	struct blk_mq_inflight mi = { .q = q, .part = part };

	blk_mq_queue_tag_iter(q, blk_mq_count_inflight, &mi);
	inflight[READ] = mi.count[READ];
	inflight[WRITE] = mi.count[WRITE];
}

static bool blk_mq_any_inflight(struct request *rq, void *data)
{
	bool *busy = data;

	if (blk_mq_request_started(rq)) {
		*busy = true;
		return false;
	}
	return true;
}

/**
 * blk_mq_queue_inflight - does the driver hold any request of @q
 * @q: the queue
 */
bool blk_mq_queue_inflight(struct request_queue *q)
{
	bool busy = false;

	blk_mq_queue_tag_iter(q, blk_mq_any_inflight, &busy);
	return busy;
}
EXPORT_SYMBOL_GPL(blk_mq_queue_inflight);

/* ---------------------------------------------------------------------
 * Request allocation and freeing
 */

/*
 * Make the preallocated request of @tag ready for a new I/O.  Its data
 * fields are the caller's: blk_mq_bio_to_request() fills them from a bio,
 * blk_mq_rq_no_data() clears them for a passthrough request.  What only
 * an elevator reads (rq->hash, rb_node, elv.icq) is not set: this engine
 * has none, and those fields share their unions with what it does use.
 */
static __always_inline struct request *
blk_mq_rq_setup(struct request_queue *q, struct blk_mq_ctx *ctx,
		struct blk_mq_hw_ctx *hctx, unsigned int tag, blk_opf_t opf,
		blk_mq_req_flags_t flags)
{
	struct request *rq = hctx->tags->static_rqs[tag];

	rq->q = q;
	rq->mq_ctx = ctx;
	rq->mq_hctx = hctx;
	rq->cmd_flags = opf;
	rq->rq_flags = 0;
	if (flags & BLK_MQ_REQ_PM)
		rq->rq_flags |= RQF_PM;
	if (flags & BLK_MQ_REQ_RESERVED)
		rq->rq_flags |= RQF_RESV;
	rq->tag = tag;
	rq->timeout = 0;
	INIT_LIST_HEAD(&rq->queuelist);
	rq->part = NULL;
#ifdef CONFIG_BLK_RQ_ALLOC_TIME
	/* iocost measures a request's wait from here */
	rq->alloc_time_ns = blk_queue_rq_alloc_time(q) ? ktime_get_ns() : 0;
#endif
	rq->start_time_ns = 0;		/* blk_mq_account_start() sets it */
	rq->io_start_time_ns = 0;
	rq->stats_sectors = 0;
#ifdef CONFIG_BLK_DEV_INTEGRITY
	rq->nr_integrity_segments = 0;
#endif
	rq->write_hint = 0;
	rq->deadline = 0;
	rq->end_io = NULL;
	rq->end_io_data = NULL;
	blk_crypto_rq_set_defaults(rq);
	WRITE_ONCE(rq->state, MQ_RQ_IDLE);
	req_ref_set(rq, 1);
	return rq;
}

/* A request that does not come from a bio starts with no data. */
static void blk_mq_rq_no_data(struct request *rq)
{
	rq->__sector = (sector_t)-1;
	rq->__data_len = 0;
	rq->bio = NULL;
	rq->biotail = NULL;
	rq->nr_phys_segments = 0;
	rq->ioprio = 0;
}

/*
 * Called with a tag of @hctx just taken: is @hctx being drained because its
 * last CPU goes offline?  Then the tag must go back.
 */
static __always_inline bool blk_mq_tag_on_inactive(struct blk_mq_hw_ctx *hctx)
{
	/*
	 * Pairs with the barrier in blk_mq_hctx_drain(): either the drain
	 * sees our tag and waits for its request, or we see the mark.
	 */
	smp_mb__after_atomic();
	return test_bit(BLK_MQ_S_INACTIVE, &hctx->state);
}

/*
 * @tag was taken on @hctx while its last CPU goes offline: the hotplug
 * code is draining @hctx and moving us to another CPU.  Give the tag
 * back and take one on the context of the CPU we run on after a short
 * sleep, which lets even a realtime task be moved.
 */
static noinline struct request *
blk_mq_get_request_moved(struct request_queue *q, struct blk_mq_hw_ctx *hctx,
			 int tag, blk_opf_t opf, blk_mq_req_flags_t flags)
{
	struct blk_mq_ctx *ctx;

	do {
		blk_mq_put_tag(hctx->tags, tag);
		if (flags & BLK_MQ_REQ_NOWAIT)
			return NULL;
		usleep_range(3000, 6000);
		ctx = blk_mq_get_ctx(q);
		hctx = blk_mq_map_queue(q, opf, ctx);
		tag = blk_mq_get_tag(hctx->tags, flags & BLK_MQ_REQ_RESERVED,
				     false);
		if (tag == BLK_MQ_NO_TAG)
			return NULL;
	} while (blk_mq_tag_on_inactive(hctx));

	return blk_mq_rq_setup(q, ctx, hctx, tag, opf, flags);
}

/*
 * Take a tag of @hctx, the hardware context of software context @ctx for
 * @opf, and set up its request.  Sleeps for a tag unless
 * BLK_MQ_REQ_NOWAIT.  The caller holds a q_usage_counter reference,
 * which the request keeps.
 */
static __always_inline struct request *
blk_mq_get_request(struct request_queue *q, struct blk_mq_ctx *ctx,
		   struct blk_mq_hw_ctx *hctx, blk_opf_t opf,
		   blk_mq_req_flags_t flags)
{
	int tag;

	tag = blk_mq_get_tag(hctx->tags, flags & BLK_MQ_REQ_RESERVED,
			     flags & BLK_MQ_REQ_NOWAIT);
	if (tag == BLK_MQ_NO_TAG)
		return NULL;

	/* @hctx's last CPU is going offline: take a tag elsewhere */
	if (unlikely(blk_mq_tag_on_inactive(hctx)))
		return blk_mq_get_request_moved(q, hctx, tag, opf, flags);

	/*
	 * If we slept for the tag we may run on another CPU now.  The
	 * request still goes to the context it took the tag for: that
	 * context's hardware queue owns the tag.
	 */
	return blk_mq_rq_setup(q, ctx, hctx, tag, opf, flags);
}

/**
 * blk_mq_alloc_request - allocate a request for a passthrough command
 * @q: the queue
 * @opf: operation and flags
 * @flags: BLK_MQ_REQ_*
 *
 * Return: the request, or an ERR_PTR().
 */
struct request *blk_mq_alloc_request(struct request_queue *q, blk_opf_t opf,
				     blk_mq_req_flags_t flags)
{
	int err = blk_queue_enter(q, flags);
	struct blk_mq_ctx *ctx;
	struct request *req;

	if (err)
		return ERR_PTR(err);
	ctx = blk_mq_get_ctx(q);
	req = blk_mq_get_request(q, ctx, blk_mq_map_queue(q, opf, ctx), opf,
				 flags);
	if (req) {
		blk_mq_rq_no_data(req);
		return req;
	}
	/* no tag to be had: drop the usage reference again */
	blk_queue_exit(q);
	return ERR_PTR(-EWOULDBLOCK);
}
EXPORT_SYMBOL(blk_mq_alloc_request);

/**
 * blk_mq_alloc_request_hctx - allocate a request on a given hardware queue
 * @q: the queue
 * @opf: operation and flags
 * @flags: BLK_MQ_REQ_*; must include BLK_MQ_REQ_NOWAIT
 * @hctx_idx: the hardware queue
 *
 * For a command that must go down one queue, such as an nvme-fabrics
 * connect.  The request is on the software context of the queue's first
 * online CPU.
 *
 * Return: the request, or an ERR_PTR(): -EXDEV when no CPU of the queue
 * is online, -EWOULDBLOCK when it has no free tag.
 */
struct request *blk_mq_alloc_request_hctx(struct request_queue *q,
					  blk_opf_t opf,
					  blk_mq_req_flags_t flags,
					  unsigned int hctx_idx)
{
	struct blk_mq_hw_ctx *hctx;
	struct request *rq;
	unsigned int cpu;
	int tag, ret;

	/* only a caller that cannot sleep may pin the hardware queue */
	if (WARN_ON_ONCE(!(flags & BLK_MQ_REQ_NOWAIT)))
		return ERR_PTR(-EINVAL);
	if (q->nr_hw_queues <= hctx_idx)
		return ERR_PTR(-EIO);
	ret = blk_queue_enter(q, flags);
	if (ret)
		return ERR_PTR(ret);

	/*
	 * The request's software context is that of an online CPU of the
	 * hardware queue.  With none online the queue takes no requests:
	 * -EXDEV tells the caller (an nvme-fabrics connect) to skip it.
	 */
	hctx = xa_load(&q->hctx_table, hctx_idx);
	cpu = hctx ? cpumask_first_and(hctx->cpumask, cpu_online_mask) :
		     nr_cpu_ids;
	if (cpu >= nr_cpu_ids) {
		ret = -EXDEV;
		goto out_exit;
	}
	tag = blk_mq_get_tag(hctx->tags, flags & BLK_MQ_REQ_RESERVED, true);
	if (tag == BLK_MQ_NO_TAG) {
		ret = -EWOULDBLOCK;
		goto out_exit;
	}
	/* the queue's last CPU went offline since the look above */
	if (unlikely(blk_mq_tag_on_inactive(hctx))) {
		blk_mq_put_tag(hctx->tags, tag);
		ret = -EXDEV;
		goto out_exit;
	}
	rq = blk_mq_rq_setup(q, __blk_mq_get_ctx(q, cpu), hctx, tag, opf,
			     flags);
	blk_mq_rq_no_data(rq);
	return rq;

out_exit:
	blk_queue_exit(q);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(blk_mq_alloc_request_hctx);

/* The last reference is gone: the tag goes back, and the queue reference. */
static __always_inline void __blk_mq_free_request(struct request *rq)
{
	struct request_queue *q = rq->q;
	struct blk_mq_hw_ctx *hctx = rq->mq_hctx;

	blk_crypto_free_request(rq);
	blk_mq_put_tag(hctx->tags, rq->tag);
	blk_queue_exit(q);
}

/*
 * Drop a reference taken by an iterator.  The flush request's references
 * belong to blk-flush.c: its ->end_io drops them.
 */
void blk_mq_put_rq_ref(struct request *rq)
{
	if (is_flush_rq(rq))
		rq->end_io(rq, 0);
	else if (req_ref_put_and_test(rq))
		__blk_mq_free_request(rq);
}

/* blk_mq_free_request(), inline in the completion path. */
static __always_inline void blk_mq_release_request(struct request *rq)
{
	struct blk_mq_ctx *sw = rq->mq_ctx;

	if (sw)
		sw->rq_completed[rq_is_sync(rq)]++;
	rq_qos_done(rq->q, rq);
	WRITE_ONCE(rq->state, MQ_RQ_IDLE);
	/* a timeout handler may still hold a reference; last one frees */
	if (!req_ref_put_and_test(rq))
		return;
	__blk_mq_free_request(rq);
}

/**
 * blk_mq_free_request - give a request back
 * @rq: the request; its bios must already be ended or detached
 */
void blk_mq_free_request(struct request *rq)
{
	blk_mq_release_request(rq);
}
EXPORT_SYMBOL_GPL(blk_mq_free_request);

/**
 * blk_mq_free_plug_rqs - free requests cached in a plug
 * @plug: the plug
 *
 * This engine does not cache requests in plugs; anything found is freed.
 */
void blk_mq_free_plug_rqs(struct blk_plug *plug)
{
	struct request *cached = rq_list_pop(&plug->cached_rq);

	for (; cached; cached = rq_list_pop(&plug->cached_rq))
		blk_mq_free_request(cached);
}

/* ---------------------------------------------------------------------
 * Completion
 */

/* Count a request that leaves the driver; rerun a queue that was busy. */
static __always_inline void blk_mq_leave_driver(struct request *rq)
{
	struct blk_mq_hw_ctx *hctx = rq->mq_hctx;

	if (!(rq->rq_flags & RQF_DISPATCHED))
		return;
	rq->rq_flags &= ~RQF_DISPATCHED;

	atomic_dec(&hctx->nr_busy);
	/*
	 * Pairs with the barrier in blk_mq_dispatch_busy(): either it sees
	 * nr_busy drop, or we see BLK_MQ_S_SCHED_RESTART and rerun.
	 */
	smp_mb__after_atomic();
	if (test_bit(BLK_MQ_S_SCHED_RESTART, &hctx->state) &&
	    test_and_clear_bit(BLK_MQ_S_SCHED_RESTART, &hctx->state))
		blk_mq_run_hw_queue(hctx, true);
}

/*
 * The driver gives a request back without completing it (requeue, or a
 * busy status after it already called blk_mq_start_request()): it is
 * idle again and may be started anew.
 */
static void blk_mq_unstart_request(struct request *rq)
{
	blk_mq_leave_driver(rq);
	rq_qos_requeue(rq->q, rq);
	if (blk_mq_request_started(rq)) {
		WRITE_ONCE(rq->state, MQ_RQ_IDLE);
		rq->rq_flags &= ~RQF_TIMED_OUT;
	}
}

/*
 * What ends every request once its bios are done: the statistics, the
 * driver's count, and ->end_io or the free.  @bytes is how much of @rq
 * the disk statistics have not counted yet (blk_update_request() counts
 * what it ends).  Inline: this and blk_mq_end_request() are one function
 * on the path that every request takes.
 */
static __always_inline void blk_mq_finish_request(struct request *rq,
						  blk_status_t error,
						  unsigned int bytes)
{
	u64 now = 0;

	if (blk_mq_need_time_stamp(rq))
		now = ktime_get_ns();
	if (rq->rq_flags & RQF_STATS)
		blk_stat_add(rq, now);
	blk_mq_account_end(rq, bytes, now);

	/*
	 * The driver is done with it: count that before ->end_io may hand
	 * the request (or its tag) to someone else.
	 */
	blk_mq_leave_driver(rq);

	/* without an ->end_io, or when it says so, the request goes back */
	if (!rq->end_io || rq->end_io(rq, error) == RQ_END_IO_FREE)
		blk_mq_release_request(rq);
}

/**
 * __blk_mq_end_request - finish a request whose bios are all done
 * @rq: the request
 * @error: its status, passed to ->end_io
 */
void __blk_mq_end_request(struct request *rq, blk_status_t error)
{
	blk_mq_finish_request(rq, error, 0);
}
EXPORT_SYMBOL(__blk_mq_end_request);

/*
 * Whether blk_mq_end_request() may end @bio, @rq's first, by itself: it
 * is the only one, all of it is done, and without an error to report.
 * That is what blk_update_request() would do for it, less its walk.  A
 * bio a flush sequence holds back, one that must be marked quiet, one
 * with integrity data, whose profile remaps a read's first, and a zone
 * append, which reports where its data went, take the walk.
 */
static __always_inline bool blk_mq_end_whole_bio(struct request *rq,
						 struct bio *bio,
						 blk_status_t error)
{
	return bio && bio == rq->biotail && error == BLK_STS_OK &&
	       bio->bi_iter.bi_size == blk_rq_bytes(rq) &&
	       !(rq->rq_flags & (RQF_FLUSH_SEQ | RQF_QUIET)) &&
	       !blk_integrity_rq(rq) && req_op(rq) != REQ_OP_ZONE_APPEND;
}

/**
 * blk_mq_end_request - complete all of a request
 * @rq: the request
 * @error: its status
 */
void blk_mq_end_request(struct request *rq, blk_status_t error)
{
	struct bio *bio = rq->bio;
	unsigned int bytes = 0;

	if (likely(blk_mq_end_whole_bio(rq, bio, error))) {
		bytes = bio->bi_iter.bi_size;
		/* before bio_endio(), see blk_update_request() */
		blk_crypto_rq_put_keyslot(rq);
		rq->bio = NULL;
		rq->__data_len = 0;
		/* bio_advance() by all of it */
		bio->bi_iter.bi_size = 0;
		bio_endio(bio);
	} else {
		/* all of it: nothing can be left over */
		WARN_ON_ONCE(blk_update_request(rq, error, blk_rq_bytes(rq)));
	}
	blk_mq_finish_request(rq, error, bytes);
}
EXPORT_SYMBOL(blk_mq_end_request);

/**
 * blk_mq_end_request_batch - complete a batch of requests
 * @iob: the batch
 *
 * blk_mq_add_to_batch() never batches here, but drivers still name this.
 */
void blk_mq_end_request_batch(struct io_comp_batch *iob)
{
	struct request *rq;

	while ((rq = rq_list_pop(&iob->req_list)) != NULL)
		blk_mq_end_request(rq, BLK_STS_OK);
}
EXPORT_SYMBOL_GPL(blk_mq_end_request_batch);

/* BLOCK_SOFTIRQ: run ->complete() for requests sent to this CPU. */
static __latent_entropy void blk_mq_done_softirq(struct softirq_action *h)
{
	struct llist_node *node = llist_del_all(this_cpu_ptr(&blk_mq_done_list));
	struct request *rq, *next;

	/* llist_add() pushes at the head: restore completion order */
	node = llist_reverse_order(node);
	llist_for_each_entry_safe(rq, next, node, ipi_list)
		rq->q->mq_ops->complete(rq);
}

static void blk_mq_done_ipi(void *data)
{
	raise_softirq_irqoff(BLOCK_SOFTIRQ);
}

/*
 * Whether @rq may complete right here: it was submitted on this CPU (the
 * common case, checked first), or it has no software context, or the
 * queue does not ask for the submitting CPU, or that CPU is gone.  Not
 * pinned to this CPU: a caller that moves on finds out in
 * blk_mq_complete_send(), which checks again.
 */
static inline bool blk_mq_complete_here(struct request *rq)
{
	int target;

	if (!IS_ENABLED(CONFIG_SMP) || !rq->mq_ctx)
		return true;
	target = rq->mq_ctx->cpu;
	return target == raw_smp_processor_id() ||
	       !test_bit(QUEUE_FLAG_SAME_COMP, &rq->q->queue_flags) ||
	       !cpu_online(target);
}

/* Send @rq to complete on its submitting CPU; %false: do it here after all. */
static noinline bool blk_mq_complete_send(struct request *rq)
{
	int cpu = get_cpu();
	int target = rq->mq_ctx->cpu;

	if (target == cpu || !cpu_online(target)) {
		put_cpu();
		return false;
	}

	/* The first request on an empty list sends the IPI. */
	if (llist_add(&rq->ipi_list, &per_cpu(blk_mq_done_list, target)))
		smp_call_function_single_async(target,
					       &per_cpu(blk_mq_done_csd, target));
	put_cpu();
	return true;
}

/**
 * blk_mq_complete_request_remote - complete on the submitting CPU
 * @rq: the request
 *
 * Marks the request complete.  If it was submitted on another CPU that is
 * still online, and the queue asks for completion on the submitting CPU
 * (QUEUE_FLAG_SAME_COMP, the default), ->complete() runs there from
 * BLOCK_SOFTIRQ, kicked by an IPI.
 *
 * Return: %true if the request was sent away, %false if the caller must
 * run ->complete() itself.
 */
bool blk_mq_complete_request_remote(struct request *rq)
{
	WRITE_ONCE(rq->state, MQ_RQ_COMPLETE);
	return !blk_mq_complete_here(rq) && blk_mq_complete_send(rq);
}
EXPORT_SYMBOL_GPL(blk_mq_complete_request_remote);

/**
 * blk_mq_complete_request - the driver has finished a request
 * @rq: the request
 *
 * Runs the queue's ->complete() for it, on the CPU that submitted it
 * when that is another CPU (see blk_mq_complete_request_remote()).
 */
void blk_mq_complete_request(struct request *rq)
{
	WRITE_ONCE(rq->state, MQ_RQ_COMPLETE);
	/* nothing more to do here when another CPU took it over */
	if (blk_mq_complete_here(rq) || !blk_mq_complete_send(rq))
		rq->q->mq_ops->complete(rq);
}
EXPORT_SYMBOL(blk_mq_complete_request);

/* The CPU went away: complete what was sent to it here. */
static int blk_mq_done_cpu_dead(unsigned int cpu)
{
	struct llist_node *node = llist_del_all(&per_cpu(blk_mq_done_list, cpu));
	struct request *rq, *next;

	node = llist_reverse_order(node);
	llist_for_each_entry_safe(rq, next, node, ipi_list)
		rq->q->mq_ops->complete(rq);
	return 0;
}

/* ---------------------------------------------------------------------
 * Starting requests, timeouts
 */

/* Whether completion statistics are being gathered for @q. */
static inline bool blk_mq_gathering_stats(struct request_queue *q)
{
	return test_bit(QUEUE_FLAG_STATS, &q->queue_flags);
}

/*
 * blk_add_timer(), with the case of nearly every request first: the
 * queue's timer is pending and fires no later than @rq's deadline.  Then
 * all there is to do is set the deadline: when the timer fires,
 * blk_mq_timeout_work() re-arms it for what is still in flight.
 * blk_add_timer() would compare its rounded deadline with the timer
 * only to leave the timer alone.
 */
static inline void blk_mq_add_timer(struct request *rq)
{
	struct request_queue *q = rq->q;
	unsigned long deadline;

	if (!rq->timeout)
		rq->timeout = q->rq_timeout;
	deadline = jiffies + rq->timeout;
	if (!timer_pending(&q->timeout) ||
	    time_before(deadline, READ_ONCE(q->timeout.expires))) {
		blk_add_timer(rq);
		return;
	}
	rq->rq_flags &= ~RQF_TIMED_OUT;
	WRITE_ONCE(rq->deadline, deadline);
}

/**
 * blk_mq_start_request - the driver begins processing a request
 * @rq: the request
 *
 * Call from ->queue_rq() before handing @rq to the hardware.  Starts the
 * timeout clock.
 */
void blk_mq_start_request(struct request *rq)
{
	struct request_queue *q = rq->q;
	struct blk_mq_hw_ctx *hctx = rq->mq_hctx;

	if (blk_mq_gathering_stats(q)) {
		rq->rq_flags |= RQF_STATS;
		rq->stats_sectors = blk_rq_sectors(rq);
		rq->io_start_time_ns = ktime_get_ns();
		rq_qos_issue(q, rq);
	}

	WARN_ON_ONCE(blk_mq_rq_state(rq) != MQ_RQ_IDLE);
	blk_rq_integrity_prepare(rq);

	/* Let timeouts and accounting find it by tag. */
	if (rq->tag != BLK_MQ_NO_TAG)
		WRITE_ONCE(hctx->tags->rqs[rq->tag], rq);

	if (!(rq->rq_flags & RQF_DISPATCHED)) {
		rq->rq_flags |= RQF_DISPATCHED;
		atomic_inc(&hctx->nr_busy);
	}

	blk_mq_add_timer(rq);
	/*
	 * The deadline must be visible before the state says in flight:
	 * the timeout scan reads the state first, then the deadline.
	 */
	smp_store_release(&rq->state, MQ_RQ_IN_FLIGHT);
}
EXPORT_SYMBOL(blk_mq_start_request);

static void blk_mq_rq_timed_out(struct request *rq)
{
	enum blk_eh_timer_return ret = BLK_EH_RESET_TIMER;

	rq->rq_flags |= RQF_TIMED_OUT;
	if (rq->q->mq_ops->timeout)
		ret = rq->q->mq_ops->timeout(rq);
	if (ret == BLK_EH_DONE)
		return;
	WARN_ON_ONCE(ret != BLK_EH_RESET_TIMER);
	blk_add_timer(rq);
}

struct blk_mq_expiry {
	unsigned long start;	/* jiffies when the scan began */
	unsigned long next;	/* the earliest deadline still to come */
	bool have_next;
	bool expired;		/* a request is due */
	bool handle;		/* hand due requests to ->timeout() */
};

/* Called by the tag iterator, which holds @rq. */
static bool blk_mq_check_expired(struct request *rq, void *data)
{
	struct blk_mq_expiry *exp = data;
	unsigned long deadline;

	/* pairs with smp_store_release() in blk_mq_start_request() */
	if (smp_load_acquire(&rq->state) != MQ_RQ_IN_FLIGHT)
		return true;
	deadline = READ_ONCE(rq->deadline);
	if (time_before(exp->start, deadline)) {
		if (!exp->have_next || time_before(deadline, exp->next))
			exp->next = deadline;
		exp->have_next = true;
		return true;
	}
	if (rq->rq_flags & RQF_TIMED_OUT)
		return true;
	exp->expired = true;
	if (exp->handle)
		blk_mq_rq_timed_out(rq);
	return true;
}

/* q->timeout_work: the queue's timeout timer fired. */
static void blk_mq_timeout_work(struct work_struct *work)
{
	struct request_queue *q =
		container_of(work, struct request_queue, timeout_work);
	struct blk_mq_expiry exp = { .start = jiffies };

	/* a queue being torn down has no requests: the walk finds none */
	blk_mq_queue_tag_iter(q, blk_mq_check_expired, &exp);
	if (exp.expired) {
		/*
		 * The driver starts a request inside ->queue_rq(): one that
		 * looks due may still be in a ->queue_rq() that was held up,
		 * a preempted vCPU, say, and ->timeout() must not have it
		 * yet.  Let the dispatches under way end: they run under RCU,
		 * or SRCU (blk_mq_dispatch_begin()).  A request started since
		 * has its deadline after exp.start.
		 */
		blk_mq_wait_quiesce_done(q);
		exp.handle = true;
		exp.have_next = false;
		blk_mq_queue_tag_iter(q, blk_mq_check_expired, &exp);
	}
	if (exp.have_next)
		mod_timer(&q->timeout, blk_rq_timeout(round_jiffies_up(exp.next)));
}

/* ---------------------------------------------------------------------
 * Inserting and dispatching
 */

static __always_inline bool blk_mq_hctx_has_pending(struct blk_mq_hw_ctx *hctx)
{
	if (!list_empty_careful(&hctx->dispatch))
		return true;
	/*
	 * One word maps the software contexts of all but the largest
	 * machines; bits past nr_ctx are never set.  This runs for every
	 * new request, so spare it the out-of-line bitmap walk.
	 */
	if (hctx->nr_ctx <= BITS_PER_LONG)
		return READ_ONCE(hctx->ctx_map[0]) != 0;
	return !bitmap_empty(hctx->ctx_map, hctx->nr_ctx);
}

/* Queue @rq on its software context for its hardware context. */
static void blk_mq_insert_request(struct request *rq)
{
	struct blk_mq_ctx *ctx = rq->mq_ctx;
	struct blk_mq_hw_ctx *hctx = rq->mq_hctx;
	unsigned int type = hctx->type;

	spin_lock(&ctx->lock);
	list_add_tail(&rq->queuelist, &ctx->rq_lists[type]);
	ctx->rq_queued[rq_is_sync(rq)]++;
	/*
	 * Set under the lock: the dispatcher clears the bit before taking
	 * the lock, so it either sees this request or the bit stays set.
	 */
	set_bit(ctx->index_hw[type], hctx->ctx_map);
	spin_unlock(&ctx->lock);
	hctx->queued++;
}

/**
 * blk_mq_request_bypass_insert - queue a request on its hardware context
 * @rq: the request
 * @at_head: in front of what is already waiting
 * @run_queue: run the hardware queue afterwards
 *
 * For requests that must not be merged or reordered with new I/O: the
 * data part of a flush sequence, requeued requests.
 */
void blk_mq_request_bypass_insert(struct request *rq, bool at_head,
				  bool run_queue)
{
	struct blk_mq_hw_ctx *hw = rq->mq_hctx;
	struct list_head *where = &hw->dispatch;

	spin_lock(&hw->lock);
	/* the tail's successor is the head, so list_add() serves both ends */
	list_add(&rq->queuelist, at_head ? where : where->prev);
	spin_unlock(&hw->lock);
	if (run_queue)
		blk_mq_run_hw_queue(hw, false);
}

/* Move everything waiting for @hctx onto @list, oldest first. */
static void blk_mq_collect(struct blk_mq_hw_ctx *hctx, struct list_head *list)
{
	unsigned int i;

	if (!list_empty_careful(&hctx->dispatch)) {
		spin_lock(&hctx->lock);
		list_splice_tail_init(&hctx->dispatch, list);
		spin_unlock(&hctx->lock);
	}

	for_each_set_bit(i, hctx->ctx_map, hctx->nr_ctx) {
		struct blk_mq_ctx *ctx = hctx->ctxs[i];

		if (!test_and_clear_bit(i, hctx->ctx_map))
			continue;
		spin_lock(&ctx->lock);
		list_splice_tail_init(&ctx->rq_lists[hctx->type], list);
		spin_unlock(&ctx->lock);
	}
}

/*
 * The driver refused a request.  Put it and everything behind it back in
 * front, and make sure the queue runs again without spinning on it.
 */
static void blk_mq_dispatch_busy(struct blk_mq_hw_ctx *hctx,
				 struct list_head *list, blk_status_t ret)
{
	hctx->busy_count++;

	spin_lock(&hctx->lock);
	list_splice_init(list, &hctx->dispatch);
	spin_unlock(&hctx->lock);

	/*
	 * Ask the next request that leaves the driver to rerun us.  The
	 * barrier pairs with the one in blk_mq_leave_driver(): either that
	 * side sees the bit, or we see its nr_busy decrement below.
	 */
	set_bit(BLK_MQ_S_SCHED_RESTART, &hctx->state);
	smp_mb__after_atomic();	/* see above */

	/* A stopped queue is rerun by blk_mq_start_stopped_hw_queue(). */
	if (blk_mq_hctx_stopped(hctx))
		return;

	/*
	 * BLK_STS_RESOURCE: the driver may be short of something that no
	 * completion of ours will give back.  BLK_STS_DEV_RESOURCE, and
	 * BLK_STS_ZONE_RESOURCE (a zoned disk's zone is locked by a request
	 * in flight): a completion will, but only if there is one in flight.
	 * Otherwise retry after a while.
	 */
	if (ret == BLK_STS_RESOURCE || !atomic_read(&hctx->nr_busy))
		blk_mq_delay_run_hw_queue(hctx, BLK_MQ_BUSY_DELAY_MS);
}

/*
 * A driver that limits what a device may hold beyond its tags (SCSI: a
 * LUN's queue depth on a host-wide tag set) gives out a budget token per
 * request: ->get_budget() right before ->queue_rq(), the token recorded
 * in the request for the driver, which gives it back when the request
 * completes or when ->queue_rq() refuses it.  Without a token the
 * request waits in front, as after BLK_STS_RESOURCE: the driver reruns
 * the queue when a budget frees (scsi_run_queue_async()), and
 * blk_mq_dispatch_busy() retries after a while in case it cannot.
 */
static __always_inline bool blk_mq_get_budget(struct request_queue *q,
					      struct request *rq)
{
	int token;

	if (!q->mq_ops->get_budget)
		return true;
	token = q->mq_ops->get_budget(q);
	if (token < 0)
		return false;
	if (q->mq_ops->set_rq_budget_token)
		q->mq_ops->set_rq_budget_token(rq, token);
	return true;
}

/* Hand the requests on @list to the driver, in order. */
static void blk_mq_issue_list(struct blk_mq_hw_ctx *hctx,
			      struct list_head *list)
{
	struct request_queue *q = hctx->queue;
	struct blk_mq_queue_data bd;
	bool need_commit = false;
	blk_status_t ret;

	while (!list_empty(list)) {
		struct request *rq = list_first_entry(list, struct request,
						      queuelist);

		if (!blk_mq_get_budget(q, rq)) {
			if (need_commit && q->mq_ops->commit_rqs)
				q->mq_ops->commit_rqs(hctx);
			blk_mq_dispatch_busy(hctx, list, BLK_STS_RESOURCE);
			return;
		}
		list_del_init(&rq->queuelist);
		bd.rq = rq;
		bd.last = list_empty(list);

		ret = q->mq_ops->queue_rq(hctx, &bd);
		switch (ret) {
		case BLK_STS_OK:
			hctx->dispatched++;
			need_commit = !bd.last;
			break;
		case BLK_STS_RESOURCE:
		case BLK_STS_DEV_RESOURCE:
		case BLK_STS_ZONE_RESOURCE:
			blk_mq_unstart_request(rq);
			list_add(&rq->queuelist, list);
			if (need_commit && q->mq_ops->commit_rqs)
				q->mq_ops->commit_rqs(hctx);
			blk_mq_dispatch_busy(hctx, list, ret);
			return;
		default:
			/* the driver kept nothing: the last queued may need a kick */
			need_commit = need_commit || !bd.last;
			blk_mq_end_request(rq, ret);
			break;
		}
	}

	/* The last ->queue_rq() of the run did not see bd->last. */
	if (need_commit && q->mq_ops->commit_rqs)
		q->mq_ops->commit_rqs(hctx);
}

/*
 * A dispatch runs in an RCU read-side section, or an SRCU one on a
 * BLK_MQ_F_BLOCKING queue, whose ->queue_rq() may sleep; the queue was
 * allocated with its srcu_struct for that.  blk_mq_wait_quiesce_done()
 * sets nothing of its own: after QUEUE_FLAG_QUIESCED is set it waits
 * for a grace period, so a dispatch either saw the flag or has ended.
 * Nothing is written here that another CPU shares, which is what lets a
 * hardware queue that several CPUs feed scale.
 *
 * Return: %true if the caller may dispatch; blk_mq_dispatch_end() either way.
 */
static __always_inline bool blk_mq_dispatch_begin(struct blk_mq_hw_ctx *hctx,
						  int *srcu_idx)
{
	if (hctx->flags & BLK_MQ_F_BLOCKING)
		*srcu_idx = srcu_read_lock(hctx->queue->srcu);
	else
		rcu_read_lock();

	return !blk_mq_hctx_stopped(hctx) && !blk_queue_quiesced(hctx->queue);
}

static __always_inline void blk_mq_dispatch_end(struct blk_mq_hw_ctx *hctx,
						int srcu_idx)
{
	if (hctx->flags & BLK_MQ_F_BLOCKING)
		srcu_read_unlock(hctx->queue->srcu, srcu_idx);
	else
		rcu_read_unlock();
}

/*
 * Is @hctx stopped or quiesced, for a caller that left work queued on it?
 * If it looks so, look again behind a full barrier, which pairs with the
 * one that blk_mq_start_*hw_queue*() and blk_mq_unquiesce_queue() have
 * between clearing the flag and looking for work: either we see the
 * restart, or the restarter sees our work and runs it.  So a caller that
 * queued work just calls blk_mq_run_hw_queue(), which asks this.
 */
static bool blk_mq_hctx_parked(struct blk_mq_hw_ctx *hctx)
{
	if (!blk_mq_hctx_stopped(hctx) && !blk_queue_quiesced(hctx->queue))
		return false;
	smp_mb();	/* our queued work before the flags; see above */
	return blk_mq_hctx_stopped(hctx) || blk_queue_quiesced(hctx->queue);
}

/* Run @hctx in the caller's context: whatever waits on it. */
static void blk_mq_dispatch(struct blk_mq_hw_ctx *hctx)
{
	LIST_HEAD(list);
	int srcu_idx;

	if (blk_mq_dispatch_begin(hctx, &srcu_idx)) {
		hctx->run++;
		blk_mq_collect(hctx, &list);
		if (!list_empty(&list))
			blk_mq_issue_list(hctx, &list);
		blk_mq_dispatch_end(hctx, srcu_idx);
		return;
	}
	blk_mq_dispatch_end(hctx, srcu_idx);
	/* a restart may have come between the look and now */
	blk_mq_run_hw_queue(hctx, true);
}

/*
 * Hand @rq alone to the driver: the one request of the run, so bd.last
 * is true and there is nothing to commit or to put back behind it.
 */
static void blk_mq_issue_one(struct blk_mq_hw_ctx *hctx, struct request *rq)
{
	struct blk_mq_queue_data bd = { .rq = rq, .last = true };
	blk_status_t ret;
	int srcu_idx;

	if (!blk_mq_dispatch_begin(hctx, &srcu_idx)) {
		/* it waits with the rest; unquiesce or restart runs it */
		blk_mq_insert_request(rq);
		blk_mq_dispatch_end(hctx, srcu_idx);
		blk_mq_run_hw_queue(hctx, true);
		return;
	}

	/* counted as blk_mq_insert_request() and blk_mq_dispatch() count */
	rq->mq_ctx->rq_queued[rq_is_sync(rq)]++;
	hctx->queued++;
	hctx->run++;

	if (unlikely(!blk_mq_get_budget(hctx->queue, rq))) {
		LIST_HEAD(list);

		/* never issued: nothing to undo */
		list_add(&rq->queuelist, &list);
		blk_mq_dispatch_busy(hctx, &list, BLK_STS_RESOURCE);
		blk_mq_dispatch_end(hctx, srcu_idx);
		return;
	}

	ret = hctx->queue->mq_ops->queue_rq(hctx, &bd);
	if (likely(ret == BLK_STS_OK)) {
		hctx->dispatched++;
	} else if (ret == BLK_STS_RESOURCE || ret == BLK_STS_DEV_RESOURCE ||
		   ret == BLK_STS_ZONE_RESOURCE) {
		LIST_HEAD(list);

		blk_mq_unstart_request(rq);
		list_add(&rq->queuelist, &list);
		blk_mq_dispatch_busy(hctx, &list, ret);
	} else {
		blk_mq_end_request(rq, ret);
	}
	blk_mq_dispatch_end(hctx, srcu_idx);
}

static void __blk_mq_run_hw_queue(struct blk_mq_hw_ctx *hctx)
{
	blk_mq_dispatch(hctx);
}

/*
 * Give a new request from the submitter to the driver.  When nothing
 * waits on its hardware queue, nothing is older than @rq: it skips its
 * software queue (the lock, the ctx_map bit, the list) and goes straight
 * to ->queue_rq(), as the only request of the run.
 */
static void blk_mq_issue_new(struct blk_mq_hw_ctx *hctx, struct request *rq)
{
	if (blk_mq_hctx_has_pending(hctx)) {
		blk_mq_insert_request(rq);
		blk_mq_run_inline(hctx);
		return;
	}
	blk_mq_issue_one(hctx, rq);
}

/* Run from a context that may sleep (the submitter): always inline. */
static void blk_mq_run_inline(struct blk_mq_hw_ctx *hctx)
{
	if (blk_mq_hctx_has_pending(hctx))
		__blk_mq_run_hw_queue(hctx);
}

/* A CPU of @hctx that is online, for kblockd; this CPU if it is one. */
static int blk_mq_hctx_work_cpu(struct blk_mq_hw_ctx *hctx)
{
	int cpu = raw_smp_processor_id();

	if (cpumask_test_cpu(cpu, hctx->cpumask))
		return cpu;
	cpu = cpumask_first_and(hctx->cpumask, cpu_online_mask);
	return cpu < nr_cpu_ids ? cpu : WORK_CPU_UNBOUND;
}

/**
 * blk_mq_delay_run_hw_queue - run a hardware queue from kblockd, later
 * @hctx: the hardware context
 * @msecs: delay
 */
void blk_mq_delay_run_hw_queue(struct blk_mq_hw_ctx *hctx, unsigned long msecs)
{
	kblockd_mod_delayed_work_on(blk_mq_hctx_work_cpu(hctx), &hctx->run_work,
				    msecs_to_jiffies(msecs));
}
EXPORT_SYMBOL(blk_mq_delay_run_hw_queue);

/**
 * blk_mq_run_hw_queue - dispatch what is queued on a hardware context
 * @hctx: the hardware context
 * @async: leave it to kblockd instead of running it in this context
 *
 * A queue with BLK_MQ_F_BLOCKING always runs from kblockd here, since
 * the caller may not be able to sleep.
 */
void blk_mq_run_hw_queue(struct blk_mq_hw_ctx *hctx, bool async)
{
	if (!blk_mq_hctx_has_pending(hctx) || blk_mq_hctx_parked(hctx))
		return;

	if (async || (hctx->flags & BLK_MQ_F_BLOCKING))
		kblockd_mod_delayed_work_on(blk_mq_hctx_work_cpu(hctx),
					    &hctx->run_work, 0);
	else
		__blk_mq_run_hw_queue(hctx);
}
EXPORT_SYMBOL(blk_mq_run_hw_queue);

/**
 * blk_mq_run_hw_queues - run every hardware queue of a request queue
 * @q: the queue
 * @async: from kblockd
 */
void blk_mq_run_hw_queues(struct request_queue *q, bool async)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;

	queue_for_each_hw_ctx(q, hctx, i)
		blk_mq_run_hw_queue(hctx, async);
}
EXPORT_SYMBOL(blk_mq_run_hw_queues);

/**
 * blk_mq_delay_run_hw_queues - run every hardware queue, later
 * @q: the queue
 * @msecs: delay
 */
void blk_mq_delay_run_hw_queues(struct request_queue *q, unsigned long msecs)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;

	queue_for_each_hw_ctx(q, hctx, i)
		if (!blk_mq_hctx_stopped(hctx))
			blk_mq_delay_run_hw_queue(hctx, msecs);
}
EXPORT_SYMBOL(blk_mq_delay_run_hw_queues);

static void blk_mq_run_work_fn(struct work_struct *work)
{
	struct blk_mq_hw_ctx *hctx =
		container_of(work, struct blk_mq_hw_ctx, run_work.work);

	__blk_mq_run_hw_queue(hctx);
}

/**
 * blk_mq_stop_hw_queue - stop dispatching to a hardware queue
 * @hctx: the hardware context
 *
 * Requests keep queueing up.  ->queue_rq() calls already running are not
 * waited for; use blk_mq_quiesce_queue() for that.
 */
void blk_mq_stop_hw_queue(struct blk_mq_hw_ctx *hctx)
{
	cancel_delayed_work(&hctx->run_work);
	set_bit(BLK_MQ_S_STOPPED, &hctx->state);
}
EXPORT_SYMBOL(blk_mq_stop_hw_queue);

/**
 * blk_mq_stop_hw_queues - blk_mq_stop_hw_queue() on every hardware queue
 * @q: the queue
 */
void blk_mq_stop_hw_queues(struct request_queue *q)
{
	unsigned long n;
	struct blk_mq_hw_ctx *hw;

	queue_for_each_hw_ctx(q, hw, n)
		blk_mq_stop_hw_queue(hw);
}
EXPORT_SYMBOL(blk_mq_stop_hw_queues);

/**
 * blk_mq_start_hw_queue - allow dispatching again and run the queue
 * @hctx: the hardware context
 */
void blk_mq_start_hw_queue(struct blk_mq_hw_ctx *hctx)
{
	clear_bit(BLK_MQ_S_STOPPED, &hctx->state);
	/* the cleared bit before the look at pending work in the run */
	smp_mb__after_atomic();	/* pairs with blk_mq_hctx_parked() */
	blk_mq_run_hw_queue(hctx, false);
}
EXPORT_SYMBOL(blk_mq_start_hw_queue);

/**
 * blk_mq_start_hw_queues - blk_mq_start_hw_queue() on every hardware queue
 * @q: the queue
 */
void blk_mq_start_hw_queues(struct request_queue *q)
{
	unsigned long n;
	struct blk_mq_hw_ctx *hw;

	queue_for_each_hw_ctx(q, hw, n)
		blk_mq_start_hw_queue(hw);
}
EXPORT_SYMBOL(blk_mq_start_hw_queues);

/**
 * blk_mq_start_stopped_hw_queue - restart a hardware queue if stopped
 * @hctx: the hardware context
 * @async: run it from kblockd (required from interrupt context)
 */
void blk_mq_start_stopped_hw_queue(struct blk_mq_hw_ctx *hctx, bool async)
{
	if (!blk_mq_hctx_stopped(hctx))
		return;
	clear_bit(BLK_MQ_S_STOPPED, &hctx->state);
	/* pairs with blk_mq_dispatch_busy() and blk_mq_hctx_parked() */
	smp_mb__after_atomic();
	blk_mq_run_hw_queue(hctx, async);
}
EXPORT_SYMBOL_GPL(blk_mq_start_stopped_hw_queue);

/**
 * blk_mq_start_stopped_hw_queues - restart every stopped hardware queue
 * @q: the queue
 * @async: run them from kblockd (required from interrupt context)
 */
void blk_mq_start_stopped_hw_queues(struct request_queue *q, bool async)
{
	unsigned long n;
	struct blk_mq_hw_ctx *hw;

	queue_for_each_hw_ctx(q, hw, n)
		blk_mq_start_stopped_hw_queue(hw, async);
}
EXPORT_SYMBOL(blk_mq_start_stopped_hw_queues);

/* ---------------------------------------------------------------------
 * Requeueing
 */

/**
 * blk_mq_add_to_requeue_list - queue a request for the requeue work
 * @rq: the request
 * @at_head: dispatch it before what is already waiting
 * @kick_requeue_list: schedule the requeue work now
 */
void blk_mq_add_to_requeue_list(struct request *rq, bool at_head,
				bool kick_requeue_list)
{
	struct request_queue *owner = rq->q;
	unsigned long irqflags;

	/* RQF_SOFTBARRIER tells the requeue work to put it back in front */
	if (at_head)
		rq->rq_flags |= RQF_SOFTBARRIER;
	spin_lock_irqsave(&owner->requeue_lock, irqflags);
	list_add(&rq->queuelist,
		 at_head ? &owner->requeue_list : owner->requeue_list.prev);
	spin_unlock_irqrestore(&owner->requeue_lock, irqflags);
	if (kick_requeue_list)
		blk_mq_kick_requeue_list(owner);
}

/**
 * blk_mq_requeue_request - give a started request back for a later retry
 * @rq: the request; the driver no longer owns it
 * @kick_requeue_list: dispatch it again soon; otherwise wait for
 *	blk_mq_kick_requeue_list()
 *
 * The request keeps its tag and goes out again before newer requests.
 */
void blk_mq_requeue_request(struct request *rq, bool kick_requeue_list)
{
	const bool front = true;	/* older than anything new */

	blk_mq_unstart_request(rq);
	blk_mq_add_to_requeue_list(rq, front, kick_requeue_list);
}
EXPORT_SYMBOL(blk_mq_requeue_request);

/* Work item: move everything on the requeue list back to dispatch. */
static void blk_mq_requeue_work(struct work_struct *work)
{
	struct delayed_work *dw = to_delayed_work(work);
	struct request_queue *q = container_of(dw, struct request_queue,
					       requeue_work);
	struct request *rq, *next;
	LIST_HEAD(list);

	spin_lock_irq(&q->requeue_lock);
	list_splice_init(&q->requeue_list, &list);
	spin_unlock_irq(&q->requeue_lock);

	/*
	 * Head requests were added to the front in reverse order of their
	 * requeueing; putting each at the front again restores it.
	 */
	list_for_each_entry_safe(rq, next, &list, queuelist) {
		bool at_head = rq->rq_flags & RQF_SOFTBARRIER;

		list_del_init(&rq->queuelist);
		rq->rq_flags &= ~RQF_SOFTBARRIER;
		blk_mq_request_bypass_insert(rq, at_head, false);
	}

	blk_mq_run_hw_queues(q, false);
}

/**
 * blk_mq_kick_requeue_list - dispatch requeued requests now
 * @q: the queue
 */
void blk_mq_kick_requeue_list(struct request_queue *q)
{
	blk_mq_delay_kick_requeue_list(q, 0);
}
EXPORT_SYMBOL(blk_mq_kick_requeue_list);

/**
 * blk_mq_delay_kick_requeue_list - dispatch requeued requests later
 * @q: the queue
 * @msecs: delay
 */
void blk_mq_delay_kick_requeue_list(struct request_queue *q,
				    unsigned long msecs)
{
	unsigned long delay = msecs ? msecs_to_jiffies(msecs) : 0;

	kblockd_mod_delayed_work_on(WORK_CPU_UNBOUND, &q->requeue_work, delay);
}
EXPORT_SYMBOL(blk_mq_delay_kick_requeue_list);

/* ---------------------------------------------------------------------
 * Submission
 */

/* Fill a fresh request from its first bio. */
static void blk_mq_bio_to_request(struct request *rq, struct bio *bio,
				  unsigned int nr_segs)
{
	rq->__sector = bio->bi_iter.bi_sector;
	/* read-ahead is a hint: do not let the driver retry it hard */
	if (bio->bi_opf & REQ_RAHEAD)
		rq->cmd_flags |= REQ_FAILFAST_MASK;
	blk_rq_bio_prep(rq, bio, nr_segs);

	/* cannot fail: the request was just set up with no crypt context */
	WARN_ON_ONCE(blk_crypto_rq_bio_prep(rq, bio, GFP_NOIO));

	blk_mq_account_start(rq);
}

/*
 * Merge @bio into a request that has not gone to the driver yet: the
 * newest one of this queue in the task's @plug, or one of the last few on
 * software context @ctx, this CPU's.  Only this CPU adds to that list and
 * the dispatcher takes requests off it under ctx->lock, which we hold, so
 * a request we find there is ours to grow.
 */
static bool blk_mq_bio_merge(struct request_queue *q, struct blk_plug *plug,
			     struct blk_mq_ctx *ctx, struct blk_mq_hw_ctx *hctx,
			     struct bio *bio, unsigned int nr_segs)
{
	struct list_head *list;
	bool merged;

	if (blk_queue_nomerges(q) || !bio_mergeable(bio))
		return false;

	if (plug && !rq_list_empty(plug->mq_list) &&
	    blk_attempt_plug_merge(q, bio, nr_segs))
		return true;

	if (!(hctx->flags & BLK_MQ_F_SHOULD_MERGE))
		return false;

	list = &ctx->rq_lists[hctx->type];
	if (list_empty_careful(list))
		return false;

	spin_lock(&ctx->lock);
	merged = blk_bio_list_merge(q, list, bio, nr_segs);
	if (merged)
		ctx->rq_merged++;
	spin_unlock(&ctx->lock);
	return merged;
}

/* Hold @rq in the task's plug; flush the plug first when it is full. */
static void blk_mq_plug_add(struct blk_plug *plug, struct request *rq)
{
	struct request *last = rq_list_peek(&plug->mq_list);

	if (plug->rq_count >= BLK_MAX_REQUEST_COUNT ||
	    (last && blk_rq_bytes(last) >= BLK_PLUG_FLUSH_SIZE)) {
		blk_mq_flush_plug_list(plug, false);
		last = NULL;
	}

	if (last && last->q != rq->q)
		plug->multiple_queues = true;
	rq_list_add(&plug->mq_list, rq);
	plug->rq_count++;
}

/**
 * blk_mq_submit_bio - turn a bio into a request and queue it
 * @bio: the bio
 *
 * Called by submit_bio_noacct() for queues without ->submit_bio.
 */
void blk_mq_submit_bio(struct bio *bio)
{
	struct request_queue *q = bdev_get_queue(bio->bi_bdev);
	struct blk_plug *plug = blk_mq_plug(bio);
	unsigned int nr_segs = 1;
	struct blk_mq_hw_ctx *hctx;
	struct blk_mq_ctx *ctx;
	struct request *rq;
	blk_status_t sts;

	bio = blk_queue_bounce(bio, q);
	/*
	 * Enter first: the limits the split checks may change while the
	 * queue is frozen, and a bio that waited for the freeze to end must
	 * be split by the new ones.
	 */
	if (unlikely(bio_queue_enter(bio)))
		return;
	if (bio_may_exceed_limits(bio, &q->limits)) {
		bio = __bio_split_to_limits(bio, &q->limits, &nr_segs);
		if (!bio)
			goto exit_queue;
	}
	if (!bio_integrity_prep(bio))
		goto exit_queue;

	/* the contexts of the CPU we run on, for the merge and the tag */
	ctx = blk_mq_get_ctx(q);
	hctx = blk_mq_map_queue(q, bio->bi_opf, ctx);
	if (blk_mq_bio_merge(q, plug, ctx, hctx, bio, nr_segs))
		goto exit_queue;

	if (q->rq_qos) {
		/* throttling may sleep, and we may wake up on another CPU */
		rq_qos_throttle(q, bio);
		ctx = blk_mq_get_ctx(q);
		hctx = blk_mq_map_queue(q, bio->bi_opf, ctx);
	}

	rq = blk_mq_get_request(q, ctx, hctx, bio->bi_opf,
				(bio->bi_opf & REQ_NOWAIT) ? BLK_MQ_REQ_NOWAIT : 0);
	if (unlikely(!rq)) {
		rq_qos_cleanup(q, bio);
		bio_wouldblock_error(bio);
		goto exit_queue;
	}

	rq_qos_track(q, rq, bio);
	blk_mq_bio_to_request(rq, bio, nr_segs);
	/* inline encryption needs a keyslot before the driver sees it */
	sts = blk_crypto_rq_get_keyslot(rq);
	if (unlikely(sts != BLK_STS_OK)) {
		bio->bi_status = sts;
		bio_endio(bio);
		blk_mq_free_request(rq);
		return;
	}

	/* PREFLUSH/FUA requests go through the flush state machine. */
	if (op_is_flush(bio->bi_opf)) {
		blk_insert_flush(rq);
		return;
	}

	if (plug) {
		blk_mq_plug_add(plug, rq);
		return;
	}

	blk_mq_issue_new(rq->mq_hctx, rq);
	return;

exit_queue:
	blk_queue_exit(q);
}

/**
 * blk_mq_flush_plug_list - queue the requests held in a plug
 * @plug: the plug
 * @from_schedule: the task is about to sleep: run queues from kblockd
 */
void blk_mq_flush_plug_list(struct blk_plug *plug, bool from_schedule)
{
	struct blk_mq_hw_ctx *hctx, *last_hctx = NULL;
	struct request *list = NULL, *rq;

	if (rq_list_empty(plug->mq_list))
		return;

	/* The plug holds the newest first: reverse to submission order. */
	while ((rq = rq_list_pop(&plug->mq_list)) != NULL)
		rq_list_add(&list, rq);
	plug->rq_count = 0;
	plug->multiple_queues = false;

	while ((rq = rq_list_pop(&list)) != NULL) {
		hctx = rq->mq_hctx;
		if (last_hctx && hctx != last_hctx) {
			if (from_schedule)
				blk_mq_run_hw_queue(last_hctx, true);
			else
				blk_mq_run_inline(last_hctx);
		}
		blk_mq_insert_request(rq);
		last_hctx = hctx;
	}

	if (from_schedule)
		blk_mq_run_hw_queue(last_hctx, true);
	else
		blk_mq_run_inline(last_hctx);
}

/**
 * blk_mq_poll - poll for completions
 * @q: the queue
 * @cookie: from the bio
 * @iob: completion batch
 * @flags: BLK_POLL_*
 *
 * The engine has no polled queues: QUEUE_FLAG_POLL is never set, so
 * nothing is found.
 */
int blk_mq_poll(struct request_queue *q, blk_qc_t cookie,
		struct io_comp_batch *iob, unsigned int flags)
{
	return 0;
}

/**
 * blk_rq_is_poll - is a request polled for completion
 * @rq: the request
 *
 * Never, with this engine.
 */
bool blk_rq_is_poll(struct request *rq)
{
	return false;
}
EXPORT_SYMBOL_GPL(blk_rq_is_poll);

/**
 * blk_execute_rq_nowait - queue a passthrough request
 * @rq: the request, from blk_mq_alloc_request()
 * @at_head: before other waiting requests
 *
 * rq->end_io, if set, is called on completion.
 */
void blk_execute_rq_nowait(struct request *rq, bool at_head)
{
	struct blk_mq_hw_ctx *hctx = rq->mq_hctx;

	WARN_ON(irqs_disabled());
	WARN_ON(!blk_rq_is_passthrough(rq));

	blk_mq_account_start(rq);
	if (at_head)
		blk_mq_request_bypass_insert(rq, true, false);
	else
		blk_mq_insert_request(rq);
	blk_mq_run_hw_queue(hctx, false);
}
EXPORT_SYMBOL_GPL(blk_execute_rq_nowait);

struct blk_mq_sync_wait {
	struct completion done;
	blk_status_t status;
};

static enum rq_end_io_ret blk_mq_sync_end_io(struct request *rq,
					     blk_status_t status)
{
	struct blk_mq_sync_wait *wait = rq->end_io_data;

	wait->status = status;
	complete(&wait->done);
	return RQ_END_IO_NONE;
}

/**
 * blk_execute_rq - queue a passthrough request and wait for it
 * @rq: the request, from blk_mq_alloc_request()
 * @at_head: before other waiting requests
 *
 * The caller frees @rq afterwards.
 *
 * Return: the request's status.
 */
blk_status_t blk_execute_rq(struct request *rq, bool at_head)
{
	struct blk_mq_sync_wait wait = {
		.done = COMPLETION_INITIALIZER_ONSTACK(wait.done),
	};
	unsigned long hang_check = sysctl_hung_task_timeout_secs;

	rq->end_io_data = &wait;
	rq->end_io = blk_mq_sync_end_io;
	blk_execute_rq_nowait(rq, at_head);

	/* wake up now and then so the hung task detector stays quiet */
	if (hang_check)
		while (!wait_for_completion_io_timeout(&wait.done,
						       hang_check * (HZ / 2)))
			;
	else
		wait_for_completion_io(&wait.done);
	return wait.status;
}
EXPORT_SYMBOL(blk_execute_rq);

/* ---------------------------------------------------------------------
 * Small helpers drivers use
 */

/**
 * blk_mq_unique_tag - tag and hardware queue of a request in one number
 * @rq: the request
 */
u32 blk_mq_unique_tag(struct request *rq)
{
	return (rq->mq_hctx->queue_num << BLK_MQ_UNIQUE_TAG_BITS) |
		(rq->tag & BLK_MQ_UNIQUE_TAG_MASK);
}
EXPORT_SYMBOL(blk_mq_unique_tag);

/**
 * blk_mq_rq_cpu - the CPU a request was submitted on
 * @rq: the request
 */
unsigned int blk_mq_rq_cpu(struct request *rq)
{
	return rq->mq_ctx->cpu;
}
EXPORT_SYMBOL(blk_mq_rq_cpu);

struct blk_mq_busy_iter {
	busy_tag_iter_fn *fn;
	void *priv;
};

/**
 * blk_mq_tagset_busy_iter - call @fn for each started request of a set
 * @set: the tag set
 * @fn: callback; return false to stop
 * @priv: passed to @fn
 */
void blk_mq_tagset_busy_iter(struct blk_mq_tag_set *set,
			     busy_tag_iter_fn *fn, void *priv)
{
	unsigned int i, tag;

	for (i = 0; i < set->nr_hw_queues; i++) {
		struct blk_mq_tags *tags = set->tags[i];

		if (!tags || (i && tags == set->tags[i - 1]))
			continue;
		for (tag = 0; tag < tags->nr_tags; tag++) {
			struct request *rq = blk_mq_tag_get_rq(tags, tag);
			bool more = true;

			if (!rq)
				continue;
			if (blk_mq_request_started(rq))
				more = fn(rq, priv);
			blk_mq_put_rq_ref(rq);
			if (!more)
				return;
		}
	}
}
EXPORT_SYMBOL(blk_mq_tagset_busy_iter);

static bool blk_mq_rq_completing(struct request *rq, void *data)
{
	bool *completing = data;

	if (blk_mq_rq_state(rq) != MQ_RQ_COMPLETE)
		return true;
	*completing = true;
	return false;
}

/**
 * blk_mq_tagset_wait_completed_request - wait for completions under way
 * @tagset: the tag set
 *
 * A driver that ends its requests itself, e.g. from
 * blk_mq_tagset_busy_iter() when the controller is gone, may find their
 * completion still running on another CPU.  Sleep until no request of
 * @tagset is between blk_mq_complete_request() and its end.
 */
void blk_mq_tagset_wait_completed_request(struct blk_mq_tag_set *tagset)
{
	bool completing;

	do {
		completing = false;
		blk_mq_tagset_busy_iter(tagset, blk_mq_rq_completing,
					&completing);
		if (completing)
			usleep_range(2000, 5000);
	} while (completing);
}
EXPORT_SYMBOL(blk_mq_tagset_wait_completed_request);

/* ---------------------------------------------------------------------
 * Quiescing
 */

/**
 * blk_mq_quiesce_queue_nowait - stop dispatching, don't wait
 * @q: the queue
 */
void blk_mq_quiesce_queue_nowait(struct request_queue *q)
{
	unsigned long irqflags;

	spin_lock_irqsave(&q->queue_lock, irqflags);
	/* only the outermost quiesce changes the flag */
	if (q->quiesce_depth++ == 0)
		blk_queue_flag_set(QUEUE_FLAG_QUIESCED, q);
	spin_unlock_irqrestore(&q->queue_lock, irqflags);
}
EXPORT_SYMBOL_GPL(blk_mq_quiesce_queue_nowait);

/**
 * blk_mq_wait_quiesce_done - wait for dispatches that began before a quiesce
 * @q: the queue, with QUEUE_FLAG_QUIESCED set
 *
 * See blk_mq_dispatch_begin(): a grace period of the kind the queue's
 * dispatches hold.
 */
void blk_mq_wait_quiesce_done(struct request_queue *q)
{
	if (blk_queue_has_srcu(q))
		synchronize_srcu(q->srcu);
	else
		synchronize_rcu();
}
EXPORT_SYMBOL_GPL(blk_mq_wait_quiesce_done);

/**
 * blk_mq_quiesce_queue - stop dispatching and wait until ->queue_rq() is idle
 * @q: the queue
 */
void blk_mq_quiesce_queue(struct request_queue *q)
{
	blk_mq_quiesce_queue_nowait(q);
	/* the flag is up; now sit out whoever is still in ->queue_rq() */
	blk_mq_wait_quiesce_done(q);
}
EXPORT_SYMBOL_GPL(blk_mq_quiesce_queue);

/**
 * blk_mq_unquiesce_queue - undo one blk_mq_quiesce_queue()
 * @q: the queue
 */
void blk_mq_unquiesce_queue(struct request_queue *q)
{
	bool resume = false;
	unsigned long irqflags;

	spin_lock_irqsave(&q->queue_lock, irqflags);
	if (!WARN_ON_ONCE(q->quiesce_depth <= 0) && --q->quiesce_depth == 0) {
		blk_queue_flag_clear(QUEUE_FLAG_QUIESCED, q);
		resume = true;
	}
	spin_unlock_irqrestore(&q->queue_lock, irqflags);

	/* what queued up meanwhile goes out now */
	if (resume) {
		/* the flag cleared before the look for work: see blk_mq_hctx_parked() */
		smp_mb();
		blk_mq_run_hw_queues(q, true);
	}
}
EXPORT_SYMBOL_GPL(blk_mq_unquiesce_queue);

/**
 * blk_mq_wake_waiters - wake tasks waiting for tags, e.g. on a dying queue
 * @q: the queue
 */
void blk_mq_wake_waiters(struct request_queue *q)
{
	unsigned long n;
	struct blk_mq_hw_ctx *hw;

	queue_for_each_hw_ctx(q, hw, n)
		blk_mq_tag_wakeup_all(hw->tags);
}

/**
 * blk_mq_cancel_work_sync - wait for and cancel the queue's work items
 * @q: the queue
 */
void blk_mq_cancel_work_sync(struct request_queue *q)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;

	if (!queue_is_mq(q))
		return;
	cancel_delayed_work_sync(&q->requeue_work);
	queue_for_each_hw_ctx(q, hctx, i)
		cancel_delayed_work_sync(&hctx->run_work);
}

/* ---------------------------------------------------------------------
 * CPU hotplug
 */

/* Does a request of @hctx hold a tag?  Tags may be shared with others. */
bool blk_mq_hctx_holds_tags(struct blk_mq_hw_ctx *hctx)
{
	struct blk_mq_tags *tags = hctx->tags;
	unsigned int tag;

	for (tag = 0; tag < tags->nr_tags; tag++)
		if (blk_mq_tag_in_use(tags, tag) &&
		    READ_ONCE(tags->static_rqs[tag]->mq_hctx) == hctx)
			return true;
	return false;
}

/*
 * @cpu is going offline; this runs on it, from the hotplug thread, after
 * every other task has been moved away.  If it is the last online CPU of
 * @hctx, a driver with managed interrupts (nvme-pci, virtio-blk) loses
 * @hctx's completion vector with it, and a request still in flight there
 * would never complete.  So no new request may take a tag here from now
 * on, and we wait until every request that holds one has ended.
 */
static int blk_mq_hctx_drain(unsigned int cpu, struct hlist_node *node)
{
	struct blk_mq_hw_ctx *hctx =
		hlist_entry_safe(node, struct blk_mq_hw_ctx, cpuhp_online);
	struct request_queue *q = hctx->queue;

	/* @cpu still counts as online here: is it the only one left? */
	if (!cpumask_test_cpu(cpu, hctx->cpumask) ||
	    cpumask_weight_and(hctx->cpumask, cpu_online_mask) > 1)
		return 0;

	set_bit(BLK_MQ_S_INACTIVE, &hctx->state);
	/*
	 * Pairs with the barrier in blk_mq_tag_on_inactive(): a tag taken
	 * before its taker saw the bit is seen by blk_mq_hctx_holds_tags().
	 */
	smp_mb__after_atomic();

	/* A queue that cannot be entered is drained already. */
	if (percpu_ref_tryget(&q->q_usage_counter)) {
		while (blk_mq_hctx_holds_tags(hctx))
			usleep_range(5000, 10000);
		blk_queue_exit(q);
	}
	return 0;
}

/* A CPU of @hctx is back: it may take requests again. */
static int blk_mq_hctx_activate(unsigned int cpu, struct hlist_node *node)
{
	struct blk_mq_hw_ctx *hctx =
		hlist_entry_safe(node, struct blk_mq_hw_ctx, cpuhp_online);

	if (cpumask_test_cpu(cpu, hctx->cpumask))
		clear_bit(BLK_MQ_S_INACTIVE, &hctx->state);
	return 0;
}

/*
 * A CPU is dead: nothing will submit on its software context any more,
 * but requests may still be queued there.  Move them to the hardware
 * context and run it; they are not lost, only no longer per CPU.
 */
static int blk_mq_hctx_notify_dead(unsigned int cpu, struct hlist_node *node)
{
	struct blk_mq_hw_ctx *hctx =
		hlist_entry_safe(node, struct blk_mq_hw_ctx, cpuhp_dead);
	struct blk_mq_ctx *ctx;
	unsigned int type = hctx->type;
	LIST_HEAD(moved);

	if (!cpumask_test_cpu(cpu, hctx->cpumask))
		return 0;
	ctx = __blk_mq_get_ctx(hctx->queue, cpu);
	if (ctx->hctxs[type] != hctx)
		return 0;

	spin_lock(&ctx->lock);
	list_splice_init(&ctx->rq_lists[type], &moved);
	clear_bit(ctx->index_hw[type], hctx->ctx_map);
	spin_unlock(&ctx->lock);

	if (list_empty(&moved))
		return 0;

	spin_lock(&hctx->lock);
	list_splice_tail_init(&moved, &hctx->dispatch);
	spin_unlock(&hctx->lock);

	blk_mq_run_hw_queue(hctx, true);
	return 0;
}

/* ---------------------------------------------------------------------
 * Tag sets: tags and preallocated requests
 */

static void blk_mq_free_rqs(struct blk_mq_tag_set *set,
			    struct blk_mq_tags *tags, unsigned int hctx_idx)
{
	unsigned int i;

	if (!tags->rq_mem)
		return;
	for (i = 0; i < tags->nr_tags; i++) {
		struct request *rq = tags->static_rqs[i];

		if (rq && set->ops->exit_request)
			set->ops->exit_request(set, rq, hctx_idx);
		tags->static_rqs[i] = NULL;
		tags->rqs[i] = NULL;
	}
	kvfree(tags->rq_mem);
	tags->rq_mem = NULL;
}

/*
 * Allocate the tags of hardware queue @hctx_idx and one request, with the
 * driver payload behind it, per tag.
 */
static struct blk_mq_tags *blk_mq_alloc_hw_tags(struct blk_mq_tag_set *set,
						unsigned int hctx_idx)
{
	int node = blk_mq_hw_queue_to_node(&set->map[HCTX_TYPE_DEFAULT],
					   hctx_idx);
	size_t rq_size = round_up(sizeof(struct request) + set->cmd_size,
				  cache_line_size());
	struct blk_mq_tags *tags;
	unsigned int i;

	if (node == NUMA_NO_NODE)
		node = set->numa_node;

	tags = blk_mq_init_tags(set->queue_depth, set->reserved_tags, node);
	if (!tags)
		return NULL;

	tags->rq_mem = kvzalloc_node(rq_size * set->queue_depth, GFP_KERNEL,
				     node);
	if (!tags->rq_mem)
		goto fail;

	for (i = 0; i < set->queue_depth; i++) {
		struct request *rq = tags->rq_mem + i * rq_size;

		rq->tag = i;
		rq->internal_tag = BLK_MQ_NO_TAG;
		WRITE_ONCE(rq->state, MQ_RQ_IDLE);
		if (set->ops->init_request &&
		    set->ops->init_request(set, rq, hctx_idx, node))
			goto fail;
		tags->static_rqs[i] = rq;
	}
	return tags;

fail:
	blk_mq_free_rqs(set, tags, hctx_idx);
	blk_mq_free_tags(tags);
	return NULL;
}

static void blk_mq_free_set_tags(struct blk_mq_tag_set *set)
{
	unsigned int i;

	if (!set->tags)
		return;
	for (i = 0; i < set->nr_hw_queues; i++) {
		struct blk_mq_tags *tags = set->tags[i];

		if (!tags || tags == set->shared_tags)
			continue;
		blk_mq_free_rqs(set, tags, i);
		blk_mq_free_tags(tags);
	}
	if (set->shared_tags) {
		blk_mq_free_rqs(set, set->shared_tags, 0);
		blk_mq_free_tags(set->shared_tags);
		set->shared_tags = NULL;
	}
	kfree(set->tags);
	set->tags = NULL;
}

static int blk_mq_alloc_set_tags(struct blk_mq_tag_set *set)
{
	unsigned int i;

	set->tags = kcalloc_node(set->nr_hw_queues, sizeof(*set->tags),
				 GFP_KERNEL, set->numa_node);
	if (!set->tags)
		return -ENOMEM;

	if (set->flags & BLK_MQ_F_TAG_HCTX_SHARED) {
		set->shared_tags = blk_mq_alloc_hw_tags(set, 0);
		if (!set->shared_tags)
			goto fail;
	}

	for (i = 0; i < set->nr_hw_queues; i++) {
		set->tags[i] = set->shared_tags ?: blk_mq_alloc_hw_tags(set, i);
		if (!set->tags[i])
			goto fail;
	}
	return 0;

fail:
	blk_mq_free_set_tags(set);
	return -ENOMEM;
}

/* Build the CPU -> hardware queue maps, by the driver or by default. */
static void blk_mq_build_maps(struct blk_mq_tag_set *set)
{
	unsigned int i, cpu;

	if (set->ops->map_queues) {
		/* drivers fill in only the CPUs they care about */
		for (i = 0; i < set->nr_maps; i++)
			for_each_possible_cpu(cpu)
				set->map[i].mq_map[cpu] = 0;
		set->ops->map_queues(set);
	} else {
		WARN_ON_ONCE(set->nr_maps > 1);
		blk_mq_map_queues(&set->map[HCTX_TYPE_DEFAULT]);
	}
}

/**
 * blk_mq_alloc_tag_set - allocate tags and requests for a driver
 * @set: the tag set, filled in by the driver: ops, nr_hw_queues,
 *	queue_depth, reserved_tags, cmd_size, numa_node, timeout, flags,
 *	nr_maps (and driver_data)
 *
 * Return: 0 or a negative errno.
 */
int blk_mq_alloc_tag_set(struct blk_mq_tag_set *set)
{
	unsigned int i;
	int ret;

	if (!set->nr_hw_queues || !set->queue_depth || !set->ops ||
	    !set->ops->queue_rq)
		return -EINVAL;
	if (set->reserved_tags >= set->queue_depth)
		return -EINVAL;
	/* a driver that names no maps gets the default one */
	if (set->nr_maps > HCTX_MAX_TYPES)
		return -EINVAL;
	set->nr_maps = max(set->nr_maps, 1U);

	if (set->queue_depth > BLK_MQ_MAX_DEPTH) {
		pr_info("blk-mq: reduced tag depth to %u\n", BLK_MQ_MAX_DEPTH);
		set->queue_depth = BLK_MQ_MAX_DEPTH;
	}
	/* with a single map, more queues than CPUs would stay unused */
	if (set->nr_maps == 1 && set->nr_hw_queues > nr_cpu_ids)
		set->nr_hw_queues = nr_cpu_ids;

	for (i = 0; i < set->nr_maps; i++) {
		set->map[i].mq_map = kcalloc_node(nr_cpu_ids,
						  sizeof(*set->map[i].mq_map),
						  GFP_KERNEL, set->numa_node);
		if (!set->map[i].mq_map) {
			ret = -ENOMEM;
			goto free_maps;
		}
		set->map[i].nr_queues = set->nr_hw_queues;
		set->map[i].queue_offset = 0;
	}
	blk_mq_build_maps(set);

	ret = blk_mq_alloc_set_tags(set);
	if (ret)
		goto free_maps;

	mutex_init(&set->tag_list_lock);
	INIT_LIST_HEAD(&set->tag_list);
	return 0;

free_maps:
	for (i = 0; i < set->nr_maps; i++) {
		kfree(set->map[i].mq_map);
		set->map[i].mq_map = NULL;
	}
	return ret;
}
EXPORT_SYMBOL(blk_mq_alloc_tag_set);

/**
 * blk_mq_alloc_sq_tag_set - allocate a tag set with one hardware queue
 * @set: the tag set
 * @ops: driver callbacks
 * @queue_depth: tags
 * @set_flags: BLK_MQ_F_*
 */
int blk_mq_alloc_sq_tag_set(struct blk_mq_tag_set *set,
			    const struct blk_mq_ops *ops,
			    unsigned int queue_depth, unsigned int set_flags)
{
	*set = (struct blk_mq_tag_set) {
		.ops		= ops,
		.flags		= set_flags,
		.queue_depth	= queue_depth,
		.nr_hw_queues	= 1,	/* one queue, one map */
		.nr_maps	= 1,
		.numa_node	= NUMA_NO_NODE,
	};
	return blk_mq_alloc_tag_set(set);
}
EXPORT_SYMBOL_GPL(blk_mq_alloc_sq_tag_set);

/**
 * blk_mq_free_tag_set - free what blk_mq_alloc_tag_set() allocated
 * @set: the tag set; no queue may use it any more
 */
void blk_mq_free_tag_set(struct blk_mq_tag_set *set)
{
	unsigned int i;

	blk_mq_free_set_tags(set);
	for (i = 0; i < set->nr_maps; i++) {
		kfree(set->map[i].mq_map);
		set->map[i].mq_map = NULL;
	}
}
EXPORT_SYMBOL(blk_mq_free_tag_set);

/**
 * blk_mq_update_nr_hw_queues - change the number of hardware queues
 * @set: the tag set
 * @nr_hw_queues: the new number
 *
 * Not supported by this engine yet: the set keeps its queues.
 */
void blk_mq_update_nr_hw_queues(struct blk_mq_tag_set *set, int nr_hw_queues)
{
	if (nr_hw_queues != set->nr_hw_queues)
		pr_warn("blk-mq: changing the number of hardware queues is not supported\n");
}
EXPORT_SYMBOL_GPL(blk_mq_update_nr_hw_queues);

/**
 * blk_mq_update_nr_requests - change the depth of a queue (sysfs nr_requests)
 * @q: the queue
 * @nr: tags per hardware queue, at most the tag set's depth
 */
int blk_mq_update_nr_requests(struct request_queue *q, unsigned int nr)
{
	struct blk_mq_tags *last = NULL;
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;
	int ret = 0;

	if (q->nr_requests == nr)
		return 0;
	if (nr > q->tag_set->queue_depth)
		return -EINVAL;

	blk_mq_freeze_queue(q);
	blk_mq_quiesce_queue(q);
	queue_for_each_hw_ctx(q, hctx, i) {
		if (hctx->tags == last)
			continue;
		last = hctx->tags;
		ret = blk_mq_tag_update_depth(hctx->tags, nr);
		if (ret)
			break;
	}
	if (!ret)
		q->nr_requests = nr;
	blk_mq_unquiesce_queue(q);
	blk_mq_unfreeze_queue(q);
	return ret;
}

/* ---------------------------------------------------------------------
 * Request queues: hardware and software contexts
 */

static struct blk_mq_hw_ctx *blk_mq_alloc_hctx(struct request_queue *q,
					       struct blk_mq_tag_set *set,
					       unsigned int idx, int node)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned int t;

	hctx = kzalloc_node(sizeof(*hctx), GFP_KERNEL, node);
	if (!hctx)
		return NULL;
	if (!zalloc_cpumask_var_node(&hctx->cpumask, GFP_KERNEL, node))
		goto free_hctx;
	hctx->ctxs = kcalloc_node(nr_cpu_ids, sizeof(*hctx->ctxs), GFP_KERNEL,
				  node);
	hctx->ctx_map = bitmap_zalloc_node(nr_cpu_ids, GFP_KERNEL, node);
	if (!hctx->ctxs || !hctx->ctx_map)
		goto free_arrays;

	spin_lock_init(&hctx->lock);
	INIT_LIST_HEAD(&hctx->dispatch);
	INIT_DELAYED_WORK(&hctx->run_work, blk_mq_run_work_fn);
	hctx->queue = q;
	hctx->queue_num = idx;
	hctx->numa_node = node;
	hctx->flags = set->flags & ~BLK_MQ_F_TAG_QUEUE_SHARED;
	hctx->tags = set->tags[idx];
	atomic_set(&hctx->nr_busy, 0);

	/* the type whose part of the queue index space holds @idx */
	hctx->type = HCTX_TYPE_DEFAULT;
	for (t = 0; t < set->nr_maps; t++) {
		struct blk_mq_queue_map *map = &set->map[t];

		if (map->nr_queues && idx >= map->queue_offset &&
		    idx < map->queue_offset + map->nr_queues) {
			hctx->type = t;
			break;
		}
	}

	hctx->fq = blk_alloc_flush_queue(node, set->cmd_size, GFP_KERNEL);
	if (!hctx->fq)
		goto free_arrays;

	blk_mq_hctx_kobj_init(hctx);
	return hctx;

free_arrays:
	bitmap_free(hctx->ctx_map);
	kfree(hctx->ctxs);
	free_cpumask_var(hctx->cpumask);
free_hctx:
	kfree(hctx);
	return NULL;
}

/* Free what blk_mq_alloc_hctx() allocated; called from the kobject release. */
void blk_mq_free_hctx(struct blk_mq_hw_ctx *hctx)
{
	blk_free_flush_queue(hctx->fq);
	bitmap_free(hctx->ctx_map);
	kfree(hctx->ctxs);
	free_cpumask_var(hctx->cpumask);
	kfree(hctx);
}

static int blk_mq_init_hctx(struct request_queue *q, struct blk_mq_tag_set *set,
			    struct blk_mq_hw_ctx *hctx, unsigned int idx)
{
	if (set->ops->init_hctx &&
	    set->ops->init_hctx(hctx, set->driver_data, idx))
		return -ENODEV;

	/* the flush request carries a driver payload too */
	if (set->ops->init_request &&
	    set->ops->init_request(set, hctx->fq->flush_rq, idx,
				   hctx->numa_node))
		goto exit_hctx;

	if (xa_insert(&q->hctx_table, idx, hctx, GFP_KERNEL))
		goto exit_request;

	/* a stacked driver's queues below it drain themselves */
	if (!(hctx->flags & BLK_MQ_F_STACKING))
		cpuhp_state_add_instance_nocalls(CPUHP_AP_BLK_MQ_ONLINE,
						 &hctx->cpuhp_online);
	cpuhp_state_add_instance_nocalls(CPUHP_BLK_MQ_DEAD, &hctx->cpuhp_dead);
	return 0;

exit_request:
	if (set->ops->exit_request)
		set->ops->exit_request(set, hctx->fq->flush_rq, idx);
exit_hctx:
	if (set->ops->exit_hctx)
		set->ops->exit_hctx(hctx, idx);
	return -ENOMEM;
}

static void blk_mq_exit_hctx(struct request_queue *q,
			     struct blk_mq_tag_set *set,
			     struct blk_mq_hw_ctx *hctx, unsigned int idx)
{
	struct request *flush_rq = hctx->fq->flush_rq;
	struct blk_mq_tags *tags = hctx->tags;
	unsigned long flags;
	unsigned int tag;

	/*
	 * The flush request goes away with the queue but the tags stay with
	 * the set: forget any tag it borrowed, so tag iterators of other
	 * queues on the set never see it, and wait out an iterator that
	 * loaded it under tags->lock (blk_mq_tag_get_rq()).
	 */
	for (tag = 0; tag < tags->nr_tags; tag++)
		cmpxchg(&tags->rqs[tag], flush_rq, NULL);
	spin_lock_irqsave(&tags->lock, flags);
	spin_unlock_irqrestore(&tags->lock, flags);

	if (!(hctx->flags & BLK_MQ_F_STACKING))
		cpuhp_state_remove_instance_nocalls(CPUHP_AP_BLK_MQ_ONLINE,
						    &hctx->cpuhp_online);
	cpuhp_state_remove_instance_nocalls(CPUHP_BLK_MQ_DEAD,
					    &hctx->cpuhp_dead);
	if (set->ops->exit_request)
		set->ops->exit_request(set, hctx->fq->flush_rq, idx);
	if (set->ops->exit_hctx)
		set->ops->exit_hctx(hctx, idx);
}

/*
 * Attach every possible CPU's software context to the hardware context
 * it maps to, per queue type.  Types the driver has no map for (or an
 * empty one) use the default map's hardware context.
 */
static void blk_mq_map_ctxs(struct request_queue *q)
{
	struct blk_mq_tag_set *set = q->tag_set;
	unsigned int cpu, t;

	for_each_possible_cpu(cpu) {
		struct blk_mq_ctx *ctx = __blk_mq_get_ctx(q, cpu);

		for (t = 0; t < HCTX_MAX_TYPES; t++) {
			struct blk_mq_queue_map *map = &set->map[t];
			struct blk_mq_hw_ctx *hctx;

			if (t == HCTX_TYPE_POLL || t >= set->nr_maps ||
			    !map->nr_queues) {
				ctx->hctxs[t] = ctx->hctxs[HCTX_TYPE_DEFAULT];
				ctx->index_hw[t] = ctx->index_hw[HCTX_TYPE_DEFAULT];
				continue;
			}

			hctx = xa_load(&q->hctx_table, map->mq_map[cpu]);
			if (WARN_ON_ONCE(!hctx))
				hctx = xa_load(&q->hctx_table, 0);
			ctx->hctxs[t] = hctx;
			/*
			 * Types may share hardware contexts (a READ map equal
			 * to the default one): a context holds each CPU once,
			 * or ctxs[] and ctx_map, sized for nr_cpu_ids, overrun.
			 */
			if (cpumask_test_cpu(cpu, hctx->cpumask)) {
				ctx->index_hw[t] = ctx->index_hw[hctx->type];
				continue;
			}
			ctx->index_hw[t] = hctx->nr_ctx;
			hctx->ctxs[hctx->nr_ctx++] = ctx;
			hctx->type = t;
			cpumask_set_cpu(cpu, hctx->cpumask);
		}
	}
}

static int blk_mq_alloc_ctxs(struct request_queue *q)
{
	unsigned int cpu, t;

	/* zeroed, and freed with the "mq" directory's kobject */
	if (blk_mq_sysfs_init(q))
		return -ENOMEM;

	for_each_possible_cpu(cpu) {
		struct blk_mq_ctx *ctx = __blk_mq_get_ctx(q, cpu);

		spin_lock_init(&ctx->lock);
		for (t = 0; t < HCTX_MAX_TYPES; t++)
			INIT_LIST_HEAD(&ctx->rq_lists[t]);
		ctx->cpu = cpu;
		ctx->queue = q;
	}
	return 0;
}

/* Undo blk_mq_init_hctx() for hardware contexts 0 .. @nr - 1. */
static void blk_mq_exit_hctxs(struct request_queue *q, unsigned int nr)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;

	queue_for_each_hw_ctx(q, hctx, i) {
		if (i >= nr)
			break;
		blk_mq_exit_hctx(q, q->tag_set, hctx, i);
	}
}

/**
 * blk_mq_init_allocated_queue - set up the engine on a new request queue
 * @set: the driver's tag set
 * @q: the queue, from blk_alloc_queue(); with its srcu_struct if @set has
 *	BLK_MQ_F_BLOCKING
 *
 * Return: 0 or a negative errno.
 */
int blk_mq_init_allocated_queue(struct blk_mq_tag_set *set,
				struct request_queue *q)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned long j;
	unsigned int i;
	int ret = -ENOMEM;

	/* a blocking driver's dispatches hold q->srcu: blk_alloc_queue() */
	if (WARN_ON_ONCE((set->flags & BLK_MQ_F_BLOCKING) &&
			 !blk_queue_has_srcu(q)))
		return -EINVAL;

	q->mq_ops = set->ops;
	q->tag_set = set;
	xa_init(&q->hctx_table);

	if (blk_mq_alloc_ctxs(q))
		return -ENOMEM;

	for (i = 0; i < set->nr_hw_queues; i++) {
		int node = blk_mq_hw_queue_to_node(&set->map[HCTX_TYPE_DEFAULT],
						   i);

		if (node == NUMA_NO_NODE)
			node = set->numa_node;
		hctx = blk_mq_alloc_hctx(q, set, i, node);
		if (!hctx)
			goto fail;
		if (blk_mq_init_hctx(q, set, hctx, i)) {
			kobject_put(&hctx->kobj);
			goto fail;
		}
	}
	q->nr_hw_queues = set->nr_hw_queues;
	blk_mq_map_ctxs(q);

	INIT_WORK(&q->timeout_work, blk_mq_timeout_work);
	blk_queue_rq_timeout(q, set->timeout ? set->timeout : 30 * HZ);

	spin_lock_init(&q->requeue_lock);
	INIT_LIST_HEAD(&q->requeue_list);
	INIT_DELAYED_WORK(&q->requeue_work, blk_mq_requeue_work);

	q->nr_requests = set->queue_depth;
	q->queue_flags |= QUEUE_FLAG_MQ_DEFAULT;

	mutex_lock(&set->tag_list_lock);
	list_add_tail(&q->tag_set_list, &set->tag_list);
	mutex_unlock(&set->tag_list_lock);
	return 0;

fail:
	blk_mq_exit_hctxs(q, i);
	queue_for_each_hw_ctx(q, hctx, j) {
		xa_erase(&q->hctx_table, j);
		kobject_put(&hctx->kobj);
	}
	blk_mq_sysfs_deinit(q);
	q->mq_ops = NULL;
	return ret;
}
EXPORT_SYMBOL(blk_mq_init_allocated_queue);

/**
 * blk_mq_exit_queue - the driver is going away: detach it from a queue
 * @q: the queue, frozen and without requests
 */
void blk_mq_exit_queue(struct request_queue *q)
{
	struct blk_mq_tag_set *set = q->tag_set;

	blk_mq_exit_hctxs(q, set->nr_hw_queues);

	mutex_lock(&set->tag_list_lock);
	list_del_init(&q->tag_set_list);
	mutex_unlock(&set->tag_list_lock);
}

/**
 * blk_mq_release - free the engine's part of a queue on its last put
 * @q: the queue
 */
void blk_mq_release(struct request_queue *q)
{
	unsigned long idx;
	struct blk_mq_hw_ctx *hw;

	/* the kobject release frees each hardware context */
	queue_for_each_hw_ctx(q, hw, idx) {
		xa_erase(&q->hctx_table, idx);
		kobject_put(&hw->kobj);
	}
	xa_destroy(&q->hctx_table);
	blk_mq_sysfs_deinit(q);
}

static struct request_queue *blk_mq_init_queue_data(struct blk_mq_tag_set *set,
						    void *queuedata)
{
	bool blocking = set->flags & BLK_MQ_F_BLOCKING;
	struct request_queue *nq = blk_alloc_queue(set->numa_node, blocking);
	int err;

	if (!nq)
		return ERR_PTR(-ENOMEM);
	nq->queuedata = queuedata;
	err = blk_mq_init_allocated_queue(set, nq);
	if (!err)
		return nq;
	blk_put_queue(nq);
	return ERR_PTR(err);
}

/**
 * blk_mq_init_queue - create a request queue without a disk
 * @set: the driver's tag set
 *
 * Return: the queue or an ERR_PTR(); tear down with blk_mq_destroy_queue()
 * and blk_put_queue().
 */
struct request_queue *blk_mq_init_queue(struct blk_mq_tag_set *set)
{
	/* no queuedata: such queues are found through their driver */
	return blk_mq_init_queue_data(set, NULL);
}
EXPORT_SYMBOL(blk_mq_init_queue);

/**
 * blk_mq_destroy_queue - shut down a queue from blk_mq_init_queue()
 * @q: the queue
 *
 * Fails new I/O, waits for what is in flight and detaches the driver.
 * The caller still holds its reference.
 */
void blk_mq_destroy_queue(struct request_queue *q)
{
	might_sleep();
	/* only for engine queues, and only once their disk is gone */
	WARN_ON_ONCE(!queue_is_mq(q) || blk_queue_registered(q));

	/* 1: refuse new I/O and wait out what is in flight */
	blk_queue_flag_set(QUEUE_FLAG_DYING, q);
	blk_queue_start_drain(q);
	blk_mq_freeze_queue_wait(q);
	/* 2: no timer or work may run after this */
	blk_sync_queue(q);
	blk_mq_cancel_work_sync(q);
	/* 3: detach the hardware contexts and the tag set */
	blk_mq_exit_queue(q);
}
EXPORT_SYMBOL(blk_mq_destroy_queue);

/**
 * __blk_mq_alloc_disk - create a disk with its own request queue
 * @set: the driver's tag set
 * @queuedata: becomes q->queuedata
 * @lkclass: lockdep class of the disk
 *
 * Return: the disk or an ERR_PTR().
 */
struct gendisk *__blk_mq_alloc_disk(struct blk_mq_tag_set *set, void *queuedata,
				    struct lock_class_key *lkclass)
{
	struct request_queue *nq = blk_mq_init_queue_data(set, queuedata);
	struct gendisk *gd;

	if (IS_ERR(nq))
		return ERR_CAST(nq);
	gd = __alloc_disk_node(nq, set->numa_node, lkclass);
	if (likely(gd)) {
		/* the disk tears the queue down when it goes */
		set_bit(GD_OWNS_QUEUE, &gd->state);
		return gd;
	}
	blk_mq_destroy_queue(nq);
	blk_put_queue(nq);
	return ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL(__blk_mq_alloc_disk);

/**
 * blk_mq_alloc_disk_for_queue - create a disk for an existing queue
 * @q: the queue, from blk_mq_init_queue()
 * @lkclass: lockdep class of the disk
 *
 * Return: the disk or NULL.
 */
struct gendisk *blk_mq_alloc_disk_for_queue(struct request_queue *q,
					    struct lock_class_key *lkclass)
{
	struct gendisk *gd = NULL;

	/* the disk holds its own queue reference; the caller keeps theirs */
	if (blk_get_queue(q)) {
		gd = __alloc_disk_node(q, NUMA_NO_NODE, lkclass);
		if (!gd)
			blk_put_queue(q);
	}
	return gd;
}
EXPORT_SYMBOL(blk_mq_alloc_disk_for_queue);

static int __init blk_mq_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		init_llist_head(&per_cpu(blk_mq_done_list, cpu));
		INIT_CSD(&per_cpu(blk_mq_done_csd, cpu), blk_mq_done_ipi, NULL);
	}
	open_softirq(BLOCK_SOFTIRQ, blk_mq_done_softirq);

	cpuhp_setup_state_nocalls(CPUHP_BLOCK_SOFTIRQ_DEAD,
				  "block/softirq:dead", NULL,
				  blk_mq_done_cpu_dead);
	cpuhp_setup_state_multi(CPUHP_AP_BLK_MQ_ONLINE, "block/mq:online",
				blk_mq_hctx_activate, blk_mq_hctx_drain);
	cpuhp_setup_state_multi(CPUHP_BLK_MQ_DEAD, "block/mq:dead", NULL,
				blk_mq_hctx_notify_dead);
	return 0;
}
subsys_initcall(blk_mq_init);
