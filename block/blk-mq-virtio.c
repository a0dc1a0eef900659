// SPDX-License-Identifier: GPL-2.0
/*
 * CPU to hardware queue mapping from virtqueue interrupt affinity.
 */
#include <linux/device.h>
#include <linux/blk-mq.h>
#include <linux/blk-mq-virtio.h>
#include <linux/virtio_config.h>
#include <linux/module.h>

#include "blk-mq.h"

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
	const struct virtio_config_ops *cfg = vdev->config;
	unsigned int hwq, cpu;

	for (hwq = 0; cfg->get_vq_affinity && hwq < qmap->nr_queues; hwq++) {
		const struct cpumask *aff = cfg->get_vq_affinity(vdev,
								 first_vec + hwq);

		if (unlikely(!aff))
			break;
		for_each_cpu(cpu, aff)
			qmap->mq_map[cpu] = hwq + qmap->queue_offset;
	}
	/* every queue had an affinity mask: done */
	if (cfg->get_vq_affinity && hwq == qmap->nr_queues)
		return;
	/* otherwise spread evenly, overwriting any partial result */
	blk_mq_map_queues(qmap);
}
EXPORT_SYMBOL_GPL(blk_mq_virtio_map_queues);
