// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for how the multiqueue engine ends a request (blk-mq.c,
 * blk-request.c): a lone bio ended without the walk, several merged bios
 * ended by the walk, a driver that ends a request in two steps, errors,
 * the disk statistics, and the two hooks a request's end must run before
 * its last bio ends, the integrity profile's and inline encryption's.
 *
 * Each case builds a live multiqueue disk whose ->queue_rq() records the
 * request and ends it at once in the way the case asks, submits one or
 * two bios, and checks what the driver saw and how each bio ended.
 *
 * Two more cases look at a request the driver holds: a flush request
 * found by a tag iterator once, by the tag it holds, and a timeout that
 * waits for the ->queue_rq() that started its request to return.  Two
 * look at a driver that refuses a request with a busy status: it is
 * retried, and a completion reruns the queue when the driver says one
 * will.
 *
 * A second suite takes requests on a given hardware queue, as an
 * nvme-fabrics connect does, while that queue's only CPU goes offline and
 * comes back.
 */
#include <kunit/test.h>
#include <linux/bio.h>
#include <linux/blk-crypto.h>
#include <linux/blk-crypto-profile.h>
#include <linux/blk-integrity.h>
#include <linux/blk-mq.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/part_stat.h>

#include "blk-mq.h"

#define MT_SECTOR	8
#define MT_DEPTH	4	/* tags per hardware queue */
#define MT_MAX_BIOS	2

/* How the driver ends each request. */
enum mt_end {
	MT_END_OK,		/* blk_mq_end_request(), all of it */
	MT_END_ERROR,		/* blk_mq_end_request() with BLK_STS_IOERR */
	MT_END_FIRST_BIO,	/* blk_update_request() for the first bio, then the rest */
	MT_END_SLOW_NONE,	/* sleep in ->queue_rq(), leave the end to ->timeout() */
};

/* How long ->queue_rq() sleeps for MT_END_SLOW_NONE: past a timeout tick. */
#define MT_SLOW_MS	2500

/* The bios of one submission and how each ended. */
struct mt_io {
	struct mt_dev *dev;
	unsigned int nr_bios;
	struct bio *bios[MT_MAX_BIOS];
	bool ended[MT_MAX_BIOS];
	blk_status_t status[MT_MAX_BIOS];
	/* the request still held a keyslot when this bio ended */
	bool keyslot_held[MT_MAX_BIOS];
	atomic_t left;
	struct completion done;
};

struct mt_dev {
	struct blk_mq_tag_set set;
	struct gendisk *disk;
	enum mt_end end;
	struct mt_io *io;		/* the submission in progress */

	/* what ->queue_rq() saw */
	unsigned int nr_rqs;
	unsigned int rq_bytes;
	unsigned int rq_bios;
	struct request *rq;
	bool more_after_first;		/* blk_update_request()'s return */
	bool first_ended_alone;		/* after it: bio 0 ended, bio 1 not */

	/* flush requests: the last one's tag; held, not ended, if asked */
	unsigned int flush_tag;
	bool hold_flush;
	struct request *held_flush;
	struct completion flush_held;

	/* ->queue_rq() refuses the next @busy_left requests with @busy_status */
	blk_status_t busy_status;
	unsigned int busy_left;
	unsigned int busy_calls;
	/* ->queue_rq() keeps the next request it starts, not ended */
	bool hold_next;
	struct request *held_rq;

	/* MT_END_SLOW_NONE */
	bool in_queue_rq;
	unsigned int timeouts;
	bool timeout_in_queue_rq;	/* ->timeout() ran inside ->queue_rq() */

	/* the integrity profile's hooks */
	unsigned int prepared;
	unsigned int completed;
	unsigned int completed_bytes;
	bool completed_before_end;

#ifdef CONFIG_BLK_INLINE_ENCRYPTION
	struct blk_crypto_profile crypto;
	bool crypto_ready;		/* initialized, to be destroyed */
	unsigned int programmed;
	unsigned int evicted;
#endif
};

static unsigned int mt_nr_bios(struct request *rq)
{
	struct bio *bio;
	unsigned int n = 0;

	__rq_for_each_bio(bio, rq)
		n++;
	return n;
}

