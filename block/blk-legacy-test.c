// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the request_fn mode (blk-legacy.c).
 *
 * blk-legacy-flush: each case builds a request_fn disk with a volatile
 * write cache, with and without FUA, submits one write bio carrying data
 * and REQ_PREFLUSH and/or REQ_FUA, and checks the exact requests the
 * driver's request_fn saw.
 *
 * blk-legacy-merge: bios that join two queued requests into one, and the
 * disk's count of requests in flight.
 */
#include <kunit/test.h>
#include <linux/bio.h>
#include <linux/blk-legacy.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/part_stat.h>
#include <linux/spinlock.h>

#define LT_MAX_SEEN	8
#define LT_SECTOR	8

/* One request as the driver saw it. */
struct lt_seen {
	enum req_op op;
	blk_opf_t flags;
	unsigned int bytes;
	sector_t sector;
};

struct lt_dev {
	spinlock_t lock;		/* the queue lock: guards nr_seen, seen */
	struct request_queue *q;
	struct gendisk *disk;
	bool fail_flush;
	unsigned int nr_seen;
	struct lt_seen seen[LT_MAX_SEEN];
};

/* Record each request, then end it: flushes fail if asked to. */
static void lt_request_fn(struct request_queue *q)
{
	struct lt_dev *dev = q->queuedata;
	struct request *rq;
	blk_status_t status;

	while ((rq = blk_fetch_request(q))) {
		if (dev->nr_seen < LT_MAX_SEEN) {
			struct lt_seen *s = &dev->seen[dev->nr_seen];

			s->op = req_op(rq);
			s->flags = rq->cmd_flags & (REQ_FUA | REQ_PREFLUSH);
			s->bytes = blk_rq_bytes(rq);
			s->sector = blk_rq_pos(rq);
		}
		dev->nr_seen++;
		status = BLK_STS_OK;
		if (dev->fail_flush && req_op(rq) == REQ_OP_FLUSH)
			status = BLK_STS_IOERR;
		__blk_end_request_all(rq, status);
	}
}

static const struct block_device_operations lt_fops = {
	.owner = THIS_MODULE,
};

/* Tear down the case's disk, if it got one, whether the case passed or not. */
static void lt_exit(struct kunit *test)
{
	struct lt_dev *dev = test->priv;

	if (!dev)
		return;
	del_gendisk(dev->disk);
	blk_cleanup_queue(dev->q);
	put_disk(dev->disk);
	test->priv = NULL;
}

/* A live request_fn disk with a write cache; @fua: the driver has FUA. */
static struct lt_dev *lt_dev_create(struct kunit *test, bool fua)
{
	struct lt_dev *dev;
	int ret;

	dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	spin_lock_init(&dev->lock);

	dev->q = blk_init_queue(lt_request_fn, &dev->lock);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev->q);
	dev->q->queuedata = dev;
	blk_queue_write_cache(dev->q, true, fua);

	dev->disk = blk_alloc_disk_for_queue(dev->q);
	if (!dev->disk)
		blk_cleanup_queue(dev->q);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev->disk);
	dev->disk->fops = &lt_fops;
	dev->disk->private_data = dev;
	/* no partition scan: the driver is to see only the test's requests */
	dev->disk->flags |= GENHD_FL_NO_PART;
	snprintf(dev->disk->disk_name, DISK_NAME_LEN, "blklegacy_kunit");
	set_capacity(dev->disk, 64);

	ret = add_disk(dev->disk);
	if (ret) {
		blk_cleanup_queue(dev->q);
		put_disk(dev->disk);
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	test->priv = dev;
	return dev;
}

/* Write one page with @flags at LT_SECTOR and wait: the bio's status. */
static blk_status_t lt_write(struct kunit *test, struct lt_dev *dev,
			     blk_opf_t flags)
{
	struct page *page;
	struct bio *bio;
	blk_status_t status;

	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, page);
	bio = bio_alloc(dev->disk->part0, 1, REQ_OP_WRITE | flags, GFP_KERNEL);
	bio->bi_iter.bi_sector = LT_SECTOR;
	KUNIT_ASSERT_EQ(test, bio_add_page(bio, page, PAGE_SIZE, 0), PAGE_SIZE);

	submit_bio_wait(bio);
	status = bio->bi_status;
	bio_put(bio);
	__free_page(page);
	return status;
}

