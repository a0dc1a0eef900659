/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The disk statistics of a request's life, for every request-based
 * queue (blk-request.c has the rest of what they share).  Inline: the
 * multiqueue engine runs them for every request, and a call each would
 * cost about as much as what they do.
 */
#ifndef INT_BLK_REQUEST_H
#define INT_BLK_REQUEST_H

#include <linux/blk-mq.h>
#include <linux/blk-integrity.h>
#include <linux/part_stat.h>

#include "blk.h"

/*
 * The integrity profile's two request hooks: a write's protection
 * information is remapped to the device's sectors as the driver takes
 * it (T10 PI types 1 and 2 carry the sector in each tuple), and a read's
 * is remapped back, for the bytes that completed, before its bios end
 * and bio-integrity verifies them.  Every registered profile has both
 * hooks (the nop profile's do nothing).
 */
static inline void blk_rq_integrity_prepare(struct request *rq)
{
#ifdef CONFIG_BLK_DEV_INTEGRITY
	if (blk_integrity_rq(rq) && req_op(rq) == REQ_OP_WRITE)
		rq->q->integrity.profile->prepare_fn(rq);
#endif
}

static inline void blk_rq_integrity_complete(struct request *rq,
					     blk_status_t error,
					     unsigned int bytes)
{
#ifdef CONFIG_BLK_DEV_INTEGRITY
	if (blk_integrity_rq(rq) && req_op(rq) == REQ_OP_READ &&
	    error == BLK_STS_OK)
		rq->q->integrity.profile->complete_fn(rq, bytes);
#endif
}

/*
 * update_io_ticks() for @part, unless its stamp is @now already: then it
 * would add nothing, and nothing for the whole disk either, whose stamp
 * moved with the partition's.  Most I/Os start and end in the jiffy of
 * the I/O before them, so most never make the call.
 */
static inline void blk_mq_io_ticks(struct block_device *part,
				   unsigned long now, bool end)
{
	if (READ_ONCE(part->bd_stamp) != now)
		update_io_ticks(part, now, end);
}

/*
 * Count @rq, whose start time is set, from now on: in its bios'
 * partition, or in the whole disk for a flush without a bio, which is
 * the clone of another queue's flush request (dm-multipath); the caller
 * has seen that the queue keeps statistics.  RQF_IO_STAT is set here
 * only, together with rq->part, so the two below need test nothing else.
 */
static inline void __blk_mq_account_start(struct request *rq)
{
	if (blk_rq_is_passthrough(rq))
		return;
	if (likely(rq->bio))
		rq->part = rq->bio->bi_bdev;
	else if (req_op(rq) == REQ_OP_FLUSH && rq->q->disk)
		rq->part = rq->q->disk->part0;
	else
		return;

	rq->rq_flags |= RQF_IO_STAT;

	part_stat_lock();
	blk_mq_io_ticks(rq->part, jiffies, false);
	part_stat_unlock();
}

/*
 * A request is on its way.  On a queue that keeps statistics, take its
 * start time, which they and sysfs in_flight measure its age from, and
 * count it.  A queue without them reads no clock for it: the clock is a
 * good part of what the statistics cost.
 */
static inline void blk_mq_account_start(struct request *rq)
{
	if (!blk_queue_io_stat(rq->q))
		return;
	rq->start_time_ns = ktime_get_ns();
	__blk_mq_account_start(rq);
}

/* @bytes of @rq are done (blk_update_request()). */
static inline void blk_mq_account_bytes(struct request *rq, unsigned int bytes)
{
	const int sgrp = op_stat_group(req_op(rq));

	if (!(rq->rq_flags & RQF_IO_STAT) || !bytes)
		return;

	part_stat_lock();
	part_stat_add(rq->part, sectors[sgrp], bytes >> SECTOR_SHIFT);
	part_stat_unlock();
}

/*
 * All of @rq is done at @now; @bytes of it were not counted by
 * blk_mq_account_bytes() (0 when blk_update_request() ended its bios).
 * A flush sequence is counted once, by the original request.
 */
static inline void blk_mq_account_end(struct request *rq, unsigned int bytes,
				      u64 now)
{
	/* op_stat_group() would count a flush as a read */
	const int sgrp = unlikely(req_op(rq) == REQ_OP_FLUSH) ? STAT_FLUSH :
			 op_stat_group(req_op(rq));
	struct block_device *part = rq->part;

	if (!(rq->rq_flags & RQF_IO_STAT) || (rq->rq_flags & RQF_FLUSH_SEQ))
		return;

	part_stat_lock();
	blk_mq_io_ticks(part, jiffies, true);
	if (bytes)
		part_stat_add(part, sectors[sgrp], bytes >> SECTOR_SHIFT);
	part_stat_inc(part, ios[sgrp]);
	part_stat_add(part, nsecs[sgrp], now - rq->start_time_ns);
	part_stat_unlock();
}

/* All of @rq is done at @now, its bytes counted already. */
static inline void blk_mq_account_done(struct request *rq, u64 now)
{
	blk_mq_account_end(rq, 0, now);
}

#endif
