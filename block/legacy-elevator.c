// SPDX-License-Identifier: GPL-2.0
/*
 * Schedulers of request_fn queues: registration, the merge lookups the
 * elevator seam passes on, the scheduler sysfs attribute and switching.
 *
 * A scheduler only orders requests; this file keeps what all of them
 * share: the count of requests held, a hash of them by end sector for
 * back merges, and q->last_merge.  The scheduler may answer front merges
 * and says which requests sit next to each other, so that a grown
 * request can absorb its neighbour (attempt_merge() in blk-merge.c).
 */
#include <linux/kernel.h>
#include <linux/blkdev.h>
#include <linux/hash.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "blk.h"
#include "blk-mq.h"
#include "blk-legacy.h"

static LIST_HEAD(lq_sched_types);
static DEFINE_SPINLOCK(lq_sched_types_lock);

/**
 * lq_sched_register - make a request_fn scheduler available
 * @type: the scheduler; it stays registered
 *
 * Return: 0, or -EBUSY if one of that name is registered already.
 */
int lq_sched_register(struct lq_sched_type *type)
{
	struct lq_sched_type *t;

	spin_lock(&lq_sched_types_lock);
	list_for_each_entry(t, &lq_sched_types, list) {
		if (!strcmp(t->name, type->name)) {
			spin_unlock(&lq_sched_types_lock);
			return -EBUSY;
		}
	}
	list_add_tail(&type->list, &lq_sched_types);
	spin_unlock(&lq_sched_types_lock);
	pr_info("request_fn I/O scheduler %s registered\n", type->name);
	return 0;
}

static struct lq_sched_type *lq_sched_find(const char *name)
{
	struct lq_sched_type *t, *found = NULL;

	spin_lock(&lq_sched_types_lock);
	list_for_each_entry(t, &lq_sched_types, list) {
		if (!strcmp(t->name, name)) {
			found = t;
			break;
		}
	}
	spin_unlock(&lq_sched_types_lock);
	return found;
}

/**
 * lq_sched_default - the scheduler a new request_fn queue starts with
 *
 * Return: deadline, or noop without it.
 */
struct lq_sched_type *lq_sched_default(void)
{
	return lq_sched_find("deadline") ?: lq_sched_find("noop");
}

/* ---------------------------------------------------------------------
 * Requests held by the scheduler
 */

static struct hlist_head *lq_hash_head(struct lq_queue *lq, sector_t end)
{
	return &lq->hash[hash_long(end, LQ_HASH_BITS)];
}

static void lq_hash_add(struct lq_queue *lq, struct request *rq)
{
	if (rq_mergeable(rq))
		hlist_add_head(&rq->hash,
			       lq_hash_head(lq, blk_rq_pos(rq) +
					    blk_rq_sectors(rq)));
}

static void lq_hash_del(struct request *rq)
{
	if (!hlist_unhashed(&rq->hash))
		hlist_del_init(&rq->hash);
}

/* @rq no longer belongs to the scheduler; it has taken it off its lists. */
static void lq_sched_forget(struct lq_queue *lq, struct request *rq)
{
	lq_hash_del(rq);
	lq->nr_sorted--;
	if (lq->q->last_merge == rq)
		lq->q->last_merge = NULL;
	lq_rq_of(rq)->where = LQ_RQ_NEW;
}

/**
 * lq_sched_add - give a request to the scheduler
 * @lq: the queue
 * @rq: a new request
 *
 * Context: the queue lock is held.
 */
void lq_sched_add(struct lq_queue *lq, struct request *rq)
{
	lq_rq_of(rq)->where = LQ_RQ_SORTED;
	lq->nr_sorted++;
	lq_hash_add(lq, rq);
	if (rq_mergeable(rq))
		lq->q->last_merge = rq;
	lq->sched->ops.add(lq, rq);
}

/**
 * lq_dispatch_add - queue a request for the driver
 * @lq: the queue
 * @rq: a request the scheduler took off its lists, or one that bypasses
 *	the scheduler
 *
 * Context: the queue lock is held.
 */
void lq_dispatch_add(struct lq_queue *lq, struct request *rq)
{
	if (lq_rq_of(rq)->where == LQ_RQ_SORTED)
		lq_sched_forget(lq, rq);
	lq_rq_of(rq)->where = LQ_RQ_DISPATCH;
	list_add_tail(&rq->queuelist, &lq->dispatch);
}

static bool lq_sorted(struct request *rq)
{
	return lq_rq_of(rq)->where == LQ_RQ_SORTED;
}

/* ---------------------------------------------------------------------
 * Merging, called through the elevator seam with the queue lock held
 */

/**
 * lq_merge - find a request @bio can be merged into
 * @q: a request_fn queue
 * @rq: set to the request found
 * @bio: the bio
 *
 * Tries the request last merged into, then a request ending where @bio
 * starts, then asks the scheduler for one starting where @bio ends.
 *
 * Return: the kind of merge possible with *@rq.
 */
enum elv_merge lq_merge(struct request_queue *q, struct request **rq,
			struct bio *bio)
{
	struct lq_queue *lq = lq_of(q);
	sector_t start = bio->bi_iter.bi_sector;
	struct request *cand = q->last_merge;
	enum elv_merge type;

	if (blk_queue_nomerges(q) || !bio_mergeable(bio))
		return ELEVATOR_NO_MERGE;

	if (cand && lq_sorted(cand) && blk_rq_merge_ok(cand, bio)) {
		type = blk_try_merge(cand, bio);
		if (type != ELEVATOR_NO_MERGE) {
			*rq = cand;
			return type;
		}
	}
	if (blk_queue_noxmerges(q))
		return ELEVATOR_NO_MERGE;

