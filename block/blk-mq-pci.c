// SPDX-License-Identifier: GPL-2.0
/*
 * CPU to hardware queue mapping from PCI MSI(-X) vector affinity.
 */
#include <linux/kobject.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/blk-mq-pci.h>
#include <linux/pci.h>
#include <linux/module.h>

#include "blk-mq.h"

/**
 * blk_mq_pci_map_queues - map CPUs to the queue whose vector they get
 * @qmap: the map
 * @pdev: the PCI device
 * @offset: vector of the map's first queue
 *
 * Each CPU goes to the queue whose interrupt vector is affine to it.
 * Without affinity information the default spreading is used.
 */
void blk_mq_pci_map_queues(struct blk_mq_queue_map *qmap, struct pci_dev *pdev,
			   int offset)
{
	unsigned int hwq, cpu;

	for (hwq = 0; hwq < qmap->nr_queues; hwq++) {
		const struct cpumask *aff = pci_irq_get_affinity(pdev,
								 offset + hwq);

		if (unlikely(!aff)) {
			/* no affinity information: spread evenly instead */
			blk_mq_map_queues(qmap);
			return;
		}
		for_each_cpu(cpu, aff)
			qmap->mq_map[cpu] = hwq + qmap->queue_offset;
	}
}
EXPORT_SYMBOL_GPL(blk_mq_pci_map_queues);
