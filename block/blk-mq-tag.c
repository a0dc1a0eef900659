// SPDX-License-Identifier: GPL-2.0
/*
 * Tag allocation for the multiqueue engine.
 *
 * A tag is the index of a preallocated request that the driver gets to
 * identify a command.  Each hardware queue has one struct blk_mq_tags with
 * two maps: a small reserved one (tag_set->reserved_tags, for requests the
 * driver must always be able to send, e.g. error handling) and the normal
 * one.  See blk-mq-tag.h for the map layout and the per-CPU hint.
 *
 * When a map is exhausted, callers that may sleep wait on the map's wait
 * queue until a tag is freed.  The ordering that keeps a wake-up from
 * getting lost is explained at blk_mq_tag_map_put_inline() in blk-mq-tag.h.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/blk-mq.h>

#include "blk-mq.h"
#include "blk-mq-tag.h"

/* At least this many words per map, so CPUs can spread out. */
#define BLK_MQ_TAG_MIN_WORDS	4

/**
 * blk_mq_tag_map_init - set up an empty tag map
 * @map: the map
 * @depth: number of tags (may be 0)
 * @node: NUMA node for the words
 */
int blk_mq_tag_map_init(struct blk_mq_tag_map *map, unsigned int depth,
			int node)
{
	unsigned int shift = ilog2(BITS_PER_LONG);
	int cpu;

	/* Smaller words for small maps, so there are several to spread over. */
	while (shift > 1 && (BLK_MQ_TAG_MIN_WORDS << shift) > depth)
		shift--;

	map->depth = depth;
	map->limit = depth;
	map->shift = shift;
	map->nr_words = DIV_ROUND_UP(depth, 1U << shift);
	init_waitqueue_head(&map->wait);

	map->words = kcalloc_node(max(map->nr_words, 1U), sizeof(*map->words),
				  GFP_KERNEL, node);
	if (!map->words)
		return -ENOMEM;

	map->hint = alloc_percpu_gfp(unsigned int, GFP_KERNEL);
	if (!map->hint) {
		kfree(map->words);
		map->words = NULL;
		return -ENOMEM;
	}

	/* Start every CPU in a different place of the map. */
	for_each_possible_cpu(cpu) {
		unsigned int *hint = per_cpu_ptr(map->hint, cpu);

		*hint = depth ? (cpu * (1U << shift)) % depth : 0;
	}
	return 0;
}

/**
 * blk_mq_tag_map_free - release what blk_mq_tag_map_init() allocated
 * @map: the map
 */
void blk_mq_tag_map_free(struct blk_mq_tag_map *map)
{
	free_percpu(map->hint);
	map->hint = NULL;
	kfree(map->words);
	map->words = NULL;
}

/* Bits of word @w that are tags below @limit. */
static unsigned int tag_word_bits(struct blk_mq_tag_map *map, unsigned int w,
				  unsigned int limit)
{
	unsigned int first = w << map->shift;

	if (first >= limit)
		return 0;
	return min(1U << map->shift, limit - first);
}

/*
 * Try word @w from bit @bit on; return the tag or -1.  @bit and @bits are
 * at most BITS_PER_LONG, so the search is one load and one ffz() a try,
 * inline: this is every request's path.
 */
static int tag_word_get(struct blk_mq_tag_map *map, unsigned int w,
			unsigned int bit, unsigned int bits)
{
	unsigned long *word = &map->words[w].busy;
	/* bits we may not take: below @bit, and from @bits on */
	unsigned long fence = (1UL << bit) - 1;
	unsigned long busy;

	if (bits < BITS_PER_LONG)
		fence |= ~0UL << bits;

	for (;;) {
		busy = READ_ONCE(*word) | fence;
		if (busy == ~0UL)
			return -1;
		bit = ffz(busy);
		/*
		 * Acquire: the tag's request is ours only after this.  On
		 * losing the race the bit is set, or free again: reload.
		 */
		if (!test_and_set_bit_lock(bit, word))
			return (w << map->shift) + bit;
	}
}

/* The map's search, once around from @hint: see blk_mq_tag_map_get(). */
static int tag_map_search(struct blk_mq_tag_map *map, unsigned int limit,
			  unsigned int hint)
{
	unsigned int w, bit, i, nr_words;
	int tag;

	if (!limit)
		return -1;
	if (hint >= limit)
		hint = 0;
	nr_words = DIV_ROUND_UP(limit, 1U << map->shift);
	w = hint >> map->shift;
	bit = blk_mq_tag_bit(map, hint);

	for (i = 0; i <= nr_words; i++) {
		tag = tag_word_get(map, w, bit, tag_word_bits(map, w, limit));
		if (tag >= 0) {
			this_cpu_write(*map->hint, tag + 1 < limit ? tag + 1 : 0);
			return tag;
		}
		/* The first word is tried again from bit 0 at the end. */
		bit = 0;
		if (++w >= nr_words)
			w = 0;
	}
	return -1;
}

