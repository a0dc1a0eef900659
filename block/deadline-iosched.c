// SPDX-License-Identifier: GPL-2.0
/*
 * deadline: the request_fn scheduler that sweeps by sector and bounds
 * how long a request waits.
 *
 * Reads and writes are kept apart, each sorted by sector and in arrival
 * order.  Requests go out in batches of one direction that follow the
 * sector order.  A new batch prefers reads, but not more than
 * DL_WRITES_STARVED times in a row while writes wait; it begins at the
 * oldest request of its direction if that one has waited past its expiry
 * time, else where the last batch of that direction stopped.
 */
#include <linux/kernel.h>
#include <linux/blkdev.h>
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/rbtree.h>
#include <linux/slab.h>

#include "blk.h"
#include "blk-legacy.h"

#define DL_READ_EXPIRE		(HZ / 2)
#define DL_WRITE_EXPIRE		(5 * HZ)
#define DL_BATCH		16
#define DL_WRITES_STARVED	2

/**
 * struct dl_queue - deadline state of one queue
 * @by_sector: requests of each direction sorted by start sector
 * @by_age: requests of each direction in arrival order (rq->queuelist)
 * @resume: where the sweep of each direction goes on, or %NULL
 * @dir: direction of the current batch
 * @in_batch: requests dispatched in the current batch
 * @reads_first: read batches begun while writes waited
 */
struct dl_queue {
	struct rb_root		by_sector[2];
	struct list_head	by_age[2];
	struct request		*resume[2];
	int			dir;
	unsigned int		in_batch;
	unsigned int		reads_first;
};

static const unsigned long dl_expire[2] = {
	[READ]	= DL_READ_EXPIRE,
	[WRITE]	= DL_WRITE_EXPIRE,
};

static struct dl_queue *dl_of(struct lq_queue *lq)
{
	return lq->sched_data;
}

static struct request *dl_rq(struct rb_node *node)
{
	return node ? rb_entry(node, struct request, rb_node) : NULL;
}

static void *dl_init(struct request_queue *q)
{
	struct dl_queue *dq = kzalloc_node(sizeof(*dq), GFP_KERNEL, q->node);

	if (!dq)
		return ERR_PTR(-ENOMEM);
	dq->by_sector[READ] = RB_ROOT;
	dq->by_sector[WRITE] = RB_ROOT;
	INIT_LIST_HEAD(&dq->by_age[READ]);
	INIT_LIST_HEAD(&dq->by_age[WRITE]);
	return dq;
}

static void dl_exit(void *data)
{
	struct dl_queue *dq = data;

	WARN_ON_ONCE(!list_empty(&dq->by_age[READ]) ||
		     !list_empty(&dq->by_age[WRITE]));
	kfree(dq);
}

/* Equal sectors go to the right, so requests keep arrival order there. */
static void dl_sort_in(struct dl_queue *dq, struct request *rq)
{
	struct rb_node **link = &dq->by_sector[rq_data_dir(rq)].rb_node;
	struct rb_node *parent = NULL;

	while (*link) {
		parent = *link;
		if (blk_rq_pos(rq) < blk_rq_pos(dl_rq(parent)))
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&rq->rb_node, parent, link);
	rb_insert_color(&rq->rb_node, &dq->by_sector[rq_data_dir(rq)]);
}

static void dl_sort_out(struct dl_queue *dq, struct request *rq)
{
	int dir = rq_data_dir(rq);

	if (dq->resume[dir] == rq)
		dq->resume[dir] = dl_rq(rb_next(&rq->rb_node));
	rb_erase(&rq->rb_node, &dq->by_sector[dir]);
	RB_CLEAR_NODE(&rq->rb_node);
}

static void dl_add(struct lq_queue *lq, struct request *rq)
{
	struct dl_queue *dq = dl_of(lq);
	int dir = rq_data_dir(rq);

	dl_sort_in(dq, rq);
	rq->fifo_time = jiffies + dl_expire[dir];
	list_add_tail(&rq->queuelist, &dq->by_age[dir]);
}

static void dl_take(struct dl_queue *dq, struct request *rq)
{
	dl_sort_out(dq, rq);
	list_del_init(&rq->queuelist);
}

