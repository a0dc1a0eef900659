// SPDX-License-Identifier: GPL-2.0
/*
 * CPU to hardware queue mapping from PCI MSI(-X) vector affinity.
 */
#include <linux/blk-mq.h>
#include <linux/blk-mq-pci.h>
#include <linux/pci.h>
#include <linux/module.h>

#include "blk-mq.h"

static const struct cpumask *blk_mq_pci_affinity(void *dev, int vec)
{
	return pci_irq_get_affinity(dev, vec);
}

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
	blk_mq_map_queues_by_affinity(qmap, blk_mq_pci_affinity, pdev, offset);
}
EXPORT_SYMBOL_GPL(blk_mq_pci_map_queues);
