// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.JrdmaRuns.ADDRESS;
import static dev.jrdma.tools.JrdmaRuns.DEVICE;
import static dev.jrdma.tools.JrdmaRuns.jrdma;
import static dev.jrdma.tools.JrdmaRuns.jsonValue;
import static dev.jrdma.tools.JrdmaRuns.quickRun;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.tools.JrdmaRuns.Pair;
import dev.jrdma.tools.JrdmaRuns.Result;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rate limiter, memory and other-verbs options on a Soft-RoCE device: their effects (paced
 * message rates, immediate data with each receive, bytes delivered from and into a mapped file
 * or huge pages) and the device's refusals (rxe has no packet pacing, no on-demand paging, no
 * null memory region), each naming the device, the capability and the errno.
 */
@DeviceTest
class RateMemoryDeviceTest {
    /** Runs a server and a client of {@code test} with the given options per side; both results. */
    private static Result[] pair(String test, List<String> serverOptions, List<String> clientOptions) throws Exception {
        Pair both = quickRun(test, serverOptions, clientOptions);
        return new Result[] {both.server(), both.client()};
    }

    private static double msgRate(String json) {
        return Double.parseDouble(jsonValue(json, "msg_rate_mpps"));
    }

    /**
     * --send_with_imm: with it on both sides every receive completes with immediate data; a
     * receiver given it whose peer sends plain SENDs fails on the first receive, naming the option.
     */
    @Test
    void immediateDataArrivesWithEveryReceive() throws Exception {
        for (String test : List.of("send-lat", "send-bw")) {
            List<String> imm = List.of("-n", "50", "--send_with_imm");
            Result[] ok = pair(test, imm, imm);
            assertEquals(0, ok[0].code(), test + " server: " + ok[0].all() + "\nclient: " + ok[1].all());
            assertEquals(0, ok[1].code(), test + " client: " + ok[1].all());
        }
        Result[] plain = pair("send-bw", List.of("-n", "50", "--send_with_imm"), List.of("-n", "50"));
        assertEquals(1, plain[0].code(), plain[0].all());
        assertTrue(plain[0].err().contains("--send_with_imm: a receive completion")
                && plain[0].err().contains("carries no immediate data"), plain[0].err());
    }

    /**
     * --write_with_imm: each write consumes a receive at the peer, so the write-bw server runs
     * perftest's receive loop (it would wait out --timeout without the completions) and the
     * write-lat sides wait for completions instead of polling bytes.
     */
    @Test
    void writesWithImmediateDataCompleteAtThePeer() throws Exception {
        List<String> bw = List.of("-n", "60", "--write_with_imm", "--json");
        Result[] r = pair("write-bw", bw, bw);
        assertEquals(0, r[0].code(), "server: " + r[0].all() + "\nclient: " + r[1].all());
        assertEquals(0, r[1].code(), r[1].all());
        msgRate(r[0].out());   // the server measured its own receives

        List<String> lat = List.of("-n", "30", "-s", "4096", "--write_with_imm");
        Result[] l = pair("write-lat", lat, lat);
        assertEquals(0, l[0].code(), "server: " + l[0].all() + "\nclient: " + l[1].all());
        assertEquals(0, l[1].code(), l[1].all());
        assertTrue(l[1].out().matches("(?s).*\\n\\s*4096\\s+30\\s.*"), "a 4096-byte row of 30: " + l[1].out());
    }

    /**
     * --data_validation: the landing side (write-bw's server, read-bw's client) checks every
     * byte after the run and prints PASSED; DataValidationTest shows the check failing on a
     * corrupted byte.
     */
    @Test
    void dataValidationChecksTheBytesWhereTheyLand() throws Exception {
        List<String> opts = List.of("-n", "40", "-s", "8192", "-q", "2", "--data_validation");
        Result[] write = pair("write-bw", opts, opts);
        assertEquals(0, write[0].code(), "server: " + write[0].all() + "\nclient: " + write[1].all());
        assertTrue(write[0].out().contains(" Data validation: PASSED (16384 bytes of 2 QPs)"), write[0].out());
        assertTrue(!write[1].out().contains("Data validation"), "the write-bw client sends: " + write[1].out());

        Result[] read = pair("read-bw", opts, opts);
        assertEquals(0, read[1].code(), "client: " + read[1].all() + "\nserver: " + read[0].all());
        assertTrue(read[1].out().contains(" Data validation: PASSED (16384 bytes of 2 QPs)"), read[1].out());
    }

