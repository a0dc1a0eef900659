// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs view of the multiqueue engine:
 *
 *   /sys/block/<disk>/mq/<n>/		hardware context n
 *	cpu_list			CPUs whose software context maps here
 *	nr_tags, nr_reserved_tags	tag map sizes
 *	queued, run, dispatched, busy	counters (see struct blk_mq_hw_ctx)
 *	state				running, stopped, or inactive (CPUs offline)
 *   /sys/block/<disk>/mq/<n>/cpu<c>/	software context of CPU c
 *	queued, merged, completed	"async sync" request pairs; merges
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>

#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-tag.h"

struct blk_mq_hw_attr {
	struct attribute attr;
	ssize_t (*show)(struct blk_mq_hw_ctx *hctx, char *page);
};

struct blk_mq_ctx_attr {
	struct attribute attr;
	ssize_t (*show)(struct blk_mq_ctx *ctx, char *page);
};

/*
 * The "mq" directory also owns the queue's software contexts: they are
 * per-CPU memory that holds their own kobjects, so it may only be freed
 * after the last of those is released.  Each holds a reference to the
 * directory for that.
 */
struct blk_mq_ctxs {
	struct kobject kobj;
	struct blk_mq_ctx __percpu *queue_ctx;
};

static void blk_mq_dir_release(struct kobject *kobj)
{
	struct blk_mq_ctxs *ctxs = container_of(kobj, struct blk_mq_ctxs, kobj);

	free_percpu(ctxs->queue_ctx);
	kfree(ctxs);
}

/* The hardware context lives as long as its kobject. */
static void blk_mq_hw_release(struct kobject *kobj)
{
	blk_mq_free_hctx(container_of(kobj, struct blk_mq_hw_ctx, kobj));
}

/* A software context's memory goes with the directory's last reference. */
static void blk_mq_ctx_release(struct kobject *kobj)
{
	struct blk_mq_ctx *ctx = container_of(kobj, struct blk_mq_ctx, kobj);

	kobject_put(ctx->mq_kobj);
}

static ssize_t blk_mq_hw_attr_show(struct kobject *kobj,
				   struct attribute *attr, char *page)
{
	struct blk_mq_hw_attr *entry =
		container_of(attr, struct blk_mq_hw_attr, attr);
	struct blk_mq_hw_ctx *hctx =
		container_of(kobj, struct blk_mq_hw_ctx, kobj);
	struct request_queue *q = hctx->queue;
	ssize_t ret;

	mutex_lock(&q->sysfs_lock);
	ret = entry->show(hctx, page);
	mutex_unlock(&q->sysfs_lock);
	return ret;
}

static ssize_t blk_mq_ctx_attr_show(struct kobject *kobj,
				    struct attribute *attr, char *page)
{
	struct blk_mq_ctx_attr *entry =
		container_of(attr, struct blk_mq_ctx_attr, attr);
	struct blk_mq_ctx *ctx = container_of(kobj, struct blk_mq_ctx, kobj);

	return entry->show(ctx, page);
}

static ssize_t hctx_cpu_list_show(struct blk_mq_hw_ctx *hctx, char *page)
{
	return sysfs_emit(page, "%*pbl\n", cpumask_pr_args(hctx->cpumask));
}

static ssize_t hctx_nr_tags_show(struct blk_mq_hw_ctx *hctx, char *page)
{
	return sysfs_emit(page, "%u\n", hctx->tags->nr_tags);
}

static ssize_t hctx_nr_reserved_tags_show(struct blk_mq_hw_ctx *hctx,
					  char *page)
{
	return sysfs_emit(page, "%u\n", hctx->tags->nr_reserved_tags);
}

static ssize_t hctx_tags_in_use_show(struct blk_mq_hw_ctx *hctx, char *page)
{
	return sysfs_emit(page, "%u %u\n",
			  blk_mq_tag_map_weight(&hctx->tags->normal),
			  blk_mq_tag_map_weight(&hctx->tags->reserved));
}

