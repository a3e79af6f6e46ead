// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * -W: port counters of sysfs (/sys/class/infiniband/DEV/ports/PORT/NAME, e.g.
 * hw_counters/sent_pkts), read when the run starts and after each row; each print shows the
 * change since the previous read, as perftest's {@code counters_print}: a tab, name=delta per
 * counter, then an empty line.
 */
public final class PortCounters {
    private final List<String> names;
    private final Path[] files;
    private final long[] last;

    private PortCounters(List<String> names, Path[] files) {
        this.names = List.copyOf(names);
        this.files = files;
        this.last = new long[files.length];
    }

    /**
     * Opens the counters of {@code device} port {@code port} under {@code root}
     * (/sys/class/infiniband) and reads them once.
     *
     * @throws IOException naming -W and the file when a counter cannot be read
     */
    public static PortCounters open(Path root, String device, int port, List<String> names) throws IOException {
        Path dir = root.resolve(device).resolve("ports").resolve(Integer.toString(port));
        Path[] files = new Path[names.size()];
        for (int i = 0; i < files.length; i++) {
            files[i] = dir.resolve(names.get(i));
        }
        PortCounters c = new PortCounters(names, files);
        c.read();
        return c;
    }

    /** /sys/class/infiniband. */
    public static Path sysfs() {
        return Path.of("/sys/class/infiniband");
    }

    private long[] read() throws IOException {
        long[] delta = new long[files.length];
        for (int i = 0; i < files.length; i++) {
            long v;
            try {
                v = Long.parseUnsignedLong(Files.readString(files[i]).strip());
            } catch (IOException | NumberFormatException e) {
                throw new IOException("-W (--report-counters): cannot read counter " + files[i] + ": " + e.getMessage(),
                        e);
            }
            delta[i] = v - last[i];
            last[i] = v;
        }
        return delta;
    }

    /** Reads the counters and formats their changes since the previous read. */
    public String print() throws IOException {
        long[] delta = read();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < delta.length; i++) {
            sb.append('\t').append(names.get(i)).append('=').append(Long.toUnsignedString(delta[i])).append('\n');
        }
        return sb.append('\n').toString();
    }
}
