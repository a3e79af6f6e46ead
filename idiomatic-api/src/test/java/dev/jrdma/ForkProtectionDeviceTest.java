// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import dev.jrdma.testing.Jvm;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code ibv_fork_init} before registering memory, then a child process started after
 * registering: the JVM's equivalent of fork() (ProcessBuilder forks or vforks underneath),
 * after which the parent's registered memory must still be what the device reads and writes.
 * libibverbs accepts ibv_fork_init only before the process's first registration (EINVAL
 * after it, unless the kernel reports copy-on-fork), so the check runs in a JVM of its own
 * ({@link #main}): this one registered memory long ago.
 */
@DeviceTest
@EveryKernel
class ForkProtectionDeviceTest {
    @Test
    @Exercises({"ibv_fork_init", "ibv_is_fork_initialized"})
    void registeredMemoryStillWorksAfterAChildProcessStarts() throws Exception {
        Process jvm = new ProcessBuilder(Jvm.command(ForkProtectionDeviceTest.class.getName()))
                .redirectErrorStream(true).start();
        String out = new String(jvm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(jvm.waitFor(120, TimeUnit.SECONDS), out);
        assertEquals(0, jvm.exitValue(), out);
        List<String> lines = out.lines().filter(l -> l.startsWith("fork: ")).toList();
        System.out.println("fork protection in a fresh JVM: " + lines);
        // Without the kernel's copy-on-fork report, fork_init turns protection on; with it, none is needed.
        assertTrue(lines.equals(List.of("fork: before DISABLED", "fork: after ENABLED", "fork: ok"))
                || lines.equals(List.of("fork: before UNNEEDED", "fork: after UNNEEDED", "fork: ok")), out);
    }

    /** The check in a JVM of its own: fork_init first, then register, start a child, use the memory. */
    public static void main(String[] args) throws Exception {
        System.out.println("fork: before " + Rdma.forkProtection());
        System.out.println("fork: after " + Rdma.initializeForkProtection());
        try (Loopback lo = new Loopback()) {
            lo.memB.segment().set(JAVA_LONG, 0, 0x0102030405060708L);
            Process child = new ProcessBuilder("true").start();
            if (!child.waitFor(20, TimeUnit.SECONDS) || child.exitValue() != 0) {
                throw new AssertionError("the child process failed");
            }
            // The parent writes after the fork: copy-on-write must leave the registration on the
            // parent's pages, so the device reads this value, not the one from before the fork.
            lo.memB.segment().set(JAVA_LONG, 0, 0x1111222233334444L);
            lo.a.post(new SendRequest().wrId(1).opcode(SendOpcode.RDMA_READ).sge(lo.memA, 0, 8)
                    .remote(lo.memB.remote(0, 8)));
            lo.take().checkSuccess();
            check(0x1111222233334444L, lo.memA.segment().get(JAVA_LONG, 0));
            lo.memA.segment().set(JAVA_LONG, 8, 0x5555666677778888L);
            lo.a.post(new SendRequest().wrId(2).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 8, 8)
                    .remote(lo.memB.remote(8, 8)));
            lo.take().checkSuccess();
            check(0x5555666677778888L, lo.memB.segment().get(JAVA_LONG, 8));
        }
        System.out.println("fork: ok");
    }

    private static void check(long expected, long actual) {
        if (expected != actual) {
            throw new AssertionError("expected 0x" + Long.toHexString(expected) + ", read 0x" + Long.toHexString(actual));
        }
    }
}
