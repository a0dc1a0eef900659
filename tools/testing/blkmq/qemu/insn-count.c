// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count: a QEMU TCG plugin that counts the guest's executed
 * instructions by translation block, for exact per-function instruction
 * counts of the kernel (make profile PROFILE_INSN=1, insn-report.py).
 *
 *   -plugin insn-count.so,out=FILE,mark=ADDR
 *
 * Each time the guest enters the code at ADDR (a kernel function's
 * address from System.map, one the guest calls on purpose: sync(2)'s
 * __x64_sys_sync), the counts so far are appended to FILE as
 * "dump N" followed by "ADDR COUNT" lines (hex block address, decimal
 * instructions executed in blocks starting there), and reset.  So what
 * lies between two marks is what the guest ran between them.
 *
 * Counters are added to inline by the translated code, without locks:
 * run it with one vCPU (-icount runs all vCPUs in one thread anyway).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin-api.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

/* one counter per block start address; retranslations share it */
struct block_count {
	uint64_t addr;
	uint64_t insns;
};

static struct block_count *table;
static size_t table_size = 1 << 20;	/* a power of two */
static size_t table_used;
static uint64_t mark_addr;
static FILE *out;
static unsigned int dumps;

static struct block_count *lookup(uint64_t addr)
{
	size_t i = (addr * 0x9E3779B97F4A7C15ull) >> 44 & (table_size - 1);

	while (table[i].addr && table[i].addr != addr)
		i = (i + 1) & (table_size - 1);
	return &table[i];
}

static void write_dump(void)
{
	size_t i;

	fprintf(out, "dump %u\n", dumps++);
	for (i = 0; i < table_size; i++) {
		if (!table[i].insns)
			continue;
		fprintf(out, "%llx %llu\n", (unsigned long long)table[i].addr,
			(unsigned long long)table[i].insns);
		table[i].insns = 0;
	}
	fflush(out);
}

static void mark_hit(unsigned int vcpu, void *udata)
{
	write_dump();
}

static void block_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t addr = qemu_plugin_tb_vaddr(tb);
	struct block_count *bc = lookup(addr);

	if (!bc->addr) {
		/* a full table would loop for ever: give up loudly instead */
		if (++table_used > table_size / 2) {
			fprintf(stderr, "insn-count: more than %zu blocks\n",
				table_size / 2);
			exit(1);
		}
		bc->addr = addr;
	}
	if (addr == mark_addr)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, mark_hit,
						     QEMU_PLUGIN_CB_NO_REGS, NULL);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &bc->insns,
						 qemu_plugin_tb_n_insns(tb));
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	write_dump();
	fclose(out);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
			       const struct qemu_info_t *info,
			       int argc, char **argv)
{
	const char *path = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
		else if (!strncmp(argv[i], "mark=", 5))
			mark_addr = strtoull(argv[i] + 5, NULL, 16);
		else
			fprintf(stderr, "insn-count: unknown option %s\n",
				argv[i]);
	}
	if (!path || !mark_addr) {
		fprintf(stderr, "insn-count: needs out=FILE and mark=ADDR\n");
		return -1;
	}
	out = fopen(path, "w");
	table = calloc(table_size, sizeof(*table));
	if (!out || !table) {
		fprintf(stderr, "insn-count: cannot open %s\n", path);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, block_translated);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
