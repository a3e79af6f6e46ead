// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The CPU clock for -C. perftest reads its cycle counter and divides by the clock that
 * {@code get_cpu_mhz} finds (on x86, /proc/cpuinfo's "cpu MHz") to print microseconds; jrdma
 * has no cycle counter (System.nanoTime), so -C multiplies its times by the same clock: the
 * figures perftest would print if its counter ran at that rate, which on x86 with an invariant
 * TSC at its nominal rate is what it prints.
 */
public final class CpuClock {
    private static final Path CPUINFO = Path.of("/proc/cpuinfo");

    private CpuClock() {
    }

    /** The first "cpu MHz" of /proc/cpuinfo. */
    public static double mhz() throws IOException {
        return mhz(Files.readAllLines(CPUINFO));
    }

    /**
     * The first "cpu MHz" line's value.
     *
     * @throws IOException when there is none (-C then fails and says so)
     */
    public static double mhz(List<String> cpuinfo) throws IOException {
        for (String line : cpuinfo) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).strip().equals("cpu MHz")) {
                try {
                    double mhz = Double.parseDouble(line.substring(colon + 1).strip());
                    if (mhz > 0) {
                        return mhz;
                    }
                } catch (NumberFormatException e) {
                    break;
                }
            }
        }
        throw new IOException("-C (--report-cycles): " + CPUINFO + " has no 'cpu MHz' to turn nanoseconds into "
                + "cycles (jrdma has no cycle counter)");
    }
}