static blk_status_t mt_queue_rq(struct blk_mq_hw_ctx *hctx,
				const struct blk_mq_queue_data *bd)
{
	struct mt_dev *dev = hctx->queue->queuedata;
	struct request *rq = bd->rq;

	if (dev->busy_left) {
		dev->busy_left--;
		dev->busy_calls++;
		return dev->busy_status;
	}
	blk_mq_start_request(rq);
	if (dev->hold_next) {
		dev->hold_next = false;
		dev->held_rq = rq;
		return BLK_STS_OK;
	}
	if (req_op(rq) == REQ_OP_FLUSH) {
		dev->flush_tag = rq->tag;
		if (dev->hold_flush) {
			dev->held_flush = rq;
			complete(&dev->flush_held);
			return BLK_STS_OK;
		}
		blk_mq_end_request(rq, BLK_STS_OK);
		return BLK_STS_OK;
	}
	dev->nr_rqs++;
	dev->rq = rq;
	dev->rq_bytes = blk_rq_bytes(rq);
	dev->rq_bios = mt_nr_bios(rq);

	switch (dev->end) {
	case MT_END_ERROR:
		blk_mq_end_request(rq, BLK_STS_IOERR);
		break;
	case MT_END_FIRST_BIO:
		dev->more_after_first = blk_update_request(rq, BLK_STS_OK,
							   rq->bio->bi_iter.bi_size);
		dev->first_ended_alone = dev->io->ended[0] && !dev->io->ended[1];
		blk_mq_end_request(rq, BLK_STS_OK);
		break;
	case MT_END_SLOW_NONE:
		WRITE_ONCE(dev->in_queue_rq, true);
		msleep(MT_SLOW_MS);
		WRITE_ONCE(dev->in_queue_rq, false);
		break;
	default:
		blk_mq_end_request(rq, BLK_STS_OK);
		break;
	}
	return BLK_STS_OK;
}

static enum blk_eh_timer_return mt_timeout(struct request *rq)
{
	struct mt_dev *dev = rq->q->queuedata;

	dev->timeouts++;
	if (READ_ONCE(dev->in_queue_rq))
		dev->timeout_in_queue_rq = true;
	blk_mq_end_request(rq, BLK_STS_TIMEOUT);
	return BLK_EH_DONE;
}

static const struct blk_mq_ops mt_mq_ops = {
	.queue_rq = mt_queue_rq,
	.timeout = mt_timeout,
};

static const struct block_device_operations mt_fops = {
	.owner = THIS_MODULE,
};

static void mt_exit(struct kunit *test)
{
	struct mt_dev *dev = test->priv;

	if (!dev)
		return;
	del_gendisk(dev->disk);
	put_disk(dev->disk);
	blk_mq_free_tag_set(&dev->set);
#ifdef CONFIG_BLK_INLINE_ENCRYPTION
	if (dev->crypto_ready)
		blk_crypto_profile_destroy(&dev->crypto);
#endif
	test->priv = NULL;
}

/*
 * A live multiqueue disk of 64 sectors with @nr_hw_queues hardware queues
 * and BLK_MQ_F_* @flags besides merging, whose driver ends requests as
 * @end says.
 */
static struct mt_dev *mt_dev_create_flags(struct kunit *test,
					  enum mt_end end,
					  unsigned int nr_hw_queues,
					  unsigned int flags)
{
	struct mt_dev *dev;
	int ret;

	dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	dev->end = end;
	init_completion(&dev->flush_held);

	dev->set.ops = &mt_mq_ops;
	dev->set.nr_hw_queues = nr_hw_queues;
	dev->set.queue_depth = MT_DEPTH;
	dev->set.numa_node = NUMA_NO_NODE;
	dev->set.flags = BLK_MQ_F_SHOULD_MERGE | flags;
	KUNIT_ASSERT_EQ(test, blk_mq_alloc_tag_set(&dev->set), 0);

	dev->disk = blk_mq_alloc_disk(&dev->set, dev);
	if (IS_ERR(dev->disk))
		blk_mq_free_tag_set(&dev->set);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev->disk);
	dev->disk->fops = &mt_fops;
	dev->disk->private_data = dev;
	/* no partition scan: the driver is to see only the test's requests */
	dev->disk->flags |= GENHD_FL_NO_PART;
	snprintf(dev->disk->disk_name, DISK_NAME_LEN, "blkmq_kunit");
	set_capacity(dev->disk, 64);

	ret = add_disk(dev->disk);
	if (ret) {
		put_disk(dev->disk);
		blk_mq_free_tag_set(&dev->set);
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	test->priv = dev;
	return dev;
}

