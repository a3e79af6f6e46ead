// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The part of qemu's TCG plugin API (qemu 7.2, QEMU_PLUGIN_VERSION 1, Debian bookworm) that the
 * plugins of bench/c use, written out because Debian does not ship qemu-plugin.h, and the start
 * both plugins share. Include it from exactly one file per plugin: it defines qemu_plugin_version.
 */
#ifndef JRDMA_QEMU_PLUGIN_API_H
#define JRDMA_QEMU_PLUGIN_API_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct {
    const char *target_name;
    struct { int min, cur; } version;
    bool system_emulation;
    union { struct { int smp_vcpus, max_vcpus; } system; };
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
enum { QEMU_PLUGIN_CB_NO_REGS = 0 };
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, qemu_plugin_vcpu_tb_trans_cb_t);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *, qemu_plugin_vcpu_udata_cb_t, int flags, void *);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* Both plugins count 2 vCPUs, the VM of scripts/softroce. */
#define VCPUS 2
/* x86-64: the kernel half of the address space (canonical addresses with bit 47 set). */
#define KERNEL_START 0xffff800000000000ull

/*
 * The install both plugins share: refuses a VM with more vCPUs than counted, copies the
 * "out=PATH" argument into out (left as it is without one), starts the plugin's reporting
 * thread (detached) and registers its translation callback. Returns 0 to go on, as
 * qemu_plugin_install.
 */
static int plugin_install(const char *name, qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv,
                          char *out, size_t size, void *(*report)(void *), qemu_plugin_vcpu_tb_trans_cb_t on_translate)
{
    if (info->system_emulation && info->system.smp_vcpus > VCPUS) {
        fprintf(stderr, "%s: counts %d vCPUs, the VM has %d\n", name, VCPUS, info->system.smp_vcpus);
        return 1;
    }
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            snprintf(out, size, "%s", argv[i] + 4);
        }
    }
    pthread_t t;
    if (pthread_create(&t, NULL, report, NULL) != 0) {
        return 1;
    }
    pthread_detach(t);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    return 0;
}

#endif
