// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** --pin-cpu binds only the calling thread, restores it on close, and names an unusable CPU. */
class CpuAffinityTest {
    /** Runs {@code body} on a fresh thread (the binding must not leak into the test runner's). */
    private static <T> T onNewThread(java.util.concurrent.Callable<T> body) throws Exception {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                result.set(body.call());
            } catch (Exception e) {
                failure.set(e);
            }
        });
        t.join(10_000);
        if (failure.get() != null) {
            throw failure.get();
        }
        return result.get();
    }

    @Test
    void bindsTheCallingThreadOnlyAndRestoresIt() throws Exception {
        String before = CpuAffinity.allowedCpus();
        int cpu = Integer.parseInt(before.split("[-,]")[0]);
        String[] seen = onNewThread(() -> {
            String pinned;
            String restored;
            try (CpuAffinity.Pinned p = CpuAffinity.pinCurrentThread(cpu)) {
                pinned = CpuAffinity.allowedCpus();
            }
            restored = CpuAffinity.allowedCpus();
            return new String[] {pinned, restored};
        });
        assertEquals(Integer.toString(cpu), seen[0]);
        assertEquals(before, seen[1]);
        assertEquals(before, CpuAffinity.allowedCpus(), "other threads keep their CPUs");
    }

    @Test
    void aCpuOutsideTheProcessIsNamedWithTheUsableOnes() {
        String allowed = CpuAffinity.allowedCpus();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CpuAffinity.pinCurrentThread(CpuAffinity.MAX_CPUS - 1));
        assertTrue(e.getMessage().contains("CPU 1023 is not available to this process (it may use " + allowed + ")"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CpuAffinity.pinCurrentThread(CpuAffinity.MAX_CPUS));
        assertEquals(allowed, CpuAffinity.allowedCpus(), "nothing changed");
    }

    /** The early check of --pin-cpu: the same errors as binding, and nothing bound when it passes. */
    @Test
    void checkingACpuBindsNothing() throws Exception {
        String allowed = CpuAffinity.allowedCpus();
        int cpu = Integer.parseInt(allowed.split("[-,]")[0]);
        String after = onNewThread(() -> {
            CpuAffinity.checkAvailable(cpu);
            return CpuAffinity.allowedCpus();
        });
        assertEquals(allowed, after);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CpuAffinity.checkAvailable(CpuAffinity.MAX_CPUS - 1));
        assertTrue(e.getMessage().contains("CPU 1023 is not available to this process (it may use " + allowed + ")"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CpuAffinity.checkAvailable(-1));
        assertTrue(e.getMessage().contains("CPU -1 does not exist"), e.getMessage());
    }
}
