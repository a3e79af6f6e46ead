// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bench;

import dev.jrdma.Access;
import dev.jrdma.Context;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Registering and deregistering memory on a real device (needs one, like
 * {@link DeviceDataPathBench}): ibv_reg_mr + ibv_dereg_mr of 4 KiB and 1 MiB through
 * {@link ProtectionDomain#register}, pinning the pages being most of it.
 */
public class DeviceRegistrationBench extends DeviceBenchSettings {
    private static final Set<Access> ACCESS = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE,
            Access.REMOTE_READ);

    @Param({"4096", "1048576"})
    public int bytes;

    private Context context;
    private ProtectionDomain pd;
    private Arena arena;
    private MemorySegment memory;

    @Setup(Level.Trial)
    public void setup() {
        context = DeviceDataPathBench.openDevice();
        pd = context.allocateProtectionDomain();
        arena = Arena.ofShared();
        memory = arena.allocate(bytes, 4096);
        memory.fill((byte) 1);   // touch the pages once, so registration measures pinning, not faulting
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        context.close();
        arena.close();
    }

    @Benchmark
    public int registerAndDeregister() {
        try (MemoryRegion mr = pd.register(memory, ACCESS)) {
            return mr.lkey();
        }
    }
}
