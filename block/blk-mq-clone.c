// SPDX-License-Identifier: GPL-2.0
/*
 * Request cloning, for request-based stacking drivers.
 *
 * dm-multipath takes a request from the queue of its own disk and sends
 * a copy, a clone, to one path's queue: the clone is allocated on the
 * lower queue, gets clones of the original's bios (sharing their pages)
 * and goes to the lower driver without merging.  When the clone ends,
 * the stacking driver ends the original.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>

#include "blk.h"
#include "blk-mq.h"
#include "blk-crypto-internal.h"

/**
 * blk_rq_unprep_clone - drop the bios blk_rq_prep_clone() attached
 * @rq: the clone
 */
void blk_rq_unprep_clone(struct request *rq)
{
	struct bio *bio;

	while ((bio = rq->bio)) {
		rq->bio = bio->bi_next;
		bio_put(bio);
	}
	rq->biotail = NULL;
}
EXPORT_SYMBOL_GPL(blk_rq_unprep_clone);

/**
 * blk_rq_prep_clone - make a request carry the data of another
 * @rq: the clone, allocated on the lower device's queue
 * @rq_src: the request being cloned
 * @bs: bio_set to allocate the cloned bios from
 * @gfp_mask: allocation flags for the bios
 * @bio_ctr: if set, called for each cloned bio with its source bio and
 *	@data; a nonzero return fails the clone
 * @data: passed to @bio_ctr
 *
 * The cloned bios share @rq_src's pages.  Position, size, segment count,
 * priority and any special payload are copied; the operation and flags
 * were given when @rq was allocated.
 *
 * Return: 0, or -ENOMEM with @rq left without bios.
 */
int blk_rq_prep_clone(struct request *rq, struct request *rq_src,
		      struct bio_set *bs, gfp_t gfp_mask,
		      int (*bio_ctr)(struct bio *, struct bio *, void *),
		      void *data)
{
	struct block_device *bdev = rq->q->disk ? rq->q->disk->part0 : NULL;
	struct bio *src, *bio;

	__rq_for_each_bio(src, rq_src) {
		bio = bio_alloc_clone(bdev, src, gfp_mask, bs);
		if (!bio)
			goto fail;
		if (bio_ctr && bio_ctr(bio, src, data)) {
			bio_put(bio);
			goto fail;
		}
		if (rq->bio)
			rq->biotail->bi_next = bio;
		else
			rq->bio = bio;
		rq->biotail = bio;
	}

	rq->__sector = blk_rq_pos(rq_src);
	rq->__data_len = blk_rq_bytes(rq_src);
	if (rq_src->rq_flags & RQF_SPECIAL_PAYLOAD) {
		rq->rq_flags |= RQF_SPECIAL_PAYLOAD;
		rq->special_vec = rq_src->special_vec;
	}
	rq->nr_phys_segments = rq_src->nr_phys_segments;
	rq->ioprio = rq_src->ioprio;
	return 0;

fail:
	blk_rq_unprep_clone(rq);
	return -ENOMEM;
}
EXPORT_SYMBOL_GPL(blk_rq_prep_clone);

/**
 * blk_insert_cloned_request - send a clone to the lower device
 * @rq: the clone, prepared with blk_rq_prep_clone()
 *
 * The clone was built within the upper queue's limits; it goes on only if
 * it also fits the lower queue's, which may be smaller, or may have
 * shrunk since.  It is accounted on the lower disk and queued on its
 * hardware context directly, so it is neither merged nor reordered.
 *
 * Return: BLK_STS_OK once queued; BLK_STS_NOTSUPP for an operation the
 * lower device no longer offers (e.g. discard); BLK_STS_IOERR when the
 * clone exceeds the lower limits or fault injection fails it.
 */
blk_status_t blk_insert_cloned_request(struct request *rq)
{
	struct request_queue *q = rq->q;
	unsigned int max_sectors = blk_queue_get_max_sectors(q, req_op(rq));
	unsigned int max_segments = req_op(rq) == REQ_OP_DISCARD ?
		queue_max_discard_segments(q) : queue_max_segments(q);

	if (blk_rq_sectors(rq) > max_sectors)
		return max_sectors ? BLK_STS_IOERR : BLK_STS_NOTSUPP;

	rq->nr_phys_segments = blk_recalc_rq_segments(rq);
	if (rq->nr_phys_segments > max_segments)
		return BLK_STS_IOERR;

	if (q->disk && should_fail_request(q->disk->part0, blk_rq_bytes(rq)))
		return BLK_STS_IOERR;
	if (blk_crypto_insert_cloned_request(rq))
		return BLK_STS_IOERR;

	blk_mq_account_start(rq);
	blk_mq_request_bypass_insert(rq, false, true);
	return BLK_STS_OK;
}
EXPORT_SYMBOL_GPL(blk_insert_cloned_request);