static ssize_t hctx_queued_show(struct blk_mq_hw_ctx *hctx, char *page)
{
	return sysfs_emit(page, "%lu\n", READ_ONCE(hctx->queued));
}

static ssize_t hctx_run_show(struct blk_mq_hw_ctx *hctx, char *page)
{
	return sysfs_emit(page, "%lu\n", READ_ONCE(hctx->run));
}

static ssize_t hctx_dispatched_show(struct blk_mq_hw_ctx *hctx, char *page)
{
	return sysfs_emit(page, "%lu\n", READ_ONCE(hctx->dispatched));
}

static ssize_t hctx_busy_show(struct blk_mq_hw_ctx *hctx, char *page)
{
	return sysfs_emit(page, "%lu\n", READ_ONCE(hctx->busy_count));
}

/*
 * The requests the driver holds on this hardware context, one line each:
 * tag, operation, start sector + sectors, and age ("-" on a queue that
 * keeps no statistics: its requests have no start time).  A debugging aid
 * for hung I/O; each request is held while its line is written.
 */
static int hctx_in_flight_line(char *page, int len, unsigned int tag,
			       struct request *rq, u64 now)
{
	u64 start = READ_ONCE(rq->start_time_ns);

	len += sysfs_emit_at(page, len, "%u %s %llu+%u ", tag,
			     blk_op_str(req_op(rq)), blk_rq_pos(rq),
			     blk_rq_sectors(rq));
	if (start)
		return len + sysfs_emit_at(page, len, "%llums\n",
					   div_u64(now - start,
						   NSEC_PER_MSEC));
	return len + sysfs_emit_at(page, len, "-\n");
}

static ssize_t hctx_in_flight_show(struct blk_mq_hw_ctx *hctx, char *page)
{
	struct blk_mq_tags *tags = hctx->tags;
	u64 now = ktime_get_ns();
	unsigned int tag;
	int len = 0;

	for (tag = 0; tag < tags->nr_tags && len < PAGE_SIZE - 80; tag++) {
		struct request *rq = blk_mq_tag_get_rq(tags, tag);

		if (!rq)
			continue;
		if (rq->mq_hctx == hctx &&
		    blk_mq_rq_state(rq) == MQ_RQ_IN_FLIGHT)
			len = hctx_in_flight_line(page, len, tag, rq, now);
		blk_mq_put_rq_ref(rq);
	}
	return len;
}

static ssize_t hctx_state_show(struct blk_mq_hw_ctx *hctx, char *page)
{
	const char *state = "running";

	if (blk_mq_hctx_stopped(hctx))
		state = "stopped";
	else if (test_bit(BLK_MQ_S_INACTIVE, &hctx->state))
		state = "inactive";	/* its CPUs are offline */
	return sysfs_emit(page, "%s\n", state);
}

#define HW_ATTR(_name, _field)					\
static struct blk_mq_hw_attr hctx_attr_##_name = {		\
	.attr = { .name = _field, .mode = 0444 },		\
	.show = hctx_##_name##_show,				\
}

HW_ATTR(cpu_list, "cpu_list");
HW_ATTR(nr_tags, "nr_tags");
HW_ATTR(nr_reserved_tags, "nr_reserved_tags");
HW_ATTR(tags_in_use, "tags_in_use");
HW_ATTR(queued, "queued");
HW_ATTR(run, "run");
HW_ATTR(dispatched, "dispatched");
HW_ATTR(busy, "busy");
HW_ATTR(state, "state");
HW_ATTR(in_flight, "in_flight");

static struct attribute *blk_mq_hw_attrs[] = {
	&hctx_attr_cpu_list.attr,
	&hctx_attr_nr_tags.attr,
	&hctx_attr_nr_reserved_tags.attr,
	&hctx_attr_tags_in_use.attr,
	&hctx_attr_queued.attr,
	&hctx_attr_run.attr,
	&hctx_attr_dispatched.attr,
	&hctx_attr_busy.attr,
	&hctx_attr_state.attr,
	&hctx_attr_in_flight.attr,
	NULL,
};
ATTRIBUTE_GROUPS(blk_mq_hw);