    /**
     * --rate_limit_type SW holds the sender to the limit (100 messages/s in bursts of 5: 60
     * messages take 0.6 s); the same run unlimited is many times faster, so the limit made the
     * difference. A bare --rate_limit asks the device first: rxe refuses, the run warns and paces
     * in software.
     */
    @Test
    void theSoftwareLimiterPacesTheSender() throws Exception {
        List<String> run = List.of("-n", "60", "-s", "64", "--json");
        Result[] free = pair("write-bw", run, run);
        assertEquals(0, free[1].code(), free[1].all() + "\nserver: " + free[0].all());
        double unlimited = msgRate(free[1].out());

        List<String> limited = new ArrayList<>(run);
        limited.addAll(List.of("--rate_limit", "100", "--rate_units", "p", "--rate_limit_type", "SW", "--burst_size", "5"));
        Result[] sw = pair("write-bw", run, limited);
        assertEquals(0, sw[1].code(), sw[1].all() + "\nserver: " + sw[0].all());
        double paced = msgRate(sw[1].out());
        // 60 messages in 12 bursts 10 ms apart: the first post to the last completion spans at least
        // 11 gaps, so the rate is at most 60 / 0.11 s = 545 per second.
        assertTrue(paced <= 0.000_546, "paced " + paced + " Mpps, unlimited " + unlimited);
        assertTrue(unlimited > 2 * paced, "paced " + paced + " Mpps, unlimited " + unlimited);

        List<String> bare = new ArrayList<>(run);
        bare.addAll(List.of("--rate_limit", "100", "--rate_units", "M"));
        Result[] fallback = pair("write-bw", run, bare);
        assertEquals(0, fallback[1].code(), fallback[1].all());
        assertTrue(fallback[1].err().contains("failed to accept the HW rate limit, the SW rate limiter paces instead")
                && fallback[1].err().contains(DEVICE), fallback[1].err());
    }

    /** An explicit HW or PP limit is asked of the device and refused by rxe, naming device, capability, errno. */
    @Test
    void hardwareLimitsAreRefusedByTheDevice() throws Exception {
        for (List<String> limit : List.of(List.of("--rate_limit", "10", "--rate_limit_type", "HW"),
                List.of("--rate_limit", "10", "--rate_units", "M", "--rate_limit_type", "PP", "--burst_size", "4096",
                        "--typical_pkt_size", "1024"))) {
            List<String> opts = new ArrayList<>(List.of("-n", "20"));
            opts.addAll(limit);
            Result[] r = pair("write-bw", List.of("-n", "20"), opts);
            assertEquals(1, r[1].code(), r[1].all());
            String err = r[1].err();
            assertTrue(err.contains("--rate_limit_type " + limit.get(limit.indexOf("--rate_limit_type") + 1)), err);
            assertTrue(err.contains(DEVICE + " refused the QP rate limit") && err.contains("ibv_modify_qp_rate_limit")
                    && err.contains("errno "), err);
        }
    }

    /**
     * --mmap with --payload_file_path: the client's file-backed buffer holds the pattern, and a
     * write lands it in the server's mapped file at the offset the server announced (its second
     * slot), where the test reads it from the file.
     */
    @Test
    void mappedFilesSendAndReceiveTheBytes(@TempDir Path dir) throws Exception {
        long offset = 8192;
        Path serverFile = dir.resolve("server.buf");
        Path clientFile = dir.resolve("client.buf");
        for (Path f : List.of(serverFile, clientFile)) {
            Files.write(f, new byte[(int) (offset + 2 * 4096)]);
        }
        Path payload = Files.writeString(dir.resolve("payload.txt"), "0x11223344,0xa5a6a7a8");
        Result[] r = pair("write-bw",
                List.of("-n", "20", "-s", "4096", "--mmap", serverFile.toString(), "--mmap-offset", Long.toString(offset)),
                List.of("-n", "20", "-s", "4096", "--mmap", clientFile.toString(), "--mmap-offset", Long.toString(offset),
                        "--payload_file_path", payload.toString()));
        assertEquals(0, r[1].code(), r[1].all() + "\nserver: " + r[0].all());
        assertEquals(0, r[0].code(), r[0].all());
        byte[] server = Files.readAllBytes(serverFile);
        byte[] expected = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(0x11223344).putInt(0xa5a6a7a8)
                .array();
        for (int at = 0; at < 4096; at += 8) {
            byte[] got = java.util.Arrays.copyOfRange(server, (int) offset + 4096 + at, (int) offset + 4096 + at + 8);
            assertArrayEquals(expected, got, "server file at " + (offset + 4096 + at));
        }
        assertEquals(0, server[0], "nothing before the mapping's offset was touched");
    }

