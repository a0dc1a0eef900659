/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few calls of QEMU's TCG plugin API that insn-count.c uses, declared
 * from QEMU's documentation of it (docs/devel/tcg-plugins): the stable
 * plugin ABI, version 1, as QEMU 4.2 to 8.x export it to the plugins they
 * load.  QEMU itself provides the functions; Debian ships no header.
 */
#ifndef BLKMQ_QEMU_PLUGIN_API_H
#define BLKMQ_QEMU_PLUGIN_API_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_info_t;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

typedef void (*qemu_plugin_tb_trans_cb)(qemu_plugin_id_t id,
					struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_cb)(unsigned int vcpu, void *udata);
typedef void (*qemu_plugin_exit_cb)(qemu_plugin_id_t id, void *udata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_cb cb,
					  enum qemu_plugin_cb_flags flags,
					  void *udata);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_exit_cb cb, void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

#endif