static ssize_t ctx_queued_show(struct blk_mq_ctx *ctx, char *page)
{
	return sysfs_emit(page, "%lu %lu\n", READ_ONCE(ctx->rq_queued[0]),
			  READ_ONCE(ctx->rq_queued[1]));
}

static ssize_t ctx_merged_show(struct blk_mq_ctx *ctx, char *page)
{
	return sysfs_emit(page, "%lu\n", READ_ONCE(ctx->rq_merged));
}

static ssize_t ctx_completed_show(struct blk_mq_ctx *ctx, char *page)
{
	return sysfs_emit(page, "%lu %lu\n", READ_ONCE(ctx->rq_completed[0]),
			  READ_ONCE(ctx->rq_completed[1]));
}

#define CTX_ATTR(_name)						\
static struct blk_mq_ctx_attr ctx_attr_##_name = {		\
	.attr = { .name = #_name, .mode = 0444 },		\
	.show = ctx_##_name##_show,				\
}

CTX_ATTR(queued);
CTX_ATTR(merged);
CTX_ATTR(completed);

static struct attribute *blk_mq_ctx_attrs[] = {
	&ctx_attr_queued.attr,
	&ctx_attr_merged.attr,
	&ctx_attr_completed.attr,
	NULL,
};
ATTRIBUTE_GROUPS(blk_mq_ctx);

static const struct sysfs_ops blk_mq_hw_sysfs_ops = {
	.show	= blk_mq_hw_attr_show,
};

static const struct sysfs_ops blk_mq_ctx_sysfs_ops = {
	.show	= blk_mq_ctx_attr_show,
};

static const struct kobj_type blk_mq_dir_ktype = {
	.release	= blk_mq_dir_release,
};

static const struct kobj_type blk_mq_hw_ktype = {
	.sysfs_ops	= &blk_mq_hw_sysfs_ops,
	.default_groups	= blk_mq_hw_groups,
	.release	= blk_mq_hw_release,
};

static const struct kobj_type blk_mq_ctx_ktype = {
	.sysfs_ops	= &blk_mq_ctx_sysfs_ops,
	.default_groups	= blk_mq_ctx_groups,
	.release	= blk_mq_ctx_release,
};

/**
 * blk_mq_hctx_kobj_init - prepare the kobject of a new hardware context
 * @hctx: the hardware context; freed when the kobject's last reference goes
 */
void blk_mq_hctx_kobj_init(struct blk_mq_hw_ctx *hctx)
{
	kobject_init(&hctx->kobj, &blk_mq_hw_ktype);
}

/**
 * blk_mq_sysfs_init - allocate the software contexts of a queue
 * @q: the queue
 *
 * Allocates q->queue_ctx, zeroed, and q->mq_kobj, the "mq" directory,
 * which owns it, and prepares each context's kobject.
 *
 * Return: 0, or -ENOMEM.
 */
int blk_mq_sysfs_init(struct request_queue *q)
{
	struct blk_mq_ctxs *ctxs;
	unsigned int cpu;

	ctxs = kzalloc(sizeof(*ctxs), GFP_KERNEL);
	if (!ctxs)
		return -ENOMEM;
	ctxs->queue_ctx = alloc_percpu(struct blk_mq_ctx);
	if (!ctxs->queue_ctx) {
		kfree(ctxs);
		return -ENOMEM;
	}
	kobject_init(&ctxs->kobj, &blk_mq_dir_ktype);
	q->mq_kobj = &ctxs->kobj;
	q->queue_ctx = ctxs->queue_ctx;

	for_each_possible_cpu(cpu) {
		struct blk_mq_ctx *ctx = __blk_mq_get_ctx(q, cpu);

		kobject_init(&ctx->kobj, &blk_mq_ctx_ktype);
		ctx->mq_kobj = kobject_get(q->mq_kobj);
	}
	return 0;
}

