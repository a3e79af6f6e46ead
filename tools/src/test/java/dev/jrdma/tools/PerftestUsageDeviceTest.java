// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.JrdmaRuns.DEVICE;
import static dev.jrdma.tools.JrdmaRuns.jrdma;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.Context;
import dev.jrdma.Rdma;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.tools.JrdmaRuns.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The inventory the mapping page is generated from is perftest's own: each installed
 * {@code ib_*} binary's {@code --help} (perftest 6.06 in the VM) lists exactly the options the
 * inventory's 6.06 column gives that test. And the refusals that ask the device: Soft-RoCE has
 * neither XRC nor device memory, and jrdma says so naming the device.
 */
@DeviceTest
class PerftestUsageDeviceTest {
    /** An option line of perftest's usage text: "  -x, --gid-index=<index> ..." or "      --ipv6 ...". */
    private static final Pattern OPTION = Pattern.compile("^\\s+(?:(-[A-Za-z]), )?(--[A-Za-z][A-Za-z0-9_-]*)");

    @Test
    void inventoryListsWhatTheInstalledPerftestsUsageTextLists() throws Exception {
        List<String> differences = new ArrayList<>();
        for (String test : PerftestInventory.TESTS) {
            TreeSet<String> live = new TreeSet<>();
            for (String line : help("/usr/bin/ib_" + test).lines().toList()) {
                Matcher m = OPTION.matcher(line);
                if (m.find()) {
                    live.add(m.group(1) == null ? m.group(2) : m.group(1) + " " + m.group(2));
                }
            }
            TreeSet<String> inventory = new TreeSet<>();
            for (PerftestInventory.Option o : PerftestInventory.options()) {
                if (o.in606().contains(test)) {
                    inventory.add(o.shortName() == null ? o.longName606() : o.shortName() + " " + o.longName606());
                }
            }
            assertTrue(live.size() > 40, "ib_" + test + " --help listed only " + live);
            if (!live.equals(inventory)) {
                TreeSet<String> onlyLive = new TreeSet<>(live);
                onlyLive.removeAll(inventory);
                TreeSet<String> onlyInventory = new TreeSet<>(inventory);
                onlyInventory.removeAll(live);
                differences.add("ib_" + test + ": usage text only " + onlyLive + ", inventory only " + onlyInventory);
            }
        }
        assertEquals(List.of(), differences, "perftest-options.tsv's 6.06 column differs from the installed perftest");
    }

    /** perftest prints its usage on --help and exits 1 (6.06) without touching a device. */
    private static String help(String binary) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary, "--help").redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), binary + " --help did not end");
        return new String(out, StandardCharsets.UTF_8);
    }

    @Test
    void xrcIsRefusedAfterAskingTheDevice() {
        boolean offered;
        try (Context context = Rdma.open(DEVICE)) {
            offered = context.queryDevice().supportsXrc();
        }
        for (String test : List.of("send-bw", "atomic-lat")) {
            Result r = jrdma(test, "-d", DEVICE, "-c", "XRC", "10.200.0.1");
            assertEquals(2, r.code(), r.all());
            assertEquals(1, r.err().lines().count(), r.all());
            assertTrue(r.err().contains("option '--connection' (-c): "), r.all());
            assertTrue(r.err().contains(offered ? DEVICE + " offers XRC, but jrdma's tests do not connect XRC QPs yet"
                    : "XRC needs a device that offers it; " + DEVICE + " does not"), r.all());
        }
    }

    @Test
    void deviceMemoryExportIsRefusedAfterAskingTheDevice() {
        long size;
        try (Context context = Rdma.open(DEVICE)) {
            size = context.queryDevice().maxDeviceMemorySize();
        }
        Result r = jrdma("write-bw", "-d", DEVICE, "--use_ib_dm_dmabuf", DEVICE, "10.200.0.1");
        assertEquals(2, r.code(), r.all());
        assertEquals(1, r.err().lines().count(), r.all());
        assertTrue(r.err().contains(size == 0 ? "option '--use_ib_dm_dmabuf': " + DEVICE + " has no device memory"
                : "option '--use_ib_dm_dmabuf': " + DEVICE + " has " + size + " bytes of device memory"), r.all());
        Result missing = jrdma("write-bw", "--use_ib_dm_dmabuf", "nosuch0", "10.200.0.1");
        assertEquals(1, missing.code(), missing.all());
        assertTrue(missing.err().contains("no RDMA device 'nosuch0' to ask for device memory"), missing.all());
    }
}
