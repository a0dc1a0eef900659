// SPDX-License-Identifier: GPL-2.0
/*
 * null_blk: a block device that does no I/O of its own.
 *
 * Each device either discards the data it is given, or (memory_backed=1)
 * keeps it in pages of RAM so that reads return what was written. The
 * driver exists to measure the cost of the block layer itself and to
 * exercise its submission, completion, timeout and requeue paths; see
 * Documentation/block/null_blk.rst for the parameters and their policies.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-legacy.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/debugfs.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/log2.h>
#include <linux/mempool.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/numa.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <linux/xarray.h>

enum nullb_queue_mode {
	NULLB_MODE_BIO		= 0,
	NULLB_MODE_RQ		= 1,	/* single queue, request_fn */
	NULLB_MODE_MQ		= 2,
};

enum nullb_irqmode {
	NULLB_IRQ_NONE		= 0,
	NULLB_IRQ_SOFTIRQ	= 1,
	NULLB_IRQ_TIMER		= 2,
};

#define NULLB_MAX_DEVICES	1024
#define NULLB_MAX_GB		16384UL	/* keeps page indexes within 32 bits */
/* ten seconds, or LONG_MAX nanoseconds (about 2.1 s) where long is 32 bits */
#define NULLB_MAX_DELAY_NS	((long)min_t(s64, 10LL * NSEC_PER_SEC, LONG_MAX))
/* Request timeout used while timeout_every injects lost requests. */
#define NULLB_INJECT_TIMEOUT	(2 * HZ)
/* Bios of a bio-mode device that may wait on their timer at once, reserved. */
#define NULLB_MIN_DELAYED_BIOS	16
/* Requests remembered in debugfs "ops" of a device with write_cache. */
#define NULLB_OPS_LEN		64

/* ---- module parameters --------------------------------------------- */

static int nullb_queue_mode = IS_ENABLED(CONFIG_BLK_MQ) ? NULLB_MODE_MQ :
							NULLB_MODE_RQ;
module_param_named(queue_mode, nullb_queue_mode, int, 0444);
MODULE_PARM_DESC(queue_mode,
		 "I/O path: 0=bio, 1=request_fn, 2=multiqueue (default: 2; 1 without CONFIG_BLK_MQ)");

/* 0 until set on the command line; then nr_cpu_ids stands in for it. */
static int nullb_submit_queues;
static bool nullb_submit_queues_given;

static int nullb_set_submit_queues(const char *val,
				   const struct kernel_param *kp)
{
	int ret = param_set_int(val, kp);

	/* The range is checked at init, so a bad value gets one message. */
	if (!ret)
		nullb_submit_queues_given = true;
	return ret;
}

static const struct kernel_param_ops nullb_submit_queues_ops = {
	.set	= nullb_set_submit_queues,
	.get	= param_get_int,
};

module_param_cb(submit_queues, &nullb_submit_queues_ops,
		&nullb_submit_queues, 0444);
MODULE_PARM_DESC(submit_queues,
		 "Number of hardware queues, 1..nr_cpu_ids (default: nr_cpu_ids)");

static int nullb_hw_queue_depth = 64;
module_param_named(hw_queue_depth, nullb_hw_queue_depth, int, 0444);
MODULE_PARM_DESC(hw_queue_depth,
		 "Depth of each hardware queue (default: 64)");

static int nullb_irqmode = NULLB_IRQ_SOFTIRQ;
module_param_named(irqmode, nullb_irqmode, int, 0444);
MODULE_PARM_DESC(irqmode,
		 "Completion: 0=inline, 1=softirq, 2=timer after completion_nsec (default: 1)");

static long nullb_completion_nsec = 10000;
module_param_named(completion_nsec, nullb_completion_nsec, long, 0444);
MODULE_PARM_DESC(completion_nsec,
		 "Completion delay in ns for irqmode=2, 0..10000000000 (default: 10000)");

static int nullb_bs = 512;
module_param_named(bs, nullb_bs, int, 0444);
MODULE_PARM_DESC(bs,
		 "Logical block size, a power of two from 512 to 4096 (default: 512)");

static unsigned long nullb_gb = 250;
module_param_named(gb, nullb_gb, ulong, 0444);
MODULE_PARM_DESC(gb, "Device size in GiB, 1..16384 (default: 250)");

static unsigned int nullb_nr_devices = 1;
module_param_named(nr_devices, nullb_nr_devices, uint, 0444);
MODULE_PARM_DESC(nr_devices,
		 "Number of devices /dev/nullbN, 1..1024 (default: 1)");

static int nullb_home_node = NUMA_NO_NODE;
module_param_named(home_node, nullb_home_node, int, 0444);
MODULE_PARM_DESC(home_node,
		 "NUMA node for allocations, -1 for any (default: -1)");

static bool nullb_per_node_hctx;
module_param_named(use_per_node_hctx, nullb_per_node_hctx, bool, 0444);
MODULE_PARM_DESC(use_per_node_hctx,
		 "One hardware queue per online NUMA node (default: false)");

static bool nullb_memory_backed;
module_param_named(memory_backed, nullb_memory_backed, bool, 0444);
MODULE_PARM_DESC(memory_backed,
		 "Keep written data in RAM; unwritten sectors read as zeroes (default: false)");

