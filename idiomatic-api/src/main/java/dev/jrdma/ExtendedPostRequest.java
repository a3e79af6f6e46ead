// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static dev.jrdma.bindings.shim.ExtendedPostTrampoline.COMPLETE_AT;
import static dev.jrdma.bindings.shim.ExtendedPostTrampoline.DATA_ARGS_AT;
import static dev.jrdma.bindings.shim.ExtendedPostTrampoline.DATA_AT;
import static dev.jrdma.bindings.shim.ExtendedPostTrampoline.OPERATION_ARGS_AT;
import static dev.jrdma.bindings.shim.ExtendedPostTrampoline.OPERATION_AT;
import static dev.jrdma.bindings.shim.ExtendedPostTrampoline.QP_EX_AT;
import static dev.jrdma.bindings.shim.ExtendedPostTrampoline.ROUTINE_AT;
import static dev.jrdma.bindings.shim.ExtendedPostTrampoline.START_AT;
import static dev.jrdma.bindings.shim.ExtendedPostTrampoline.UD_ARGS_AT;
import static dev.jrdma.bindings.shim.ExtendedPostTrampoline.UD_AT;
import static dev.jrdma.bindings.shim.ExtendedPostTrampoline.WR_FLAGS_AT;
import static dev.jrdma.bindings.shim.ExtendedPostTrampoline.WR_ID_AT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_send_wr;
import dev.jrdma.bindings.generated.ibv_sge;
import dev.jrdma.bindings.shim.ExtendedPostTrampoline;
import dev.jrdma.bindings.shim.ExtendedPostVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What one {@link PreparedExtendedSend} hands the provider: the queue pair's {@code ibv_wr_*}
 * functions for its operation and every argument, read once from the checked
 * {@link SendRequest}. Kept twice, because there are two ways to post it:
 * <ul>
 * <li>in a <em>post block</em> of native memory for {@link ExtendedPostTrampoline}: the whole
 *     post in one downcall (x86-64 Linux), the block's address its only argument;
 * <li>in Java fields for the four-downcall path of {@link ExtendedPostVerbs}
 *     ({@link #postCallByCall}), where the routine is not available or
 *     {@code -Djrdma.extendedPost.trampoline=false}.
 * </ul>
 * The setters write both, so a post itself writes nothing: the values change only when the
 * caller changes them (wr_id, flags, immediate, length, remote offset), each checked by
 * {@link PreparedExtendedSend} first.
 */
final class ExtendedPostRequest {
    static final int SEND = 0;
    static final int SEND_IMM = 1;
    static final int WRITE = 2;
    static final int WRITE_IMM = 3;
    static final int READ = 4;
    static final int CMP_SWP = 5;
    static final int FETCH_ADD = 6;
    static final int NO_DATA = 0;
    static final int SGE = 1;
    static final int INLINE_DATA = 2;

    /** Whether posts take the one-call routine: a constant, so C2 compiles one path. */
    static final boolean ONE_CALL = ExtendedPostTrampoline.available();

    private final long qpEx;
    final MemorySegment start;
    final MemorySegment complete;
    final MemorySegment abort;
    final MemorySegment operation;
    final MemorySegment setter;
    final MemorySegment setUdAddr;
    final int kind;
    final int data;
    final boolean datagram;
    private final int lkey;
    private final long dataAddress;
    final int maxLength;
    private final int rkey;
    /** The remote address and length prepared; -1 length without remote memory. */
    final long remoteBase;
    final long remoteLength;
    private final long compareAdd;
    private final long swap;
    private final long ah;
    private final int remoteQpn;
    private final int remoteQkey;
    /** Frees {@link #block} at close, once no post runs. */
    private final Arena arena;
    private final MemorySegment block;
    /** The block's address, the routine's argument. */
    final long blockAddress;

    long wrId;
    int flags;
    /** Network order, as the builders take it. */
    int immediate;
    int length;
    long remoteOffset;

    ExtendedPostRequest(SendOperations ops, QueuePair qp, SendRequest r) {
        ExtendedPostFunctions fn = ops.functions();
        this.qpEx = ops.qpEx();
        this.start = fn.start();
        this.complete = fn.complete();
        this.abort = fn.abort();
        this.kind = kind(r.opcode());
        this.operation = switch (kind) {
            case SEND -> fn.send();
            case SEND_IMM -> fn.sendImm();
            case WRITE -> fn.rdmaWrite();
            case WRITE_IMM -> fn.rdmaWriteImm();
            case READ -> fn.rdmaRead();
            case CMP_SWP -> fn.cmpSwp();
            default -> fn.fetchAdd();
        };
        MemorySegment wr = r.wr;
        boolean inline = (ibv_send_wr.send_flags(wr) & SendOperations.INLINE) != 0;
        if (r.sgeCount() == 0) {
            this.data = NO_DATA;
            this.setter = MemorySegment.NULL;
            this.lkey = 0;
            this.dataAddress = 0;
            this.maxLength = 0;
        } else {
            MemorySegment sge = ibv_send_wr.sg_list(wr).reinterpret(ibv_sge.layout().byteSize());
            this.data = inline ? INLINE_DATA : SGE;
            this.setter = inline ? fn.setInline() : fn.setSge();
            this.lkey = ibv_sge.lkey(sge);
            this.dataAddress = ibv_sge.addr(sge);
            this.maxLength = ibv_sge.length(sge);
        }
        boolean atomic = kind == CMP_SWP || kind == FETCH_ADD;
        boolean remote = kind >= WRITE;
        MemorySegment union = ibv_send_wr.wr(wr);
        if (atomic) {
            MemorySegment a = ibv_send_wr.wr.atomic(union);
            this.remoteBase = ibv_send_wr.wr.atomic.remote_addr(a);
            this.rkey = ibv_send_wr.wr.atomic.rkey(a);
            this.compareAdd = ibv_send_wr.wr.atomic.compare_add(a);
            this.swap = ibv_send_wr.wr.atomic.swap(a);
        } else {
            MemorySegment rdma = ibv_send_wr.wr.rdma(union);
            this.remoteBase = remote ? ibv_send_wr.wr.rdma.remote_addr(rdma) : 0;
            this.rkey = remote ? ibv_send_wr.wr.rdma.rkey(rdma) : 0;
            this.compareAdd = 0;
            this.swap = 0;
        }
        this.remoteLength = remote ? r.remoteLength() : -1;
        this.datagram = qp.type() == QueuePairType.UD;
        this.setUdAddr = datagram ? fn.setUdAddr() : MemorySegment.NULL;
        MemorySegment ud = ibv_send_wr.wr.ud(union);
        this.ah = datagram ? ibv_send_wr.wr.ud.ah(ud).address() : 0;
        this.remoteQpn = datagram ? ibv_send_wr.wr.ud.remote_qpn(ud) : 0;
        this.remoteQkey = datagram ? ibv_send_wr.wr.ud.remote_qkey(ud) : 0;
        this.arena = Arena.ofShared();
        this.block = arena.allocate(ExtendedPostTrampoline.BLOCK_SIZE, 8);
        this.blockAddress = block.address();
        fillBlock();
        wrId(ibv_send_wr.wr_id(wr));
        flags(ibv_send_wr.send_flags(wr));
        this.immediate = ibv_send_wr.imm_data(wr);
        this.length = maxLength;
        writeOperationArgs();
        writeLength();
    }

    static int kind(SendOpcode opcode) {
        return switch (opcode) {
            case SEND -> SEND;
            case SEND_WITH_IMM -> SEND_IMM;
            case RDMA_WRITE -> WRITE;
            case RDMA_WRITE_WITH_IMM -> WRITE_IMM;
            case RDMA_READ -> READ;
            case ATOMIC_CMP_AND_SWP -> CMP_SWP;
            default -> FETCH_ADD;
        };
    }

    /** What never changes: the functions, the queue pair, the data's key and address, the UD destination, the routine. */
    private void fillBlock() {
        block.set(JAVA_LONG, QP_EX_AT, qpEx);
        block.set(JAVA_LONG, START_AT, start.address());
        block.set(JAVA_LONG, OPERATION_AT, operation.address());
        block.set(JAVA_LONG, DATA_AT, data == NO_DATA ? 0 : setter.address());
        if (data == SGE) {
            block.set(JAVA_LONG, DATA_ARGS_AT, Integer.toUnsignedLong(lkey));
            block.set(JAVA_LONG, DATA_ARGS_AT + 8, dataAddress);
        } else if (data == INLINE_DATA) {
            block.set(JAVA_LONG, DATA_ARGS_AT, dataAddress);
        }
        block.set(JAVA_LONG, UD_AT, datagram ? setUdAddr.address() : 0);
        block.set(JAVA_LONG, UD_ARGS_AT, ah);
        block.set(JAVA_LONG, UD_ARGS_AT + 8, Integer.toUnsignedLong(remoteQpn));
        block.set(JAVA_LONG, UD_ARGS_AT + 16, Integer.toUnsignedLong(remoteQkey));
        block.set(JAVA_LONG, COMPLETE_AT, complete.address());
        if (ONE_CALL) {
            block.set(JAVA_LONG, ROUTINE_AT, ExtendedPostTrampoline.routine(operationArgs(kind),
                    data == SGE ? 3 : data == INLINE_DATA ? 2 : 0, datagram));
        }
    }

    /** How many arguments the kind's builder takes after the queue pair: the routine loads no more. */
    private static int operationArgs(int kind) {
        return switch (kind) {
            case SEND -> 0;
            case SEND_IMM -> 1;
            case WRITE, READ -> 2;
            case WRITE_IMM, FETCH_ADD -> 3;
            default -> 4;
        };
    }

    /** The builder's argument slots: (), (imm), (rkey, raddr), (rkey, raddr, imm), (rkey, raddr, compare|add, swap). */
    private void writeOperationArgs() {
        long rk = Integer.toUnsignedLong(rkey);
        long remote = remoteBase + remoteOffset;
        long imm = Integer.toUnsignedLong(immediate);
        long[] args = switch (kind) {
            case SEND -> new long[] {0, 0, 0, 0};
            case SEND_IMM -> new long[] {imm, 0, 0, 0};
            case WRITE, READ -> new long[] {rk, remote, 0, 0};
            case WRITE_IMM -> new long[] {rk, remote, imm, 0};
            default -> new long[] {rk, remote, compareAdd, swap};
        };
        for (int i = 0; i < args.length; i++) {
            block.set(JAVA_LONG, OPERATION_ARGS_AT + 8L * i, args[i]);
        }
    }

    /** set_sge's third argument or set_inline_data's second. */
    private void writeLength() {
        if (data != NO_DATA) {
            block.set(JAVA_LONG, DATA_ARGS_AT + (data == SGE ? 16 : 8), Integer.toUnsignedLong(length));
        }
    }

    void wrId(long value) {
        block.set(JAVA_LONG, WR_ID_AT, value);
        this.wrId = value;
    }

    /**
     * Writes the block only when the flags change: a bandwidth loop sets the signalled flag
     * before every post and changes it once per cq-mod posts, and a test of the field is three
     * instructions where the segment's checked store is ~20.
     */
    void flags(int value) {
        if (value != flags) {
            block.set(JAVA_LONG, WR_FLAGS_AT, Integer.toUnsignedLong(value));
            this.flags = value;
        }
    }

    /** {@code value} in network order; the operation carries immediate data (checked by the caller). */
    void immediate(int value) {
        block.set(JAVA_LONG, OPERATION_ARGS_AT + (kind == SEND_IMM ? 0 : 16), Integer.toUnsignedLong(value));
        this.immediate = value;
    }

    /** Checked by the caller against the length prepared and the remote memory. */
    void length(int bytes) {
        this.length = bytes;
        writeLength();
    }

    /** Checked by the caller against the remote memory prepared. */
    void remoteOffset(long offset) {
        block.set(JAVA_LONG, OPERATION_ARGS_AT + 8, remoteBase + offset);
        this.remoteOffset = offset;
    }

    /**
     * The post as four or five critical downcalls (where the one-call routine is not used):
     * wr_start, the builder with wr_id and flags, the setters, wr_complete; an exception between
     * wr_start and wr_complete aborts, since the provider holds the send queue's lock until then.
     */
    int postCallByCall() {
        long q = qpEx;
        ExtendedPostVerbs.wrStart(start, q);
        try {
            build(q);
        } catch (RuntimeException | Error e) {
            ExtendedPostVerbs.wrAbort(abort, q);
            throw e;
        }
        return ExtendedPostVerbs.wrComplete(complete, q);
    }

    private void build(long q) {
        ExtendedPostVerbs.setRequest(q, wrId, flags);
        long remote = remoteBase + remoteOffset;
        switch (kind) {
            case SEND -> ExtendedPostVerbs.wrSend(operation, q);
            case SEND_IMM -> ExtendedPostVerbs.wrInt(operation, q, immediate);
            case WRITE, READ -> ExtendedPostVerbs.wrRemote(operation, q, rkey, remote);
            case WRITE_IMM -> ExtendedPostVerbs.wrIntLongInt(operation, q, rkey, remote, immediate);
            case CMP_SWP -> ExtendedPostVerbs.wrAtomicCmpSwp(operation, q, rkey, remote, compareAdd, swap);
            default -> ExtendedPostVerbs.wrIntLongLong(operation, q, rkey, remote, compareAdd);
        }
        if (data == SGE) {
            ExtendedPostVerbs.wrIntLongInt(setter, q, lkey, dataAddress, length);
        } else if (data == INLINE_DATA) {
            ExtendedPostVerbs.wrLongLong(setter, q, dataAddress, length);
        }
        if (datagram) {
            ExtendedPostVerbs.wrSetUdAddr(setUdAddr, q, ah, remoteQpn, remoteQkey);
        }
    }

    /** Frees the block; only once no post can run (the request's close). */
    void free() {
        arena.close();
    }
}
