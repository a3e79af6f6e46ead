// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_wc;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;

/**
 * A reusable view of one work completion ({@code struct ibv_wc}) in native memory: a flyweight
 * that {@link CompletionQueue#poll(WorkCompletion)} fills, so reading a completion allocates
 * nothing. Its values are those of the last completion polled into it.
 *
 * <pre>
 * struct ibv_wc (48 bytes, x86-64/aarch64)
 *  0 wr_id u64 | 8 status u32 | 12 opcode u32 | 16 vendor_err u32 | 20 byte_len u32
 * 24 imm_data/invalidated_rkey be32 | 28 qp_num u32 | 32 src_qp u32 | 36 wc_flags u32
 * 40 pkey_index u16 | 42 slid u16 | 44 sl u8 | 45 dlid_path_bits u8
 * </pre>
 *
 * <p>Each accessor reads its one field when called, and nothing is read or decoded at poll
 * time: a loop that reads only {@link #isSuccess()} and {@link #wrId()} costs two loads. The
 * reads go through a direct {@link ByteBuffer} view of the struct at constant offsets (taken
 * from the generated layout), not through {@code MemorySegment} accessors: a segment read is a
 * deep chain of var handle adapters, and inlined at the end of a polling loop that also inlines
 * the poll's downcall, it exhausted C2's inlining budget, which left the segment's checks as
 * five out-of-line calls per read (the read_lat and send_lat profiles of 2026-11-26; before,
 * the generated {@code ibv_wc.status} accessor was one out-of-line call of 64 instructions). A
 * buffer read is a bounds check, a liveness check of the memory's arena (none for a view with
 * its own memory) and one load.
 *
 * <p>Not thread-safe: use one per polling thread.
 */
public final class WorkCompletion {
    /** {@code IBV_WC_WITH_IMM}: imm_data is valid. */
    private static final int WITH_IMM = 1 << 1;
    /** {@code IBV_WC_GRH}: the first 40 bytes of a UD receive buffer hold a GRH. */
    private static final int GRH = 1;
    private static final int WR_ID = (int) ibv_wc.wr_id$offset();
    private static final int STATUS = (int) ibv_wc.status$offset();
    private static final int OPCODE = (int) ibv_wc.opcode$offset();
    private static final int VENDOR_ERR = (int) ibv_wc.vendor_err$offset();
    private static final int BYTE_LEN = (int) ibv_wc.byte_len$offset();
    private static final int IMM_DATA = (int) ibv_wc.imm_data$offset();
    private static final int QP_NUM = (int) ibv_wc.qp_num$offset();
    private static final int SRC_QP = (int) ibv_wc.src_qp$offset();
    private static final int WC_FLAGS = (int) ibv_wc.wc_flags$offset();
    /** {@code IBV_WC_WITH_INV}: invalidated_rkey is valid. */
    private static final int WITH_INV = 1 << 3;

    private final MemorySegment wc;
    /**
     * The same memory as a native-order buffer, for the field reads (see the class comment).
     * Typed as {@link MappedByteBuffer}, the public superclass of every direct buffer, whose
     * {@code getInt} and {@code getLong} one class implements: C2 binds the reads to it from the
     * class hierarchy. Through {@code ByteBuffer} they are virtual calls that C2 inlines only
     * with a type profile of the call site, and a busy-poll finds a completion once in
     * thousands of polls: the interpreter had barely profiled the status read when the poll was
     * compiled, and send_lat's loop called {@code getInt} out of line twice an iteration
     * (research/notes/2026-11-27-latency-loops-inlined.md).
     */
    private final MappedByteBuffer fields;
    private final long address;

    /** A completion view with its own native memory (freed when the view is garbage). */
    public WorkCompletion() {
        // A plain direct buffer (malloc'ed, 16-byte aligned, zeroed, freed by its cleaner): with
        // no arena behind it, a field read checks no arena's liveness, one load fewer per poll.
        this((MappedByteBuffer) ByteBuffer.allocateDirect((int) ibv_wc.layout().byteSize()).order(ByteOrder.nativeOrder()));
    }

    WorkCompletion(MemorySegment wc) {
        this.wc = wc;
        this.fields = (MappedByteBuffer) wc.asByteBuffer().order(ByteOrder.nativeOrder());
        this.address = wc.address();
    }

