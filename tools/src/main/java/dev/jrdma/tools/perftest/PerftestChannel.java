// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import dev.jrdma.RdmaTimeoutException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * perftest's out-of-band TCP channel (perftest 6.06, src/perftest_communication.c), with a
 * timeout on connect, accept and every read and write. A wait that runs out of its timeout
 * throws jrdma's {@link RdmaTimeoutException} (its message names the step and the timeout, and
 * the CLI prints it as one line with exit code 1, as any failure); everything else the peer does
 * wrong is a {@link PerftestProtocolException}.
 *
 * <p>Every exchange is lock-step and symmetric: the client ({@code servername} given) writes its
 * message and then reads the peer's; the server reads and then writes ({@code ctx_xchg_data},
 * {@code ctx_hand_shake}). Each message is fixed-size and perftest reads it with a single
 * {@code read()}, so we always write a message in one piece. Multi-field exchanges (system data,
 * BW report) are one lock-step exchange per field, never batched: batching would deadlock a
 * perftest server that waits to answer the first field.
 *
 * <p>The order of a session, as every perftest 6.06 binary runs it over Ethernet exchange:
 * {@link #exchangeVersion}, {@link #exchangeSystemData}, {@link #exchangeMtu}, then the
 * test-specific sequence of {@link #exchangeKeys} and {@link #sync} calls (see
 * {@link PerftestSchedule}), the BW report exchange for BW tests, and {@link #close()}, which is
 * one last sync followed by the 5-byte "done" message ({@code ctx_close_connection}).
 *
 * <p>This class is the protocol; a {@link TcpLink} moves its bytes over TCP and bounds each wait.
 * With -R ({@link #overRdmaCm}) the same messages travel over perftest's rdma_cm control QP
 * instead of TCP; only the key record's encoding and the end of the session differ.
 *
 * <p>Not thread-safe; one thread drives a session.
 */
public final class PerftestChannel implements AutoCloseable {

    /** perftest's default TCP port. */
    public static final int DEFAULT_PORT = 18515;

    private final TcpLink tcp;               // null for -R
    private final RdmaCmLink link;           // null for TCP
    private final int gidIndex;              // -R: the sender's GID index field of the key record
    private final boolean client;
    private boolean closed;
    /** Set by {@link #expectPeerRun}: the next read waits for a peer that is running the test. */
    private boolean peerRunning;
    /** The bound of that wait, or null while the peer's TCP stack keeps answering. */
    private Duration peerRunLimit;

    PerftestChannel(SocketChannel socket, boolean client, Duration timeout) throws IOException {
        this(new TcpLink(socket, timeout), client);
    }

    private PerftestChannel(TcpLink tcp, boolean client) {
        this.tcp = tcp;
        this.link = null;
        this.gidIndex = -1;
        this.client = client;
    }

    /**
     * Marks the next message read as the answer of a peer that is running its measurement
     * (its side of the schedule has a {@link PerftestSchedule.Step#RUN} before it), such as a
     * passive server's wait for the client's run: that read is not bounded by the timeout,
     * which applies to prompt answers only, but by {@code limit} (a -D run: its duration plus
     * the timeout) or, for an iteration run of unknown length, by the connection itself. A
     * peer that exits or is killed closes the connection (its kernel sends FIN or RST), one
     * whose host vanishes stops answering TCP keepalives (within about the timeout); both
     * end the read with a {@link PerftestProtocolException}, a run past {@code limit} with an
     * {@link RdmaTimeoutException}. Over -R ({@link #overRdmaCm}) the
     * link bounds that receive ({@link RdmaCmLink#receiveAfterPeerRun}).
     *
     * @param limit the longest wait, or null for as long as the connection is alive
     */
    public void expectPeerRun(Duration limit) {
        peerRunning = true;
        peerRunLimit = limit;
    }

    private PerftestChannel(RdmaCmLink link, int gidIndex) {
        this.tcp = null;
        this.link = link;
        this.gidIndex = gidIndex;
        this.client = link.isClient();
    }

    /**
     * -R: perftest's rdma_cm control channel. Every message of the session travels as one SEND on
     * an RC QP that rdma_cm connected on the -p port (the device part implements the QP as a
     * {@link RdmaCmLink}); the order and the preamble are the same as over TCP, but key records
     * and syncs are perftest's binary {@code struct pingpong_dest} ({@link PeerInfo#formatRdmaCm})
     * and the session ends after the final sync without "done".
     *
     * @param gidIndex this side's GID index, sent in the record's gid_index field
     */
    public static PerftestChannel overRdmaCm(RdmaCmLink link, int gidIndex) {
        return new PerftestChannel(Objects.requireNonNull(link, "link"), gidIndex);
    }

    /** True for the -R control channel. */
    public boolean isRdmaCm() {
        return link != null;
    }

    /** Connects to a perftest (or jrdma) server; the client writes first in every exchange. */
    public static PerftestChannel connect(String host, int port, Duration timeout) throws IOException {
        return connect(host, port, timeout, null, false);
    }

    /**
     * {@link #connect(String, int, Duration)} from {@code source} (--bind_source_ip), over IPv6
     * when {@code ipv6} (--ipv6-addr: the host must have an IPv6 address), else over the
     * address the host resolves to first.
     */
    public static PerftestChannel connect(String host, int port, Duration timeout, InetSocketAddress source,
                                          boolean ipv6) throws IOException {
        return new PerftestChannel(TcpLink.connect(host, port, timeout, source, ipv6), true);
    }

    /**
     * Opens the listening socket of a server. perftest binds the wildcard address with
     * SO_REUSEADDR and accepts exactly one client.
     */
    public static PerftestListener listen(SocketAddress bindTo) throws IOException {
        return PerftestListener.open(bindTo);
    }

    /** True for the side that connected (perftest's client, the side with a host argument). */
    public boolean isClient() {
        return client;
    }

    /**
     * One lock-step exchange of fixed-size messages: the client writes then reads, the server
     * reads then writes.
     *
     * @param step   names the step in error messages
     * @param mine   this side's message, written in one piece
     * @param length the size of the peer's message
     */
    public byte[] exchange(String step, byte[] mine, int length) throws IOException {
        byte[] theirs;
        if (client) {
            write(step, mine);
            theirs = read(step, length);
        } else {
            theirs = read(step, length);
            write(step, mine);
        }
        return theirs;
    }

    /**
     * Step 1: versions. Returns the peer's version string.
     *
     * @throws PerftestProtocolException when the peer is older than 5.70 or sent garbage
     */
    public String exchangeVersion(String myVersion) throws IOException {
        String theirs = PerftestVersion.decode(exchange("version", PerftestVersion.encode(myVersion), PerftestVersion.SIZE));
        PerftestVersion.requireCompatible(theirs);
        return theirs;
    }

    /** The result of {@link #exchangeSystemData}: each value is the maximum of both sides. */
    public record SystemData(int pageSize, int cacheLineSize) {
    }

    /**
     * Step 2 ({@code check_sys_data}): page size ("cycle buffer") and cache line size, each one
     * 4-byte big-endian int in its own exchange; both sides keep the maximum.
     */
    public SystemData exchangeSystemData(int pageSize, int cacheLineSize) throws IOException {
        int remotePage = ByteBuffer.wrap(exchange("system data (page size)", beInt(pageSize), 4)).getInt();
        int remoteLine = ByteBuffer.wrap(exchange("system data (cache line size)", beInt(cacheLineSize), 4)).getInt();
        if (remotePage <= 0 || remoteLine <= 0) {
            throw new PerftestProtocolException("system data: peer sent page size " + remotePage
                    + " and cache line size " + remoteLine);
        }
        return new SystemData(Math.max(pageSize, remotePage), Math.max(cacheLineSize, remoteLine));
    }

    /**
     * Step 3 ({@code check_mtu}): the active MTU as the {@code ibv_mtu} enum (1 = 256 ... 5 = 4096)
     * in decimal ASCII, 2 bytes (the digit and NUL). Returns the smaller of both; like perftest, a
     * value outside 1..5 from the peer is ignored (ours is kept).
     */
    public int exchangeMtu(int myMtuEnum) throws IOException {
        if (myMtuEnum < 1 || myMtuEnum > 5) {
            throw new IllegalArgumentException("MTU enum must be 1..5, got " + myMtuEnum);
        }
        byte[] mine = {(byte) ('0' + myMtuEnum), 0};
        byte[] theirs = exchange("MTU", mine, 2);
        int remote = theirs[0] - '0';
        if (theirs[1] != 0 || remote < 0 || remote > 9) {
            throw new PerftestProtocolException("MTU: expected one ASCII digit and NUL, got 0x"
                    + String.format("%02x%02x", theirs[0], theirs[1]));
        }
        return (remote >= 1 && remote <= 5 && remote < myMtuEnum) ? remote : myMtuEnum;
    }

    /** One QP's key exchange ({@code ctx_hand_shake}); returns the peer's record. */
    public PeerInfo exchangeKeys(PeerInfo mine) throws IOException {
        return exchangeRecord("key exchange", mine);
    }

    /**
     * perftest's barrier: one more key exchange of the same record. The peer's record is parsed
     * (so a desynchronised peer is detected) and returned.
     */
    public PeerInfo sync(PeerInfo mine) throws IOException {
        return exchangeRecord("sync", mine);
    }

    /**
     * -R's barrier around the rdma_cm connection of the test QPs: a sync with an all-zero record
     * (perftest's my_dest before it is filled, gid_index included). Returns the peer's record.
     */
    public PeerInfo syncZero(boolean withGid) throws IOException {
        PeerInfo zero = PeerInfo.zero(withGid);
        if (link != null) {
            return PeerInfo.parseRdmaCm(exchange("sync before/after rdma_cm connect", zero.formatRdmaCm(0),
                    PeerInfo.RDMA_CM_SIZE), withGid);
        }
        return sync(zero);
    }

    private PeerInfo exchangeRecord(String step, PeerInfo mine) throws IOException {
        if (link != null) {
            return PeerInfo.parseRdmaCm(exchange(step, mine.formatRdmaCm(gidIndex), PeerInfo.RDMA_CM_SIZE), mine.hasGid());
        }
        return PeerInfo.parse(exchange(step, mine.format(), PeerInfo.wireSize(mine.hasGid())), mine.hasGid());
    }

    /**
     * The BW report exchange ({@code xchg_bw_reports}, peer version >= 5.33): size and iterations
     * as 8-byte big-endian integers, then BW peak, BW average and message rate as big-endian
     * IEEE doubles, each in its own lock-step exchange. The per-port fields follow only with
     * perftest's dual-port report (-O), which jrdma does not offer.
     */
    public BwReportData exchangeBwReport(BwReportData mine) throws IOException {
        long size = ByteBuffer.wrap(exchange("BW report (size)", beLong(mine.size()), 8)).getLong();
        long iters = ByteBuffer.wrap(exchange("BW report (iterations)", beLong(mine.iters()), 8)).getLong();
        double peak = ByteBuffer.wrap(exchange("BW report (BW peak)", beLong(Double.doubleToRawLongBits(mine.bwPeak())), 8)).getDouble();
        double avg = ByteBuffer.wrap(exchange("BW report (BW average)", beLong(Double.doubleToRawLongBits(mine.bwAvg())), 8)).getDouble();
        double rate = ByteBuffer.wrap(exchange("BW report (message rate)", beLong(Double.doubleToRawLongBits(mine.msgRate())), 8)).getDouble();
        return new BwReportData(size, iters, peak, avg, rate);
    }

    /**
     * The end of a session ({@code ctx_close_connection}): a last sync, then both sides write
     * "done" with its NUL (5 bytes, never read by perftest) and close.
     */
    public void finish(PeerInfo mine) throws IOException {
        sync(mine);
        if (link != null) {
            close();   // ctx_close_connection writes "done" only on the socket
            return;
        }
        write("done", "done\0".getBytes(StandardCharsets.US_ASCII));
        tcp.drainDone();
        close();
    }

    /**
     * Whether the peer has sent something (or closed the connection) that no exchange has read
     * yet, without reading it: a --run_infinitely side whose peer was stopped sees the peer's
     * next exchange message waiting. Always false over -R.
     */
    public boolean peerHasSent() throws IOException {
        return tcp != null && tcp.peerHasSent();
    }

    private void write(String step, byte[] data) throws IOException {
        if (link != null) {
            link.send(step, data);
        } else {
            tcp.send(step, data);
        }
    }

    /** Reads the peer's message, bounded as {@link #expectPeerRun} last asked (once). */
    private byte[] read(String step, int length) throws IOException {
        boolean running = peerRunning;
        Duration limit = peerRunLimit;
        peerRunning = false;
        peerRunLimit = null;
        if (link == null) {
            return tcp.receive(step, length, running, limit);
        }
        byte[] m = running ? link.receiveAfterPeerRun(step, length, limit) : link.receive(step, length);
        if (m.length != length) {
            throw new PerftestProtocolException(step + ": expected a " + length + "-byte message, got " + m.length);
        }
        return m;
    }

    private static byte[] beInt(int v) {
        return ByteBuffer.allocate(4).putInt(v).array();
    }

    private static byte[] beLong(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    @Override
    public void close() throws IOException {
        if (!closed) {
            closed = true;
            if (link != null) {
                link.close();
                return;
            }
            tcp.close();
        }
    }
}
