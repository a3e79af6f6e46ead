// SPDX-License-Identifier: Apache-2.0
// Preloaded into perftest by research/cpu-profile/cpu-profile --idle-thread: one extra thread that only sleeps,
// so the C client is a multi-threaded process, as every JVM is. That changes the kernel's and
// libc's paths for the same calls: fget/fput take atomic references on a shared file table,
// and libc's write() enables and disables asynchronous cancellation around the system call.
#include <pthread.h>
#include <unistd.h>

static void *idle(void *arg) {
    (void) arg;
    for (;;) {
        pause();
    }
    return NULL;
}

__attribute__((constructor)) static void start_idle_thread(void) {
    pthread_t t;
    if (pthread_create(&t, NULL, idle, NULL) == 0) {
        pthread_detach(t);
    }
}
