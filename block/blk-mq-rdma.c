// SPDX-License-Identifier: GPL-2.0
/*
 * CPU to hardware queue mapping from RDMA completion vector affinity.
 */
#include <linux/blk-mq.h>
#include <linux/blk-mq-rdma.h>
#include <rdma/ib_verbs.h>
#include <linux/module.h>

#include "blk-mq.h"

static const struct cpumask *blk_mq_rdma_affinity(void *dev, int vec)
{
	return ib_get_vector_affinity(dev, vec);
}

/**
 * blk_mq_rdma_map_queues - map CPUs to the queue whose completions they get
 * @map: the map
 * @dev: the RDMA device
 * @first_vec: completion vector of the map's first queue
 *
 * Each CPU goes to the queue whose completion vector is affine to it.
 * Without affinity information the default spreading is used.
 */
void blk_mq_rdma_map_queues(struct blk_mq_queue_map *map,
			    struct ib_device *dev, int first_vec)
{
	blk_mq_map_queues_by_affinity(map, blk_mq_rdma_affinity, dev,
				      first_vec);
}
EXPORT_SYMBOL_GPL(blk_mq_rdma_map_queues);