    private WorkCompletion(MappedByteBuffer own) {
        this.wc = MemorySegment.ofBuffer(own);
        this.fields = own;
        this.address = wc.address();
    }

    MemorySegment segment() {
        return wc;
    }

    /** The native struct's address, for the address-taking downcalls; valid while this object is reachable. */
    long address() {
        return address;
    }

    /** {@return the wr_id of the work request this completion is for} */
    public long wrId() {
        return fields.getLong(WR_ID);
    }

    /** {@return the completion status} */
    public WorkCompletionStatus status() {
        return WorkCompletionStatus.of(fields.getInt(STATUS));
    }

    /** The status as its code, without decoding it: {@link PreparedPoll#poll()} returns it. */
    int statusCode() {
        return fields.getInt(STATUS);
    }

    /** {@return whether the status is {@link WorkCompletionStatus#SUCCESS}} */
    public boolean isSuccess() {
        return statusCode() == 0;
    }

    /**
     * Throws {@link WorkCompletionException} unless the work request succeeded; returns this view.
     *
     * @return this view
     * @throws WorkCompletionException with the status, for a failed work request
     */
    public WorkCompletion checkSuccess() {
        if (!isSuccess()) {
            throw new WorkCompletionException(status(), wrId(), qpNumber(), fields.getInt(VENDOR_ERR));
        }
        return this;
    }

    /** {@return what the work request did; undefined (as in C) unless the completion succeeded} */
    public WorkCompletionOpcode opcode() {
        return WorkCompletionOpcode.of(fields.getInt(OPCODE));
    }

    /** {@return the bytes received (receive completions) or read (RDMA READ, atomics)} */
    public int byteLength() {
        return fields.getInt(BYTE_LEN);
    }

    /** {@return the number of the local queue pair the work request was posted to} */
    public int qpNumber() {
        return fields.getInt(QP_NUM);
    }

    /** {@return the remote queue pair number of a UD receive} */
    public int sourceQpNumber() {
        return fields.getInt(SRC_QP);
    }

    /** {@return whether the completion carries immediate data ({@link #immediateData()})} */
    public boolean hasImmediate() {
        return (fields.getInt(WC_FLAGS) & WITH_IMM) != 0;
    }

    /**
     * The immediate data of a SEND/WRITE with immediate, in host order: the value passed to
     * {@link SendRequest#immediateData(int)} (jrdma converts to and from the wire's big-endian).
     *
     * @return the immediate data
     */
    public int immediateData() {
        return Integer.reverseBytes(fields.getInt(IMM_DATA));
    }

    /**
     * {@return whether the receive was a SEND_WITH_INV that invalidated a key of this side
     * ({@link #invalidatedRkey()}), as {@code IBV_WC_WITH_INV} says} rxe (kernel 6.1) sets the
     * kernel's {@code IB_WC_WITH_INVALIDATE} bit instead, which libibverbs passes through and
     * names {@code IBV_WC_IP_CSUM_OK}: there this is false although {@link #invalidatedRkey()}
     * holds the key and the key is revoked.
     */
    public boolean hasInvalidatedRkey() {
        return (fields.getInt(WC_FLAGS) & WITH_INV) != 0;
    }

    /**
     * The key a peer's {@link SendOpcode#SEND_WITH_INV} invalidated on this side (shares the
     * field with the immediate data; valid when {@link #hasInvalidatedRkey()}).
     *
     * @return the invalidated rkey
     */
    public int invalidatedRkey() {
        // invalidated_rkey shares the union with imm_data, in host order (imm_data is big-endian).
        return fields.getInt(IMM_DATA);
    }

    /** {@return whether a UD receive buffer starts with a 40-byte GRH} */
    public boolean hasGrh() {
        return (fields.getInt(WC_FLAGS) & GRH) != 0;
    }

    /** {@return the provider-specific error code of a failed completion} */
    public int vendorError() {
        return fields.getInt(VENDOR_ERR);
    }

    /** A one-line description (allocates; for logs and test messages). */
    @Override
    public String toString() {
        return "wr_id " + wrId() + ": " + status() + (isSuccess() ? " " + opcode() + " " + byteLength() + " bytes" : "")
                + " on QP 0x" + Integer.toHexString(qpNumber());
    }
}