/* One request the driver is to see: a flush, or the page with @flags. */
struct lt_step {
	enum req_op op;
	blk_opf_t flags;
};

struct lt_case {
	bool fua;		/* the driver declares FUA */
	blk_opf_t flags;	/* on the write bio */
	bool fail_flush;	/* the driver fails every flush */
	blk_status_t status;	/* the bio's, at the end */
	unsigned int nr_steps;
	struct lt_step steps[3];
};

#define LT_FLUSH	{ REQ_OP_FLUSH, 0 }
#define LT_WRITE(f)	{ REQ_OP_WRITE, (f) }

/* Submit @c's write; the driver must see exactly its steps. */
static void lt_run(struct kunit *test, const struct lt_case *c)
{
	struct lt_dev *dev = lt_dev_create(test, c->fua);
	const struct lt_step *want;
	struct lt_seen *seen;
	unsigned int i;

	dev->fail_flush = c->fail_flush;
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(lt_write(test, dev, c->flags)),
			blk_status_to_errno(c->status));
	KUNIT_ASSERT_EQ(test, dev->nr_seen, c->nr_steps);
	for (i = 0; i < c->nr_steps; i++) {
		want = &c->steps[i];
		seen = &dev->seen[i];
		KUNIT_EXPECT_EQ_MSG(test, (__force u32)seen->op, (__force u32)want->op,
				    "request %u", i);
		if (want->op == REQ_OP_FLUSH) {
			KUNIT_EXPECT_EQ_MSG(test, seen->bytes, 0U, "request %u", i);
			KUNIT_EXPECT_FALSE_MSG(test, seen->flags & REQ_FUA,
					       "request %u", i);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, (__force u32)seen->flags,
				    (__force u32)want->flags, "request %u", i);
		KUNIT_EXPECT_EQ_MSG(test, seen->bytes, (unsigned int)PAGE_SIZE,
				    "request %u", i);
		KUNIT_EXPECT_EQ_MSG(test, seen->sector, (sector_t)LT_SECTOR,
				    "request %u", i);
	}
}

/*
 * A test case of its own for each struct lt_case, not one parameterized
 * case: the suite's debugfs results keep only a parameterized case's last
 * run, and make check reports the cases from there.
 */
#define LT_TEST(name, fua, flags, fail_flush, status, nr, ...)		\
static void name(struct kunit *test)					\
{									\
	static const struct lt_case c = {				\
		fua, flags, fail_flush, status, nr, { __VA_ARGS__ }	\
	};								\
									\
	lt_run(test, &c);						\
}

/* REQ_PREFLUSH with data: a flush, then the plain write. */
LT_TEST(lt_preflush_fua_drv_test, true, REQ_PREFLUSH, false, BLK_STS_OK,
	2, LT_FLUSH, LT_WRITE(0))
LT_TEST(lt_preflush_test, false, REQ_PREFLUSH, false, BLK_STS_OK,
	2, LT_FLUSH, LT_WRITE(0))
/* REQ_PREFLUSH|REQ_FUA: the FUA goes to the driver, or becomes a flush. */
LT_TEST(lt_preflush_fua_fua_drv_test, true, REQ_PREFLUSH | REQ_FUA, false,
	BLK_STS_OK, 2, LT_FLUSH, LT_WRITE(REQ_FUA))
LT_TEST(lt_preflush_fua_test, false, REQ_PREFLUSH | REQ_FUA, false,
	BLK_STS_OK, 3, LT_FLUSH, LT_WRITE(0), LT_FLUSH)
/* REQ_FUA alone: the write as it is, or the plain write and a flush. */
LT_TEST(lt_fua_fua_drv_test, true, REQ_FUA, false, BLK_STS_OK,
	1, LT_WRITE(REQ_FUA))
LT_TEST(lt_fua_test, false, REQ_FUA, false, BLK_STS_OK,
	2, LT_WRITE(0), LT_FLUSH)
/* A failed pre-flush ends the bio with its error; no data is sent. */
LT_TEST(lt_preflush_fails_fua_drv_test, true, REQ_PREFLUSH | REQ_FUA, true,
	BLK_STS_IOERR, 1, LT_FLUSH)
LT_TEST(lt_preflush_fails_test, false, REQ_PREFLUSH | REQ_FUA, true,
	BLK_STS_IOERR, 1, LT_FLUSH)

