/* SPDX-License-Identifier: GPL-2.0 */
#ifndef INT_BLK_MQ_TAG_H
#define INT_BLK_MQ_TAG_H

#include <linux/blk-mq.h>
#include <linux/percpu.h>
#include <linux/wait.h>

int blk_mq_tag_map_init(struct blk_mq_tag_map *map, unsigned int depth,
			int node);
void blk_mq_tag_map_free(struct blk_mq_tag_map *map);
int blk_mq_tag_map_get(struct blk_mq_tag_map *map);
int blk_mq_tag_map_get_wait(struct blk_mq_tag_map *map, bool nowait);
void blk_mq_tag_map_put(struct blk_mq_tag_map *map, unsigned int tag);
void __blk_mq_tag_map_wake(struct blk_mq_tag_map *map);
unsigned int blk_mq_tag_map_weight(struct blk_mq_tag_map *map);
bool blk_mq_tag_in_use(struct blk_mq_tags *tags, unsigned int tag);
void blk_mq_tag_map_wake_all(struct blk_mq_tag_map *map);

struct blk_mq_tags *blk_mq_init_tags(unsigned int nr_tags,
				     unsigned int reserved_tags, int node);
void blk_mq_free_tags(struct blk_mq_tags *tags);

int __blk_mq_get_tag(struct blk_mq_tags *tags, bool reserved, bool nowait);
int blk_mq_tag_update_depth(struct blk_mq_tags *tags, unsigned int depth);
void blk_mq_tag_wakeup_all(struct blk_mq_tags *tags);

/*
 * The two halves of every request's tag, inline: taking this CPU's hint
 * and freeing a tag.  Everything else (the search, waiting) is in
 * blk-mq-tag.c.
 */

/* The word of @map that holds @tag's busy bit, and the bit in it. */
static __always_inline unsigned long *blk_mq_tag_word(struct blk_mq_tag_map *map,
						      unsigned int tag)
{
	return &map->words[tag >> map->shift].busy;
}

static __always_inline unsigned int blk_mq_tag_bit(struct blk_mq_tag_map *map,
						   unsigned int tag)
{
	return tag & ((1U << map->shift) - 1);
}

/*
 * Take this CPU's hint tag if it is free.  After a free on this CPU the
 * hint is the tag freed, its request still warm in this CPU's cache, so
 * one load and one atomic are what most allocations cost.  The load
 * spares a busy bit the atomic, which would pull the word's cache line
 * over for nothing.
 *
 * Return: the tag, or -1 if the hint is taken (search the map then).
 */
static __always_inline int blk_mq_tag_hint_get(struct blk_mq_tag_map *map)
{
	unsigned int limit = READ_ONCE(map->limit);
	unsigned int hint = this_cpu_read(*map->hint);
	unsigned long *word;
	unsigned int bit;

	if (unlikely(hint >= limit))
		return -1;
	word = blk_mq_tag_word(map, hint);
	bit = blk_mq_tag_bit(map, hint);
	/* Acquire: the tag's request is ours only after this. */
	if ((READ_ONCE(*word) & BIT(bit)) || test_and_set_bit_lock(bit, word))
		return -1;
	this_cpu_write(*map->hint, hint + 1 < limit ? hint + 1 : 0);
	return hint;
}

/* Free @tag of @map; what blk_mq_tag_map_put() does. */
static __always_inline void blk_mq_tag_map_put_inline(struct blk_mq_tag_map *map,
						      unsigned int tag)
{
	/* Release: everything done with the request happens before. */
	clear_bit_unlock(blk_mq_tag_bit(map, tag), blk_mq_tag_word(map, tag));
	/* the cleared bit before the look for waiters below */
	smp_mb__after_atomic();

	/* Reuse it first from this CPU: its cache line is already here. */
	if (tag < READ_ONCE(map->limit))
		this_cpu_write(*map->hint, tag);

	/*
	 * The barrier above pairs with the one in prepare_to_wait_exclusive()
	 * on the waiter's side: it sees the bit free, or we see it queued.
	 * After the atomic clear that barrier costs nothing on x86, where
	 * the smp_mb() of wq_has_sleeper() would be a second full fence.
	 */
	if (waitqueue_active(&map->wait))
		__blk_mq_tag_map_wake(map);
}

/**
 * blk_mq_get_tag - allocate a tag
 * @tags: the tags of a hardware queue
 * @reserved: take one of the reserved tags
 * @nowait: fail instead of sleeping when none is free
 *
 * Return: the tag, or BLK_MQ_NO_TAG.
 */
static __always_inline int blk_mq_get_tag(struct blk_mq_tags *tags,
					  bool reserved, bool nowait)
{
	if (likely(!reserved)) {
		int tag = blk_mq_tag_hint_get(&tags->normal);

		if (likely(tag >= 0))
			return tag + tags->nr_reserved_tags;
	}
	return __blk_mq_get_tag(tags, reserved, nowait);
}

/**
 * blk_mq_put_tag - free a tag
 * @tags: the tags it came from
 * @tag: the tag
 */
static __always_inline void blk_mq_put_tag(struct blk_mq_tags *tags,
					   unsigned int tag)
{
	if (likely(tag >= tags->nr_reserved_tags))
		blk_mq_tag_map_put_inline(&tags->normal,
					  tag - tags->nr_reserved_tags);
	else
		blk_mq_tag_map_put(&tags->reserved, tag);
}

#endif