    /**
     * --use_hugepages maps huge pages: with none reserved both sides fail naming the option and
     * the kernel's answer; with pages reserved the run delivers. The reservation is restored.
     */
    @Test
    void hugePagesAreAskedOfTheKernel() throws Exception {
        Path nr = Path.of("/proc/sys/vm/nr_hugepages");
        String before = Files.readString(nr).strip();
        try {
            Files.writeString(nr, "0");
            List<String> opts = List.of("-n", "20", "--use_hugepages");
            Result[] none = pair("write-bw", opts, opts);
            assertEquals(1, none[1].code(), none[1].all());
            assertTrue(none[0].err().contains("--use_hugepages: mmap of ") && none[0].err().contains("HugePages_Free 0"),
                    none[0].all());

            Files.writeString(nr, "8");
            Result[] some = pair("write-bw", opts, opts);
            assertEquals(0, some[1].code(), some[1].all() + "\nserver: " + some[0].all());
            assertEquals(0, some[0].code(), some[0].all());
        } finally {
            Files.writeString(nr, before);
        }
    }

    /**
     * rxe has no on-demand paging and no null memory region: both are asked of the device before
     * the run, a usage error (exit 2) of one line naming the option, the device and what it lacks.
     */
    @Test
    void onDemandPagingAndTheNullRegionAreRefusedByTheDevice() throws Exception {
        // --odp is asked of the device first too (rxe reports no IBV_ODP_SUPPORT): exit 2, one line.
        Result odp = jrdma("send-lat", "-d", DEVICE, "-n", "20", "--odp", "--warm-up", "0", ADDRESS);
        assertEquals(2, odp.code(), odp.all());
        assertTrue(odp.err().contains("option '--odp': " + DEVICE) && odp.err().contains("on-demand paging"), odp.err());
        assertEquals(1, odp.err().strip().lines().count(), odp.err());

        // --use-null-mr is asked of the device before anything else: a usage error (exit 2), one line.
        for (String test : List.of("write-lat", "read-bw")) {
            Result nullMr = jrdma(test, "-d", DEVICE, "-n", "20", "--use-null-mr", "--warm-up", "0", ADDRESS);
            assertEquals(2, nullMr.code(), nullMr.all());
            assertTrue(nullMr.err().contains("option '--use-null-mr': ") && nullMr.err().contains("ibv_alloc_null_mr")
                    && nullMr.err().contains(DEVICE) && nullMr.err().contains("null memory region"), nullMr.err());
            assertEquals(1, nullMr.err().strip().lines().count(), nullMr.err());
        }
    }

    /** -e on the atomic tests; --numa_node 0 runs on node 0's CPUs and gives the thread its CPUs back. */
    @Test
    void atomicEventsAndNumaNode() throws Exception {
        Result[] atomic = pair("atomic-lat", List.of("-n", "50", "-e"), List.of("-n", "50", "-e", "--json"));
        assertEquals(0, atomic[1].code(), atomic[1].all() + "\nserver: " + atomic[0].all());
        assertTrue(atomic[1].out().matches("(?s).*\"events\"\\s*:\\s*true.*"), atomic[1].out());

        String cpus = dev.jrdma.tools.perftest.CpuAffinity.allowedCpus();
        Result[] numa = pair("send-lat", List.of("-n", "50", "--numa_node", "0"), List.of("-n", "50", "--numa_node", "0"));
        assertEquals(0, numa[1].code(), numa[1].all() + "\nserver: " + numa[0].all());
        assertEquals(0, numa[0].code(), numa[0].all());
        assertEquals(cpus, dev.jrdma.tools.perftest.CpuAffinity.allowedCpus(), "the thread's CPUs are restored");
    }
}