static struct mt_dev *mt_dev_create_queues(struct kunit *test,
					   enum mt_end end,
					   unsigned int nr_hw_queues)
{
	return mt_dev_create_flags(test, end, nr_hw_queues, 0);
}

/* The same with one hardware queue. */
static struct mt_dev *mt_dev_create(struct kunit *test, enum mt_end end)
{
	return mt_dev_create_queues(test, end, 1);
}

static void mt_end_io(struct bio *bio)
{
	struct mt_io *io = bio->bi_private;
	unsigned int i;

	for (i = 0; i < io->nr_bios; i++) {
		if (io->bios[i] != bio)
			continue;
		io->status[i] = bio->bi_status;
#ifdef CONFIG_BLK_INLINE_ENCRYPTION
		io->keyslot_held[i] = io->dev->rq && io->dev->rq->crypt_keyslot;
#endif
		io->ended[i] = true;
	}
	if (atomic_dec_and_test(&io->left))
		complete(&io->done);
}

/*
 * Submit @nr one-page bios of @opf at consecutive pages from MT_SECTOR,
 * under one plug so that they merge into one request, and wait for all
 * of them.  @key: inline encryption with this key, or NULL.
 */
static void mt_submit(struct kunit *test, struct mt_dev *dev, struct mt_io *io,
		      blk_opf_t opf, unsigned int nr,
		      const struct blk_crypto_key *key)
{
	struct blk_plug plug;
	struct page *pages[MT_MAX_BIOS];
	unsigned int i;

	memset(io, 0, sizeof(*io));
	io->dev = dev;
	io->nr_bios = nr;
	atomic_set(&io->left, nr);
	init_completion(&io->done);
	dev->io = io;

	for (i = 0; i < nr; i++) {
		struct bio *bio;

		pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		bio = bio_alloc(dev->disk->part0, 1, opf, GFP_KERNEL);
		bio->bi_iter.bi_sector = MT_SECTOR + i * (PAGE_SIZE >> SECTOR_SHIFT);
		KUNIT_ASSERT_EQ(test, bio_add_page(bio, pages[i], PAGE_SIZE, 0),
				PAGE_SIZE);
		bio->bi_private = io;
		bio->bi_end_io = mt_end_io;
#ifdef CONFIG_BLK_INLINE_ENCRYPTION
		if (key) {
			u64 dun[BLK_CRYPTO_DUN_ARRAY_SIZE] = { i };

			bio_crypt_set_ctx(bio, key, dun, GFP_KERNEL);
		}
#endif
		io->bios[i] = bio;
	}

	blk_start_plug(&plug);
	for (i = 0; i < nr; i++)
		submit_bio(io->bios[i]);
	blk_finish_plug(&plug);
	wait_for_completion(&io->done);

	for (i = 0; i < nr; i++) {
		bio_put(io->bios[i]);
		__free_page(pages[i]);
	}
	dev->io = NULL;
}

/* Disk statistics of the whole disk, for @op's group. */
struct mt_stats {
	unsigned long ios;
	unsigned long sectors;
};

static struct mt_stats mt_stats(struct mt_dev *dev, enum req_op op)
{
	const int sgrp = op_stat_group(op);
	struct mt_stats s = {
		.ios = part_stat_read(dev->disk->part0, ios[sgrp]),
		.sectors = part_stat_read(dev->disk->part0, sectors[sgrp]),
	};

	return s;
}

/*
 * Submit @nr write bios on a new disk whose driver ends them as @end
 * says: one request of @nr pages, each bio ending with @status, counted
 * once in the disk statistics with all its sectors.
 */