/*
 * Take a tag: first the hint itself (blk_mq_tag_hint_get(), inline in
 * blk-mq-tag.h), and only when that one is taken walk the words.
 */
static __always_inline int tag_map_get(struct blk_mq_tag_map *map)
{
	int tag = blk_mq_tag_hint_get(map);

	if (likely(tag >= 0))
		return tag;
	return tag_map_search(map, READ_ONCE(map->limit),
			      this_cpu_read(*map->hint));
}

/**
 * blk_mq_tag_map_get - allocate a tag without waiting
 * @map: the map
 *
 * Tries this CPU's hint, then walks the words once around from there.
 *
 * Return: the tag, or -1 if none is free.
 */
int blk_mq_tag_map_get(struct blk_mq_tag_map *map)
{
	return tag_map_get(map);
}

/* The map is full: sleep until a tag is freed (see blk-mq-tag.h). */
static noinline int tag_map_wait(struct blk_mq_tag_map *map)
{
	DEFINE_WAIT(wait);
	int tag;

	for (;;) {
		/*
		 * Queue ourselves and set the task state before looking at
		 * the bitmap again: prepare_to_wait_exclusive() ends with
		 * a full barrier (set_current_state()), which pairs with
		 * the barrier in blk_mq_tag_map_put_inline() between
		 * clearing a bit and checking for waiters.  Either we see the freed
		 * bit here, or the freer sees us on the queue and wakes us.
		 */
		prepare_to_wait_exclusive(&map->wait, &wait,
					  TASK_UNINTERRUPTIBLE);
		tag = tag_map_get(map);
		if (tag >= 0)
			break;
		/*
		 * Sleeping flushes our plug (sched_submit_work()), so the
		 * requests we hold tags for are on their way to the driver
		 * and will free tags when they complete.
		 */
		io_schedule();
	}
	finish_wait(&map->wait, &wait);

	/*
	 * A free may have woken us although we then found a tag of our own
	 * on the retry; that wake-up would be lost for the next waiter.
	 * Hand it on.  wq_has_sleeper() has the barrier this needs.
	 */
	if (wq_has_sleeper(&map->wait))
		wake_up(&map->wait);
	return tag;
}

static __always_inline int tag_map_get_wait(struct blk_mq_tag_map *map,
					    bool nowait)
{
	int tag = tag_map_get(map);

	if (likely(tag >= 0) || nowait)
		return tag;
	return tag_map_wait(map);
}

/**
 * blk_mq_tag_map_get_wait - allocate a tag, sleeping while the map is full
 * @map: the map
 * @nowait: don't sleep, fail instead
 *
 * Return: the tag, or -1 (only with @nowait).
 */
int blk_mq_tag_map_get_wait(struct blk_mq_tag_map *map, bool nowait)
{
	return tag_map_get_wait(map, nowait);
}

/**
 * __blk_mq_tag_map_wake - wake a task waiting for a tag of @map
 * @map: the map; blk_mq_tag_map_put() found a waiter on it
 */
void __blk_mq_tag_map_wake(struct blk_mq_tag_map *map)
{
	wake_up(&map->wait);
}

/**
 * blk_mq_tag_map_put - free a tag
 * @map: the map
 * @tag: the tag, as returned by blk_mq_tag_map_get()
 */
void blk_mq_tag_map_put(struct blk_mq_tag_map *map, unsigned int tag)
{
	blk_mq_tag_map_put_inline(map, tag);
}

/**
 * blk_mq_tag_map_weight - number of tags in use
 * @map: the map
 */
unsigned int blk_mq_tag_map_weight(struct blk_mq_tag_map *map)
{
	unsigned int w, n = 0;

	for (w = 0; w < map->nr_words; w++)
		n += hweight_long(READ_ONCE(map->words[w].busy));
	return n;
}

/**
 * blk_mq_tag_in_use - is a tag allocated
 * @tags: the tags of a hardware queue
 * @tag: the tag, reserved ones first as blk_mq_get_tag() numbers them
 */
bool blk_mq_tag_in_use(struct blk_mq_tags *tags, unsigned int tag)
{
	struct blk_mq_tag_map *map = &tags->reserved;

	if (tag >= tags->nr_reserved_tags) {
		map = &tags->normal;
		tag -= tags->nr_reserved_tags;
	}
	return test_bit(blk_mq_tag_bit(map, tag), blk_mq_tag_word(map, tag));
}

