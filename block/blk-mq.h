/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interface of the multiqueue engine, for block/ only.
 */
#ifndef INT_BLK_MQ_H
#define INT_BLK_MQ_H

#include <linux/blk-mq.h>
#include "blk.h"
#include "blk-stat.h"
#include "blk-mq-tag.h"
#include "elevator.h"

struct blk_mq_tag_set;

/*
 * struct blk_mq_ctx - software submission context, one per CPU and queue.
 *
 * A task queues requests on the context of the CPU it runs on.  Only that
 * CPU takes @lock on the submission side; the hardware context takes it
 * briefly to splice @rq_list away when it dispatches, and CPU hotplug
 * takes it once when the CPU is gone.
 */
struct blk_mq_ctx {
	spinlock_t		lock;		/* protects rq_lists */
	/* queued, not yet dispatched, one list per hardware context type */
	struct list_head	rq_lists[HCTX_MAX_TYPES];

	unsigned int		cpu;
	/* bit of this context in hctxs[type]->ctx_map */
	unsigned short		index_hw[HCTX_MAX_TYPES];
	struct blk_mq_hw_ctx	*hctxs[HCTX_MAX_TYPES];

	/* statistics for sysfs; only this CPU writes them */
	unsigned long		rq_queued[2];	/* [rq_is_sync()] */
	unsigned long		rq_merged;
	unsigned long		rq_completed[2];	/* [rq_is_sync()] */

	struct request_queue	*queue;
	struct kobject		kobj;
	struct kobject		*mq_kobj;	/* owns this memory */
} ____cacheline_aligned_in_smp;

/* Tags of requests that hold none (never allocated from a map). */
enum {
	BLK_MQ_NO_TAG		= -1U,
	BLK_MQ_TAG_MIN		= 1,
	BLK_MQ_TAG_MAX		= BLK_MQ_NO_TAG - 1,
};

#ifdef CONFIG_BLK_MQ
/* Submission, plugging and completion (blk-mq.c) */
void blk_mq_submit_bio(struct bio *bio);
void blk_mq_flush_plug_list(struct blk_plug *plug, bool from_schedule);
void blk_mq_free_plug_rqs(struct blk_plug *plug);
void blk_mq_add_to_requeue_list(struct request *rq, bool at_head,
				bool kick_requeue_list);
void blk_mq_request_bypass_insert(struct request *rq, bool at_head,
				  bool run_queue);
void blk_mq_cancel_work_sync(struct request_queue *q);
bool blk_mq_hctx_holds_tags(struct blk_mq_hw_ctx *hctx);
struct request *blk_mq_tag_get_rq(struct blk_mq_tags *tags, unsigned int tag);
void blk_mq_put_rq_ref(struct request *rq);
#else
/*
 * The block core calls these outside a queue_is_mq() test.  Without the
 * engine no queue has ->mq_ops, no plug holds a request and no flush
 * sequence runs, so none of them is reached with work to do, but for
 * one bio: one for a request_fn disk that blk_cleanup_queue() has torn
 * down (it is no request_fn queue any more).  That disk is dead, and
 * bio_queue_enter() fails the bio.
 */
static inline void blk_mq_submit_bio(struct bio *bio)
{
	if (bio_queue_enter(bio))
		return;
	WARN_ON_ONCE(1);
	blk_queue_exit(bdev_get_queue(bio->bi_bdev));
	bio_io_error(bio);
}

static inline void blk_mq_flush_plug_list(struct blk_plug *plug,
					  bool from_schedule)
{
}

static inline void blk_mq_free_plug_rqs(struct blk_plug *plug)
{
}

static inline void blk_mq_add_to_requeue_list(struct request *rq,
					      bool at_head,
					      bool kick_requeue_list)
{
	WARN_ON_ONCE(1);
}

static inline void blk_mq_request_bypass_insert(struct request *rq,
						bool at_head, bool run_queue)
{
	WARN_ON_ONCE(1);
}

static inline void blk_mq_cancel_work_sync(struct request_queue *q)
{
}
#endif
int blk_mq_poll(struct request_queue *q, blk_qc_t cookie,
		struct io_comp_batch *iob, unsigned int flags);

