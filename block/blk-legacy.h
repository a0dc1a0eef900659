/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the request_fn mode (block/blk-legacy.c,
 * block/legacy-elevator.c and the schedulers), for block/ only.
 */
#ifndef BLK_LEGACY_INTERNAL_H
#define BLK_LEGACY_INTERNAL_H

#include <linux/blk-legacy.h>
#include <linux/interrupt.h>
#include <linux/llist.h>
#include <linux/mempool.h>
#include <linux/wait.h>

#include "elevator.h"

struct lq_sched_type;

/* Buckets of the back-merge hash, keyed by a request's end sector. */
#define LQ_HASH_BITS	6

/**
 * struct lq_queue - state of a request_fn queue, hung off q->elevator
 * @lock: the queue lock: the driver's, or @own_lock
 * @own_lock: used when blk_init_queue() is given no lock
 * @q: the queue
 * @request_fn: the driver's strategy routine
 * @softirq_done: the driver's softirq completion handler
 * @timed_out: the driver's timeout handler, or %NULL
 * @dispatch: requests ready for the driver, in order (rq->queuelist)
 * @in_driver: started requests, for timeout scanning (lq_rq->node)
 * @hash: sorted requests by end sector, for back merges (rq->hash)
 * @sched: the scheduler in use
 * @sched_data: its private data
 * @nr_sorted: requests held by the scheduler
 * @pool: request memory; elements are struct lq_rq plus the driver's pdu
 * @nr_allocated: requests allocated from @pool
 * @wait: submitters waiting for a request
 * @congested: @nr_allocated is close to q->nr_requests
 * @in_request_fn: request_fn is running
 * @rerun: a run was asked for while request_fn ran
 * @run_work: blk_run_queue_async()
 * @done: requests passed to blk_complete_request()
 * @done_tasklet: runs @softirq_done on @done
 */
struct lq_queue {
	spinlock_t		*lock;		/* guards all but the pool */
	spinlock_t		own_lock;	/* @lock unless the driver's */
	struct request_queue	*q;

	request_fn_proc		*request_fn;
	softirq_done_fn		*softirq_done;
	rq_timed_out_fn		*timed_out;

	struct list_head	dispatch;
	struct list_head	in_driver;
	struct hlist_head	hash[1 << LQ_HASH_BITS];

	struct lq_sched_type	*sched;
	void			*sched_data;
	unsigned int		nr_sorted;

	mempool_t		*pool;
	unsigned int		nr_allocated;
	wait_queue_head_t	wait;
	bool			congested;

	bool			in_request_fn;
	bool			rerun;
	struct work_struct	run_work;

	struct llist_head	done;
	struct tasklet_struct	done_tasklet;
};

/* Where a request of a request_fn queue is. */
enum lq_rq_where {
	LQ_RQ_NEW,		/* being set up, or in a plug */
	LQ_RQ_SORTED,		/* in the scheduler */
	LQ_RQ_DISPATCH,		/* on lq->dispatch */
	LQ_RQ_DRIVER,		/* started: on lq->in_driver */
};

/*
 * Pool element: the request_fn mode's own bookkeeping, then the request,
 * then the driver's pdu (blk_mq_rq_to_pdu() is rq + 1).  @flush_steps
 * and @flush_opf belong to a request in a flush sequence (RQF_FLUSH_SEQ):
 * the LQ_FLUSH_* steps still to do, and the flags of its data step.
 */
struct lq_rq {
	struct list_head	node;
	enum lq_rq_where	where;
	unsigned int		flush_steps;
	blk_opf_t		flush_opf;
	struct request		rq;
};

static inline struct lq_rq *lq_rq_of(struct request *rq)
{
	return container_of(rq, struct lq_rq, rq);
}

static inline struct lq_queue *lq_of(struct request_queue *q)
{
	return q->elevator->lq;
}

/**
 * struct lq_sched_ops - what a request_fn scheduler implements
 * @init: allocate private data for @q; return it or an ERR_PTR()
 * @exit: free it; the scheduler holds no requests then
 * @add: take @rq
 * @dispatch: move at least one request to the dispatch list with
 *	lq_dispatch_add(); return false if it holds none
 * @front_merge: find a request @bio could be added in front of
 * @merged: @rq grew by a bio at its front (@type FRONT) or back
 * @merge_requests: @next was merged into @rq; drop @next
 * @former: the request sorted before @rq, or %NULL
 * @latter: the request sorted after @rq, or %NULL
 *
 * All but @init and @exit are called with the queue lock held.
 */
struct lq_sched_ops {
	void *(*init)(struct request_queue *q);
	void (*exit)(void *data);
	void (*add)(struct lq_queue *lq, struct request *rq);
	bool (*dispatch)(struct lq_queue *lq);
	enum elv_merge (*front_merge)(struct lq_queue *lq,
				      struct request **rq, struct bio *bio);
	void (*merged)(struct lq_queue *lq, struct request *rq,
		       enum elv_merge type);
	void (*merge_requests)(struct lq_queue *lq, struct request *rq,
			       struct request *next);
	struct request *(*former)(struct lq_queue *lq, struct request *rq);
	struct request *(*latter)(struct lq_queue *lq, struct request *rq);
};

/**
 * struct lq_sched_type - a registered request_fn scheduler
 * @name: what the scheduler sysfs attribute shows and accepts
 * @ops: its operations
 * @list: on the list of registered schedulers
 */
struct lq_sched_type {
	const char		*name;
	struct lq_sched_ops	ops;
	struct list_head	list;
};

/* legacy-elevator.c */
extern const struct elevator_queue_ops lq_elevator_ops;
int lq_sched_register(struct lq_sched_type *type);
struct lq_sched_type *lq_sched_default(void);
ssize_t lq_sched_show(struct request_queue *q, char *page);
ssize_t lq_sched_store(struct request_queue *q, const char *page,
		       size_t count);
enum elv_merge lq_merge(struct request_queue *q, struct request **rq,
			struct bio *bio);
void lq_merged(struct request_queue *q, struct request *rq,
	       enum elv_merge type);
void lq_merge_requests(struct request_queue *q, struct request *rq,
		       struct request *next);
struct request *lq_former(struct request_queue *q, struct request *rq);
struct request *lq_latter(struct request_queue *q, struct request *rq);
void lq_sched_add(struct lq_queue *lq, struct request *rq);
void lq_sched_remove(struct lq_queue *lq, struct request *rq);

/* blk-legacy.c */
void lq_dispatch_add(struct lq_queue *lq, struct request *rq);
void lq_drain_begin(struct request_queue *q);
void lq_drain_end(struct request_queue *q);
void lq_free_request(struct lq_queue *lq, struct request *rq);

#endif /* BLK_LEGACY_INTERNAL_H */