static struct mt_dev *mt_run(struct kunit *test, enum mt_end end,
			     unsigned int nr, blk_status_t status)
{
	struct mt_dev *dev = mt_dev_create(test, end);
	struct mt_io *io = kunit_kzalloc(test, sizeof(*io), GFP_KERNEL);
	struct mt_stats before, after;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, io);
	before = mt_stats(dev, REQ_OP_WRITE);
	mt_submit(test, dev, io, REQ_OP_WRITE, nr, NULL);
	after = mt_stats(dev, REQ_OP_WRITE);

	KUNIT_EXPECT_EQ(test, dev->nr_rqs, 1U);
	KUNIT_EXPECT_EQ(test, dev->rq_bios, nr);
	KUNIT_EXPECT_EQ(test, dev->rq_bytes, (unsigned int)(nr * PAGE_SIZE));
	for (i = 0; i < nr; i++) {
		KUNIT_EXPECT_TRUE_MSG(test, io->ended[i], "bio %u", i);
		KUNIT_EXPECT_EQ_MSG(test, blk_status_to_errno(io->status[i]),
				    blk_status_to_errno(status), "bio %u", i);
	}
	KUNIT_EXPECT_EQ(test, after.ios - before.ios, 1UL);
	KUNIT_EXPECT_EQ(test, after.sectors - before.sectors,
			(unsigned long)(nr * PAGE_SIZE >> SECTOR_SHIFT));
	return dev;
}

/* One bio, ended whole by blk_mq_end_request() without the walk. */
static void mt_lone_bio_test(struct kunit *test)
{
	mt_run(test, MT_END_OK, 1, BLK_STS_OK);
}

/* The driver's error reaches the bio, and the request is still counted. */
static void mt_lone_bio_error_test(struct kunit *test)
{
	mt_run(test, MT_END_ERROR, 1, BLK_STS_IOERR);
}

/* Two bios merged in the plug: one request, both bios end by the walk. */
static void mt_merged_bios_test(struct kunit *test)
{
	mt_run(test, MT_END_OK, 2, BLK_STS_OK);
}

static void mt_merged_bios_error_test(struct kunit *test)
{
	mt_run(test, MT_END_ERROR, 2, BLK_STS_IOERR);
}

/*
 * A driver that ends the first bio's bytes with blk_update_request() is
 * told there is more, the first bio has ended and the second not; then
 * blk_mq_end_request() ends the rest.
 */
static void mt_first_bio_then_rest_test(struct kunit *test)
{
	struct mt_dev *dev = mt_run(test, MT_END_FIRST_BIO, 2, BLK_STS_OK);

	KUNIT_EXPECT_TRUE(test, dev->more_after_first);
	KUNIT_EXPECT_TRUE(test, dev->first_ended_alone);
}

#ifdef CONFIG_BLK_DEV_INTEGRITY
static blk_status_t mt_integrity_fn(struct blk_integrity_iter *iter)
{
	return BLK_STS_OK;
}

static void mt_integrity_prepare(struct request *rq)
{
	struct mt_dev *dev = rq->q->queuedata;

	dev->prepared++;
}

static void mt_integrity_complete(struct request *rq, unsigned int bytes)
{
	struct mt_dev *dev = rq->q->queuedata;

	dev->completed++;
	dev->completed_bytes = bytes;
	dev->completed_before_end = !dev->io->ended[0];
}

static const struct blk_integrity_profile mt_integrity_profile = {
	.name		= "blk-mq-kunit",
	.generate_fn	= mt_integrity_fn,
	.verify_fn	= mt_integrity_fn,
	.prepare_fn	= mt_integrity_prepare,
	.complete_fn	= mt_integrity_complete,
};

/*
 * One bio of @op on a disk with an integrity profile (8 bytes of
 * protection information per 512-byte interval).
 */
static struct mt_dev *mt_integrity_run(struct kunit *test, enum req_op op)
{
	struct mt_dev *dev = mt_dev_create(test, MT_END_OK);
	struct mt_io *io = kunit_kzalloc(test, sizeof(*io), GFP_KERNEL);
	struct blk_integrity bi = {
		.profile = &mt_integrity_profile,
		.tuple_size = 8,
		.interval_exp = SECTOR_SHIFT,
	};

	KUNIT_ASSERT_NOT_NULL(test, io);
	blk_integrity_register(dev->disk, &bi);
	mt_submit(test, dev, io, op, 1, NULL);

	KUNIT_EXPECT_EQ(test, dev->nr_rqs, 1U);
	KUNIT_EXPECT_TRUE(test, io->ended[0]);
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(io->status[0]), 0);
	return dev;
}

/* A write's protection information is prepared as the driver starts it. */
static void mt_integrity_write_test(struct kunit *test)
{
	struct mt_dev *dev = mt_integrity_run(test, REQ_OP_WRITE);

	KUNIT_EXPECT_EQ(test, dev->prepared, 1U);
	KUNIT_EXPECT_EQ(test, dev->completed, 0U);
}

