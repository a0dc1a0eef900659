// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the blk-mq tag allocator (blk-mq-tag.c), the default
 * CPU to hardware queue map (blk-mq-cpumap.c) and how a queue attaches
 * its CPUs' software contexts to the hardware contexts (blk-mq.c).
 */
#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/blk-mq.h>

#include "blk-mq.h"
#include "blk-mq-tag.h"

struct tag_waiter {
	struct blk_mq_tag_map *map;
	struct completion started;
	struct completion done;
	int tag;
};

static int tag_waiter_fn(void *data)
{
	struct tag_waiter *w = data;

	complete(&w->started);
	w->tag = blk_mq_tag_map_get_wait(w->map, false);
	complete(&w->done);
	return 0;
}

/* A full map makes waiters sleep; freeing one tag wakes exactly one. */
static void tag_exhaustion_wakeup_test(struct kunit *test)
{
	struct blk_mq_tag_map map;
	struct tag_waiter w = { .map = &map };
	struct task_struct *task;
	int tags[8], i;

	KUNIT_ASSERT_EQ(test, blk_mq_tag_map_init(&map, 8, NUMA_NO_NODE), 0);

	for (i = 0; i < 8; i++) {
		tags[i] = blk_mq_tag_map_get(&map);
		KUNIT_ASSERT_GE(test, tags[i], 0);
		KUNIT_ASSERT_LT(test, tags[i], 8);
	}
	KUNIT_EXPECT_EQ(test, blk_mq_tag_map_get(&map), -1);
	KUNIT_EXPECT_EQ(test, blk_mq_tag_map_get_wait(&map, true), -1);
	KUNIT_EXPECT_EQ(test, blk_mq_tag_map_weight(&map), 8U);

	init_completion(&w.started);
	init_completion(&w.done);
	task = kthread_run(tag_waiter_fn, &w, "tag-waiter");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	wait_for_completion(&w.started);

	/* nothing free: the waiter must still be asleep */
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&w.done, HZ / 10),
			0UL);

	blk_mq_tag_map_put(&map, tags[3]);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&w.done, 5 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, w.tag, tags[3]);

	blk_mq_tag_map_put(&map, w.tag);
	for (i = 0; i < 8; i++)
		if (i != 3)
			blk_mq_tag_map_put(&map, tags[i]);
	KUNIT_EXPECT_EQ(test, blk_mq_tag_map_weight(&map), 0U);
	blk_mq_tag_map_free(&map);
}

/* Reserved tags come first, are separate, and run out on their own. */
static void tag_reserved_test(struct kunit *test)
{
	struct blk_mq_tags *tags = blk_mq_init_tags(16, 2, NUMA_NO_NODE);
	int r0, r1, n;

	KUNIT_ASSERT_NOT_NULL(test, tags);
	r0 = blk_mq_get_tag(tags, true, true);
	r1 = blk_mq_get_tag(tags, true, true);
	KUNIT_EXPECT_LT(test, r0, 2);
	KUNIT_EXPECT_LT(test, r1, 2);
	KUNIT_EXPECT_NE(test, r0, r1);
	KUNIT_EXPECT_EQ(test, blk_mq_get_tag(tags, true, true),
			(int)BLK_MQ_NO_TAG);

	/* normal tags are unaffected and never hand out a reserved one */
	n = blk_mq_get_tag(tags, false, true);
	KUNIT_EXPECT_GE(test, n, 2);
	KUNIT_EXPECT_LT(test, n, 16);

	blk_mq_put_tag(tags, r0);
	KUNIT_EXPECT_EQ(test, blk_mq_get_tag(tags, true, true), r0);
	blk_mq_put_tag(tags, r0);
	blk_mq_put_tag(tags, r1);
	blk_mq_put_tag(tags, n);
	KUNIT_EXPECT_EQ(test, blk_mq_tag_map_weight(&tags->reserved), 0U);
	KUNIT_EXPECT_EQ(test, blk_mq_tag_map_weight(&tags->normal), 0U);

	/* a smaller depth limits what is handed out */
	KUNIT_EXPECT_EQ(test, blk_mq_tag_update_depth(tags, 4), 0);
	r0 = blk_mq_get_tag(tags, false, true);
	r1 = blk_mq_get_tag(tags, false, true);
	KUNIT_EXPECT_EQ(test, blk_mq_get_tag(tags, false, true),
			(int)BLK_MQ_NO_TAG);
	blk_mq_put_tag(tags, r0);
	blk_mq_put_tag(tags, r1);
	blk_mq_free_tags(tags);
}

