// SPDX-License-Identifier: GPL-2.0
/*
 * What every request-based queue shares, with or without the multiqueue
 * engine: setting up a request that does not come from a tag set and
 * ending the bios of a (partly) completed request; the disk statistics
 * of a request's life are inline in blk-request.h.  The multiqueue
 * engine (blk-mq.c) and the request_fn mode (blk-legacy.c) both build on
 * these.
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

/* ---------------------------------------------------------------------
 * Setting up and ending requests
 */

/**
 * blk_rq_init - initialize a request that is not from a tag set
 * @q: the queue it is for
 * @rq: the request
 *
 * Used for the flush request, which lives in the flush queue.
 */
void blk_rq_init(struct request_queue *q, struct request *rq)
{
	/* Everything starts zeroed; only the non-zero defaults follow. */
	memset(rq, 0, sizeof(*rq));
	rq->q = q;
	rq->tag = BLK_MQ_NO_TAG;
	rq->internal_tag = BLK_MQ_NO_TAG;
	rq->__sector = (sector_t)-1;
	rq->start_time_ns = ktime_get_ns();
	INIT_LIST_HEAD(&rq->queuelist);
	RB_CLEAR_NODE(&rq->rb_node);
	INIT_HLIST_NODE(&rq->hash);
	blk_crypto_rq_set_defaults(rq);
}
EXPORT_SYMBOL(blk_rq_init);

/* End (part of) one bio of @rq. */
static void blk_mq_bio_done(struct request *rq, struct bio *bio,
			    unsigned int nbytes, blk_status_t error)
{
	if (error)
		bio->bi_status = error;
	if (unlikely(rq->rq_flags & RQF_QUIET))
		bio_set_flag(bio, BIO_QUIET);

	bio_advance(bio, nbytes);

	if (req_op(rq) == REQ_OP_ZONE_APPEND && error == BLK_STS_OK) {
		/* report where the data went; appends are never merged */
		if (bio->bi_iter.bi_size)
			bio->bi_status = BLK_STS_IOERR;
		else
			bio->bi_iter.bi_sector = rq->__sector;
	}

	/*
	 * A request in a flush sequence completes its bio only when the
	 * whole sequence is done; blk-flush.c restores rq->bio for that.
	 */
	if (bio->bi_iter.bi_size == 0 && !(rq->rq_flags & RQF_FLUSH_SEQ))
		bio_endio(bio);
}

/**
 * blk_update_request - complete @nr_bytes of a request
 * @rq: the request
 * @error: status for the completed part
 * @nr_bytes: bytes completed
 *
 * Ends the bios that are now complete.  Does not free the request.
 *
 * Return: %true if part of the request is still to do, %false if not.
 */
bool blk_update_request(struct request *rq, blk_status_t error,
			unsigned int nr_bytes)
{
	unsigned int done = 0;

	if (!rq->bio)
		return false;

	if (unlikely(error && !blk_rq_is_passthrough(rq) &&
		     !(rq->rq_flags & RQF_QUIET) && rq->q->disk &&
		     !test_bit(GD_DEAD, &rq->q->disk->state)))
		pr_err_ratelimited("%s error, dev %s, sector %llu op 0x%x flags 0x%x\n",
				   blk_status_to_str(error),
				   rq->q->disk->disk_name,
				   (unsigned long long)blk_rq_pos(rq),
				   req_op(rq), rq->cmd_flags & ~REQ_OP_MASK);

	blk_rq_integrity_complete(rq, error, nr_bytes);
	/*
	 * The last bio_endio() may let its owner evict the key
	 * (blk_crypto_evict_key()): give the keyslot back before it.
	 */
	if (nr_bytes >= blk_rq_bytes(rq))
		blk_crypto_rq_put_keyslot(rq);
	blk_mq_account_bytes(rq, nr_bytes);

	while (rq->bio) {
		struct bio *bio = rq->bio;
		unsigned int bytes = min(bio->bi_iter.bi_size, nr_bytes);

		if (bytes == bio->bi_iter.bi_size)
			rq->bio = bio->bi_next;
		blk_mq_bio_done(rq, bio, bytes, error);
		done += bytes;
		nr_bytes -= bytes;
		if (!nr_bytes)
			break;
	}

	if (!rq->bio) {
		rq->__data_len = 0;
		return false;
	}

	rq->__data_len -= done;
	if (!blk_rq_is_passthrough(rq))
		rq->__sector += done >> SECTOR_SHIFT;

	/* mixed merges take the failfast flags of the next bio */
	if (rq->rq_flags & RQF_MIXED_MERGE) {
		rq->cmd_flags &= ~REQ_FAILFAST_MASK;
		rq->cmd_flags |= rq->bio->bi_opf & REQ_FAILFAST_MASK;
	}

	if (!(rq->rq_flags & RQF_SPECIAL_PAYLOAD)) {
		/* never leave less than the current segment */
		if (blk_rq_bytes(rq) < blk_rq_cur_bytes(rq)) {
			blk_dump_rq_flags(rq, "request botched");
			rq->__data_len = blk_rq_cur_bytes(rq);
		}
		/* a driver that maps the rest again sizes its table by this */
		rq->nr_phys_segments = blk_recalc_rq_segments(rq);
	}
	return true;
}
EXPORT_SYMBOL_GPL(blk_update_request);

/**
 * blk_steal_bios - take the bios away from a request
 * @list: where the bios go
 * @rq: the request, left without data
 */
void blk_steal_bios(struct bio_list *list, struct request *rq)
{
	struct bio *first = rq->bio;

	rq->__data_len = 0;
	if (!first)
		return;
	/* append the request's chain as a whole to @list */
	*(list->tail ? &list->tail->bi_next : &list->head) = first;
	list->tail = rq->biotail;
	rq->bio = NULL;
	rq->biotail = NULL;
}
EXPORT_SYMBOL_GPL(blk_steal_bios);

/**
 * blk_dump_rq_flags - print the state of a request, for debugging
 * @rq: the request
 * @msg: what to say first
 */
void blk_dump_rq_flags(struct request *rq, char *msg)
{
	pr_info("%s: dev %s: flags=%llx\n", msg,
		rq->q->disk ? rq->q->disk->disk_name : "?",
		(__force unsigned long long)rq->cmd_flags);
	pr_info("  sector %llu, nr/cnr %u/%u\n",
		(unsigned long long)blk_rq_pos(rq),
		blk_rq_sectors(rq), blk_rq_cur_sectors(rq));
	pr_info("  bio %p, biotail %p, len %u\n",
		rq->bio, rq->biotail, blk_rq_bytes(rq));
}
EXPORT_SYMBOL(blk_dump_rq_flags);