/* A read's is completed for all its bytes, before its bio ends. */
static void mt_integrity_read_test(struct kunit *test)
{
	struct mt_dev *dev = mt_integrity_run(test, REQ_OP_READ);

	KUNIT_EXPECT_EQ(test, dev->prepared, 0U);
	KUNIT_EXPECT_EQ(test, dev->completed, 1U);
	KUNIT_EXPECT_EQ(test, dev->completed_bytes, (unsigned int)PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, dev->completed_before_end);
}
#endif /* CONFIG_BLK_DEV_INTEGRITY */

#ifdef CONFIG_BLK_INLINE_ENCRYPTION
static int mt_keyslot_program(struct blk_crypto_profile *profile,
			      const struct blk_crypto_key *key,
			      unsigned int slot)
{
	container_of(profile, struct mt_dev, crypto)->programmed++;
	return 0;
}

static int mt_keyslot_evict(struct blk_crypto_profile *profile,
			    const struct blk_crypto_key *key,
			    unsigned int slot)
{
	container_of(profile, struct mt_dev, crypto)->evicted++;
	return 0;
}

static const struct blk_crypto_ll_ops mt_crypto_ops = {
	.keyslot_program = mt_keyslot_program,
	.keyslot_evict = mt_keyslot_evict,
};

/*
 * @nr encrypted write bios on a disk with one keyslot: the request takes
 * the slot, and gives it back before its last bio ends, which is when the
 * bio's owner may evict the key.  The eviction then reaches the driver.
 */
static void mt_crypt_run(struct kunit *test, unsigned int nr)
{
	static const u8 raw_key[BLK_CRYPTO_MAX_KEY_SIZE] = { 1 };
	struct mt_dev *dev = mt_dev_create(test, MT_END_OK);
	struct mt_io *io = kunit_kzalloc(test, sizeof(*io), GFP_KERNEL);
	struct blk_crypto_key *key = kunit_kzalloc(test, sizeof(*key), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, io);
	KUNIT_ASSERT_NOT_NULL(test, key);
	KUNIT_ASSERT_EQ(test, blk_crypto_profile_init(&dev->crypto, 1), 0);
	dev->crypto_ready = true;
	dev->crypto.ll_ops = mt_crypto_ops;
	dev->crypto.max_dun_bytes_supported = 8;
	dev->crypto.modes_supported[BLK_ENCRYPTION_MODE_AES_256_XTS] = PAGE_SIZE;
	KUNIT_ASSERT_TRUE(test, blk_crypto_register(&dev->crypto, dev->disk->queue));

	KUNIT_ASSERT_EQ(test, blk_crypto_init_key(key, raw_key,
						  BLK_ENCRYPTION_MODE_AES_256_XTS,
						  8, PAGE_SIZE), 0);
	KUNIT_ASSERT_EQ(test, blk_crypto_start_using_key(dev->disk->part0, key), 0);
	mt_submit(test, dev, io, REQ_OP_WRITE, nr, key);

	KUNIT_EXPECT_EQ(test, dev->nr_rqs, 1U);
	KUNIT_EXPECT_EQ(test, dev->rq_bios, nr);
	KUNIT_EXPECT_EQ(test, dev->programmed, 1U);
	KUNIT_EXPECT_TRUE(test, io->ended[nr - 1]);
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(io->status[nr - 1]), 0);
	KUNIT_EXPECT_FALSE(test, io->keyslot_held[nr - 1]);

	blk_crypto_evict_key(dev->disk->part0, key);
	KUNIT_EXPECT_EQ(test, dev->evicted, 1U);
}

/* The lone-bio end gives the keyslot back... */
static void mt_crypt_lone_bio_test(struct kunit *test)
{
	mt_crypt_run(test, 1);
}

/* ...and so does blk_update_request()'s walk. */
static void mt_crypt_merged_bios_test(struct kunit *test)
{
	mt_crypt_run(test, 2);
}
#endif /* CONFIG_BLK_INLINE_ENCRYPTION */

static bool mt_count_rq(struct request *rq, void *data)
{
	struct mt_dev *dev = rq->q->queuedata;

	if (rq == dev->held_flush)
		(*(unsigned int *)data)++;
	return true;
}

static void mt_done_end_io(struct bio *bio)
{
	complete(bio->bi_private);
}

/*
 * A flush request borrows the tag of the request it flushes for, and
 * tags->rqs[] keeps pointing at it after it gave the tag back.  While it
 * holds another tag, blk_mq_tagset_busy_iter() finds it once, by that.
 */