#define STRESS_DEPTH	4
#define STRESS_LOOPS	20000

struct tag_stress {
	struct blk_mq_tag_map map;
	atomic_t owner[STRESS_DEPTH];
	atomic_t errors;
	atomic_t running;
	struct completion done;
};

static int tag_stress_fn(void *data)
{
	struct tag_stress *s = data;
	int i, tag;

	for (i = 0; i < STRESS_LOOPS; i++) {
		tag = blk_mq_tag_map_get_wait(&s->map, false);
		if (tag < 0 || tag >= STRESS_DEPTH) {
			atomic_inc(&s->errors);
			continue;
		}
		/* no one else may hold the same tag */
		if (atomic_xchg(&s->owner[tag], 1))
			atomic_inc(&s->errors);
		if (!(i & 63))
			cond_resched();
		atomic_set(&s->owner[tag], 0);
		blk_mq_tag_map_put(&s->map, tag);
	}
	if (atomic_dec_and_test(&s->running))
		complete(&s->done);
	return 0;
}

/*
 * More tasks than tags allocate and free concurrently: no tag is shared,
 * no tag is lost, and no waiter is left behind.
 */
static void tag_concurrent_test(struct kunit *test)
{
	struct tag_stress *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	int i, nr = 2 * STRESS_DEPTH;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, blk_mq_tag_map_init(&s->map, STRESS_DEPTH,
						  NUMA_NO_NODE), 0);
	init_completion(&s->done);
	atomic_set(&s->running, nr);

	for (i = 0; i < nr; i++) {
		struct task_struct *t = kthread_run(tag_stress_fn, s,
						    "tag-stress/%d", i);

		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}

	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&s->done, 60 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->errors), 0);
	KUNIT_EXPECT_EQ(test, blk_mq_tag_map_weight(&s->map), 0U);
	blk_mq_tag_map_free(&s->map);
}

/*
 * Every CPU maps into range, with queues <= CPUs every queue is used, and
 * with as many queues as CPUs each CPU has its own.
 */
static void cpumap_spread_test(struct kunit *test)
{
	unsigned int nr_cpus = num_possible_cpus();
	unsigned int *map = kunit_kcalloc(test, nr_cpu_ids, sizeof(*map),
					  GFP_KERNEL);
	bool *used = kunit_kcalloc(test, nr_cpus + 1, sizeof(*used),
				   GFP_KERNEL);
	struct blk_mq_queue_map qmap = { .mq_map = map };
	unsigned int nr_queues, cpu, q;

	KUNIT_ASSERT_NOT_NULL(test, map);
	KUNIT_ASSERT_NOT_NULL(test, used);

	for (nr_queues = 1; nr_queues <= nr_cpus + 1; nr_queues++) {
		qmap.nr_queues = nr_queues;
		qmap.queue_offset = 3;
		blk_mq_map_queues(&qmap);
		memset(used, 0, (nr_cpus + 1) * sizeof(*used));
		for_each_possible_cpu(cpu) {
			q = map[cpu];
			KUNIT_EXPECT_GE(test, q, 3U);
			KUNIT_EXPECT_LT(test, q, 3 + nr_queues);
			if (q >= 3 && q < 3 + nr_queues)
				used[q - 3] = true;
		}
		for (q = 0; q < min(nr_queues, nr_cpus); q++)
			KUNIT_EXPECT_TRUE_MSG(test, used[q],
					      "queue %u of %u unused", q,
					      nr_queues);
	}

	/* as many queues as CPUs: one CPU per queue */
	qmap.nr_queues = nr_cpus;
	qmap.queue_offset = 0;
	blk_mq_map_queues(&qmap);
	memset(used, 0, (nr_cpus + 1) * sizeof(*used));
	for_each_possible_cpu(cpu) {
		KUNIT_EXPECT_FALSE(test, used[map[cpu]]);
		used[map[cpu]] = true;
	}
}

