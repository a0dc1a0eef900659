// SPDX-License-Identifier: GPL-2.0
/*
 * CPU to hardware queue mapping from virtqueue interrupt affinity.
 */
#include <linux/blk-mq.h>
#include <linux/blk-mq-virtio.h>
#include <linux/virtio_config.h>
#include <linux/module.h>

#include "blk-mq.h"

static const struct cpumask *blk_mq_virtio_affinity(void *dev, int vec)
{
	struct virtio_device *vdev = dev;

	if (!vdev->config->get_vq_affinity)
		return NULL;
	return vdev->config->get_vq_affinity(vdev, vec);
}

/**
 * blk_mq_virtio_map_queues - map CPUs to the queue whose interrupt they get
 * @qmap: the map
 * @vdev: the virtio device
 * @first_vec: virtqueue of the map's first queue
 *
 * Each CPU goes to the queue whose virtqueue interrupt is affine to it.
 * Without affinity information the default spreading is used.
 */
void blk_mq_virtio_map_queues(struct blk_mq_queue_map *qmap,
			      struct virtio_device *vdev, int first_vec)
{
	blk_mq_map_queues_by_affinity(qmap, blk_mq_virtio_affinity, vdev,
				      first_vec);
}
EXPORT_SYMBOL_GPL(blk_mq_virtio_map_queues);