/**
 * blk_mq_sysfs_deinit - drop the kobjects of the software contexts
 * @q: the queue
 *
 * The contexts are freed with the last reference to the "mq" directory,
 * which may come later (CONFIG_DEBUG_KOBJECT_RELEASE delays releases).
 */
void blk_mq_sysfs_deinit(struct request_queue *q)
{
	unsigned int cpu;

	if (!q->queue_ctx)
		return;
	for_each_possible_cpu(cpu)
		kobject_put(&__blk_mq_get_ctx(q, cpu)->kobj);
	q->queue_ctx = NULL;
	kobject_put(q->mq_kobj);
	q->mq_kobj = NULL;
}

static void blk_mq_unregister_hctx(struct blk_mq_hw_ctx *hctx)
{
	struct blk_mq_ctx *sw;
	unsigned int n;

	/* never added (or registration failed before it): nothing to do */
	if (!hctx->kobj.state_in_sysfs)
		return;
	/* children first: the cpuN directories this context owns */
	hctx_for_each_ctx(hctx, sw, n) {
		if (sw->hctxs[HCTX_TYPE_DEFAULT] != hctx)
			continue;
		if (sw->kobj.state_in_sysfs)
			kobject_del(&sw->kobj);
	}
	kobject_del(&hctx->kobj);
}

/* Remove every hardware context directory and then mq/ itself. */
static void blk_mq_sysfs_remove_all(struct request_queue *q)
{
	struct blk_mq_hw_ctx *hw;
	unsigned long n;

	queue_for_each_hw_ctx(q, hw, n)
		blk_mq_unregister_hctx(hw);
	kobject_uevent(q->mq_kobj, KOBJ_REMOVE);
	kobject_del(q->mq_kobj);
}

static int blk_mq_register_hctx(struct blk_mq_hw_ctx *hctx)
{
	struct request_queue *q = hctx->queue;
	struct blk_mq_ctx *ctx;
	unsigned int i;
	int ret;

	ret = kobject_add(&hctx->kobj, q->mq_kobj, "%u", hctx->queue_num);
	if (ret)
		return ret;

	/* a CPU shows up once: under its default-type hardware context */
	hctx_for_each_ctx(hctx, ctx, i) {
		if (ctx->hctxs[HCTX_TYPE_DEFAULT] != hctx)
			continue;
		ret = kobject_add(&ctx->kobj, &hctx->kobj, "cpu%u", ctx->cpu);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * blk_mq_sysfs_register - create /sys/block/<disk>/mq
 * @disk: the disk
 *
 * Return: 0 or a negative errno.
 */
int blk_mq_sysfs_register(struct gendisk *disk)
{
	struct request_queue *q = disk->queue;
	struct blk_mq_hw_ctx *hw;
	unsigned long n;
	int err;

	lockdep_assert_held(&q->sysfs_dir_lock);
	if (!q->mq_kobj)
		return -ENOMEM;
	err = kobject_add(q->mq_kobj, &disk_to_dev(disk)->kobj, "mq");
	if (err < 0)
		return err;
	/* announce mq/ before its children appear */
	kobject_uevent(q->mq_kobj, KOBJ_ADD);

	queue_for_each_hw_ctx(q, hw, n) {
		err = blk_mq_register_hctx(hw);
		if (err) {
			/* undo it all; half-built directories are removed too */
			blk_mq_sysfs_remove_all(q);
			return err;
		}
	}
	q->mq_sysfs_init_done = true;
	return 0;
}

/**
 * blk_mq_sysfs_unregister - remove /sys/block/<disk>/mq
 * @disk: the disk
 */
void blk_mq_sysfs_unregister(struct gendisk *disk)
{
	struct request_queue *q = disk->queue;

	lockdep_assert_held(&q->sysfs_dir_lock);
	if (q->mq_sysfs_init_done) {
		blk_mq_sysfs_remove_all(q);
		q->mq_sysfs_init_done = false;
	}
}