static void mt_flush_tag_iter_test(struct kunit *test)
{
	struct mt_dev *dev = mt_dev_create(test, MT_END_OK);
	struct mt_io *io = kunit_kzalloc(test, sizeof(*io), GFP_KERNEL);
	struct request *rqs[MT_DEPTH], *held = NULL;
	DECLARE_COMPLETION_ONSTACK(done);
	unsigned int old_tag, i, n, seen = 0;
	struct bio *bio;

	KUNIT_ASSERT_NOT_NULL(test, io);
	/* a volatile cache without FUA: a FUA write ends with a flush */
	blk_queue_write_cache(dev->disk->queue, true, false);
	mt_submit(test, dev, io, REQ_OP_WRITE | REQ_FUA, 1, NULL);
	KUNIT_ASSERT_TRUE(test, io->ended[0]);
	old_tag = dev->flush_tag;
	KUNIT_ASSERT_NE(test, old_tag, BLK_MQ_NO_TAG);

	/* hold the old tag, so the next flush borrows another */
	for (n = 0; n < ARRAY_SIZE(rqs) && !held; n++) {
		rqs[n] = blk_mq_alloc_request(dev->disk->queue, REQ_OP_DRV_IN,
					      BLK_MQ_REQ_NOWAIT);
		if (IS_ERR(rqs[n]))
			break;
		if (rqs[n]->tag == old_tag)
			held = rqs[n];
	}
	for (i = 0; i < n; i++)
		if (rqs[i] != held)
			blk_mq_free_request(rqs[i]);
	KUNIT_ASSERT_NOT_NULL(test, held);

	dev->hold_flush = true;
	bio = bio_alloc(dev->disk->part0, 0, REQ_OP_WRITE | REQ_PREFLUSH,
			GFP_KERNEL);
	bio->bi_private = &done;
	bio->bi_end_io = mt_done_end_io;
	submit_bio(bio);
	wait_for_completion(&dev->flush_held);
	KUNIT_EXPECT_NE(test, dev->flush_tag, old_tag);

	blk_mq_tagset_busy_iter(&dev->set, mt_count_rq, &seen);
	KUNIT_EXPECT_EQ(test, seen, 1U);

	blk_mq_end_request(dev->held_flush, BLK_STS_OK);
	wait_for_completion(&done);
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(bio->bi_status), 0);
	bio_put(bio);
	blk_mq_free_request(held);
}

/*
 * The driver starts a request in ->queue_rq() and then sleeps there past
 * the request's timeout, with the queue's timer due meanwhile: the
 * timeout waits until ->queue_rq() has returned, and ends it once.
 */
static void mt_timeout_after_queue_rq_test(struct kunit *test)
{
	struct mt_dev *dev = mt_dev_create_flags(test, MT_END_SLOW_NONE, 1,
						 BLK_MQ_F_BLOCKING);
	struct mt_io *io = kunit_kzalloc(test, sizeof(*io), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, io);
	blk_queue_rq_timeout(dev->disk->queue, 1);
	mt_submit(test, dev, io, REQ_OP_READ, 1, NULL);

	KUNIT_EXPECT_EQ(test, dev->nr_rqs, 1U);
	KUNIT_EXPECT_EQ(test, dev->timeouts, 1U);
	KUNIT_EXPECT_FALSE(test, dev->timeout_in_queue_rq);
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(io->status[0]), -ETIMEDOUT);
}

/*
 * A one-page read of the disk's @i-th page from MT_SECTOR, not merged
 * with any other, that completes @done when it ends.
 */
static struct bio *mt_read_bio(struct kunit *test, struct mt_dev *dev,
			       unsigned int i, struct completion *done)
{
	struct page *page = alloc_page(GFP_KERNEL);
	struct bio *bio;

	KUNIT_ASSERT_NOT_NULL(test, page);
	bio = bio_alloc(dev->disk->part0, 1, REQ_OP_READ | REQ_NOMERGE,
			GFP_KERNEL);
	bio->bi_iter.bi_sector = MT_SECTOR + i * (PAGE_SIZE >> SECTOR_SHIFT);
	__bio_add_page(bio, page, PAGE_SIZE, 0);
	bio->bi_private = done;
	bio->bi_end_io = mt_done_end_io;
	return bio;
}

