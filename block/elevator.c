// SPDX-License-Identifier: GPL-2.0
/*
 * The elevator seam for the multiqueue engine: every queue runs without an
 * I/O scheduler ("none").  See the comment at the top of elevator.h.
 */
#include <linux/kernel.h>
#include <linux/blkdev.h>
#include <linux/string.h>

#include "elevator.h"
#include "blk.h"

enum elv_merge elv_merge(struct request_queue *q, struct request **req,
			 struct bio *bio)
{
	return ELEVATOR_NO_MERGE;
}

void elv_merge_requests(struct request_queue *q, struct request *rq,
			struct request *next)
{
}

void elv_merged_request(struct request_queue *q, struct request *rq,
			enum elv_merge type)
{
}

struct request *elv_former_request(struct request_queue *q,
				   struct request *rq)
{
	return NULL;
}

struct request *elv_latter_request(struct request_queue *q,
				   struct request *rq)
{
	return NULL;
}

void elevator_init_mq(struct request_queue *q)
{
}

void elevator_exit(struct request_queue *q)
{
}

int elv_register_queue(struct request_queue *q, bool uevent)
{
	return 0;
}

void elv_unregister_queue(struct request_queue *q)
{
}

int elevator_switch(struct request_queue *q, struct elevator_type *new_e)
{
	return new_e ? -EINVAL : 0;
}

ssize_t elv_iosched_show(struct request_queue *q, char *page)
{
	return sprintf(page, "[none]\n");
}

/* Only "none" is accepted: there is no other scheduler to switch to. */
ssize_t elv_iosched_store(struct request_queue *q, const char *page,
			  size_t count)
{
	char name[ELV_NAME_MAX + 1];

	strscpy(name, page, sizeof(name));
	if (strcmp(strstrip(name), "none"))
		return -EINVAL;
	return count;
}
