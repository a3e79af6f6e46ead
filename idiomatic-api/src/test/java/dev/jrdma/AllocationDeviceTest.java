package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

/**
 * The data path adds no allocation per operation once warm (measured per thread). The VM runs
 * tests with C1 only, which has no escape analysis, so the one {@code MemorySegment.ofAddress}
 * the shims create per downcall (for the provider's function pointer) stays visible here: the
 * bound is that object, per native call. C2 scalar-replaces it (see the bench module).
 */
@DeviceTest
class AllocationDeviceTest {
    // Reflection: the tests compile inside module dev.jrdma, which does not read jdk.management;
    // they run on the class path, where the call is accessible.
    private static final Object THREADS;
    private static final Method ALLOCATED;

    static {
        try {
            THREADS = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                    .invoke(null);
            ALLOCATED = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static long allocatedBytes() {
        try {
            return (long) ALLOCATED.invoke(THREADS);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void repostingAndPollingAllocateNothingInJrdma() {
        try (Loopback lo = new Loopback()) {
            SendRequest write = new SendRequest().opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 64)
                    .remote(lo.memB.remote(0, 64));
            WorkCompletion wc = lo.wc;
            int rounds = 2000;
            for (int pass = 0; pass < 3; pass++) {
                long calls = 0;
                long before = allocatedBytes();
                for (int i = 0; i < rounds; i++) {
                    lo.a.post(write.wrId(i));
                    calls++;
                    do {
                        calls++;
                    } while (lo.cq.poll(wc) == 0);
                    if (!wc.isSuccess()) {
                        throw new AssertionError(wc.toString());
                    }
                }
                long bytes = allocatedBytes() - before;
                if (pass == 2) {
                    // One small object (at most 48 bytes with compressed or plain oops) per downcall.
                    assertTrue(bytes <= 48 * calls, bytes + " bytes for " + calls + " native calls");
                }
            }
        }
    }
}
