// SPDX-License-Identifier: Apache-2.0
// Preloaded into perftest by research/cpu-profile/cpu-profile --idle-jvm: before perftest's main() runs, start
// a JVM in the process and leave it idle. The process then carries what any JVM brings (its
// service threads with their timed waits, the reserved heap and code cache, libjvm's mappings
// and TLS, its signal handlers) while every verb and the measuring loop stay perftest's C. So a
// difference against plain perftest is the JVM's presence, not jrdma's data path.
//
// The JVM is created on its own thread, as the java launcher does: HotSpot does not support the
// primordial thread as a Java thread (its stack guard pages). That thread stays attached and
// parked in pause(): a thread in native code never holds up a safepoint. main() starts only
// once the JVM is up, so the JVM's start-up work is over before perftest connects.
//
// Options: IDLE_JVM_OPTS, split at spaces (research/cpu-profile/cpu-profile passes scripts/jrdma's JIT options
// under TCG plus JRDMA_JAVA_OPTS).
#include <jni.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_OPTIONS = 64 };

static sem_t vm_ready;

static void *run_vm(void *arg) {
    (void) arg;
    JavaVMOption options[MAX_OPTIONS];
    int n = 0;
    const char *env = getenv("IDLE_JVM_OPTS");
    char *copy = strdup(env ? env : "");
    char *save = NULL;
    for (char *t = strtok_r(copy, " ", &save); t != NULL; t = strtok_r(NULL, " ", &save)) {
        if (n == MAX_OPTIONS) {
            fprintf(stderr, "idle_jvm: more than %d options in IDLE_JVM_OPTS\n", MAX_OPTIONS);
            exit(1);
        }
        options[n].optionString = t;
        options[n].extraInfo = NULL;
        n++;
    }
    JavaVMInitArgs args = {
        .version = JNI_VERSION_21, .nOptions = n, .options = options, .ignoreUnrecognized = JNI_FALSE,
    };
    JavaVM *vm;
    JNIEnv *env_jni;
    jint rc = JNI_CreateJavaVM(&vm, (void **) &env_jni, &args);
    if (rc != JNI_OK) {
        // A run without the JVM would pass for one with it: stop instead.
        fprintf(stderr, "idle_jvm: JNI_CreateJavaVM failed (%d) with IDLE_JVM_OPTS='%s'\n", (int) rc,
                env ? env : "");
        exit(1);
    }
    fprintf(stderr, "idle_jvm: JVM started with %d options\n", n);
    sem_post(&vm_ready);
    for (;;) {
        pause();
    }
    return NULL;
}

__attribute__((constructor)) static void start_idle_jvm(void) {
    pthread_attr_t attr;
    pthread_t thread;
    sem_init(&vm_ready, 0, 0);
    pthread_attr_init(&attr);
    // More than the 1 MiB the java launcher gives its main thread by default.
    pthread_attr_setstacksize(&attr, 8 << 20);
    if (pthread_create(&thread, &attr, run_vm, NULL) != 0) {
        fprintf(stderr, "idle_jvm: cannot create the JVM's thread\n");
        exit(1);
    }
    pthread_attr_destroy(&attr);
    pthread_detach(thread);
    while (sem_wait(&vm_ready) != 0) {
        // EINTR: wait on.
    }
}
