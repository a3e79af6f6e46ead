// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.util.EnumSet;
import java.util.Set;

/**
 * The eight perftest tests and their defaults (perftest 6.06, src/perftest_parameters.h DEF_*
 * and {@code init_perftest_params}/{@code force_dependecies}).
 */
public enum TestKind {
    SEND_LAT("send-lat", "ib_send_lat", Verb.SEND, false),
    SEND_BW("send-bw", "ib_send_bw", Verb.SEND, true),
    WRITE_LAT("write-lat", "ib_write_lat", Verb.WRITE, false),
    WRITE_BW("write-bw", "ib_write_bw", Verb.WRITE, true),
    READ_LAT("read-lat", "ib_read_lat", Verb.READ, false),
    READ_BW("read-bw", "ib_read_bw", Verb.READ, true),
    ATOMIC_LAT("atomic-lat", "ib_atomic_lat", Verb.ATOMIC, false),
    ATOMIC_BW("atomic-bw", "ib_atomic_bw", Verb.ATOMIC, true);

    /** Connection types perftest offers and jrdma implements (no XRC, DC, SRD, raw Ethernet). */
    public enum Connection { RC, UC, UD }

    /** perftest's --output verbosity values. */
    public enum Output {
        bandwidth, message_rate, latency
    }

    /** perftest's -A values (atomic tests). */
    public enum AtomicType { CMP_AND_SWAP, FETCH_AND_ADD }

    /** Largest size of an -a sweep: 2^23 (MAX_SIZE). */
    public static final long MAX_SWEEP_SIZE = 8_388_608;
    /** Largest -s perftest accepts: UINT_MAX / 2. */
    public static final long MAX_SIZE = 0xffff_ffffL / 2;
    /** perftest's MAX_ITER for -n. */
    public static final long MAX_ITERS = 100_000_000;

    private final String command;
    private final String perftestBinary;
    private final Verb verb;
    private final boolean bandwidth;

    TestKind(String command, String perftestBinary, Verb verb, boolean bandwidth) {
        this.command = command;
        this.perftestBinary = perftestBinary;
        this.verb = verb;
        this.bandwidth = bandwidth;
    }

    public String command() {
        return command;
    }

    public String perftestBinary() {
        return perftestBinary;
    }

    public Verb verb() {
        return verb;
    }

    public boolean bandwidth() {
        return bandwidth;
    }

    /** -s default: DEF_SIZE_ATOMIC 8, DEF_SIZE_LAT 2, DEF_SIZE_BW 65536. Atomics are always 8 bytes. */
    public long defaultSize() {
        return verb == Verb.ATOMIC ? 8 : bandwidth ? 65_536 : 2;
    }

    /** -n default: DEF_ITERS 1000, DEF_ITERS_WB 5000 for write_bw. */
    public long defaultIters() {
        return this == WRITE_BW ? 5000 : 1000;
    }

    /** -t default: DEF_TX_LAT 1, DEF_TX_BW 128 (clamped to -n by perftest). */
    public int defaultTxDepth() {
        return bandwidth ? 128 : 1;
    }

    /** -r default: DEF_RX_SEND 512 for send tests (clamped to -n), DEF_RX_RDMA 1 otherwise. */
    public int defaultRxDepth() {
        return verb == Verb.SEND ? 512 : 1;
    }

    /**
     * -I default for a device perftest recognises: latency send 236 (UD 188), latency write 220,
     * everything else 0. (For devices it does not recognise, such as rxe, perftest uses 0.)
     */
    public int defaultInline(Connection c) {
        if (bandwidth) {
            return 0;
        }
        return switch (verb) {
            case SEND -> c == Connection.UD ? 188 : 236;
            case WRITE -> 220;
            default -> 0;
        };
    }

    /** Connection types perftest offers for this test. */
    public Set<Connection> connections() {
        return switch (verb) {
            case SEND -> EnumSet.allOf(Connection.class);
            case WRITE -> EnumSet.of(Connection.RC, Connection.UC);
            default -> EnumSet.of(Connection.RC);
        };
    }

    /** --output values perftest accepts for this test. */
    public Set<Output> outputs() {
        return bandwidth ? EnumSet.of(Output.bandwidth, Output.message_rate) : EnumSet.of(Output.latency);
    }

    /** The binary's -e (completion events) support: send and read tests. */
    public boolean supportsEvents() {
        return verb == Verb.SEND || verb == Verb.READ;
    }

    public static TestKind ofCommand(String name) {
        for (TestKind k : values()) {
            if (k.command.equals(name)) {
                return k;
            }
        }
        throw new IllegalArgumentException("no such test: " + name);
    }
}