static bool nullb_blocking;
module_param_named(blocking, nullb_blocking, bool, 0444);
MODULE_PARM_DESC(blocking,
		 "queue_rq may sleep (BLK_MQ_F_BLOCKING) (default: false)");

static unsigned int nullb_timeout_every;
module_param_named(timeout_every, nullb_timeout_every, uint, 0444);
MODULE_PARM_DESC(timeout_every,
		 "Never complete every Nth request; it fails by timeout, 0=off (default: 0)");

static unsigned int nullb_requeue_every;
module_param_named(requeue_every, nullb_requeue_every, uint, 0444);
MODULE_PARM_DESC(requeue_every,
		 "Answer every Nth dispatch with BLK_STS_RESOURCE, 0=off or >= 2 (default: 0)");

static bool nullb_write_cache;
module_param_named(write_cache, nullb_write_cache, bool, 0444);
MODULE_PARM_DESC(write_cache,
		 "Declare a volatile write cache: the block layer sends flushes (default: false)");

static bool nullb_fua = true;
module_param_named(fua, nullb_fua, bool, 0444);
MODULE_PARM_DESC(fua,
		 "With write_cache, take REQ_FUA writes; else the block layer emulates them (default: true)");

/* ---- per-device and per-command state ------------------------------- */

/**
 * struct nullb - one null block device
 * @disk: the gendisk; its queue's queuedata points back here
 * @tag_set: the device's own tag set (multiqueue mode only)
 * @rq_queue: the request_fn queue (request_fn mode only)
 * @store: data pages of a memory-backed device, indexed by device
 *	offset >> PAGE_SHIFT; pages are only added while the device lives
 * @delayed_bios: pool of timer contexts for bio mode with irqmode=2
 * @nr_delayed_bios: bios whose completion timer is still pending
 * @completion_delay: delay before a timer completion (irqmode=2)
 * @irqmode: how finished I/O is completed, an enum nullb_irqmode
 * @memory_backed: whether @store is used
 * @timeout_every: drop every Nth request, 0 for never
 * @requeue_every: refuse every Nth dispatch, 0 for never
 * @nr_started: requests started so far, for @timeout_every
 * @nr_dispatched: queue_rq calls so far, for @requeue_every
 * @write_cache: the device declared a volatile write cache
 * @nr_flushes: flush requests received (debugfs "flushes")
 * @nr_fua_writes: writes received with REQ_FUA (debugfs "fua_writes")
 * @ops_lock: guards @ops and @ops_pos
 * @ops: the kinds of the last requests received, oldest first from
 *	@ops_pos (debugfs "ops"; only with @write_cache)
 * @ops_pos: where the next kind goes in @ops
 * @debugfs: the device's debugfs folder
 * @node: NUMA node for the device's allocations
 * @index: N of /dev/nullbN
 */
struct nullb {
	struct gendisk		*disk;
	struct blk_mq_tag_set	tag_set;
	struct request_queue	*rq_queue;
	struct xarray		store;
	mempool_t		*delayed_bios;
	atomic_t		nr_delayed_bios;
	ktime_t			completion_delay;
	int			irqmode;
	bool			memory_backed;
	unsigned int		timeout_every;
	unsigned int		requeue_every;
	atomic_t		nr_started;
	atomic_t		nr_dispatched;
	bool			write_cache;
	atomic_t		nr_flushes;
	atomic_t		nr_fua_writes;
	spinlock_t		ops_lock;	/* guards @ops, @ops_pos */
	char			ops[NULLB_OPS_LEN];
	unsigned int		ops_pos;
	struct dentry		*debugfs;
	int			node;
	unsigned int		index;
};

/**
 * struct nullb_cmd - driver data of each request (multiqueue and
 *	request_fn modes)
 * @timer: completion timer for irqmode=2
 * @status: the outcome that ->complete reports
 * @dropped: the request was chosen by timeout_every and is left for the
 *	block layer's timeout handling
 */
struct nullb_cmd {
	struct hrtimer		timer;
	blk_status_t		status;
	bool			dropped;
};

/**
 * struct nullb_delayed_bio - a bio waiting for its timer (bio mode)
 * @timer: fires completion_nsec after submission
 * @bio: the bio to end
 * @nb: the device, whose count of pending timers it holds
 */
struct nullb_delayed_bio {
	struct hrtimer		timer;
	struct bio		*bio;
	struct nullb		*nb;
};

static struct nullb **nullb_devs;
static unsigned int nullb_nr_created;
static struct dentry *nullb_debugfs;

/* true on every @every-th call; @every == 0 means never. */
static bool nullb_inject(atomic_t *count, unsigned int every)
{
	if (likely(!every))
		return false;
	return (unsigned int)atomic_inc_return(count) % every == 0;
}

/*
 * Take back a count that nullb_inject() made for a try that did not
 * happen (the store had no memory), so that its retry counts once.
 */
static void nullb_uninject(atomic_t *count, unsigned int every)
{
	if (every)
		atomic_dec(count);
}

/*
 * Count what a device with a write cache is asked to make durable, and
 * remember the order: F flush, U FUA write, W write, R read, O other.
 */
