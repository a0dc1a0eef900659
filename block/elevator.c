// SPDX-License-Identifier: GPL-2.0
/*
 * The elevator seam.  Multiqueue queues run without an I/O scheduler
 * ("none"); request_fn queues have q->elevator set and their calls go on
 * through q->elevator->ops to block/legacy-elevator.c.  See the comment
 * at the top of elevator.h.
 */
#include <linux/kernel.h>
#include <linux/blkdev.h>
#include <linux/string.h>

#include "elevator.h"
#include "blk.h"

enum elv_merge elv_merge(struct request_queue *q, struct request **req,
			 struct bio *bio)
{
	if (blk_queue_request_fn(q))
		return q->elevator->ops->merge(q, req, bio);
	return ELEVATOR_NO_MERGE;
}

void elv_merge_requests(struct request_queue *q, struct request *rq,
			struct request *next)
{
	if (blk_queue_request_fn(q))
		q->elevator->ops->merge_requests(q, rq, next);
}

void elv_merged_request(struct request_queue *q, struct request *rq,
			enum elv_merge type)
{
	if (blk_queue_request_fn(q))
		q->elevator->ops->merged(q, rq, type);
}

struct request *elv_former_request(struct request_queue *q,
				   struct request *rq)
{
	if (blk_queue_request_fn(q))
		return q->elevator->ops->former(q, rq);
	return NULL;
}

struct request *elv_latter_request(struct request_queue *q,
				   struct request *rq)
{
	if (blk_queue_request_fn(q))
		return q->elevator->ops->latter(q, rq);
	return NULL;
}

void elevator_init_mq(struct request_queue *q)
{
}

/*
 * del_gendisk() calls this for a request_fn queue; its scheduler stays
 * until blk_cleanup_queue(), which the driver calls next.
 */
void elevator_exit(struct request_queue *q)
{
}

/* The queue/iosched directory of a request_fn queue. */
int elv_register_queue(struct request_queue *q, bool uevent)
{
	struct elevator_queue *e = q->elevator;
	int ret;

	if (!e)
		return 0;
	ret = kobject_add(&e->kobj, &q->kobj, "iosched");
	if (!ret && uevent)
		kobject_uevent(&e->kobj, KOBJ_ADD);
	return ret;
}

void elv_unregister_queue(struct request_queue *q)
{
	struct elevator_queue *e = q->elevator;

	if (!e || !e->kobj.state_in_sysfs)
		return;
	kobject_uevent(&e->kobj, KOBJ_REMOVE);
	kobject_del(&e->kobj);
}

int elevator_switch(struct request_queue *q, struct elevator_type *new_e)
{
	return new_e ? -EINVAL : 0;
}

ssize_t elv_iosched_show(struct request_queue *q, char *page)
{
	if (blk_queue_request_fn(q))
		return q->elevator->ops->sched_show(q, page);
	return sprintf(page, "[none]\n");
}

/*
 * A request_fn queue switches between its schedulers; a multiqueue queue
 * only accepts "none", as it has no other scheduler to switch to.
 */
ssize_t elv_iosched_store(struct request_queue *q, const char *page,
			  size_t count)
{
	char name[ELV_NAME_MAX + 1];

	if (blk_queue_request_fn(q))
		return q->elevator->ops->sched_store(q, page, count);

	strscpy(name, page, sizeof(name));
	if (strcmp(strstrip(name), "none"))
		return -EINVAL;
	return count;
}
