// SPDX-License-Identifier: GPL-2.0
/*
 * A microbenchmark of the tag allocator against lib/sbitmap.
 *
 * Writing "THREADS DEPTH HOLD MSECS" to debugfs blk_mq_tag_bench runs, for
 * each allocator, THREADS kernel threads, one per online CPU, that take
 * HOLD tags and give them back again and again for MSECS milliseconds on
 * one map of DEPTH tags.  Reading the file gives one line per allocator:
 *
 *   blk_mq_tag threads=2 depth=128 hold=1 msecs=1000 ops=... empty=... kops/s=...
 *   sbitmap    threads=2 depth=128 hold=1 msecs=1000 ops=... empty=... kops/s=...
 *
 * An op is one tag allocated and freed; "empty" counts allocations that
 * found the map full, after which the thread frees what it holds and
 * starts over.  Both allocators run the same loop
 * without sleeping, so the numbers compare the cost of the bitmaps and of
 * the cache lines the CPUs share, not of wake-ups.  A sbitmap tag is freed
 * with the CPU that allocated it, as blk-mq does in the base tree.
 */
#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/sbitmap.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/mutex.h>

#include "blk-mq-tag.h"

#define TAG_BENCH_MAX_HOLD	64

enum tag_bench_kind { TAG_BENCH_OURS, TAG_BENCH_SBITMAP, TAG_BENCH_KINDS };

static const char *const tag_bench_names[TAG_BENCH_KINDS] = {
	[TAG_BENCH_OURS]	= "blk_mq_tag",
	[TAG_BENCH_SBITMAP]	= "sbitmap",
};

/* One run: the map under test and what the threads counted. */
struct tag_bench_run {
	enum tag_bench_kind kind;
	struct blk_mq_tag_map map;
	struct sbitmap_queue sbq;
	unsigned int hold;
	unsigned long deadline;		/* jiffies */
	atomic_t ready;			/* threads not yet at the start line */
	struct completion go;
	atomic_long_t ops;
	atomic_long_t empty;
	atomic_t running;
	struct completion done;
};

static DEFINE_MUTEX(tag_bench_lock);
static char tag_bench_result[512];

static int tag_bench_get(struct tag_bench_run *run, unsigned int *cpu)
{
	if (run->kind == TAG_BENCH_OURS)
		return blk_mq_tag_map_get(&run->map);
	return sbitmap_queue_get(&run->sbq, cpu);
}

static void tag_bench_put(struct tag_bench_run *run, int tag,
			  unsigned int cpu)
{
	if (run->kind == TAG_BENCH_OURS)
		blk_mq_tag_map_put(&run->map, tag);
	else
		sbitmap_queue_clear(&run->sbq, tag, cpu);
}

static int tag_bench_thread(void *data)
{
	struct tag_bench_run *run = data;
	unsigned int cpus[TAG_BENCH_MAX_HOLD];
	int tags[TAG_BENCH_MAX_HOLD];
	long ops = 0, empty = 0;
	unsigned int i;

	atomic_dec(&run->ready);
	wait_for_completion(&run->go);
	while (time_before(jiffies, run->deadline)) {
		for (i = 0; i < run->hold; i++) {
			tags[i] = tag_bench_get(run, &cpus[i]);
			if (tags[i] < 0) {
				empty++;
				break;
			}
		}
		ops += i;
		while (i--)
			tag_bench_put(run, tags[i], cpus[i]);
		cond_resched();
	}
	atomic_long_add(ops, &run->ops);
	atomic_long_add(empty, &run->empty);
	if (atomic_dec_and_test(&run->running))
		complete(&run->done);
	return 0;
}

/* Run one allocator; append its line to tag_bench_result. */
static int tag_bench_one(enum tag_bench_kind kind, unsigned int threads,
			 unsigned int depth, unsigned int hold,
			 unsigned int msecs)
{
	struct tag_bench_run *run;
	unsigned int started = 0;
	unsigned long weight;
	int cpu, ret;
	long ops;

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	run->kind = kind;
	run->hold = hold;
	if (kind == TAG_BENCH_OURS)
		ret = blk_mq_tag_map_init(&run->map, depth, NUMA_NO_NODE);
	else
		ret = sbitmap_queue_init_node(&run->sbq, depth, -1, false,
					      GFP_KERNEL, NUMA_NO_NODE);
	if (ret)
		goto out_free;

	init_completion(&run->go);
	init_completion(&run->done);
	atomic_set(&run->ready, threads);
	atomic_set(&run->running, threads);
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		if (started == threads)
			break;
		t = kthread_create_on_cpu(tag_bench_thread, run, cpu,
					  "tag_bench/%u");
		if (IS_ERR(t))
			break;
		wake_up_process(t);
		started++;
	}
	if (started < threads) {
		/* Let the ones that did start finish at once. */
		atomic_sub(threads - started, &run->ready);
		atomic_sub(threads - started, &run->running);
		ret = -EAGAIN;
	}
	/* The threads may share this CPU: sleep while they get ready. */
	while (atomic_read(&run->ready))
		schedule_timeout_uninterruptible(1);
	run->deadline = jiffies + msecs_to_jiffies(ret ? 0 : msecs);
	complete_all(&run->go);
	if (started)
		wait_for_completion(&run->done);

	if (kind == TAG_BENCH_OURS) {
		weight = blk_mq_tag_map_weight(&run->map);
		blk_mq_tag_map_free(&run->map);
	} else {
		weight = sbitmap_weight(&run->sbq.sb);
		sbitmap_queue_free(&run->sbq);
	}
	/* Every tag taken was given back. */
	if (!ret && WARN_ON_ONCE(weight))
		ret = -EIO;
	if (!ret) {
		ops = atomic_long_read(&run->ops);
		scnprintf(tag_bench_result + strlen(tag_bench_result),
			  sizeof(tag_bench_result) - strlen(tag_bench_result),
			  "%-10s threads=%u depth=%u hold=%u msecs=%u ops=%ld empty=%ld kops/s=%ld\n",
			  tag_bench_names[kind], threads, depth, hold, msecs,
			  ops, atomic_long_read(&run->empty),
			  ops / max(msecs, 1U));
	}
out_free:
	kfree(run);
	return ret;
}

static ssize_t tag_bench_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	unsigned int threads, depth, hold, msecs;
	char buf[64];
	int kind, ret = 0;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%u %u %u %u", &threads, &depth, &hold, &msecs) != 4 ||
	    !threads || threads > num_online_cpus() || !depth ||
	    depth > 65536 || !hold || hold > TAG_BENCH_MAX_HOLD ||
	    !msecs || msecs > 60000)
		return -EINVAL;

	mutex_lock(&tag_bench_lock);
	tag_bench_result[0] = '\0';
	for (kind = 0; kind < TAG_BENCH_KINDS && !ret; kind++)
		ret = tag_bench_one(kind, threads, depth, hold, msecs);
	mutex_unlock(&tag_bench_lock);
	return ret ? ret : count;
}

static ssize_t tag_bench_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&tag_bench_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, tag_bench_result,
				      strlen(tag_bench_result));
	mutex_unlock(&tag_bench_lock);
	return ret;
}

static const struct file_operations tag_bench_fops = {
	.owner	= THIS_MODULE,
	.read	= tag_bench_read,
	.write	= tag_bench_write,
	.llseek	= default_llseek,
};

static int __init tag_bench_init(void)
{
	debugfs_create_file("blk_mq_tag_bench", 0600, NULL, NULL,
			    &tag_bench_fops);
	return 0;
}
late_initcall(tag_bench_init);
