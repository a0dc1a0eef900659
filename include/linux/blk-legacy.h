/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The single-queue request_fn interface.
 *
 * A request_fn driver owns one request queue guarded by one spinlock.  The
 * block layer turns bios into requests (merging them where it can), keeps
 * them in an I/O scheduler ("noop" or "deadline") and calls the driver's
 * request_fn with the lock held and interrupts off; the driver takes
 * requests with blk_fetch_request() and ends them with the
 * blk_end_request*() family or blk_complete_request().
 *
 * Requests are the same struct request the multiqueue engine uses; the
 * driver's per-request data (cmd_size bytes) follows it, reachable with
 * blk_mq_rq_to_pdu().  See Documentation/block/request-fn.rst.
 */
#ifndef _LINUX_BLK_LEGACY_H
#define _LINUX_BLK_LEGACY_H

#include <linux/blkdev.h>
#include <linux/blk-mq.h>

/* Called with the queue lock held and interrupts disabled. */
typedef void (request_fn_proc)(struct request_queue *q);
/* Called in softirq context for requests passed to blk_complete_request(). */
typedef void (softirq_done_fn)(struct request *rq);
/* Called with the queue lock held when a started request times out. */
typedef enum blk_eh_timer_return (rq_timed_out_fn)(struct request *rq);

struct request_queue *blk_init_queue_cmd(request_fn_proc *rfn,
					 spinlock_t *lock, int node,
					 unsigned int cmd_size);
struct request_queue *blk_init_queue_node(request_fn_proc *rfn,
					  spinlock_t *lock, int node);
struct request_queue *blk_init_queue(request_fn_proc *rfn, spinlock_t *lock);
void blk_cleanup_queue(struct request_queue *q);
void blk_queue_softirq_done(struct request_queue *q,
			    softirq_done_fn *done);
void blk_queue_rq_timed_out(struct request_queue *q, rq_timed_out_fn *fn);

struct gendisk *__blk_alloc_disk_for_queue(struct request_queue *q,
					   struct lock_class_key *lkclass);

/**
 * blk_alloc_disk_for_queue - allocate a gendisk for a request_fn queue
 * @q: a queue from blk_init_queue()
 *
 * The disk takes its own reference to @q.  Tear down with del_gendisk(),
 * then blk_cleanup_queue(), then put_disk().
 *
 * Return: the disk, or %NULL when out of memory.
 */
#define blk_alloc_disk_for_queue(q)					\
({									\
	static struct lock_class_key __key;				\
									\
	__blk_alloc_disk_for_queue(q, &__key);				\
})

struct request *blk_peek_request(struct request_queue *q);
void blk_start_request(struct request *rq);
struct request *blk_fetch_request(struct request_queue *q);
void blk_requeue_request(struct request_queue *q, struct request *rq);

bool __blk_end_request(struct request *rq, blk_status_t error,
		       unsigned int nr_bytes);
bool blk_end_request(struct request *rq, blk_status_t error,
		     unsigned int nr_bytes);
void __blk_end_request_all(struct request *rq, blk_status_t error);
void blk_end_request_all(struct request *rq, blk_status_t error);
void blk_complete_request(struct request *rq);

void blk_stop_queue(struct request_queue *q);
void blk_start_queue(struct request_queue *q);
void __blk_run_queue(struct request_queue *q);
void blk_run_queue(struct request_queue *q);
void blk_run_queue_async(struct request_queue *q);
bool blk_queue_congested(struct request_queue *q);

#endif /* _LINUX_BLK_LEGACY_H */
