// SPDX-License-Identifier: GPL-2.0
/*
 * Freezing a queue: q_usage_counter counts the bios and requests inside
 * a queue.  A freeze kills it, so that blk_queue_enter() waits, and
 * waits for it to drop to zero; unfreezing brings it back.  Every queue
 * has one, bio-based, request_fn and multiqueue alike.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/percpu-refcount.h>
#include <linux/wait.h>

#include "blk.h"
#include "blk-mq.h"

/* True once no request of a killed usage counter is left. */
static bool blk_mq_queue_drained(struct request_queue *q)
{
	return percpu_ref_is_zero(&q->q_usage_counter);
}

/**
 * blk_freeze_queue_start - stop new requests from entering a queue
 * @q: the queue
 *
 * Freezes nest; the first one kills q_usage_counter, so blk_queue_enter()
 * waits, and runs the hardware queues so queued requests drain.
 */
void blk_freeze_queue_start(struct request_queue *q)
{
	bool outermost;

	mutex_lock(&q->mq_freeze_lock);
	outermost = q->mq_freeze_depth++ == 0;
	if (outermost)
		percpu_ref_kill(&q->q_usage_counter);
	mutex_unlock(&q->mq_freeze_lock);

	/* push out what is queued so the usage count can reach zero */
	if (outermost && queue_is_mq(q))
		blk_mq_run_hw_queues(q, false);
}
EXPORT_SYMBOL_GPL(blk_freeze_queue_start);

/**
 * blk_mq_freeze_queue_wait - wait until every request of a frozen queue is freed
 * @q: the queue
 */
void blk_mq_freeze_queue_wait(struct request_queue *q)
{
	wait_event(q->mq_freeze_wq, blk_mq_queue_drained(q));
}
EXPORT_SYMBOL_GPL(blk_mq_freeze_queue_wait);

/**
 * blk_mq_freeze_queue_wait_timeout - blk_mq_freeze_queue_wait() with a limit
 * @q: the queue
 * @timeout: jiffies
 *
 * Return: as wait_event_timeout().
 */
int blk_mq_freeze_queue_wait_timeout(struct request_queue *q,
				     unsigned long timeout)
{
	return wait_event_timeout(q->mq_freeze_wq, blk_mq_queue_drained(q),
				  timeout);
}
EXPORT_SYMBOL_GPL(blk_mq_freeze_queue_wait_timeout);

/**
 * blk_mq_freeze_queue - freeze a queue and wait until it is empty
 * @q: the queue
 */
void blk_mq_freeze_queue(struct request_queue *q)
{
	blk_freeze_queue(q);
}
EXPORT_SYMBOL_GPL(blk_mq_freeze_queue);

/* Block-layer internal: start a freeze and sit it out. */
void blk_freeze_queue(struct request_queue *q)
{
	blk_freeze_queue_start(q);
	blk_mq_freeze_queue_wait(q);
}

/*
 * Drop one freeze level.  @force_atomic keeps the usage counter in atomic
 * mode once it comes back to life (used while the queue is torn down).
 */
void __blk_mq_unfreeze_queue(struct request_queue *q, bool force_atomic)
{
	int left;

	mutex_lock(&q->mq_freeze_lock);
	if (force_atomic)
		q->q_usage_counter.data->force_atomic = true;
	left = --q->mq_freeze_depth;
	WARN_ON_ONCE(left < 0);
	if (left == 0) {
		/* let blk_queue_enter() through again and tell the waiters */
		percpu_ref_resurrect(&q->q_usage_counter);
		wake_up_all(&q->mq_freeze_wq);
	}
	mutex_unlock(&q->mq_freeze_lock);
}

/**
 * blk_mq_unfreeze_queue - undo one blk_mq_freeze_queue()
 * @q: the queue
 */
void blk_mq_unfreeze_queue(struct request_queue *q)
{
	__blk_mq_unfreeze_queue(q, false);
}
EXPORT_SYMBOL_GPL(blk_mq_unfreeze_queue);
