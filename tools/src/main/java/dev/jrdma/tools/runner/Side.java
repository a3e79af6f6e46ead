// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.Access;
import dev.jrdma.AddressHandle;
import dev.jrdma.CompletionChannel;
import dev.jrdma.CompletionQueue;
import dev.jrdma.ConnectionOptions;
import dev.jrdma.Context;
import dev.jrdma.Endpoint;
import dev.jrdma.Gid;
import dev.jrdma.MemoryRegion;
import dev.jrdma.PreparedReceive;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.RemoteMemory;
import dev.jrdma.SendOpcode;
import dev.jrdma.SendRequest;
import dev.jrdma.SharedReceiveQueue;
import dev.jrdma.WorkCompletion;
import dev.jrdma.cm.CmId;
import dev.jrdma.tools.perftest.OperationSettings;
import dev.jrdma.tools.perftest.PeerInfo;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.RateSettings;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.Verb;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * One side of a test on the device: the buffer, CQs and QPs with perftest's sizes and layout,
 * the work requests the loops post, and the QP transitions with the peer's records. The
 * measurement's side and each warm-up twin are one of these.
 *
 * <p>Buffer layout as perftest's ({@code create_mr}, {@code set_up_connection}): one region of
 * 2 x QPs x B bytes, B = max(largest size, page size); QP i sends from [i B, (i+1) B) and
 * announces [(QPs + i) B, ...) as its vaddr, which the peer writes into or reads from.
 */
final class Side {
    static final int PAGE_SIZE = 4096;
    static final int CACHE_LINE = 64;
    /** The GRH (or RoCE v2's IP header area) in front of every UD receive: perftest's UD_ADDITION. */
    static final int UD_GRH = 40;
    /** perftest's DEF_QKEY. */
    static final int QKEY = 0x11111111;
    /** perftest's ATOMIC_ADD_VALUE and ATOMIC_SWAP_VALUE. */
    private static final long ATOMIC_ADD = 1;
    private static final long ATOMIC_SWAP = 0;

    final PerftestSettings s;
    final TestKind kind;
    final Verb verb;
    final boolean ud;
    final Completions completions;
    /** The rate limiter: the settings', or the software limiter where the device refused a limit it was not told to use. */
    RateSettings rate;
    /** --send_with_imm or --write_with_imm: every send carries immediate data and every receive must. */
    final boolean withImmediate;
    /** --write_with_imm: writes carry immediate data and consume the peer's receives. */
    final boolean writeImmediate;

    /** What the device and the exchange decided (the device's choices the same for a twin as for the measurement). */
    SessionSettings session;
    /** Null until createResources and after closeResources. */
    BufferLayout buffer;
    final PeerRecords records = new PeerRecords();