static struct kunit_case blk_legacy_flush_test_cases[] = {
	KUNIT_CASE(lt_preflush_fua_drv_test),
	KUNIT_CASE(lt_preflush_test),
	KUNIT_CASE(lt_preflush_fua_fua_drv_test),
	KUNIT_CASE(lt_preflush_fua_test),
	KUNIT_CASE(lt_fua_fua_drv_test),
	KUNIT_CASE(lt_fua_test),
	KUNIT_CASE(lt_preflush_fails_fua_drv_test),
	KUNIT_CASE(lt_preflush_fails_test),
	{}
};

static struct kunit_suite blk_legacy_flush_test_suite = {
	.name = "blk-legacy-flush",
	.exit = lt_exit,
	.test_cases = blk_legacy_flush_test_cases,
};

kunit_test_suite(blk_legacy_flush_test_suite);

/* The bios of one case: the last to end completes @done. */
struct lt_bios {
	atomic_t pending;
	struct completion done;
};

static void lt_bio_end(struct bio *bio)
{
	struct lt_bios *b = bio->bi_private;

	bio_put(bio);
	if (atomic_dec_and_test(&b->pending))
		complete(&b->done);
}

/* Queue a write of @page at @sector without waiting for it. */
static void lt_submit_write(struct kunit *test, struct lt_dev *dev,
			    struct lt_bios *b, struct page *page,
			    sector_t sector)
{
	struct bio *bio;

	bio = bio_alloc(dev->disk->part0, 1, REQ_OP_WRITE, GFP_KERNEL);
	bio->bi_iter.bi_sector = sector;
	bio->bi_end_io = lt_bio_end;
	bio->bi_private = b;
	KUNIT_ASSERT_EQ(test, bio_add_page(bio, page, PAGE_SIZE, 0), PAGE_SIZE);
	atomic_inc(&b->pending);
	submit_bio(bio);
}

/* The disk's writes in flight: the per-CPU counts summed, not clamped. */
static long lt_writes_in_flight(struct lt_dev *dev)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += part_stat_local_read_cpu(dev->disk->part0,
						in_flight[WRITE], cpu);
	return sum;
}

/*
 * With the queue stopped, writes at pages 0 and 2 become two queued
 * requests; a write at page 1 joins them into one, and the request
 * merged away leaves the in-flight count once, not twice.
 */
static void lt_merge_requests_inflight_test(struct kunit *test)
{
	struct lt_dev *dev = lt_dev_create(test, false);
	struct lt_bios b;
	struct page *page;
	unsigned long left;

	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, page);
	atomic_set(&b.pending, 0);
	init_completion(&b.done);

	spin_lock_irq(&dev->lock);
	blk_stop_queue(dev->q);
	spin_unlock_irq(&dev->lock);
	lt_submit_write(test, dev, &b, page, 0);
	lt_submit_write(test, dev, &b, page, 2 * PAGE_SECTORS);
	KUNIT_EXPECT_EQ(test, lt_writes_in_flight(dev), 2L);
	lt_submit_write(test, dev, &b, page, PAGE_SECTORS);
	KUNIT_EXPECT_EQ(test, lt_writes_in_flight(dev), 1L);

	spin_lock_irq(&dev->lock);
	blk_start_queue(dev->q);
	spin_unlock_irq(&dev->lock);
	left = wait_for_completion_timeout(&b.done, 10 * HZ);
	__free_page(page);
	KUNIT_ASSERT_NE(test, left, 0UL);

	KUNIT_EXPECT_EQ(test, dev->nr_seen, 1U);
	KUNIT_EXPECT_EQ(test, dev->seen[0].bytes, 3U * (unsigned int)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, dev->seen[0].sector, (sector_t)0);
	KUNIT_EXPECT_EQ(test, lt_writes_in_flight(dev), 0L);
}

static struct kunit_case blk_legacy_merge_test_cases[] = {
	KUNIT_CASE(lt_merge_requests_inflight_test),
	{}
};

static struct kunit_suite blk_legacy_merge_test_suite = {
	.name = "blk-legacy-merge",
	.exit = lt_exit,
	.test_cases = blk_legacy_merge_test_cases,
};

kunit_test_suite(blk_legacy_merge_test_suite);

MODULE_LICENSE("GPL");