static void nullb_note_rq(struct nullb *nb, struct request *rq)
{
	unsigned long flags;
	char kind;

	if (!nb->write_cache)
		return;
	switch (req_op(rq)) {
	case REQ_OP_FLUSH:
		atomic_inc(&nb->nr_flushes);
		kind = 'F';
		break;
	case REQ_OP_WRITE:
		kind = 'W';
		if (rq->cmd_flags & REQ_FUA) {
			atomic_inc(&nb->nr_fua_writes);
			kind = 'U';
		}
		break;
	case REQ_OP_READ:
		kind = 'R';
		break;
	default:
		kind = 'O';
		break;
	}
	spin_lock_irqsave(&nb->ops_lock, flags);
	nb->ops[nb->ops_pos] = kind;
	nb->ops_pos = (nb->ops_pos + 1) % NULLB_OPS_LEN;
	spin_unlock_irqrestore(&nb->ops_lock, flags);
}

static int nullb_ops_show(struct seq_file *m, void *v)
{
	struct nullb *nb = m->private;
	char ops[NULLB_OPS_LEN + 1];
	unsigned int i, n = 0;

	spin_lock_irq(&nb->ops_lock);
	for (i = 0; i < NULLB_OPS_LEN; i++) {
		char kind = nb->ops[(nb->ops_pos + i) % NULLB_OPS_LEN];

		if (kind)
			ops[n++] = kind;
	}
	spin_unlock_irq(&nb->ops_lock);
	ops[n] = '\0';
	seq_printf(m, "%s\n", ops);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nullb_ops);

/* debugfs null_blk/nullbN/: flushes, fua_writes and ops, for tests. */
static void nullb_debugfs_add(struct nullb *nb)
{
	if (!nb->write_cache)
		return;
	nb->debugfs = debugfs_create_dir(nb->disk->disk_name, nullb_debugfs);
	debugfs_create_atomic_t("flushes", 0444, nb->debugfs, &nb->nr_flushes);
	debugfs_create_atomic_t("fua_writes", 0444, nb->debugfs,
				&nb->nr_fua_writes);
	debugfs_create_file("ops", 0444, nb->debugfs, nb, &nullb_ops_fops);
}

/* ---- the memory store ----------------------------------------------- */

/* The store page holding @idx, allocated (zeroed) on first use. */
static struct page *nullb_store_page(struct nullb *nb, pgoff_t idx, gfp_t gfp)
{
	struct page *page, *old;

	page = xa_load(&nb->store, idx);
	if (page)
		return page;

	page = alloc_pages_node(nb->node, gfp | __GFP_ZERO, 0);
	if (!page)
		return NULL;

	/*
	 * A concurrent writer to the same page may have won the race; use
	 * its page then. xa_cmpxchg() publishes the page only after the
	 * zeroing above is visible, so a lockless reader never sees junk.
	 */
	old = xa_cmpxchg(&nb->store, idx, NULL, page, gfp);
	if (old) {
		__free_page(page);
		return xa_is_err(old) ? NULL : old;
	}
	return page;
}

/* Copy one single-page segment to or from the store at byte @pos. */
static int nullb_copy_segment(struct nullb *nb, const struct bio_vec *bv,
			      u64 pos, bool write, gfp_t gfp)
{
	unsigned int done = 0;

	/*
	 * The caller's page may also be mapped at another address, in user
	 * space: where the data cache can alias, bring it up to date before
	 * we read it, and after we write it (flush_dcache_page()).
	 */
	if (write)
		flush_dcache_page(bv->bv_page);
	while (done < bv->bv_len) {
		unsigned int off = pos & ~PAGE_MASK;
		unsigned int len = min_t(unsigned int, bv->bv_len - done,
					 PAGE_SIZE - off);
		unsigned int mem_off = bv->bv_offset + done;
		struct page *page;

		if (write) {
			page = nullb_store_page(nb, pos >> PAGE_SHIFT, gfp);
			if (!page)
				return -ENOMEM;
			memcpy_page(page, off, bv->bv_page, mem_off, len);
		} else {
			page = xa_load(&nb->store, pos >> PAGE_SHIFT);
			if (page)
				memcpy_page(bv->bv_page, mem_off, page, off, len);
			else
				memzero_page(bv->bv_page, mem_off, len);
		}
		pos += len;
		done += len;
	}
	if (!write)
		flush_dcache_page(bv->bv_page);
	return 0;
}

/*
 * Discard and write-zeroes both make the range read back as zeroes.
 * Pages are zeroed rather than freed: a reader may be copying from them
 * without a lock, so they stay until the device goes away.
 */
static void nullb_zero_range(struct nullb *nb, u64 pos, u64 len)
{
	u64 end = pos + len;
	unsigned long idx;
	struct page *page;

	if (!len)
		return;
	xa_for_each_range(&nb->store, idx, page, pos >> PAGE_SHIFT,
			  (end - 1) >> PAGE_SHIFT) {
		u64 start = (u64)idx << PAGE_SHIFT;
		u64 from = max(pos, start);
		u64 to = min(end, start + PAGE_SIZE);

		memzero_page(page, from - start, to - from);
	}
}