static void mt_read_bio_put(struct bio *bio)
{
	__free_page(bio_first_page_all(bio));
	bio_put(bio);
}

/*
 * Wait a while for @done.  A request that no one reruns would wait for
 * ever and hang the disk's removal: run the queue then, and say so.
 */
static bool mt_wait_or_kick(struct mt_dev *dev, struct completion *done)
{
	if (wait_for_completion_timeout(done, 5 * HZ))
		return true;
	blk_mq_run_hw_queues(dev->disk->queue, false);
	wait_for_completion(done);
	return false;
}

/*
 * ->queue_rq() refuses a read once with each busy status while nothing
 * else is in flight: the engine retries it by itself, and the read ends
 * well, started once.  BLK_STS_DEV_RESOURCE and BLK_STS_ZONE_RESOURCE
 * promise a rerun from a completion, but there is none to come.
 */
static void mt_busy_alone_test(struct kunit *test)
{
	static const struct {
		blk_status_t status;
		const char *name;
	} busy[] = {
		{ BLK_STS_RESOURCE, "BLK_STS_RESOURCE" },
		{ BLK_STS_DEV_RESOURCE, "BLK_STS_DEV_RESOURCE" },
		{ BLK_STS_ZONE_RESOURCE, "BLK_STS_ZONE_RESOURCE" },
	};
	struct mt_dev *dev = mt_dev_create(test, MT_END_OK);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(busy); i++) {
		DECLARE_COMPLETION_ONSTACK(done);
		struct bio *bio = mt_read_bio(test, dev, i, &done);
		bool retried;

		dev->nr_rqs = 0;
		dev->busy_calls = 0;
		dev->busy_status = busy[i].status;
		dev->busy_left = 1;
		submit_bio(bio);
		retried = mt_wait_or_kick(dev, &done);

		KUNIT_EXPECT_TRUE_MSG(test, retried, "%s", busy[i].name);
		KUNIT_EXPECT_EQ_MSG(test, dev->busy_calls, 1U, "%s",
				    busy[i].name);
		KUNIT_EXPECT_EQ_MSG(test, dev->nr_rqs, 1U, "%s", busy[i].name);
		KUNIT_EXPECT_EQ_MSG(test, blk_status_to_errno(bio->bi_status),
				    0, "%s", busy[i].name);
		mt_read_bio_put(bio);
	}
}

/*
 * With a read in the driver, ->queue_rq() refuses a second one with
 * BLK_STS_DEV_RESOURCE.  The engine waits for the first to end and
 * reruns the queue then: not before, and without the delayed retry.
 */
static void mt_busy_restart_test(struct kunit *test)
{
	struct mt_dev *dev = mt_dev_create(test, MT_END_OK);
	DECLARE_COMPLETION_ONSTACK(first_done);
	DECLARE_COMPLETION_ONSTACK(second_done);
	struct bio *first, *second;
	bool rerun;

	first = mt_read_bio(test, dev, 0, &first_done);
	second = mt_read_bio(test, dev, 1, &second_done);

	dev->hold_next = true;
	submit_bio(first);
	KUNIT_ASSERT_NOT_NULL(test, dev->held_rq);

	dev->busy_status = BLK_STS_DEV_RESOURCE;
	dev->busy_left = 1;
	submit_bio(second);
	KUNIT_EXPECT_EQ(test, dev->busy_calls, 1U);
	/* ten times the delayed retry's wait */
	msleep(30);
	KUNIT_EXPECT_EQ(test, dev->nr_rqs, 0U);
	KUNIT_EXPECT_FALSE(test, completion_done(&second_done));

	blk_mq_end_request(dev->held_rq, BLK_STS_OK);
	rerun = mt_wait_or_kick(dev, &second_done);
	wait_for_completion(&first_done);

	KUNIT_EXPECT_TRUE(test, rerun);
	KUNIT_EXPECT_EQ(test, dev->nr_rqs, 1U);
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(first->bi_status), 0);
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(second->bi_status), 0);
	mt_read_bio_put(first);
	mt_read_bio_put(second);
}

