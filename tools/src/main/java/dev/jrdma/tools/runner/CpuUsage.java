// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * --cpu_util: the machine's CPU utilisation over a -D run's sample window, as perftest's
 * {@code get_cpu_stats} and {@code calc_cpu_util} define it: /proc/stat's first line read when
 * the sample window starts and when it ends, and the user time's share of user plus idle time
 * in percent (system, nice and interrupt time count in neither, as in perftest). The reads
 * happen at the first completion check inside the window and the first past its end: two file
 * reads per run, none in between.
 */
final class CpuUsage {
    private static final Path PROC_STAT = Path.of("/proc/stat");
    private final Path file;
    private final long[] user = new long[2];
    private final long[] idle = new long[2];
    private int reads;

    CpuUsage(Path file) {
        this.file = file;
    }

    /** --cpu_util's samples for a -D run, or null when not asked for. */
    static CpuUsage forRun(boolean cpuUtil, boolean duration) {
        return cpuUtil && duration ? new CpuUsage(PROC_STAT) : null;
    }

    /** At a completion check at {@code now}: samples at the window's start and end. */
    void at(long now, StopRule.Window w) {
        if (reads == 0 && now - w.sampleStart() >= 0 || reads == 1 && now - w.sampleEnd() >= 0) {
            sample();
        }
    }

    /** Reads /proc/stat once more (the first read starts the interval, the second ends it). */
    void sample() {
        if (reads >= 2) {
            return;
        }
        try {
            long[] v = parse(Files.readAllLines(file).getFirst());
            user[reads] = v[0];
            idle[reads] = v[1];
            reads++;
        } catch (IOException e) {
            throw new UncheckedIOException("--cpu_util: " + file, e);
        }
    }

    /** The user and idle jiffies of /proc/stat's "cpu" line (its first and fourth numbers). */
    static long[] parse(String cpuLine) {
        String[] f = cpuLine.strip().split("\\s+");
        if (f.length < 5 || !f[0].equals("cpu")) {
            throw new IllegalArgumentException("not /proc/stat's cpu line: " + cpuLine);
        }
        return new long[] {Long.parseLong(f[1]), Long.parseLong(f[4])};
    }

    /** perftest's calc_cpu_util: 0 unless both samples were taken. */
    double percent() {
        if (reads < 2) {
            return 0;
        }
        return percent(user[1] - user[0], idle[1] - idle[0]);
    }

    static double percent(long user, long idle) {
        return user + idle == 0 ? 0 : (double) user / (user + idle) * 100;
    }
}