/* Carry out one bio against the store. */
static blk_status_t nullb_store_bio(struct nullb *nb, struct bio *bio,
				    gfp_t gfp)
{
	u64 pos = (u64)bio->bi_iter.bi_sector << SECTOR_SHIFT;
	bool write = op_is_write(bio_op(bio));
	struct bvec_iter iter;
	struct bio_vec bv;

	switch (bio_op(bio)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		break;
	case REQ_OP_FLUSH:
		/* RAM is as durable as this device gets. */
		return BLK_STS_OK;
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		nullb_zero_range(nb, pos, bio->bi_iter.bi_size);
		return BLK_STS_OK;
	default:
		return BLK_STS_NOTSUPP;
	}

	bio_for_each_segment(bv, bio, iter) {
		/* Nothing written is lost: retrying the whole bio is safe. */
		if (nullb_copy_segment(nb, &bv, pos, write, gfp))
			return BLK_STS_RESOURCE;
		pos += bv.bv_len;
	}
	return BLK_STS_OK;
}

static void nullb_free_store(struct nullb *nb)
{
	unsigned long idx;
	struct page *page;

	xa_for_each(&nb->store, idx, page)
		__free_page(page);
	xa_destroy(&nb->store);
}

/* ---- requests, in request_fn and multiqueue mode -------------------- */

static blk_status_t nullb_store_rq(struct nullb *nb, struct request *rq,
				   gfp_t gfp)
{
	struct bio *bio;
	blk_status_t status;

	/* A flush request carries no bio. */
	if (req_op(rq) == REQ_OP_FLUSH)
		return BLK_STS_OK;

	__rq_for_each_bio(bio, rq) {
		status = nullb_store_bio(nb, bio, gfp);
		if (status != BLK_STS_OK)
			return status;
	}
	return BLK_STS_OK;
}

/*
 * Only a request dropped by timeout_every is ours to fail: it ends with
 * BLK_STS_TIMEOUT (-ETIMEDOUT for the submitter) and is not retried. Any
 * other request is still on its way to completion, e.g. behind a long
 * completion_nsec, so give it more time.
 */
static bool nullb_timeout_injected(struct request *rq)
{
	struct nullb_cmd *cmd = blk_mq_rq_to_pdu(rq);

	if (!cmd->dropped)
		return false;
	pr_info_ratelimited("%s: injected timeout, failing sector %llu\n",
			    rq->q->disk->disk_name,
			    (unsigned long long)blk_rq_pos(rq));
	return true;
}

/* ---- multiqueue mode ------------------------------------------------- */

#ifdef CONFIG_BLK_MQ

static void nullb_finish_rq(struct nullb *nb, struct request *rq)
{
	struct nullb_cmd *cmd = blk_mq_rq_to_pdu(rq);

	switch (nb->irqmode) {
	case NULLB_IRQ_NONE:
		blk_mq_end_request(rq, cmd->status);
		break;
	case NULLB_IRQ_SOFTIRQ:
		blk_mq_complete_request(rq);
		break;
	case NULLB_IRQ_TIMER:
		hrtimer_start(&cmd->timer, nb->completion_delay,
			      HRTIMER_MODE_REL);
		break;
	}
}

static blk_status_t nullb_queue_rq(struct blk_mq_hw_ctx *hctx,
				   const struct blk_mq_queue_data *bd)
{
	struct nullb *nb = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct nullb_cmd *cmd = blk_mq_rq_to_pdu(rq);
	bool can_sleep = hctx->flags & BLK_MQ_F_BLOCKING;

	might_sleep_if(can_sleep);

	/* Refused before it starts: the block layer simply retries it. */
	if (nullb_inject(&nb->nr_dispatched, nb->requeue_every))
		return BLK_STS_RESOURCE;

	/*
	 * Both fields must be settled before blk_mq_start_request() arms
	 * the timeout: the timeout handler reads @dropped.
	 */
	cmd->status = BLK_STS_OK;
	cmd->dropped = nullb_inject(&nb->nr_started, nb->timeout_every);
	blk_mq_start_request(rq);
	if (nb->memory_backed && !cmd->dropped) {
		cmd->status = nullb_store_rq(nb, rq, can_sleep ? GFP_NOIO :
					     GFP_NOWAIT | __GFP_NOWARN);
		/* Out of memory for the store: let the block layer retry. */
		if (cmd->status == BLK_STS_RESOURCE) {
			nullb_uninject(&nb->nr_started, nb->timeout_every);
			return BLK_STS_RESOURCE;
		}
	}
	nullb_note_rq(nb, rq);
	if (cmd->dropped)
		return BLK_STS_OK;

	nullb_finish_rq(nb, rq);
	return BLK_STS_OK;
}

static void nullb_complete_rq(struct request *rq)
{
	struct nullb_cmd *cmd = blk_mq_rq_to_pdu(rq);

	blk_mq_end_request(rq, cmd->status);
}

static enum hrtimer_restart nullb_rq_timer_fn(struct hrtimer *timer)
{
	struct nullb_cmd *cmd = container_of(timer, struct nullb_cmd, timer);

	blk_mq_complete_request(blk_mq_rq_from_pdu(cmd));
	return HRTIMER_NORESTART;
}

static enum blk_eh_timer_return nullb_timeout_rq(struct request *rq)
{
	struct nullb_cmd *cmd = blk_mq_rq_to_pdu(rq);