/* Which direction the next batch serves. */
static int dl_pick_dir(struct dl_queue *dq)
{
	bool reads = !list_empty(&dq->by_age[READ]);
	bool writes = !list_empty(&dq->by_age[WRITE]);

	if (reads && (!writes || dq->reads_first < DL_WRITES_STARVED)) {
		if (writes)
			dq->reads_first++;
		return READ;
	}
	dq->reads_first = 0;
	return WRITE;
}

static bool dl_dispatch(struct lq_queue *lq)
{
	struct dl_queue *dq = dl_of(lq);
	struct request *rq, *oldest, *next;
	int dir;

	if (list_empty(&dq->by_age[READ]) && list_empty(&dq->by_age[WRITE]))
		return false;

	dir = dq->dir;
	rq = dq->resume[dir];
	if (!rq || dq->in_batch >= DL_BATCH) {
		/* a new batch */
		dir = dl_pick_dir(dq);
		oldest = list_first_entry(&dq->by_age[dir], struct request,
					  queuelist);
		rq = dq->resume[dir];
		if (!rq || time_after_eq(jiffies, (unsigned long)oldest->fifo_time))
			rq = oldest;
		dq->dir = dir;
		dq->in_batch = 0;
		/* the other direction starts afresh when its turn comes */
		dq->resume[!dir] = NULL;
	}

	dq->in_batch++;
	next = dl_rq(rb_next(&rq->rb_node));
	dl_take(dq, rq);
	/* the sweep goes on after @rq */
	dq->resume[dir] = next;
	lq_dispatch_add(lq, rq);
	return true;
}

static enum elv_merge dl_front_merge(struct lq_queue *lq,
				     struct request **found, struct bio *bio)
{
	struct rb_node *n = dl_of(lq)->by_sector[bio_data_dir(bio)].rb_node;
	sector_t end = bio_end_sector(bio);

	while (n) {
		struct request *rq = dl_rq(n);

		if (end < blk_rq_pos(rq)) {
			n = n->rb_left;
		} else if (end > blk_rq_pos(rq)) {
			n = n->rb_right;
		} else {
			if (blk_rq_merge_ok(rq, bio) &&
			    blk_try_merge(rq, bio) == ELEVATOR_FRONT_MERGE) {
				*found = rq;
				return ELEVATOR_FRONT_MERGE;
			}
			return ELEVATOR_NO_MERGE;
		}
	}
	return ELEVATOR_NO_MERGE;
}

/* A front merge moved @rq's start: sort it in again. */
static void dl_merged(struct lq_queue *lq, struct request *rq,
		      enum elv_merge type)
{
	struct dl_queue *dq = dl_of(lq);
	int dir = rq_data_dir(rq);
	bool was_resume = dq->resume[dir] == rq;

	if (type != ELEVATOR_FRONT_MERGE)
		return;
	rb_erase(&rq->rb_node, &dq->by_sector[dir]);
	dl_sort_in(dq, rq);
	if (was_resume)
		dq->resume[dir] = rq;
}

/* @next joins @rq, which inherits the earlier expiry of the two. */
static void dl_merge_requests(struct lq_queue *lq, struct request *rq,
			      struct request *next)
{
	struct dl_queue *dq = dl_of(lq);

	if (time_before((unsigned long)next->fifo_time,
			(unsigned long)rq->fifo_time)) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	dl_take(dq, next);
}

static struct request *dl_former(struct lq_queue *lq, struct request *rq)
{
	return dl_rq(rb_prev(&rq->rb_node));
}

static struct request *dl_latter(struct lq_queue *lq, struct request *rq)
{
	return dl_rq(rb_next(&rq->rb_node));
}

static struct lq_sched_type dl_sched = {
	.name	= "deadline",
	.ops	= {
		.init		= dl_init,
		.exit		= dl_exit,
		.add		= dl_add,
		.dispatch	= dl_dispatch,
		.front_merge	= dl_front_merge,
		.merged		= dl_merged,
		.merge_requests	= dl_merge_requests,
		.former		= dl_former,
		.latter		= dl_latter,
	},
};

static int __init dl_sched_init(void)
{
	return lq_sched_register(&dl_sched);
}
subsys_initcall(dl_sched_init);
