// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives one side of a perftest session over a {@link PerftestChannel}: the preamble, then the
 * test's {@link PerftestSchedule}, calling back into the device part for everything that is not
 * an exchange. The device part implements {@link Device}; this class owns the order.
 */
public final class PerftestSession {

    /** What the device part does at the schedule's non-exchange steps. */
    public interface Device {
        /** Move the QPs to RTR/RTS with the peer's records (one per QP, in order). */
        void connect(List<PeerInfo> remote) throws IOException;

        /**
         * -R: connect the test QPs through rdma_cm (perftest's rdma_cm_client_connection /
         * rdma_cm_server_connection on the -p port) instead of {@link #connect}. The QPs exist
         * only from here on (rdma_cm creates them on the device it resolved), so this returns
         * this side's records, one per QP, which replace the placeholders given to {@code run}.
         *
         * @return this side's records for the key exchanges that follow
         */
        default List<PeerInfo> connectRdmaCm() throws IOException {
            throw new UnsupportedOperationException("rdma_cm (-R) is not supported by this device part");
        }

        /**
         * -R: the peer's records after each key exchange (there is no {@link #connect} step to
         * carry them): the rkeys and addresses the RDMA WRITE/READ/atomic loops use.
         *
         * @param remote the peer's records, one per QP
         */
        default void rdmaCmKeys(List<PeerInfo> remote) throws IOException {
        }

        /** Run size number {@code index} of the sweep (0 for a single size) and print its row. */
        void run(int index) throws IOException;

        /**
         * This side's BW report for the exchange (BW tests): the client's result; a passive server
         * may send zeros (perftest sends uninitialised memory there).
         */
        BwReportData bandwidthReport();

        /** The peer's BW report, received after the runs (the passive server prints it). */
        void remoteBandwidthReport(BwReportData remote);
    }

    /** Outcome of the preamble. */
    public record Preamble(String peerVersion, PerftestChannel.SystemData systemData, int mtuEnum) {
    }

    private PerftestSession() {
    }

    /**
     * Version, system data and MTU exchange, in perftest's order.
     *
     * @param mtuEnum this side's active MTU as ibv_mtu (1..5)
     */
    public static Preamble preamble(PerftestChannel ch, int pageSize, int cacheLineSize, int mtuEnum)
            throws IOException {
        return preamble(ch, pageSize, cacheLineSize, mtuEnum, true);
    }

    /**
     * The preamble, or with {@code exchange} false (--dont_xchg_versions) none: the peer's
     * version is then unknown (empty), each side keeps its own page size, cache line and MTU, as
     * perftest's exchange_versions, check_sys_data and check_mtu do without the exchange.
     */
    public static Preamble preamble(PerftestChannel ch, int pageSize, int cacheLineSize, int mtuEnum,
                                    boolean exchange) throws IOException {
        if (!exchange) {
            return new Preamble("", new PerftestChannel.SystemData(pageSize, cacheLineSize), mtuEnum);
        }
        String v = ch.exchangeVersion(PerftestVersion.ANNOUNCED);
        PerftestChannel.SystemData sys = ch.exchangeSystemData(pageSize, cacheLineSize);
        int mtu = ch.exchangeMtu(mtuEnum);
        return new Preamble(v, sys, mtu);
    }

    /**
     * Runs the schedule after the preamble. Returns the peer's records as last received.
     *
     * @param mine  this side's records, one per QP (all with or all without GID)
     * @param sizes 1, or the number of sizes of an -a sweep
     */
    public static List<PeerInfo> run(PerftestChannel ch, TestKind kind, List<PeerInfo> mine, int sizes, Device device)
            throws IOException {
        return run(ch, kind, mine, sizes, PerftestSchedule.Options.DEFAULT, device);
    }