	hlist_for_each_entry(cand, lq_hash_head(lq, start), hash) {
		if (blk_rq_pos(cand) + blk_rq_sectors(cand) != start ||
		    !blk_rq_merge_ok(cand, bio))
			continue;
		type = blk_try_merge(cand, bio);
		if (type == ELEVATOR_BACK_MERGE ||
		    type == ELEVATOR_DISCARD_MERGE) {
			*rq = cand;
			return type;
		}
	}

	if (lq->sched->ops.front_merge)
		return lq->sched->ops.front_merge(lq, rq, bio);
	return ELEVATOR_NO_MERGE;
}

/**
 * lq_merged - a bio was merged into a request the scheduler holds
 * @q: a request_fn queue
 * @rq: the request
 * @type: at its back or its front
 */
void lq_merged(struct request_queue *q, struct request *rq,
	       enum elv_merge type)
{
	struct lq_queue *lq = lq_of(q);

	if (!lq_sorted(rq))
		return;
	if (type == ELEVATOR_BACK_MERGE) {
		lq_hash_del(rq);
		lq_hash_add(lq, rq);
	}
	if (lq->sched->ops.merged)
		lq->sched->ops.merged(lq, rq, type);
	q->last_merge = rq;
}

/**
 * lq_merge_requests - @next was appended to @rq
 * @q: a request_fn queue
 * @rq: the request that grew; the scheduler holds it
 * @next: the request merged; the scheduler may hold it, or it is new
 *
 * The caller frees @next.
 */
void lq_merge_requests(struct request_queue *q, struct request *rq,
		       struct request *next)
{
	struct lq_queue *lq = lq_of(q);

	if (lq_sorted(next)) {
		lq->sched->ops.merge_requests(lq, rq, next);
		lq_sched_forget(lq, next);
	}
	if (lq_sorted(rq)) {
		lq_hash_del(rq);
		lq_hash_add(lq, rq);
		q->last_merge = rq;
	}
}

/**
 * lq_former - the request sorted before @rq
 * @q: a request_fn queue
 * @rq: a request
 *
 * Return: the request, or %NULL.
 */
struct request *lq_former(struct request_queue *q, struct request *rq)
{
	struct lq_queue *lq = lq_of(q);

	if (!lq_sorted(rq) || !lq->sched->ops.former)
		return NULL;
	return lq->sched->ops.former(lq, rq);
}

/**
 * lq_latter - the request sorted after @rq
 * @q: a request_fn queue
 * @rq: a request
 *
 * Return: the request, or %NULL.
 */
struct request *lq_latter(struct request_queue *q, struct request *rq)
{
	struct lq_queue *lq = lq_of(q);

	if (!lq_sorted(rq) || !lq->sched->ops.latter)
		return NULL;
	return lq->sched->ops.latter(lq, rq);
}

/* ---------------------------------------------------------------------
 * The scheduler attribute
 */

/**
 * lq_sched_show - list the schedulers, the one in use in brackets
 * @q: a request_fn queue
 * @page: the sysfs buffer
 *
 * Return: the length written.
 */
ssize_t lq_sched_show(struct request_queue *q, char *page)
{
	struct lq_queue *lq = lq_of(q);
	struct lq_sched_type *t;
	ssize_t len = 0;

	spin_lock(&lq_sched_types_lock);
	list_for_each_entry(t, &lq_sched_types, list) {
		if (t == lq->sched)
			len += sprintf(page + len, "[%s] ", t->name);
		else
			len += sprintf(page + len, "%s ", t->name);
	}
	spin_unlock(&lq_sched_types_lock);
	if (len)
		page[len - 1] = '\n';
	return len;
}

/**
 * lq_sched_store - switch a request_fn queue to another scheduler
 * @q: the queue
 * @page: the scheduler's name
 * @count: length of @page
 *
 * Drains the queue (new bios wait), swaps the scheduler, and lets the
 * bios in again.  The caller holds q->sysfs_lock.
 *
 * Return: @count, -EINVAL for an unknown name, or -ENOMEM.
 */
ssize_t lq_sched_store(struct request_queue *q, const char *page,
		       size_t count)
{
	struct lq_queue *lq = lq_of(q);
	struct lq_sched_type *t, *old;
	char name[ELV_NAME_MAX + 1];
	void *data, *old_data;

	strscpy(name, page, sizeof(name));
	t = lq_sched_find(strstrip(name));
	if (!t)
		return -EINVAL;
	if (t == lq->sched)
		return count;

	data = t->ops.init(q);
	if (IS_ERR(data))
		return PTR_ERR(data);

	lq_drain_begin(q);
	spin_lock_irq(lq->lock);
	WARN_ON_ONCE(lq->nr_sorted);
	old = lq->sched;
	old_data = lq->sched_data;
	lq->sched = t;
	lq->sched_data = data;
	q->last_merge = NULL;
	spin_unlock_irq(lq->lock);
	lq_drain_end(q);

	old->ops.exit(old_data);
	return count;
}

/* How elevator.c reaches the functions above for a request_fn queue. */
const struct elevator_queue_ops lq_elevator_ops = {
	.merge		= lq_merge,
	.merged		= lq_merged,
	.merge_requests	= lq_merge_requests,
	.former		= lq_former,
	.latter		= lq_latter,
	.sched_show	= lq_sched_show,
	.sched_store	= lq_sched_store,
};