/**
 * blk_mq_tag_map_wake_all - wake every waiter, e.g. when the queue dies
 * @map: the map
 */
void blk_mq_tag_map_wake_all(struct blk_mq_tag_map *map)
{
	wake_up_all(&map->wait);
}

/**
 * blk_mq_init_tags - allocate the tag maps of one hardware queue
 * @nr_tags: total tags, reserved ones included
 * @reserved_tags: how many of them are reserved
 * @node: NUMA node
 */
struct blk_mq_tags *blk_mq_init_tags(unsigned int nr_tags,
				     unsigned int reserved_tags, int node)
{
	struct blk_mq_tags *tags;

	if (nr_tags > BLK_MQ_MAX_DEPTH || reserved_tags >= nr_tags)
		return NULL;

	tags = kzalloc_node(sizeof(*tags), GFP_KERNEL, node);
	if (!tags)
		return NULL;

	tags->nr_tags = nr_tags;
	tags->nr_reserved_tags = reserved_tags;
	spin_lock_init(&tags->lock);
	if (blk_mq_tag_map_init(&tags->reserved, reserved_tags, node))
		goto free_tags;
	if (blk_mq_tag_map_init(&tags->normal, nr_tags - reserved_tags, node))
		goto free_reserved;

	tags->rqs = kcalloc_node(nr_tags, sizeof(*tags->rqs), GFP_KERNEL, node);
	tags->static_rqs = kcalloc_node(nr_tags, sizeof(*tags->static_rqs),
					GFP_KERNEL, node);
	if (!tags->rqs || !tags->static_rqs)
		goto free_arrays;
	return tags;

free_arrays:
	kfree(tags->rqs);
	kfree(tags->static_rqs);
	blk_mq_tag_map_free(&tags->normal);
free_reserved:
	blk_mq_tag_map_free(&tags->reserved);
free_tags:
	kfree(tags);
	return NULL;
}

/**
 * blk_mq_free_tags - free what blk_mq_init_tags() allocated
 * @tags: the tags; the requests must already be gone
 */
void blk_mq_free_tags(struct blk_mq_tags *tags)
{
	if (!tags)
		return;
	kfree(tags->rqs);
	kfree(tags->static_rqs);
	blk_mq_tag_map_free(&tags->normal);
	blk_mq_tag_map_free(&tags->reserved);
	kfree(tags);
}

/**
 * __blk_mq_get_tag - allocate a tag the long way
 * @tags: the tags of a hardware queue
 * @reserved: take one of the reserved tags
 * @nowait: fail instead of sleeping when none is free
 *
 * What blk_mq_get_tag() does when this CPU's hint is taken or the tag
 * is to be a reserved one: search the map, and wait unless @nowait.
 *
 * Return: the tag, or BLK_MQ_NO_TAG.
 */
int __blk_mq_get_tag(struct blk_mq_tags *tags, bool reserved, bool nowait)
{
	int tag;

	if (unlikely(reserved)) {
		if (WARN_ON_ONCE(!tags->nr_reserved_tags))
			return BLK_MQ_NO_TAG;
		tag = blk_mq_tag_map_get_wait(&tags->reserved, nowait);
		return tag < 0 ? BLK_MQ_NO_TAG : tag;
	}
	tag = tag_map_get_wait(&tags->normal, nowait);
	return tag < 0 ? BLK_MQ_NO_TAG : tag + tags->nr_reserved_tags;
}

/**
 * blk_mq_tag_update_depth - change how many normal tags are handed out
 * @tags: the tags
 * @depth: new total depth, reserved tags included; at most nr_tags
 *
 * Tags above the new limit that are in use stay valid until freed.
 */
int blk_mq_tag_update_depth(struct blk_mq_tags *tags, unsigned int depth)
{
	if (depth > tags->nr_tags || depth <= tags->nr_reserved_tags)
		return -EINVAL;
	WRITE_ONCE(tags->normal.limit, depth - tags->nr_reserved_tags);
	/* Waiters may now fit under a larger limit. */
	blk_mq_tag_map_wake_all(&tags->normal);
	return 0;
}

/**
 * blk_mq_tag_wakeup_all - wake every task waiting for a tag
 * @tags: the tags
 */
void blk_mq_tag_wakeup_all(struct blk_mq_tags *tags)
{
	blk_mq_tag_map_wake_all(&tags->normal);
	blk_mq_tag_map_wake_all(&tags->reserved);
}