    /** The test buffer's access rights (without RELAXED_ORDERING: the header's "PCIe relax order" follows them). */
    static final Set<Access> BUFFER_ACCESS = Collections.unmodifiableSet(
            EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC));

    // The queues of createResources: the loops read these.
    /** -e: the channel both CQs report to; null when polling. */
    CompletionChannel channel;
    CompletionQueue sendCq;
    CompletionQueue recvCq;
    final List<QueuePair> qps = new ArrayList<>();
    ProtectionDomain pd;
    /** The posting and queue resources of PostSettings (--use-srq, --mr_per_qp, --no_lock, the post path). */
    final PostResources post;

    Side(PerftestSettings s, int spinMask) {
        this.s = s;
        this.kind = s.kind();
        this.verb = kind.verb();
        this.ud = s.connection() == TestKind.Connection.UD;
        this.completions = new Completions(this, s.timeout(), spinMask);
        this.post = new PostResources(this);
        this.rate = s.rate();
        this.withImmediate = s.operations().immediate();
        this.writeImmediate = s.operations().writeWithImmediate();
    }

    /**
     * The buffer, CQs and QPs on {@code ctx}; with {@code cmId} (-R) its QP is created by rdma_cm
     * (one QP: -R with -q above 1 is refused before) and everything belongs to that id.
     */
    void createResources(Context ctx, CmId cmId) {
        qps.clear();
        records.mine.clear();
        long maxSize = session.sizes().stream().mapToLong(Long::longValue).max().orElseThrow();
        // A UD receive buffer also holds the 40-byte GRH in front of the message.
        long slot = Math.max(maxSize + (ud ? UD_GRH : 0), PAGE_SIZE);
        slot = (slot + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE;
        int n = s.qps();
        pd = ctx.allocateProtectionDomain();
        buffer = new BufferLayout(post.allocateBuffers(2L * n * slot, BUFFER_ACCESS), slot);
        if (s.operations().dataValidation()) {
            DataValidation.fill(this, maxSize);
        }
        int tx = s.txDepth();
        int rx = receives() ? s.rxDepth() : 1;
        if (s.events()) {
            channel = ctx.createCompletionChannel();
            int vector = Math.max(0, s.completionVector());   // -X (it needs -e); 0 is the default
            sendCq = ctx.createCompletionQueue(Math.max(1, tx * n), channel, vector);
            recvCq = receives() ? ctx.createCompletionQueue(Math.max(1, rx * n), channel, vector) : sendCq;
        } else {
            sendCq = ctx.createCompletionQueue(Math.max(1, tx * n));
            recvCq = receives() ? ctx.createCompletionQueue(Math.max(1, rx * n)) : sendCq;
        }
        QueuePairType type = switch (s.connection()) {
            case RC -> QueuePairType.RC;
            case UC -> QueuePairType.UC;
            case UD -> QueuePairType.UD;
        };
        ProtectionDomain qpPd = post.queueDomain(ctx, rx);
        for (int i = 0; i < n; i++) {
            QueuePair qp = post.build(() -> qpPd.queuePair(type).sendCompletionQueue(sendCq).receiveCompletionQueue(recvCq)
                    .maxWorkRequests(tx, rx).maxSges(1, 1).maxInlineData(session.inlineSize())
                    .sourceGid(s.ibPort(), session.gidIndex()), cmId);
            qps.add(qp);
            Endpoint local = qp.localEndpoint();
            long vaddr = region(i).address() + receiveOffset(i);
            Gid gid = session.gid();
            records.mine.add(new PeerInfo(session.port().lid(), session.outReads(), qp.qpNumber(), local.psn(),
                    region(i).rkey(), vaddr, gid == null ? null : gid.bytes(), 0));
        }
    }

    /** Both sides must agree on whether a GID is exchanged (-x on both or neither). */
    void checkGidUse(List<PeerInfo> peers) throws IOException {
        Gid gid = session.gid();
        for (PeerInfo p : peers) {
            if (p.hasGid() != (gid != null)) {
                throw new IOException("the peer " + (p.hasGid() ? "uses" : "does not use") + " a GID and this side "
                        + (gid != null ? "does" : "does not") + ": give both sides the same -x");
            }
        }
    }

    /** Moves the QPs to RTS towards the peer's records (UD: builds the address handles). */
    void connectQueuePairs(List<PeerInfo> peers) {
        records.remote = List.copyOf(peers);
        for (int i = 0; i < qps.size(); i++) {
            PeerInfo p = peers.get(i);
            int lid = s.dlid() != 0 ? s.dlid() : p.lid();   // --dlid (InfiniBand: refused on RoCE before)
            Endpoint remoteEndpoint = new Endpoint(p.qpn(), p.psn(), lid,
                    p.hasGid() ? Gid.of(p.gid()) : Gid.ZERO, session.mtu());
            ConnectionOptions options = new ConnectionOptions(
                    EnumSet.of(Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC), 12, s.qpTimeout(), s.retryCount(), 7,
                    Math.max(1, Math.min(255, p.outReads())), Math.max(1, Math.min(255, session.outReads())), QKEY, 255,
                    s.sl(), 0);
            options = Addressing.options(s, i, options);   // --tclass, --flow_label, --pkey_index
            QueuePair qp = qps.get(i);
            if (ud) {
                // UD: no remote in the QP; every send names the peer's QP through an address handle.
                qp.toInit(options);
                qp.toRtr();
                qp.toRts(options);
                records.addressHandles.add(pd.createAddressHandle(remoteEndpoint, s.ibPort(), session.gidIndex(), options));
            } else {
                qp.connect(remoteEndpoint, options);
            }
        }
    }

    /**
     * --connectionless: the UD QPs to RTS with no peer to connect to (perftest connects them
     * towards an all-zero record); they only receive what is sent to the group they are attached
     * to, so no address handle is built.
     */
    void readyWithoutPeer() {
        for (int i = 0; i < qps.size(); i++) {
            ConnectionOptions options = Addressing.options(s, i, new ConnectionOptions(
                    EnumSet.of(Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC), 12, s.qpTimeout(),
                    s.retryCount(), 7, 1, 1, QKEY, 255, s.sl(), 0));
            QueuePair qp = qps.get(i);
            qp.toInit(options);
            qp.toRtr();
            qp.toRts(options);
        }
    }

    /**
     * perftest's ctx_set_recv_wqes: rx-depth receives of the size per QP, into the QP's receive
     * slot (with --use-srq rx-depth / QPs per QP into the SRQ; with --recv_post_list in lists).
     */
    void postReceives(int index) {
        if (!receives()) {
            return;
        }
        PreparedReceive[] reqs = preparedReceives(session.sizes().get(index));
        try {
            int lists = post.receivesPostedPerQp() / reqs[0].size();
            for (PreparedReceive r : reqs) {
                for (int k = 0; k < lists; k++) {
                    r.post();
                    post.receivesPosted(r.size());
                }
            }
        } finally {
            for (PreparedReceive r : reqs) {
                r.close();
            }
        }
    }

    /**
     * Whether the peer's messages consume receives here: a send test or --write_with_imm, but not
     * on the client of a one-way BW run (only its server receives).
     */
    boolean receives() {
        return (verb == Verb.SEND || writeImmediate) && !(kind.bandwidth() && s.testClient() && !s.bidirectional());
    }

    ReceiveRequest receiveRequest(int qp, long size) {
        return new ReceiveRequest().wrId(qp).sge(region(qp), receiveOffset(qp), (int) size + (ud ? UD_GRH : 0));
    }

    /** The region QP {@code qp} sends from and announces (--mr_per_qp: its own). */
    MemoryRegion region(int qp) {
        return post.region(qp);
    }

    /** Where in {@link #region} QP {@code qp} sends from: [i B, (i+1) B), or its region's first slot. */
    long sendOffset(int qp) {
        return post.perQpRegions() ? 0 : (long) qp * buffer.slot();
    }

    /** Where in {@link #region} QP {@code qp}'s peer writes, reads and sends to: [(QPs + i) B, ...), or its region's second slot. */
    long receiveOffset(int qp) {
        // -q, not qps.size(): createResources announces each QP's offset while the list still grows.
        return post.perQpRegions() ? buffer.slot() : (long) (s.qps() + qp) * buffer.slot();
    }

    /**
     * Per QP its receive (--recv_post_list: a list of them), prepared (checked once) for
     * re-posting in a loop, to the QP or with --use-srq to the SRQ; the caller closes them.
     */
    PreparedReceive[] preparedReceives(long size) {
        PreparedReceive[] reqs = new PreparedReceive[qps.size()];
        try {
            for (int i = 0; i < reqs.length; i++) {
                reqs[i] = post.prepareReceive(i, size);
            }
        } catch (RuntimeException e) {
            for (PreparedReceive r : reqs) {
                if (r != null) {
                    r.close();
                }
            }
            throw e;
        }
        return reqs;
    }

    SendRequest sendRequest(int qp, long size, SendOpcode opcode) {
        SendRequest r = new SendRequest().wrId(qp).opcode(opcode);
        if (verb == Verb.ATOMIC) {
            r.sge(region(qp), sendOffset(qp), 8).compareAdd(s.atomicType() == TestKind.AtomicType.CMP_AND_SWAP ? 0 : ATOMIC_ADD)
                    .swap(ATOMIC_SWAP);
        } else {
            r.sge(region(qp), sendOffset(qp), (int) size);
        }
        if (verb != Verb.SEND) {
            PeerInfo p = records.remote.get(qp);
            r.remote(new RemoteMemory(p.vaddr(), verb == Verb.ATOMIC ? 8 : size, p.rkey()));
        } else if (ud) {
            r.datagram(records.addressHandles.get(qp), Addressing.remoteQpn(s, records.remote.get(qp)), QKEY);
        }
        if (opcode == SendOpcode.SEND_WITH_IMM || opcode == SendOpcode.RDMA_WRITE_WITH_IMM) {
            r.immediateData(OperationSettings.IMMEDIATE);
        }
        if ((verb == Verb.SEND || verb == Verb.WRITE) && size <= session.inlineSize()) {
            r.inline(true);
        }
        return r;
    }

    SendOpcode opcode() {
        return switch (verb) {
            case SEND -> withImmediate ? SendOpcode.SEND_WITH_IMM : SendOpcode.SEND;
            case WRITE -> writeImmediate ? SendOpcode.RDMA_WRITE_WITH_IMM : SendOpcode.RDMA_WRITE;
            case READ -> SendOpcode.RDMA_READ;
            case ATOMIC -> s.atomicType() == TestKind.AtomicType.CMP_AND_SWAP ? SendOpcode.ATOMIC_CMP_AND_SWP
                    : SendOpcode.ATOMIC_FETCH_AND_ADD;
        };
    }

    /**
     * --send_with_imm: fails on a receive completion without immediate data, as perftest's
     * IBV_WC_WITH_IMM check does (the peer sent plain SENDs: both sides need the option).
     */
    void checkImmediate(WorkCompletion wc) throws IOException {
        if (withImmediate && !wc.hasImmediate()) {
            throw new IOException("--send_with_imm: a receive completion (QP " + wc.qpNumber() + ", " + wc.byteLength()
                    + " bytes) carries no immediate data: the peer sent plain SENDs (give both sides --send_with_imm)");
        }
    }

    /** The operation as errors name it. */
    String operationName() {
        return switch (verb) {
            case SEND -> "send";
            case WRITE -> "RDMA write";
            case READ -> "RDMA read";
            case ATOMIC -> "atomic";
        };
    }

    /**
     * A warm-up twin after one run, for the next: the receives of a send test again (a run
     * consumes all it posts), and zeros where a write-latency peer writes its counter (a run
     * starts waiting for 1 again). The peer's messages of the run have all arrived by then.
     */
    void rearm() {
        if (kind == TestKind.WRITE_LAT) {
            buffer.mr().segment().fill((byte) 0);
        }
        postReceives(0);
    }

    /** A warm-up twin's buffer, CQs, QPs and address handles, users before what they use. */
    void closeResources() {
        records.addressHandles.forEach(AddressHandle::close);
        qps.forEach(QueuePair::close);
        post.closeQueues();
        if (recvCq != null && recvCq != sendCq) {
            recvCq.close();
        }
        if (sendCq != null) {
            sendCq.close();
        }
        if (channel != null) {
            channel.close();
        }
        post.closeBuffers();   // deregisters, then frees or unmaps --mmap's file or huge pages
        buffer = null;
        if (pd != null) {
            pd.close();
        }
    }
}
