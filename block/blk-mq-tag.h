/* SPDX-License-Identifier: GPL-2.0 */
#ifndef INT_BLK_MQ_TAG_H
#define INT_BLK_MQ_TAG_H

#include <linux/blk-mq.h>

int blk_mq_tag_map_init(struct blk_mq_tag_map *map, unsigned int depth,
			int node);
void blk_mq_tag_map_free(struct blk_mq_tag_map *map);
int blk_mq_tag_map_get(struct blk_mq_tag_map *map);
int blk_mq_tag_map_get_wait(struct blk_mq_tag_map *map, bool nowait);
void blk_mq_tag_map_put(struct blk_mq_tag_map *map, unsigned int tag);
unsigned int blk_mq_tag_map_weight(struct blk_mq_tag_map *map);
void blk_mq_tag_map_wake_all(struct blk_mq_tag_map *map);

struct blk_mq_tags *blk_mq_init_tags(unsigned int nr_tags,
				     unsigned int reserved_tags, int node);
void blk_mq_free_tags(struct blk_mq_tags *tags);

int blk_mq_get_tag(struct blk_mq_tags *tags, bool reserved, bool nowait);
void blk_mq_put_tag(struct blk_mq_tags *tags, unsigned int tag);
int blk_mq_tag_update_depth(struct blk_mq_tags *tags, unsigned int depth);
void blk_mq_tag_wakeup_all(struct blk_mq_tags *tags);

#endif
