// SPDX-License-Identifier: GPL-2.0
/*
 * noop: the request_fn scheduler that keeps requests in arrival order.
 *
 * It only merges: back merges through the shared hash, front merges
 * into one of the last few requests queued.
 */
#include <linux/kernel.h>
#include <linux/blkdev.h>
#include <linux/init.h>
#include <linux/slab.h>

#include "blk.h"
#include "blk-legacy.h"

/* How many of the newest requests a front merge looks at. */
#define NOOP_FRONT_SCAN	8

struct noop_queue {
	struct list_head	fifo;
};

static struct noop_queue *noop_of(struct lq_queue *lq)
{
	return lq->sched_data;
}

static void *noop_init(struct request_queue *q)
{
	struct noop_queue *nq = kmalloc_node(sizeof(*nq), GFP_KERNEL, q->node);

	if (!nq)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&nq->fifo);
	return nq;
}

static void noop_exit(void *data)
{
	struct noop_queue *nq = data;

	WARN_ON_ONCE(!list_empty(&nq->fifo));
	kfree(nq);
}

static void noop_add(struct lq_queue *lq, struct request *rq)
{
	list_add_tail(&rq->queuelist, &noop_of(lq)->fifo);
}

static bool noop_dispatch(struct lq_queue *lq)
{
	struct request *rq;

	rq = list_first_entry_or_null(&noop_of(lq)->fifo, struct request,
				      queuelist);
	if (!rq)
		return false;
	list_del_init(&rq->queuelist);
	lq_dispatch_add(lq, rq);
	return true;
}

static enum elv_merge noop_front_merge(struct lq_queue *lq,
				       struct request **found,
				       struct bio *bio)
{
	sector_t end = bio_end_sector(bio);
	unsigned int left = NOOP_FRONT_SCAN;
	struct request *rq;

	list_for_each_entry_reverse(rq, &noop_of(lq)->fifo, queuelist) {
		if (!left--)
			break;
		if (blk_rq_pos(rq) != end || !blk_rq_merge_ok(rq, bio))
			continue;
		if (blk_try_merge(rq, bio) == ELEVATOR_FRONT_MERGE) {
			*found = rq;
			return ELEVATOR_FRONT_MERGE;
		}
	}
	return ELEVATOR_NO_MERGE;
}

static void noop_merge_requests(struct lq_queue *lq, struct request *rq,
				struct request *next)
{
	list_del_init(&next->queuelist);
}

static struct request *noop_former(struct lq_queue *lq, struct request *rq)
{
	if (rq->queuelist.prev == &noop_of(lq)->fifo)
		return NULL;
	return list_prev_entry(rq, queuelist);
}

static struct request *noop_latter(struct lq_queue *lq, struct request *rq)
{
	if (rq->queuelist.next == &noop_of(lq)->fifo)
		return NULL;
	return list_next_entry(rq, queuelist);
}

static struct lq_sched_type noop_sched = {
	.name	= "noop",
	.ops	= {
		.init		= noop_init,
		.exit		= noop_exit,
		.add		= noop_add,
		.dispatch	= noop_dispatch,
		.front_merge	= noop_front_merge,
		.merge_requests	= noop_merge_requests,
		.former		= noop_former,
		.latter		= noop_latter,
	},
};

static int __init noop_sched_init(void)
{
	return lq_sched_register(&noop_sched);
}
subsys_initcall(noop_sched_init);