/* Queue life cycle */
void blk_mq_exit_queue(struct request_queue *q);
void blk_mq_release(struct request_queue *q);
void blk_mq_wake_waiters(struct request_queue *q);
int blk_mq_update_nr_requests(struct request_queue *q, unsigned int nr);
void blk_freeze_queue(struct request_queue *q);

/* Accounting (the disk statistics themselves: blk-request.h) */
void blk_mq_in_flight_rw(struct request_queue *q, struct block_device *part,
			 unsigned int inflight[2]);
unsigned int blk_mq_in_flight(struct request_queue *q, struct block_device *part);

/* sysfs (blk-mq-sysfs.c) */
int blk_mq_sysfs_register(struct gendisk *disk);
void blk_mq_sysfs_unregister(struct gendisk *disk);
int blk_mq_sysfs_init(struct request_queue *q);
void blk_mq_sysfs_deinit(struct request_queue *q);
void blk_mq_hctx_kobj_init(struct blk_mq_hw_ctx *hctx);
void blk_mq_free_hctx(struct blk_mq_hw_ctx *hctx);

/* CPU map (blk-mq-cpumap.c) */
int blk_mq_hw_queue_to_node(struct blk_mq_queue_map *qmap, unsigned int index);
typedef const struct cpumask *(blk_mq_affinity_fn)(void *dev, int vec);
void blk_mq_map_queues_by_affinity(struct blk_mq_queue_map *qmap,
				   blk_mq_affinity_fn *affinity, void *dev,
				   int first_vec);

/**
 * blk_mq_map_queue() - the hardware context a request goes to
 * @q: the request queue
 * @opf: operation and flags of the request
 * @ctx: software context of the submitting CPU
 *
 * Reads go to the read map when the driver has one; everything else,
 * polled I/O included, uses the default map.
 */
static inline struct blk_mq_hw_ctx *blk_mq_map_queue(struct request_queue *q,
						     blk_opf_t opf,
						     struct blk_mq_ctx *ctx)
{
	if ((opf & REQ_OP_MASK) == REQ_OP_READ)
		return ctx->hctxs[HCTX_TYPE_READ];
	return ctx->hctxs[HCTX_TYPE_DEFAULT];
}

/* The software context of the CPU we run on. */
static inline struct blk_mq_ctx *blk_mq_get_ctx(struct request_queue *q)
{
	return per_cpu_ptr(q->queue_ctx, raw_smp_processor_id());
}

static inline struct blk_mq_ctx *__blk_mq_get_ctx(struct request_queue *q,
						  unsigned int cpu)
{
	return per_cpu_ptr(q->queue_ctx, cpu);
}

static inline bool blk_mq_hctx_stopped(struct blk_mq_hw_ctx *hctx)
{
	return test_bit(BLK_MQ_S_STOPPED, &hctx->state);
}

/* May @bio be merged with other I/O at all? */
static inline bool bio_mergeable(struct bio *bio)
{
	return !(bio->bi_opf & REQ_NOMERGE_FLAGS);
}

/*
 * The plug a bio may be held in: none for writes to sequential zones,
 * which must reach the device in order.
 */
static inline struct blk_plug *blk_mq_plug(struct bio *bio)
{
	if (IS_ENABLED(CONFIG_BLK_DEV_ZONED) &&
	    bdev_op_is_zoned_write(bio->bi_bdev, bio_op(bio)))
		return NULL;
	return current->plug;
}

/*
 * With a scheduler, a request holds a scheduler tag and takes a driver
 * tag at dispatch; blk-flush.c returns the latter.  Here a request owns
 * its driver tag from allocation to free and q->elevator is always NULL,
 * so this is never reached.
 */
static inline void blk_mq_put_driver_tag(struct request *rq)
{
}

/*
 * blk-flush.c calls this after a flush data request completed.  The
 * engine reruns a hardware queue when a request frees its tag, so there
 * is nothing left to restart.
 */
static inline void blk_mq_sched_restart(struct blk_mq_hw_ctx *hctx)
{
}

#endif
