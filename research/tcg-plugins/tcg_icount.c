// SPDX-License-Identifier: Apache-2.0
/*
 * A qemu TCG plugin for research/qemu-counters/qemu-counters: how many guest instructions and translation
 * blocks each vCPU executes, in kernel and in user mode, and how many system calls user mode
 * makes (a read_lat iteration makes one: the doorbell write(2) of Soft-RoCE's post_send, so
 * that counts the reads whatever the instrumentation does to their rate). Every 50 ms it
 * appends a line of running totals to the file given as "out=PATH":
 *
 *   UNIX_TIME  per vCPU 0..1: KERNEL_INSNS USER_INSNS KERNEL_TBS USER_TBS USER_SYSCALLS
 *   then TBS_TRANSLATED
 *
 * so that the host can take the difference over a measurement window. An execution callback
 * (not an inline add) because it is told the vCPU: two vCPUs adding to one counter would lose
 * counts. It makes emulation slower; the counts per read are what it is for, not the time.
 *
 * Built against the plugin API of qemu 7.2 (qemu_plugin_api.h).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qemu_plugin_api.h"


/* One cache line per vCPU: each vCPU thread writes only its own. */
static struct {
    _Alignas(64) volatile uint64_t insns[2], tbs[2];   /* [0] user, [1] kernel */
    volatile uint64_t syscalls;
} counters[VCPUS];
static volatile uint64_t translated;
static char out_path[512] = "tcg_icount.txt";

static void on_exec(unsigned int vcpu, void *udata)
{
    uintptr_t u = (uintptr_t) udata;
    int kernel = (int) (u >> 32) & 1;
    if (vcpu < VCPUS) {
        counters[vcpu].insns[kernel] += (uint32_t) u;
        counters[vcpu].tbs[kernel]++;
        counters[vcpu].syscalls += (u >> 33) & 1;
    }
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void) id;
    uintptr_t kernel = qemu_plugin_tb_vaddr(tb) >= KERNEL_START;
    size_t n = qemu_plugin_tb_n_insns(tb);
    uintptr_t syscall = 0;
    if (!kernel && n > 0) {
        /* A SYSCALL instruction (0f 05) ends its translation block. */
        struct qemu_plugin_insn *last = qemu_plugin_tb_get_insn(tb, n - 1);
        const unsigned char *b = qemu_plugin_insn_data(last);
        syscall = qemu_plugin_insn_size(last) == 2 && b[0] == 0x0f && b[1] == 0x05;
    }
    translated++;
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS,
                                         (void *) ((syscall << 33) | (kernel << 32) | n));
}

static void *dump(void *arg)
{
    (void) arg;
    FILE *f = fopen(out_path, "w");
    if (f == NULL) {
        perror(out_path);
        return NULL;
    }
    for (;;) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        fprintf(f, "%ld.%03ld", (long) now.tv_sec, now.tv_nsec / 1000000);
        for (int v = 0; v < VCPUS; v++) {
            fprintf(f, " %llu %llu %llu %llu %llu", (unsigned long long) counters[v].insns[1],
                    (unsigned long long) counters[v].insns[0], (unsigned long long) counters[v].tbs[1],
                    (unsigned long long) counters[v].tbs[0], (unsigned long long) counters[v].syscalls);
        }
        fprintf(f, " %llu\n", (unsigned long long) translated);
        fflush(f);
        usleep(50000);
    }
    return NULL;
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    return plugin_install("tcg_icount", id, info, argc, argv, out_path, sizeof out_path, dump, on_translate);
}
