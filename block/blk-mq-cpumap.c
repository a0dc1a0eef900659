// SPDX-License-Identifier: GPL-2.0
/*
 * Default CPU to hardware queue mapping.
 *
 * CPUs are lined up node by node (all possible CPUs of node 0 in id order,
 * then node 1, ...) and the line is cut into nr_queues runs of equal
 * length (the first ones one longer when it does not divide).  Each run
 * gets one queue.  So every queue serves CPUs that are neighbours, a
 * queue spans two nodes only when a node's CPUs do not fill whole runs,
 * and with as many queues as CPUs every CPU has its own queue.
 */
#include <linux/kernel.h>
#include <linux/cpu.h>
#include <linux/nodemask.h>
#include <linux/topology.h>
#include <linux/blk-mq.h>

#include "blk-mq.h"

/**
 * blk_mq_map_queues - spread the possible CPUs over a map's queues
 * @qmap: the map; @qmap->nr_queues and @qmap->queue_offset are set
 */
void blk_mq_map_queues(struct blk_mq_queue_map *qmap)
{
	unsigned int nr_cpus = num_possible_cpus();
	unsigned int nr_queues = max(qmap->nr_queues, 1U);
	unsigned int pos = 0, cpu;
	int node;

	/* CPUs of nodes without memory or of no node at all come last */
	for_each_node(node) {
		for_each_possible_cpu(cpu) {
			if (cpu_to_node(cpu) != node)
				continue;
			qmap->mq_map[cpu] = qmap->queue_offset +
				(unsigned int)((u64)pos * nr_queues / nr_cpus);
			pos++;
		}
	}
	for_each_possible_cpu(cpu) {
		node = cpu_to_node(cpu);
		if (node != NUMA_NO_NODE && node_possible(node))
			continue;
		qmap->mq_map[cpu] = qmap->queue_offset +
			(unsigned int)((u64)pos * nr_queues / nr_cpus);
		pos++;
	}
}
EXPORT_SYMBOL_GPL(blk_mq_map_queues);

/**
 * blk_mq_map_queues_by_affinity - map CPUs to the queue whose interrupt they get
 * @qmap: the map
 * @affinity: the CPUs interrupt vector @vec of @dev goes to, or NULL if unknown
 * @dev: the device, passed to @affinity
 * @first_vec: vector of the map's first queue
 *
 * For drivers whose queues each have an interrupt spread over the CPUs
 * (PCI MSI-X, virtqueues, RDMA completion vectors): a CPU submits to the
 * queue that completes on it.  If any queue's affinity is unknown, the
 * default spreading of blk_mq_map_queues() is used for the whole map.
 */
void blk_mq_map_queues_by_affinity(struct blk_mq_queue_map *qmap,
				   blk_mq_affinity_fn *affinity, void *dev,
				   int first_vec)
{
	unsigned int hwq, cpu;

	for (hwq = 0; hwq < qmap->nr_queues; hwq++) {
		const struct cpumask *mask = affinity(dev, first_vec + hwq);

		if (unlikely(!mask)) {
			/* overwrites whatever the loop mapped so far */
			blk_mq_map_queues(qmap);
			return;
		}
		for_each_cpu(cpu, mask)
			qmap->mq_map[cpu] = qmap->queue_offset + hwq;
	}
}

/**
 * blk_mq_hw_queue_to_node - the NUMA node of a hardware queue
 * @qmap: the map
 * @index: the hardware queue
 *
 * Return: the node of the first CPU mapped to @index, or NUMA_NO_NODE.
 */
int blk_mq_hw_queue_to_node(struct blk_mq_queue_map *qmap, unsigned int index)
{
	unsigned int cpu;

	if (!qmap->mq_map)
		return NUMA_NO_NODE;
	for_each_possible_cpu(cpu)
		if (qmap->mq_map[cpu] == index)
			return cpu_to_node(cpu);
	return NUMA_NO_NODE;
}