static struct kunit_case blk_mq_end_test_cases[] = {
	KUNIT_CASE(mt_lone_bio_test),
	KUNIT_CASE(mt_lone_bio_error_test),
	KUNIT_CASE(mt_merged_bios_test),
	KUNIT_CASE(mt_merged_bios_error_test),
	KUNIT_CASE(mt_first_bio_then_rest_test),
	KUNIT_CASE(mt_flush_tag_iter_test),
	KUNIT_CASE(mt_timeout_after_queue_rq_test),
	KUNIT_CASE(mt_busy_alone_test),
	KUNIT_CASE(mt_busy_restart_test),
#ifdef CONFIG_BLK_DEV_INTEGRITY
	KUNIT_CASE(mt_integrity_write_test),
	KUNIT_CASE(mt_integrity_read_test),
#endif
#ifdef CONFIG_BLK_INLINE_ENCRYPTION
	KUNIT_CASE(mt_crypt_lone_bio_test),
	KUNIT_CASE(mt_crypt_merged_bios_test),
#endif
	{}
};

static struct kunit_suite blk_mq_end_test_suite = {
	.name = "blk-mq-end",
	.exit = mt_exit,
	.test_cases = blk_mq_end_test_cases,
};

#ifdef CONFIG_HOTPLUG_CPU
/*
 * blk_mq_alloc_request_hctx() on the hardware queue whose only CPU is
 * CPU 1: the request is on CPU 1's software context.  With CPU 1 offline
 * the queue has no online CPU: the call fails with -EXDEV and holds no
 * tag.  Back online, the queue serves the call again.
 */
static void mt_alloc_hctx_offline_test(struct kunit *test)
{
	struct blk_mq_hw_ctx *hctx = NULL, *h;
	struct request_queue *q;
	struct mt_dev *dev;
	struct request *rq;
	unsigned long i;
	int err, online_err, idx = -1;

	if (!cpu_online(0) || !cpu_online(1) || num_possible_cpus() != 2)
		kunit_skip(test, "needs CPUs 0 and 1 online, no others possible");
	dev = mt_dev_create_queues(test, MT_END_OK, 2);
	q = dev->disk->queue;
	queue_for_each_hw_ctx(q, h, i) {
		if (cpumask_equal(h->cpumask, cpumask_of(1))) {
			hctx = h;
			idx = i;
		}
	}
	KUNIT_ASSERT_GE_MSG(test, idx, 0, "no hardware queue of CPU 1 alone");

	rq = blk_mq_alloc_request_hctx(q, REQ_OP_DRV_IN, BLK_MQ_REQ_NOWAIT, idx);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rq));
	KUNIT_EXPECT_PTR_EQ(test, rq->mq_hctx, hctx);
	KUNIT_EXPECT_EQ(test, rq->mq_ctx->cpu, 1U);
	blk_mq_free_request(rq);

	KUNIT_ASSERT_EQ(test, remove_cpu(1), 0);
	rq = blk_mq_alloc_request_hctx(q, REQ_OP_DRV_IN, BLK_MQ_REQ_NOWAIT, idx);
	err = PTR_ERR_OR_ZERO(rq);
	if (!err)
		blk_mq_free_request(rq);
	KUNIT_EXPECT_TRUE(test, test_bit(BLK_MQ_S_INACTIVE, &hctx->state));
	online_err = add_cpu(1);
	KUNIT_EXPECT_EQ(test, err, -EXDEV);
	KUNIT_EXPECT_FALSE(test, blk_mq_hctx_holds_tags(hctx));
	KUNIT_ASSERT_EQ(test, online_err, 0);

	KUNIT_EXPECT_FALSE(test, test_bit(BLK_MQ_S_INACTIVE, &hctx->state));
	rq = blk_mq_alloc_request_hctx(q, REQ_OP_DRV_IN, BLK_MQ_REQ_NOWAIT, idx);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rq));
	KUNIT_EXPECT_EQ(test, rq->mq_ctx->cpu, 1U);
	blk_mq_free_request(rq);
}
#endif /* CONFIG_HOTPLUG_CPU */

static struct kunit_case blk_mq_alloc_test_cases[] = {
#ifdef CONFIG_HOTPLUG_CPU
	KUNIT_CASE(mt_alloc_hctx_offline_test),
#endif
	{}
};

/* How the engine hands out requests outside the bio path. */
static struct kunit_suite blk_mq_alloc_test_suite = {
	.name = "blk-mq-alloc",
	.exit = mt_exit,
	.test_cases = blk_mq_alloc_test_cases,
};

kunit_test_suites(&blk_mq_end_test_suite, &blk_mq_alloc_test_suite);

MODULE_LICENSE("GPL");