    /**
     * Runs the schedule for the given -b/-D/-R options after the preamble. Returns the peer's
     * records as last received. -R needs a channel from {@link PerftestChannel#overRdmaCm}, the
     * other sessions a TCP one.
     *
     * @param mine  this side's records, one per QP (all with or all without GID)
     * @param sizes 1, or the number of sizes of an -a sweep
     */
    public static List<PeerInfo> run(PerftestChannel ch, TestKind kind, List<PeerInfo> mine, int sizes,
                                     PerftestSchedule.Options options, Device device) throws IOException {
        return run(ch, kind, mine, sizes, options, null, device);
    }

    /**
     * Runs the schedule like {@link #run(PerftestChannel, TestKind, List, int, PerftestSchedule.Options,
     * Device)}; an exchange that waits for the peer's measurement run
     * ({@link PerftestSchedule#afterPeerRun}) is bounded by {@code peerRunLimit} instead of the
     * channel's timeout (see {@link PerftestChannel#expectPeerRun}).
     *
     * @param peerRunLimit the longest the peer's run may take (-D: the duration plus the
     *                     timeout), or null for an iteration run: then only the connection's end
     *                     or its keepalive ends such a wait
     */
    public static List<PeerInfo> run(PerftestChannel ch, TestKind kind, List<PeerInfo> mine, int sizes,
                                     PerftestSchedule.Options options, java.time.Duration peerRunLimit,
                                     Device device) throws IOException {
        if (mine.isEmpty()) {
            throw new IllegalArgumentException("no QPs");
        }
        List<PeerInfo> remote = new ArrayList<>(mine.size());
        for (int i = 0; i < mine.size(); i++) {
            remote.add(null);
        }
        int run = 0;
        if (options.exchangeOverRdmaCm() != ch.isRdmaCm()) {
            throw new IllegalArgumentException(options.exchangeOverRdmaCm()
                    ? "-R and -z run over the rdma_cm control channel (PerftestChannel.overRdmaCm), not TCP"
                    : "the rdma_cm control channel is only for -R and -z sessions");
        }
        boolean withGid = mine.get(0).hasGid();
        List<PeerInfo> local = new ArrayList<>(mine);
        List<PerftestSchedule.Step> steps = PerftestSchedule.of(kind, ch.isClient(), sizes, options);
        List<Boolean> afterPeerRun = PerftestSchedule.afterPeerRun(kind, ch.isClient(), sizes, options);
        for (int at = 0; at < steps.size(); at++) {
            PerftestSchedule.Step step = steps.get(at);
            if (afterPeerRun.get(at)) {
                ch.expectPeerRun(peerRunLimit);
            }
            switch (step) {
                case KEYS -> {
                    for (int i = 0; i < local.size(); i++) {
                        remote.set(i, ch.exchangeKeys(local.get(i)));
                    }
                    if (options.rdmaCm()) {
                        device.rdmaCmKeys(List.copyOf(remote));
                    }
                }
                case SYNC -> {
                    PeerInfo peer = ch.sync(local.get(0));
                    if (remote.get(0) == null) {
                        remote.set(0, peer);   // write/read/atomic lat sync before the first key exchange
                    }
                }
                case CM_SYNC -> ch.syncZero(withGid);   // the peer's record is all zero too: nothing to keep
                case CM_CONNECT -> {
                    List<PeerInfo> records = device.connectRdmaCm();
                    if (records.size() != local.size() || records.get(0).hasGid() != withGid) {
                        throw new IllegalStateException("connectRdmaCm returned " + records.size()
                                + " records for " + local.size() + " QPs (or a different GID use)");
                    }
                    local.clear();
                    local.addAll(records);
                }
                case CONNECT -> device.connect(List.copyOf(remote));
                case RUN -> device.run(run++);
                case REPORT -> device.remoteBandwidthReport(ch.exchangeBwReport(device.bandwidthReport()));
                case FINISH -> ch.finish(local.get(0));
                case CLOSE -> ch.close();
            }
        }
        return List.copyOf(remote);
    }
}