	if (!nullb_timeout_injected(rq))
		return BLK_EH_RESET_TIMER;
	cmd->status = BLK_STS_TIMEOUT;
	blk_mq_complete_request(rq);
	return BLK_EH_DONE;
}

static int nullb_init_request(struct blk_mq_tag_set *set, struct request *rq,
			      unsigned int hctx_idx, unsigned int numa_node)
{
	struct nullb_cmd *cmd = blk_mq_rq_to_pdu(rq);

	hrtimer_init(&cmd->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	cmd->timer.function = nullb_rq_timer_fn;
	return 0;
}

/* Index of @node among the online nodes: its hardware queue. */
static unsigned int nullb_node_queue(int node)
{
	unsigned int queue = 0;
	int n;

	for_each_online_node(n) {
		if (n == node)
			return queue;
		queue++;
	}
	return 0;
}

static void nullb_map_queues(struct blk_mq_tag_set *set)
{
	struct blk_mq_queue_map *qmap = &set->map[HCTX_TYPE_DEFAULT];
	unsigned int cpu;

	if (!nullb_per_node_hctx) {
		blk_mq_map_queues(qmap);
		return;
	}
	/* more online nodes than queues (CPU-less nodes): share them */
	for_each_possible_cpu(cpu)
		qmap->mq_map[cpu] = nullb_node_queue(cpu_to_node(cpu)) %
				    qmap->nr_queues;
}

static const struct blk_mq_ops nullb_mq_ops = {
	.queue_rq	= nullb_queue_rq,
	.complete	= nullb_complete_rq,
	.timeout	= nullb_timeout_rq,
	.init_request	= nullb_init_request,
	.map_queues	= nullb_map_queues,
};

static const struct block_device_operations nullb_mq_fops = {
	.owner		= THIS_MODULE,
};

static int nullb_alloc_mq_disk(struct nullb *nb)
{
	struct blk_mq_tag_set *set = &nb->tag_set;
	int ret;

	set->ops = &nullb_mq_ops;
	set->nr_hw_queues = nullb_submit_queues;
	set->queue_depth = nullb_hw_queue_depth;
	set->cmd_size = sizeof(struct nullb_cmd);
	set->flags = BLK_MQ_F_SHOULD_MERGE;
	if (nullb_blocking)
		set->flags |= BLK_MQ_F_BLOCKING;
	if (nb->timeout_every)
		set->timeout = NULLB_INJECT_TIMEOUT;
	set->numa_node = nb->node;
	set->driver_data = nb;

	ret = blk_mq_alloc_tag_set(set);
	if (ret)
		return ret;

	nb->disk = blk_mq_alloc_disk(set, nb);
	if (IS_ERR(nb->disk)) {
		ret = PTR_ERR(nb->disk);
		nb->disk = NULL;
		blk_mq_free_tag_set(set);
		return ret;
	}
	nb->disk->fops = &nullb_mq_fops;
	return 0;
}

#else /* !CONFIG_BLK_MQ */

/* nullb_check_params() refuses queue_mode=2 without the engine. */
static int nullb_alloc_mq_disk(struct nullb *nb)
{
	return -EOPNOTSUPP;
}

#endif /* CONFIG_BLK_MQ */

/* ---- request_fn mode ------------------------------------------------ */

static enum hrtimer_restart nullb_rq_fn_timer_fn(struct hrtimer *timer)
{
	struct nullb_cmd *cmd = container_of(timer, struct nullb_cmd, timer);

	blk_complete_request(blk_mq_rq_from_pdu(cmd));
	return HRTIMER_NORESTART;
}

/*
 * Called with the queue lock held and interrupts off: the store is
 * filled with GFP_NOWAIT. A request it cannot get memory for goes back to
 * the queue, and kblockd tries again; so does one refused by
 * requeue_every, as if the device were busy.
 */
static void nullb_request_fn(struct request_queue *q)
{
	struct nullb *nb = q->queuedata;
	struct nullb_cmd *cmd;
	struct request *rq;

	while ((rq = blk_peek_request(q)) != NULL) {
		cmd = blk_mq_rq_to_pdu(rq);
		cmd->status = BLK_STS_OK;
		/* read by the timeout handler, which runs under the queue lock */
		cmd->dropped = false;
		blk_start_request(rq);

		if (nullb_inject(&nb->nr_dispatched, nb->requeue_every)) {
			blk_requeue_request(q, rq);
			blk_run_queue_async(q);
			return;
		}
		cmd->dropped = nullb_inject(&nb->nr_started,
					    nb->timeout_every);
		if (nb->memory_backed && !cmd->dropped) {
			cmd->status = nullb_store_rq(nb, rq,
						     GFP_NOWAIT | __GFP_NOWARN);
			if (cmd->status == BLK_STS_RESOURCE) {
				nullb_uninject(&nb->nr_started,
					       nb->timeout_every);
				blk_requeue_request(q, rq);
				blk_run_queue_async(q);
				return;
			}
		}
		nullb_note_rq(nb, rq);
		if (cmd->dropped)
			continue;

		switch (nb->irqmode) {
		case NULLB_IRQ_NONE:
			/* a segment at a time, as a PIO driver ends requests */
			while (__blk_end_request(rq, cmd->status,
						 blk_rq_cur_bytes(rq)))
				;
			break;
		case NULLB_IRQ_SOFTIRQ:
			blk_complete_request(rq);
			break;
		case NULLB_IRQ_TIMER:
			hrtimer_init(&cmd->timer, CLOCK_MONOTONIC,
				     HRTIMER_MODE_REL);
			cmd->timer.function = nullb_rq_fn_timer_fn;
			hrtimer_start(&cmd->timer, nb->completion_delay,
				      HRTIMER_MODE_REL);
			break;
		}
	}
}

static void nullb_rq_fn_softirq_done(struct request *rq)
{
	struct nullb_cmd *cmd = blk_mq_rq_to_pdu(rq);

	blk_end_request_all(rq, cmd->status);
}

/*
 * As in multiqueue mode, only a request dropped by timeout_every fails;
 * any other one is still on its way. Called with the queue lock held.
 */
static enum blk_eh_timer_return nullb_rq_fn_timed_out(struct request *rq)
{
	if (!nullb_timeout_injected(rq))
		return BLK_EH_RESET_TIMER;
	__blk_end_request_all(rq, BLK_STS_TIMEOUT);
	return BLK_EH_DONE;
}

static const struct block_device_operations nullb_rq_fn_fops = {
	.owner		= THIS_MODULE,
};

/* ---- bio mode ------------------------------------------------------- */

static enum hrtimer_restart nullb_bio_timer_fn(struct hrtimer *timer)
{
	struct nullb_delayed_bio *delayed =
		container_of(timer, struct nullb_delayed_bio, timer);
	struct nullb *nb = delayed->nb;

	bio_endio(delayed->bio);
	mempool_free(delayed, nb->delayed_bios);
	/* Last: teardown may free @nb as soon as this reaches zero. */
	if (atomic_dec_and_test(&nb->nr_delayed_bios))
		wake_up_var(&nb->nr_delayed_bios);
	return HRTIMER_NORESTART;
}

/*
 * A REQ_NOWAIT bio (io_uring, RWF_NOWAIT) must not sleep for memory. Only
 * the paths that allocate ask, so that the plain irqmode=0/1 bio pays
 * nothing for the test.
 */
static gfp_t nullb_bio_gfp(const struct bio *bio)
{
	return bio->bi_opf & REQ_NOWAIT ? GFP_NOWAIT | __GFP_NOWARN : GFP_NOIO;
}

static void nullb_delay_bio(struct nullb *nb, struct bio *bio)
{
	struct nullb_delayed_bio *delayed;

	/*
	 * GFP_NOIO may sleep and never fails: the pool has a reserve.
	 * GFP_NOWAIT (a REQ_NOWAIT bio) fails once the reserve is used up.
	 */
	delayed = mempool_alloc(nb->delayed_bios, nullb_bio_gfp(bio));
	if (!delayed) {
		bio_wouldblock_error(bio);
		return;
	}
	delayed->bio = bio;
	delayed->nb = nb;
	atomic_inc(&nb->nr_delayed_bios);
	hrtimer_init(&delayed->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	delayed->timer.function = nullb_bio_timer_fn;
	hrtimer_start(&delayed->timer, nb->completion_delay, HRTIMER_MODE_REL);
}

/*
 * Bios are served in the submitter's context. There is no request to
 * hand to the block layer's softirq completion, so irqmode=1 ends the
 * bio inline like irqmode=0; irqmode=2 ends it from a timer.
 *
 * A REQ_NOWAIT bio (io_uring, RWF_NOWAIT) must not sleep: its memory
 * comes without waiting, and a bio that cannot get it ends with
 * BLK_STS_AGAIN, for the submitter to retry where it may sleep.
 */
static void nullb_submit_bio(struct bio *bio)
{
	struct nullb *nb = bio->bi_bdev->bd_disk->private_data;

	if (nb->memory_backed) {
		bio->bi_status = nullb_store_bio(nb, bio, nullb_bio_gfp(bio));
		/* nothing written is lost: the retry may redo all of it */
		if (bio->bi_status == BLK_STS_RESOURCE &&
		    (bio->bi_opf & REQ_NOWAIT)) {
			bio_wouldblock_error(bio);
			return;
		}
	}

	if (nb->irqmode == NULLB_IRQ_TIMER)
		nullb_delay_bio(nb, bio);
	else
		bio_endio(bio);
}

static const struct block_device_operations nullb_bio_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= nullb_submit_bio,
};

/* ---- device setup and teardown -------------------------------------- */

static int nullb_alloc_rq_fn_disk(struct nullb *nb)
{
	struct request_queue *q;

	q = blk_init_queue_cmd(nullb_request_fn, NULL, nb->node,
			       sizeof(struct nullb_cmd));
	if (!q)
		return -ENOMEM;
	q->queuedata = nb;
	blk_queue_softirq_done(q, nullb_rq_fn_softirq_done);
	blk_queue_rq_timed_out(q, nullb_rq_fn_timed_out);
	if (nb->timeout_every)
		blk_queue_rq_timeout(q, NULLB_INJECT_TIMEOUT);

	nb->disk = blk_alloc_disk_for_queue(q);
	if (!nb->disk) {
		blk_cleanup_queue(q);
		return -ENOMEM;
	}
	nb->rq_queue = q;
	nb->disk->fops = &nullb_rq_fn_fops;
	return 0;
}

static int nullb_alloc_bio_disk(struct nullb *nb)
{
	if (nb->irqmode == NULLB_IRQ_TIMER) {
		nb->delayed_bios =
			mempool_create_kmalloc_pool(NULLB_MIN_DELAYED_BIOS,
						    sizeof(struct nullb_delayed_bio));
		if (!nb->delayed_bios)
			return -ENOMEM;
	}

	nb->disk = blk_alloc_disk(nb->node);
	if (!nb->disk) {
		mempool_destroy(nb->delayed_bios);
		return -ENOMEM;
	}
	nb->disk->queue->queuedata = nb;
	/* nullb_submit_bio() serves REQ_NOWAIT bios without sleeping */
	blk_queue_flag_set(QUEUE_FLAG_NOWAIT, nb->disk->queue);
	nb->disk->fops = &nullb_bio_fops;
	return 0;
}

static void nullb_set_limits(struct nullb *nb)
{
	struct request_queue *q = nb->disk->queue;

	blk_queue_logical_block_size(q, nullb_bs);
	blk_queue_physical_block_size(q, nullb_bs);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_flag_clear(QUEUE_FLAG_ADD_RANDOM, q);

	if (nb->memory_backed) {
		q->limits.discard_granularity = nullb_bs;
		blk_queue_max_discard_sectors(q, UINT_MAX >> SECTOR_SHIFT);
		blk_queue_max_write_zeroes_sectors(q, UINT_MAX >> SECTOR_SHIFT);
	}
	if (nb->write_cache)
		blk_queue_write_cache(q, true, nullb_fua);
}

/* Free what nullb_create() set up, except the disk itself. */
static void nullb_free(struct nullb *nb)
{
	/* a request_fn queue is shut down after del_gendisk(), before the put */
	if (nb->rq_queue)
		blk_cleanup_queue(nb->rq_queue);
	if (nb->disk)
		put_disk(nb->disk);
	if (IS_ENABLED(CONFIG_BLK_MQ) && nullb_queue_mode == NULLB_MODE_MQ)
		blk_mq_free_tag_set(&nb->tag_set);
	mempool_destroy(nb->delayed_bios);
	nullb_free_store(nb);
	kfree(nb);
}

static struct nullb *nullb_create(unsigned int index)
{
	struct nullb *nb;
	int ret;

	nb = kzalloc_node(sizeof(*nb), GFP_KERNEL, nullb_home_node);
	if (!nb)
		return ERR_PTR(-ENOMEM);

	nb->index = index;
	nb->irqmode = nullb_irqmode;
	nb->completion_delay = ns_to_ktime(nullb_completion_nsec);
	nb->memory_backed = nullb_memory_backed;
	nb->timeout_every = nullb_timeout_every;
	nb->requeue_every = nullb_requeue_every;
	nb->write_cache = nullb_write_cache;
	spin_lock_init(&nb->ops_lock);
	nb->node = nullb_home_node;
	xa_init(&nb->store);

	if (nullb_queue_mode == NULLB_MODE_MQ)
		ret = nullb_alloc_mq_disk(nb);
	else if (nullb_queue_mode == NULLB_MODE_RQ)
		ret = nullb_alloc_rq_fn_disk(nb);
	else
		ret = nullb_alloc_bio_disk(nb);
	if (ret) {
		kfree(nb);
		return ERR_PTR(ret);
	}

	nullb_set_limits(nb);
	nb->disk->private_data = nb;
	snprintf(nb->disk->disk_name, DISK_NAME_LEN, "nullb%u", index);
	set_capacity(nb->disk, (sector_t)nullb_gb << (30 - SECTOR_SHIFT));
	/*
	 * With injected timeouts, a partition scan at add_disk() would run
	 * into them and shift which request is the Nth one.
	 */
	if (nb->timeout_every)
		nb->disk->flags |= GENHD_FL_NO_PART;

	ret = add_disk(nb->disk);
	if (ret) {
		nullb_free(nb);
		return ERR_PTR(ret);
	}
	nullb_debugfs_add(nb);
	return nb;
}

static void nullb_destroy(struct nullb *nb)
{
	debugfs_remove(nb->debugfs);
	del_gendisk(nb->disk);

	/*
	 * Bio mode does not hold the queue across a bio's life, so wait for
	 * pending completion timers here; synchronize_rcu() then waits for
	 * the last callback to return from this module's code.
	 */
	if (nb->delayed_bios) {
		wait_var_event(&nb->nr_delayed_bios,
			       !atomic_read(&nb->nr_delayed_bios));
		synchronize_rcu();
	}
	nullb_free(nb);
}

static void nullb_destroy_all(void)
{
	while (nullb_nr_created)
		nullb_destroy(nullb_devs[--nullb_nr_created]);
	kfree(nullb_devs);
	nullb_devs = NULL;
	debugfs_remove(nullb_debugfs);
	nullb_debugfs = NULL;
}

/* ---- parameter checks ----------------------------------------------- */

static int __init nullb_check_range(const char *name, long val, long min,
				    long max)
{
	if (val >= min && val <= max)
		return 0;
	pr_err("%s=%ld is invalid: from %ld to %ld\n", name, val, min, max);
	return -EINVAL;
}

/* Refuse a bad combination with one line that names the parameter. */
static int __init nullb_check_params(void)
{
	int ret;

	if (nullb_queue_mode < NULLB_MODE_BIO ||
	    nullb_queue_mode > NULLB_MODE_MQ) {
		pr_err("queue_mode=%d is invalid: from 0 to 2: 0 (bio), 1 (request_fn) or 2 (multiqueue)\n",
		       nullb_queue_mode);
		return -EINVAL;
	}
	if (!IS_ENABLED(CONFIG_BLK_MQ) && nullb_queue_mode == NULLB_MODE_MQ) {
		pr_err("queue_mode=2 is not available: this kernel is built without CONFIG_BLK_MQ, use 0 (bio) or 1 (request_fn)\n");
		return -EINVAL;
	}
	if (!is_power_of_2(nullb_bs) || nullb_bs < 512 || nullb_bs > 4096) {
		pr_err("bs=%d is invalid: a power of two from 512 to 4096\n",
		       nullb_bs);
		return -EINVAL;
	}
	if (nullb_home_node != NUMA_NO_NODE &&
	    (nullb_home_node < 0 || nullb_home_node >= nr_node_ids ||
	     !node_online(nullb_home_node))) {
		pr_err("home_node=%d is invalid: -1 (any) or an online node\n",
		       nullb_home_node);
		return -EINVAL;
	}
	if (nullb_per_node_hctx && nullb_submit_queues_given) {
		pr_err("use_per_node_hctx=1 is invalid with submit_queues=%d: one queue per node sets the number\n",
		       nullb_submit_queues);
		return -EINVAL;
	}
	if (nullb_requeue_every == 1) {
		pr_err("requeue_every=1 is invalid: 0 (off) or at least 2, or no request would ever be served\n");
		return -EINVAL;
	}
	if (nullb_queue_mode == NULLB_MODE_BIO && nullb_write_cache) {
		pr_err("write_cache=1 is invalid: a write cache needs queue_mode=1 or 2\n");
		return -EINVAL;
	}
	if (nullb_queue_mode == NULLB_MODE_BIO &&
	    (nullb_timeout_every || nullb_requeue_every)) {
		pr_err("%s=%u is invalid: fault injection needs queue_mode=1 or 2\n",
		       nullb_timeout_every ? "timeout_every" : "requeue_every",
		       nullb_timeout_every ?: nullb_requeue_every);
		return -EINVAL;
	}

	ret = nullb_check_range("irqmode", nullb_irqmode,
				NULLB_IRQ_NONE, NULLB_IRQ_TIMER);
	if (!ret)
		ret = nullb_check_range("completion_nsec", nullb_completion_nsec,
					0, NULLB_MAX_DELAY_NS);
	if (!ret)
		ret = nullb_check_range("hw_queue_depth", nullb_hw_queue_depth,
					1, BLK_MQ_MAX_DEPTH);
	if (!ret && nullb_submit_queues_given)
		ret = nullb_check_range("submit_queues", nullb_submit_queues,
					1, nr_cpu_ids);
	if (!ret && (nullb_gb < 1 || nullb_gb > NULLB_MAX_GB)) {
		/* unsigned long: a huge value must not print as negative */
		pr_err("gb=%lu is invalid: from 1 to %lu\n", nullb_gb,
		       NULLB_MAX_GB);
		ret = -EINVAL;
	}
	if (!ret)
		ret = nullb_check_range("nr_devices", nullb_nr_devices,
					1, NULLB_MAX_DEVICES);
	return ret;
}

static int __init nullb_init(void)
{
	struct nullb *nb;
	int ret;

	ret = nullb_check_params();
	if (ret)
		return ret;

	/* Record the effective queue count; sysfs shows it. */
	if (nullb_per_node_hctx)
		nullb_submit_queues = min_t(unsigned int, nr_online_nodes,
					    nr_cpu_ids);
	else if (!nullb_submit_queues_given)
		nullb_submit_queues = nr_cpu_ids;

	nullb_devs = kcalloc(nullb_nr_devices, sizeof(*nullb_devs),
			     GFP_KERNEL);
	if (!nullb_devs)
		return -ENOMEM;
	if (nullb_write_cache)
		nullb_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);

	while (nullb_nr_created < nullb_nr_devices) {
		nb = nullb_create(nullb_nr_created);
		if (IS_ERR(nb)) {
			ret = PTR_ERR(nb);
			pr_err("cannot create nullb%u: %d\n",
			       nullb_nr_created, ret);
			nullb_destroy_all();
			return ret;
		}
		nullb_devs[nullb_nr_created++] = nb;
	}

	pr_info("%u device(s), %s mode\n", nullb_nr_devices,
		nullb_queue_mode == NULLB_MODE_MQ ? "multiqueue" :
		nullb_queue_mode == NULLB_MODE_RQ ? "request_fn" : "bio");
	return 0;
}

static void __exit nullb_exit(void)
{
	nullb_destroy_all();
}

module_init(nullb_init);
module_exit(nullb_exit);

MODULE_DESCRIPTION("Null block device for testing the block layer");
MODULE_LICENSE("GPL");
