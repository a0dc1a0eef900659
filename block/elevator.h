/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The elevator seam.
 *
 * The multiqueue engine has no I/O scheduler: requests go from the
 * submitting CPU's software context straight to a hardware context.  The
 * rest of the block layer still talks to "the elevator" in a few places
 * (merging in blk-merge.c, the "scheduler" sysfs attribute, io_context
 * data in blk-ioc.c, disk setup and teardown in genhd.c).  This header and
 * block/elevator.c answer those calls for a queue without a scheduler, so
 * q->elevator is always NULL.
 *
 * The request_fn mode (block/blk-legacy.c) brings single-queue elevators
 * back: a request_fn queue has q->elevator set, and the functions in
 * elevator.c pass its calls on through q->elevator->ops, which
 * block/legacy-elevator.c provides.
 */
#ifndef _ELEVATOR_H
#define _ELEVATOR_H

#include <linux/percpu.h>
#include <linux/hashtable.h>
#include <linux/blkdev.h>

struct io_cq;
struct request;
struct request_queue;
struct bio;

/* Which merge the elevator (or blk_try_merge()) thinks is possible. */
enum elv_merge {
	ELEVATOR_NO_MERGE,	/* 0: keep it separate */
	ELEVATOR_FRONT_MERGE,	/* 1: bio goes before the request */
	ELEVATOR_BACK_MERGE,	/* 2: bio goes after the request */
	ELEVATOR_DISCARD_MERGE,	/* 3: discard ranges combined */
};

/* Hooks blk-ioc.c calls for a scheduler that keeps per io_context data. */
struct elevator_mq_ops {
	void (*init_icq)(struct io_cq *icq);
	void (*exit_icq)(struct io_cq *icq);
};

#define ELV_NAME_MAX	(16)

/* An I/O scheduler.  None is registered in this tree. */
struct elevator_type {
	struct kmem_cache *icq_cache;
	struct elevator_mq_ops ops;
	size_t icq_size;
	size_t icq_align;
	const char *elevator_name;
};

struct lq_queue;

/*
 * What the elevator of a queue does for the rest of the block layer: the
 * merge lookups of blk-merge.c and the scheduler sysfs attribute.  The
 * request_fn mode (block/legacy-elevator.c) provides it.
 */
struct elevator_queue_ops {
	enum elv_merge (*merge)(struct request_queue *q, struct request **rq,
				struct bio *bio);
	void (*merged)(struct request_queue *q, struct request *rq,
		       enum elv_merge type);
	void (*merge_requests)(struct request_queue *q, struct request *rq,
			       struct request *next);
	struct request *(*former)(struct request_queue *q, struct request *rq);
	struct request *(*latter)(struct request_queue *q, struct request *rq);
	ssize_t (*sched_show)(struct request_queue *q, char *page);
	ssize_t (*sched_store)(struct request_queue *q, const char *page,
			       size_t count);
};

/*
 * A scheduler instance attached to a queue (q->elevator).  Only request_fn
 * queues (block/blk-legacy.c) have one; @ops answer for it, @lq is its
 * state, and @kobj is its queue/iosched directory.
 */
struct elevator_queue {
	struct elevator_type *type;
	const struct elevator_queue_ops *ops;
	void *elevator_data;
	struct kobject kobj;
	struct lq_queue *lq;
};

/* Is @q a request_fn queue?  Only those have an elevator. */
static inline bool blk_queue_request_fn(struct request_queue *q)
{
	return q->elevator;
}

/* The request_fn mode's entry points for blk-core.c and blk-sysfs.c. */
void blk_queue_bio(struct bio *bio);
ssize_t blk_legacy_nr_requests_store(struct request_queue *q,
				     const char *page, size_t count);

/* Merge lookups: without a scheduler there is nothing to look in. */
enum elv_merge elv_merge(struct request_queue *q, struct request **req,
			 struct bio *bio);
void elv_merge_requests(struct request_queue *q, struct request *rq,
			struct request *next);
void elv_merged_request(struct request_queue *q, struct request *rq,
			enum elv_merge type);
struct request *elv_former_request(struct request_queue *q,
				   struct request *rq);
struct request *elv_latter_request(struct request_queue *q,
				   struct request *rq);
/* blk-merge.c: merge @bio into the request the elevator finds for it. */
bool blk_mq_sched_try_merge(struct request_queue *q, struct bio *bio,
			    unsigned int nr_segs,
			    struct request **merged_request);

/* Queue setup and teardown (genhd.c, blk-sysfs.c). */
void elevator_init_mq(struct request_queue *q);

/* The queue/scheduler sysfs attribute. */
ssize_t elv_iosched_show(struct request_queue *q, char *page);
ssize_t elv_iosched_store(struct request_queue *q, const char *page,
			  size_t count);

/* Would the scheduler allow merging @bio into @rq?  Always, here. */
static inline bool blk_mq_sched_allow_merge(struct request_queue *q,
					    struct request *rq,
					    struct bio *bio)
{
	return true;
}

#endif /* _ELEVATOR_H */