static blk_status_t ctxmap_queue_rq(struct blk_mq_hw_ctx *hctx,
				    const struct blk_mq_queue_data *bd)
{
	return BLK_STS_IOERR;	/* the case sends no I/O */
}

/* Reads go to the very hardware queue the default map names: as nvme-tcp. */
static void ctxmap_map_queues(struct blk_mq_tag_set *set)
{
	unsigned int t;

	for (t = HCTX_TYPE_DEFAULT; t <= HCTX_TYPE_READ; t++) {
		set->map[t].nr_queues = set->nr_hw_queues;
		set->map[t].queue_offset = 0;
		blk_mq_map_queues(&set->map[t]);
	}
}

static const struct blk_mq_ops ctxmap_mq_ops = {
	.queue_rq	= ctxmap_queue_rq,
	.map_queues	= ctxmap_map_queues,
};

/*
 * Two queue types mapped to one hardware context: each CPU's software
 * context is in it once, and both types find it at the same index.
 */
static void ctxmap_shared_types_test(struct kunit *test)
{
	struct blk_mq_tag_set *set = kunit_kzalloc(test, sizeof(*set),
						   GFP_KERNEL);
	struct request_queue *q;
	struct blk_mq_hw_ctx *hctx;
	struct blk_mq_ctx *ctx;
	unsigned int cpu;

	KUNIT_ASSERT_NOT_NULL(test, set);
	set->ops = &ctxmap_mq_ops;
	set->nr_hw_queues = 1;
	set->nr_maps = 2;
	set->queue_depth = 4;
	set->numa_node = NUMA_NO_NODE;
	KUNIT_ASSERT_EQ(test, blk_mq_alloc_tag_set(set), 0);
	q = blk_mq_init_queue(set);
	if (IS_ERR(q))
		blk_mq_free_tag_set(set);
	KUNIT_ASSERT_FALSE(test, IS_ERR(q));

	hctx = xa_load(&q->hctx_table, 0);
	KUNIT_EXPECT_EQ(test, hctx->nr_ctx, num_possible_cpus());
	for_each_possible_cpu(cpu) {
		ctx = per_cpu_ptr(q->queue_ctx, cpu);
		KUNIT_EXPECT_PTR_EQ(test, ctx->hctxs[HCTX_TYPE_READ], hctx);
		KUNIT_EXPECT_EQ(test, ctx->index_hw[HCTX_TYPE_READ],
				ctx->index_hw[HCTX_TYPE_DEFAULT]);
		if (ctx->index_hw[HCTX_TYPE_DEFAULT] < hctx->nr_ctx)
			KUNIT_EXPECT_PTR_EQ(test,
					    hctx->ctxs[ctx->index_hw[HCTX_TYPE_DEFAULT]],
					    ctx);
	}

	blk_mq_destroy_queue(q);
	blk_put_queue(q);
	blk_mq_free_tag_set(set);
}

static struct kunit_case blk_mq_tag_test_cases[] = {
	KUNIT_CASE(tag_exhaustion_wakeup_test),
	KUNIT_CASE(tag_reserved_test),
	KUNIT_CASE(tag_concurrent_test),
	KUNIT_CASE(cpumap_spread_test),
	KUNIT_CASE(ctxmap_shared_types_test),
	{}
};

static struct kunit_suite blk_mq_tag_test_suite = {
	.name = "blk-mq-tag",
	.test_cases = blk_mq_tag_test_cases,
};

kunit_test_suite(blk_mq_tag_test_suite);

MODULE_LICENSE("GPL");
