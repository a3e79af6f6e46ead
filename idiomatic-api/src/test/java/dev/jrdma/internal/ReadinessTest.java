// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Readiness on an eventfd, from platform and virtual threads (no RDMA device needed). */
class ReadinessTest {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle EVENTFD = LINKER.downcallHandle(LINKER.defaultLookup().find("eventfd")
            .orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle WRITE = LINKER.downcallHandle(LINKER.defaultLookup().find("write")
            .orElseThrow(), FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().find("close")
            .orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private static void signal(int fd) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment one = arena.allocate(JAVA_LONG);
            one.set(JAVA_LONG, 0, 1L);
            assertEquals(8L, (long) WRITE.invokeExact(fd, one, 8L));
        }
    }

    @Test
    void virtualAndPlatformThreadsSeeAnFdBecomeReadableOrTimeOut() throws Throwable {
        int fd = (int) EVENTFD.invokeExact(0, 0);
        assertTrue(fd >= 0);
        try {
            for (boolean virtual : new boolean[] {true, false}) {
                CompletableFuture<Boolean> quiet = new CompletableFuture<>();
                start(virtual, () -> quiet.complete(Readiness.await(fd, 100, () -> false)));
                assertFalse(quiet.get(10, TimeUnit.SECONDS), "nothing written: a timeout");
            }
            CompletableFuture<Boolean> woken = new CompletableFuture<>();
            start(true, () -> woken.complete(Readiness.await(fd, 10_000, () -> false)));
            Thread.sleep(100);
            signal(fd);
            assertTrue(woken.get(10, TimeUnit.SECONDS));
            // Still readable (nobody read the counter): a second wait on the same fd returns at once.
            CompletableFuture<Boolean> again = new CompletableFuture<>();
            start(true, () -> again.complete(Readiness.await(fd, 10_000, () -> false)));
            assertTrue(again.get(10, TimeUnit.SECONDS));
        } finally {
            int rc = (int) CLOSE.invokeExact(fd);
            assertEquals(0, rc);
        }
    }

    /** A close ends a virtual thread's wait through wake(), which the thread sees as its stop mark. */
    @Test
    void wakeEndsAVirtualThreadsWait() throws Throwable {
        int fd = (int) EVENTFD.invokeExact(0, 0);
        assertTrue(fd >= 0);
        try {
            java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
            CompletableFuture<Boolean> woken = new CompletableFuture<>();
            start(true, () -> {
                started.countDown();
                woken.complete(Readiness.await(fd, 60_000, closed::get) && closed.get());
            });
            assertTrue(started.await(10, TimeUnit.SECONDS));
            Thread.sleep(200);
            closed.set(true);
            Readiness.wake(fd);
            // Either woken in its wait (true), or it saw the mark before waiting (false, but at once).
            woken.get(10, TimeUnit.SECONDS);
            CompletableFuture<Boolean> late = new CompletableFuture<>();
            start(true, () -> late.complete(Readiness.await(fd, 60_000, closed::get)));
            assertFalse(late.get(10, TimeUnit.SECONDS), "a wait that begins after the close does not wait");
        } finally {
            int rc = (int) CLOSE.invokeExact(fd);
            assertEquals(0, rc);
        }
    }

    private static void start(boolean virtual, Runnable body) {
        Runnable guarded = () -> {
            try {
                body.run();
            } catch (Throwable t) {
                t.printStackTrace();
                throw t;
            }
        };
        if (virtual) {
            Thread.ofVirtual().start(guarded);
        } else {
            Thread.ofPlatform().start(guarded);
        }
    }
}
