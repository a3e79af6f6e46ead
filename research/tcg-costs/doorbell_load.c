// SPDX-License-Identifier: Apache-2.0
// LD_PRELOAD for perftest's client (research/tcg-costs/tcg-costs): before every write(2) - Soft-RoCE's
// doorbell, so once per RDMA read - add user-space work of a known shape, to price it under qemu
// TCG against the kernel path it runs next to.
//   TOUCH_PAGES=K [TOUCH_STRIDE=S]  read one byte of each of K pages, S pages apart (default 1)
//   STUB_CALLS=K [STUB_STRIDE=B]    make K indirect calls to one-byte 'ret' stubs, B bytes apart
//                                   (default 4160: one stub per page)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static ssize_t (*real_write)(int, const void *, size_t);
static volatile unsigned char *pages;
static long touch_pages, touch_stride;
static void (**stubs)(void);
static long stub_calls;

static long env(const char *name, long fallback) {
    const char *v = getenv(name);
    return v ? atol(v) : fallback;
}

__attribute__((constructor)) static void init(void) {
    real_write = (ssize_t (*)(int, const void *, size_t)) dlsym(RTLD_NEXT, "write");
    touch_pages = env("TOUCH_PAGES", 0);
    touch_stride = env("TOUCH_STRIDE", 1);
    if (touch_pages > 0) {
        void *p = mmap(0, touch_pages * touch_stride * 4096, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p == MAP_FAILED) abort();
        pages = p;
    }
    stub_calls = env("STUB_CALLS", 0);
    long stride = env("STUB_STRIDE", 4160);
    if (stub_calls > 0) {
        size_t len = stub_calls * stride + 4096;
        unsigned char *code = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        stubs = malloc(stub_calls * sizeof *stubs);
        if (code == MAP_FAILED || !stubs) abort();
        for (long i = 0; i < stub_calls; i++) {
            code[i * stride] = 0xc3;   // ret
            stubs[i] = (void (*)(void)) (code + i * stride);
        }
        if (mprotect(code, len, PROT_READ | PROT_EXEC) != 0) abort();
    }
}

ssize_t write(int fd, const void *buf, size_t n) {
    unsigned sum = 0;
    for (long i = 0; i < touch_pages; i++) sum += pages[i * touch_stride * 4096];
    (void) sum;
    for (long i = 0; i < stub_calls; i++) stubs[i]();
    return real_write(fd, buf, n);
}
