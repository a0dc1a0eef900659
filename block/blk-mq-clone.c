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
#include "blk-request.h"
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

/* What a clone takes over from the original besides its bios. */
static void blk_clone_take_attrs(struct request *rq, struct request *src)
{
	rq->ioprio = src->ioprio;
	rq->__sector = blk_rq_pos(src);
	rq->__data_len = blk_rq_bytes(src);
	rq->nr_phys_segments = src->nr_phys_segments;
	/* data outside the bios, e.g. a discard's range list */
	if (src->rq_flags & RQF_SPECIAL_PAYLOAD) {
		rq->special_vec = src->special_vec;
		rq->rq_flags |= RQF_SPECIAL_PAYLOAD;
	}
}

/**
 * blk_rq_prep_clone - make a request carry the data of another
 * @rq: the clone, allocated on the lower device's queue
 * @rq_src: the request being cloned
 * @bs: bio_set to allocate the cloned bios from (NULL: fs_bio_set)
 * @gfp_mask: allocation flags for the bios
 * @bio_ctr: if set, called for each cloned bio with its source bio and
 *	@data; a nonzero return fails the clone
 * @data: passed to @bio_ctr
 *
 * The cloned bios share @rq_src's pages, so the clone must end before
 * the original does.  Position, size, segment count, priority, any
 * special payload and the encryption context are taken over; the
 * operation and flags were given when @rq was allocated.
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
		bio = bio_alloc_clone(bdev, src, gfp_mask, bs ?: &fs_bio_set);
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
	blk_clone_take_attrs(rq, rq_src);
	if (rq->bio && blk_crypto_rq_bio_prep(rq, rq->bio, gfp_mask))
		goto fail;
	return 0;

fail:
	blk_rq_unprep_clone(rq);
	return -ENOMEM;
}
EXPORT_SYMBOL_GPL(blk_rq_prep_clone);

/*
 * Does the clone fit the lower queue?  Its limits may be smaller than the
 * upper queue's, or have shrunk since the clone was built.
 */
static blk_status_t blk_clone_fits(struct request *rq)
{
	struct request_queue *q = rq->q;
	unsigned int max_sectors = blk_queue_get_max_sectors(q, req_op(rq));
	unsigned int max_segs = req_op(rq) == REQ_OP_DISCARD ?
		queue_max_discard_segments(q) : queue_max_segments(q);

	/* a limit of 0: the device no longer does this operation at all */
	if (!max_sectors)
		return BLK_STS_NOTSUPP;
	if (blk_rq_sectors(rq) > max_sectors)
		return BLK_STS_IOERR;
	/* segments are counted again, with the lower queue's rules */
	rq->nr_phys_segments = blk_recalc_rq_segments(rq);
	return rq->nr_phys_segments <= max_segs ? BLK_STS_OK : BLK_STS_IOERR;
}

/**
 * blk_insert_cloned_request - send a clone to the lower device
 * @rq: the clone, prepared with blk_rq_prep_clone()
 *
 * A clone that fits the lower queue's limits is accounted on the lower
 * disk and queued on its hardware context directly, so it is neither
 * merged nor reordered.
 *
 * Return: BLK_STS_OK once queued; BLK_STS_NOTSUPP for an operation the
 * lower device no longer offers (e.g. discard); BLK_STS_IOERR when the
 * clone exceeds the lower limits, or its encryption context cannot be
 * set up, or fault injection fails it.
 */
blk_status_t blk_insert_cloned_request(struct request *rq)
{
	struct gendisk *disk = rq->q->disk;
	blk_status_t ret = blk_clone_fits(rq);

	if (ret != BLK_STS_OK)
		return ret;
	/* fault injection first: a failed clone must not hold a keyslot */
	if ((disk && should_fail_request(disk->part0, blk_rq_bytes(rq))) ||
	    blk_crypto_insert_cloned_request(rq))
		return BLK_STS_IOERR;

	blk_mq_account_start(rq);
	blk_mq_request_bypass_insert(rq, false, true);
	return BLK_STS_OK;
}
EXPORT_SYMBOL_GPL(blk_insert_cloned_request);
