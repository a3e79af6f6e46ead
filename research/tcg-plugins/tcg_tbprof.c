// SPDX-License-Identifier: Apache-2.0
/*
 * A qemu TCG plugin for research/tb-profile/tb-profile: how often each vCPU executes each user-mode translation
 * block, with the block's instruction bytes, so that the host can attribute a test's user-mode
 * instructions to the client's libraries, JIT-compiled methods and stubs and disassemble the hot
 * blocks. Kernel blocks are only summed per vCPU.
 *
 * The host asks for a dump by creating OUT.req; the plugin then writes OUT.N (N = 0, 1, ...) and
 * removes the request. A dump holds the executions since the previous one:
 *
 *   K  KERNEL_INSNS_VCPU0 KERNEL_INSNS_VCPU1
 *   IDX VADDR_HEX N_INSNS ENDS_IN_SYSCALL EXECS_VCPU0 EXECS_VCPU1    one line per block executed
 *   B  INSTRUCTION_BYTES_HEX                                         after each block's line
 *
 * Counts are snapshotted in one pass before anything is written, so that every block's window is
 * the same (writing a dump takes long enough to skew them otherwise). Each vCPU thread increments
 * only its own counter of a block, so no count is lost without atomics. Every translation gets its
 * own entry (a block retranslated after its page was written is a new entry at the same address).
 *
 * Built against the plugin API of qemu 7.2 (qemu_plugin_api.h).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qemu_plugin_api.h"

/* A JVM start translates ~10^6 user blocks; a profile of a few dozen runs fits. */
#define MAX_ENTRIES 20000000

struct entry {
    uint64_t vaddr;
    uint32_t insns, syscall, nbytes;
    unsigned char *bytes;
    volatile uint64_t execs[VCPUS];
    uint64_t dumped[VCPUS];
};

static struct entry *entries;
static volatile uint64_t used;
static volatile uint64_t kernel_insns[VCPUS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char out_path[512] = "tbprof";

static void on_user_exec(unsigned int vcpu, void *udata)
{
    struct entry *e = udata;
    if (vcpu < VCPUS) {
        e->execs[vcpu]++;
    }
}

static void on_kernel_exec(unsigned int vcpu, void *udata)
{
    if (vcpu < VCPUS) {
        kernel_insns[vcpu] += (uintptr_t) udata;
    }
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void) id;
    uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
    size_t n = qemu_plugin_tb_n_insns(tb);
    if (vaddr >= KERNEL_START) {
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_kernel_exec, 0, (void *) (uintptr_t) n);
        return;
    }
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        total += qemu_plugin_insn_size(qemu_plugin_tb_get_insn(tb, i));
    }
    unsigned char *bytes = malloc(total ? total : 1);
    if (bytes == NULL) {
        return;
    }
    pthread_mutex_lock(&lock);
    if (used >= MAX_ENTRIES) {
        pthread_mutex_unlock(&lock);
        free(bytes);
        return;
    }
    /* Filled under the lock: translation is rare next to execution, and the dumper reads entries below used. */
    struct entry *e = &entries[used];
    e->vaddr = vaddr;
    e->insns = (uint32_t) n;
    e->bytes = bytes;
    e->nbytes = 0;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        size_t size = qemu_plugin_insn_size(insn);
        memcpy(bytes + e->nbytes, qemu_plugin_insn_data(insn), size);
        e->nbytes += (uint32_t) size;
        /* A SYSCALL instruction (0f 05) ends its translation block. */
        e->syscall = size == 2 && bytes[e->nbytes - 2] == 0x0f && bytes[e->nbytes - 1] == 0x05;
    }
    used++;
    pthread_mutex_unlock(&lock);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_user_exec, 0, e);
}

static void dump(FILE *f, uint64_t *delta)
{
    static uint64_t kernel_dumped[VCPUS];
    pthread_mutex_lock(&lock);
    uint64_t n = used;
    pthread_mutex_unlock(&lock);
    uint64_t k[VCPUS];
    for (int v = 0; v < VCPUS; v++) {
        k[v] = kernel_insns[v];
    }
    for (uint64_t i = 0; i < n; i++) {
        for (int v = 0; v < VCPUS; v++) {
            uint64_t now = entries[i].execs[v];
            delta[i * VCPUS + v] = now - entries[i].dumped[v];
            entries[i].dumped[v] = now;
        }
    }
    fprintf(f, "K %llu %llu\n", (unsigned long long) (k[0] - kernel_dumped[0]),
            (unsigned long long) (k[1] - kernel_dumped[1]));
    for (int v = 0; v < VCPUS; v++) {
        kernel_dumped[v] = k[v];
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t d0 = delta[i * VCPUS], d1 = delta[i * VCPUS + 1];
        if ((d0 | d1) == 0) {
            continue;
        }
        struct entry *e = &entries[i];
        fprintf(f, "%llu %llx %u %u %llu %llu\nB ", (unsigned long long) i, (unsigned long long) e->vaddr,
                e->insns, e->syscall, (unsigned long long) d0, (unsigned long long) d1);
        for (uint32_t b = 0; b < e->nbytes; b++) {
            fprintf(f, "%02x", e->bytes[b]);
        }
        fputc('\n', f);
    }
}

static void *watch(void *arg)
{
    (void) arg;
    char request[600], path[600];
    snprintf(request, sizeof request, "%s.req", out_path);
    uint64_t *delta = malloc(sizeof(uint64_t) * VCPUS * MAX_ENTRIES);
    if (delta == NULL) {
        perror("tcg_tbprof");
        return NULL;
    }
    for (int seq = 0;;) {
        if (access(request, F_OK) == 0) {
            snprintf(path, sizeof path, "%s.%d", out_path, seq++);
            FILE *f = fopen(path, "w");
            if (f == NULL) {
                perror(path);
            } else {
                dump(f, delta);
                fclose(f);
            }
            unlink(request);
        }
        usleep(20000);
    }
    return NULL;
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    entries = calloc(MAX_ENTRIES, sizeof *entries);   /* before the thread that dumps them starts */
    if (entries == NULL) {
        return 1;
    }
    return plugin_install("tcg_tbprof", id, info, argc, argv, out_path, sizeof out_path, watch, on_translate);
}
