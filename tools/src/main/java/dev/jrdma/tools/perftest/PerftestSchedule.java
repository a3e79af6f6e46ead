// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The order of out-of-band exchanges after the version/system-data/MTU preamble, as each
 * perftest 6.06 binary runs it (src/*_lat.c, src/*_bw.c main()). perftest's sides simply block
 * on the next message, so a peer that deviates (one more sync, a report it does not expect)
 * hangs or desynchronises the other side: the device part must follow these lists exactly.
 * Verified against captured perftest-to-perftest exchanges (src/test/resources/.../golden/*.wire.txt),
 * including -b, -D and -c UD; -R from the sources (see {@link Options#rdmaCm()}).
 *
 * <p>Notes from the sources:
 * <ul>
 * <li>write_lat never calls ctx_close_connection: no final sync and no "done"; it just exits.</li>
 * <li>read_lat and atomic_lat servers do their final sync right after connecting, and the client
 *     answers it after its run - the server blocks there meanwhile.</li>
 * <li>write/read/atomic BW: one report exchange after the whole -a sweep (the server prints only
 *     the last size, with the client's numbers); the server's own record is uninitialised memory
 *     in perftest, so a client must not interpret it.</li>
 * <li>atomic_lat has no -a loop; jrdma's -a for atomics is the single size 8.</li>
 * <li>-b (bidirectional, BW tests only): both sides run and both records are real. send_bw
 *     exchanges reports after each size except in duration runs; write/read/atomic_bw exchange
 *     them after each size even in duration runs, and with -a add a sync between run and report
 *     (their "version >= 4.6" branch). The passive-server sync+report at the end disappears.</li>
 * <li>-D does not change the order: perftest's duration loop is timed with SIGALRM on each side,
 *     not coordinated over the channel (so the two sides' windows only roughly overlap).</li>
 * <li>-c UD has the same order as RC (the address handle is built from the peer's GID and QPN in
 *     CONNECT); only the -a sweep is shorter: 2 .. the agreed MTU ({@link #udSweep}).</li>
 * </ul>
 */
public final class PerftestSchedule {

    /** One step. */
    public enum Step {
        /** One key exchange per QP ({@link PerftestChannel#exchangeKeys}). */
        KEYS,
        /** One sync with QP 0's record ({@link PerftestChannel#sync}). */
        SYNC,
        /**
         * -R only: a sync with an all-zero record. perftest's create_rdma_cm_connection syncs
         * before and after rdma_cm connects the test QPs, while its my_dest is still zeroed.
         */
        CM_SYNC,
        /**
         * -R only: connect the test QPs through rdma_cm (no exchange on the control channel): a
         * second listen/connect on the same -p port, whose control listener perftest has already
         * destroyed; IPv4 only (AF_INET hints), one rdma_cm id per QP.
         */
        CM_CONNECT,
        /** Connect the QPs (RTR/RTS) with the peer's keys: no exchange. */
        CONNECT,
        /** Run one size (no exchange); followed by printing its row where the test prints one. */
        RUN,
        /** The BW report exchange ({@link PerftestChannel#exchangeBwReport}). */
        REPORT,
        /** Final sync + "done" ({@link PerftestChannel#finish}). */
        FINISH,
        /** Close the socket with no final exchange (write_lat, and -R after its final sync). */
        CLOSE
    }

    /**
     * The options that change the order.
     *
     * @param bidirectional -b (BW tests only)
     * @param duration      -D (changes only send_bw -b: no report exchange)
     * @param commRdmaCm    -z without -R: the messages over rdma_cm as with -R, the test QPs
     *                      connected by verbs as over TCP ({@link #exchangeOverRdmaCm()})
     * @param rdmaCm        -R. perftest then carries every message of the session (preamble
     *                      included) as SENDs on a separate RC "control" QP connected through
     *                      rdma_cm on the -p port, not over TCP: keys and syncs travel as the
     *                      binary 56-byte struct ({@link PeerInfo#formatRdmaCm}), the test QPs
     *                      are connected by rdma_cm between two zero-record syncs instead of
     *                      CONNECT, and the final sync is not followed by "done". With -c UD
     *                      the address handles come from rdma_cm's events, and for latency and
     *                      -b runs the client also sends its QPN in one UD message on the test
     *                      QP (send_qp_num_for_ah): all inside CM_CONNECT, not on this channel.
     * @param writeImmediate --write_with_imm (write tests): both sides run between two syncs per
     *                      size, as perftest 6.2x's write-with-immediate schedules
     * @param reversed      --reversed (BW tests): perftest swaps its machine role, so the side
     *                      without a host argument runs a write/read/atomic test and the client
     *                      waits as the passive side; the exchanges keep their order (each one's
     *                      first writer is still the side with a host argument)
     * @param infinitely    --run_infinitely (BW tests): a -b write/read/atomic run then has
     *                      neither the sync before its run nor the report exchange after it
     *                      (perftest's RUN_INFINITELY branch goes straight to closing)
     */
    public record Options(boolean bidirectional, boolean duration, boolean rdmaCm, boolean writeImmediate,
                          boolean reversed, boolean infinitely, boolean commRdmaCm) {
        /** Iteration run, one direction, Ethernet (TCP) exchange. */
        public static final Options DEFAULT = new Options(false, false, false);

        /** -b, -D, -R only: no --write_with_imm, not reversed, not --run_infinitely, no -z. */
        public Options(boolean bidirectional, boolean duration, boolean rdmaCm) {
            this(bidirectional, duration, rdmaCm, false);
        }

        /** -b, -D, -R and --write_with_imm, not reversed, not --run_infinitely, no -z. */
        public Options(boolean bidirectional, boolean duration, boolean rdmaCm, boolean writeImmediate) {
            this(bidirectional, duration, rdmaCm, writeImmediate, false, false, false);
        }

        /** The options of a resolved command line. */
        public static Options of(PerftestSettings s) {
            return new Options(s.bidirectional(), s.durationSeconds() > 0, s.rdmaCm(),
                    s.operations().writeWithImmediate(), s.run().reversed(), s.run().runInfinitely(),
                    s.addressing().commRdmaCm() && !s.rdmaCm());
        }

        /**
         * Whether the session's messages travel over the rdma_cm control QP: with -R, and with
         * -z alone (perftest's use_rdma_cm without work_rdma_cm), where the keys and syncs are the
         * binary struct too and the session ends without "done", but the test QPs are connected
         * by verbs (CONNECT) from the records exchanged.
         */
        public boolean exchangeOverRdmaCm() {
            return rdmaCm || commRdmaCm;
        }
    }

    private PerftestSchedule() {
    }

    /**
     * The steps for one side of an iteration run without -b over the Ethernet exchange.
     *
     * @param kind   the test
     * @param client the side with a host argument
     * @param sizes  1, or the number of sizes of an -a sweep
     */
    public static List<Step> of(TestKind kind, boolean client, int sizes) {
        return of(kind, client, sizes, Options.DEFAULT);
    }

    /**
     * The steps for one side.
     *
     * @param kind    the test
     * @param client  the side with a host argument
     * @param sizes   1, or the number of sizes of an -a sweep
     * @param options -b, -D, -R
     * @throws IllegalArgumentException for -b on a latency test (perftest refuses it too)
     */
    public static List<Step> of(TestKind kind, boolean client, int sizes, Options options) {
        if (sizes < 1) {
            throw new IllegalArgumentException("sizes must be >= 1");
        }
        boolean duplex = options.bidirectional();
        if (duplex && !kind.bandwidth()) {
            throw new IllegalArgumentException("-b is only available in BW tests, not " + kind.command());
        }
        List<Step> s = new ArrayList<>();
        if (options.rdmaCm()) {
            s.addAll(List.of(Step.CM_SYNC, Step.CM_CONNECT, Step.CM_SYNC));
        }
        // With -R the test QPs are already connected by rdma_cm: perftest skips ctx_connect.
        List<Step> connect = options.rdmaCm() ? List.of() : List.of(Step.CONNECT);
        // ctx_close_connection: the sync, then "done" only over TCP.
        List<Step> finish = options.exchangeOverRdmaCm() ? List.of(Step.SYNC, Step.CLOSE) : List.of(Step.FINISH);
        switch (kind) {
            case SEND_LAT -> {
                s.add(Step.KEYS);
                s.addAll(connect);
                s.addAll(List.of(Step.SYNC, Step.KEYS));
                for (int i = 0; i < sizes; i++) {
                    s.add(Step.SYNC);   // receives posted before the peer sends
                    s.add(Step.RUN);
                }
                s.addAll(finish);
            }
            case WRITE_LAT -> {
                s.addAll(List.of(Step.SYNC, Step.KEYS));
                s.addAll(connect);
                s.addAll(List.of(Step.KEYS, Step.SYNC));
                for (int i = 0; i < sizes; i++) {
                    if (options.writeImmediate()) {
                        s.add(Step.SYNC);   // --write_with_imm: receives posted before the peer writes
                    }
                    s.add(Step.RUN);
                }
                s.add(Step.CLOSE);
            }
            case READ_LAT, ATOMIC_LAT -> {
                int runs = kind == TestKind.ATOMIC_LAT ? 1 : sizes;
                s.addAll(List.of(Step.SYNC, Step.KEYS));
                s.addAll(connect);
                s.addAll(List.of(Step.KEYS, Step.SYNC));
                if (client) {
                    s.addAll(Collections.nCopies(runs, Step.RUN));
                }
                s.addAll(finish);
            }
            case SEND_BW -> {
                s.add(Step.KEYS);
                s.addAll(connect);
                s.addAll(List.of(Step.SYNC, Step.KEYS));
                // send_bw skips the bidirectional report in duration runs (test_type != DURATION).
                boolean report = duplex && !options.duration();
                for (int i = 0; i < sizes; i++) {
                    s.add(Step.SYNC);   // receives posted before the peer sends
                    s.add(Step.RUN);
                    if (report) {
                        s.add(Step.REPORT);
                    }
                    if (sizes > 1) {
                        s.add(Step.SYNC);   // the -a loop's barrier between sizes
                    }
                }
                s.addAll(finish);
            }
            case WRITE_BW, READ_BW, ATOMIC_BW -> {
                int runs = kind == TestKind.ATOMIC_BW ? 1 : sizes;
                s.add(Step.KEYS);
                s.addAll(connect);
                s.addAll(List.of(Step.KEYS, Step.SYNC));
                if (options.writeImmediate()) {
                    // --write_with_imm (perftest 6.2x): both sides run, between two syncs per size;
                    // -b exchanges reports except in duration runs, one direction never (each side
                    // prints its own row).
                    for (int i = 0; i < runs; i++) {
                        s.addAll(List.of(Step.SYNC, Step.RUN, Step.SYNC));
                        if (duplex && !options.duration()) {
                            s.add(Step.REPORT);
                        }
                    }
                    s.addAll(finish);
                    return List.copyOf(s);
                }
                if (duplex && options.infinitely()) {
                    s.add(Step.RUN);
                } else if (duplex) {
                    for (int i = 0; i < runs; i++) {
                        s.add(Step.SYNC);
                        s.add(Step.RUN);
                        if (runs > 1) {
                            s.add(Step.SYNC);   // the -a loop only (atomic_bw's -a is a single run)
                        }
                        s.add(Step.REPORT);
                    }
                } else {
                    if (client != options.reversed()) {
                        s.addAll(Collections.nCopies(runs, Step.RUN));
                    }
                    // The passive side (the server, or with --reversed the client) waits here for the
                    // other to finish.
                    s.add(Step.SYNC);
                    s.add(Step.REPORT);
                }
                s.addAll(finish);
            }
        }
        return List.copyOf(s);
    }

    /**
     * For each step of {@link #of(TestKind, boolean, int, Options) of(kind, client, sizes,
     * options)}: true for an exchange the peer reaches only after running its measurement
     * (a {@link Step#RUN} in the peer's list since its previous exchange), false otherwise.
     * Such a wait lasts as long as the peer's run - a passive server waits for the whole client
     * run - so the per-step timeout cannot bound it (see {@link PerftestChannel#expectPeerRun}).
     * Both lists have the same exchanges in the same order, which pairs them.
     */
    public static List<Boolean> afterPeerRun(TestKind kind, boolean client, int sizes, Options options) {
        List<Boolean> peerRan = new ArrayList<>();
        boolean ran = false;
        for (Step st : of(kind, !client, sizes, options)) {
            if (st == Step.RUN) {
                ran = true;
            } else if (isExchange(st)) {
                peerRan.add(ran);
                ran = false;
            }
        }
        List<Boolean> flags = new ArrayList<>();
        int k = 0;
        for (Step st : of(kind, client, sizes, options)) {
            flags.add(isExchange(st) && k < peerRan.size() && peerRan.get(k++));
        }
        return List.copyOf(flags);
    }

    /** Steps that read a message of the peer. */
    private static boolean isExchange(Step step) {
        return switch (step) {
            case KEYS, SYNC, CM_SYNC, REPORT, FINISH -> true;
            case CM_CONNECT, CONNECT, RUN, CLOSE -> false;
        };
    }

    /**
     * perftest's -a sweep for UD: 2 .. the agreed path MTU in bytes (a UD message must fit one
     * packet), instead of 2 .. 2^23.
     *
     * @param mtuBytes the agreed path MTU, 256 .. 4096
     */
    public static List<Long> udSweep(int mtuBytes) {
        if (Integer.bitCount(mtuBytes) != 1 || mtuBytes < 256 || mtuBytes > 4096) {
            throw new IllegalArgumentException("MTU must be 256, 512, 1024, 2048 or 4096, got " + mtuBytes);
        }
        List<Long> sizes = new ArrayList<>();
        for (long size = 2; size <= mtuBytes; size <<= 1) {
            sizes.add(size);
        }
        return List.copyOf(sizes);
    }

    /**
     * The message size of a UD test once the MTU is agreed (perftest's check_mtu): a size larger
     * than the MTU is lowered to it when it was not given explicitly (send_bw's default 65536,
     * or -a) and refused when it was.
     *
     * @param size     the size the run would use
     * @param explicit -s was given
     * @param mtuBytes the agreed path MTU
     * @return the size to run
     * @throws IllegalArgumentException naming -s when an explicit size exceeds the MTU
     */
    public static long udSize(long size, boolean explicit, int mtuBytes) {
        if (size <= mtuBytes) {
            return size;
        }
        if (explicit) {
            throw new IllegalArgumentException("option '--size' (-s): a UD message must fit the path MTU of "
                    + mtuBytes + " bytes, got " + size);
        }
        return mtuBytes;
    }
}
