// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_wc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

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
 * <p>Not thread-safe: use one per polling thread.
 */
public final class WorkCompletion {
    /** {@code IBV_WC_WITH_IMM}: imm_data is valid. */
    private static final int WITH_IMM = 1 << 1;
    /** {@code IBV_WC_GRH}: the first 40 bytes of a UD receive buffer hold a GRH. */
    private static final int GRH = 1;
    /** {@code IBV_WC_WITH_INV}: invalidated_rkey is valid. */
    private static final int WITH_INV = 1 << 3;

    private final MemorySegment wc;
    private final long address;

    /** A completion view with its own native memory (freed when the view is garbage). */
    public WorkCompletion() {
        this(Arena.ofAuto().allocate(ibv_wc.layout()));
    }

    WorkCompletion(MemorySegment wc) {
        this.wc = wc;
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
        return ibv_wc.wr_id(wc);
    }

    /** {@return the completion status} */
    public WorkCompletionStatus status() {
        return WorkCompletionStatus.of(ibv_wc.status(wc));
    }

    /** {@return whether the status is {@link WorkCompletionStatus#SUCCESS}} */
    public boolean isSuccess() {
        return ibv_wc.status(wc) == 0;
    }

    /**
     * Throws {@link WorkCompletionException} unless the work request succeeded; returns this view.
     *
     * @return this view
     * @throws WorkCompletionException with the status, for a failed work request
     */
    public WorkCompletion checkSuccess() {
        if (!isSuccess()) {
            throw new WorkCompletionException(status(), wrId(), qpNumber(), ibv_wc.vendor_err(wc));
        }
        return this;
    }

    /** {@return what the work request did; undefined (as in C) unless the completion succeeded} */
    public WorkCompletionOpcode opcode() {
        return WorkCompletionOpcode.of(ibv_wc.opcode(wc));
    }

    /** {@return the bytes received (receive completions) or read (RDMA READ, atomics)} */
    public int byteLength() {
        return ibv_wc.byte_len(wc);
    }

    /** {@return the number of the local queue pair the work request was posted to} */
    public int qpNumber() {
        return ibv_wc.qp_num(wc);
    }

    /** {@return the remote queue pair number of a UD receive} */
    public int sourceQpNumber() {
        return ibv_wc.src_qp(wc);
    }

    /** {@return whether the completion carries immediate data ({@link #immediateData()})} */
    public boolean hasImmediate() {
        return (ibv_wc.wc_flags(wc) & WITH_IMM) != 0;
    }

    /**
     * The immediate data of a SEND/WRITE with immediate, in host order: the value passed to
     * {@link SendRequest#immediateData(int)} (jrdma converts to and from the wire's big-endian).
     *
     * @return the immediate data
     */
    public int immediateData() {
        return Integer.reverseBytes(ibv_wc.imm_data(wc));
    }

    /**
     * {@return whether the receive was a SEND_WITH_INV that invalidated a key of this side
     * ({@link #invalidatedRkey()}), as {@code IBV_WC_WITH_INV} says} rxe (kernel 6.1) sets the
     * kernel's {@code IB_WC_WITH_INVALIDATE} bit instead, which libibverbs passes through and
     * names {@code IBV_WC_IP_CSUM_OK}: there this is false although {@link #invalidatedRkey()}
     * holds the key and the key is revoked.
     */
    public boolean hasInvalidatedRkey() {
        return (ibv_wc.wc_flags(wc) & WITH_INV) != 0;
    }

    /**
     * The key a peer's {@link SendOpcode#SEND_WITH_INV} invalidated on this side (shares the
     * field with the immediate data; valid when {@link #hasInvalidatedRkey()}).
     *
     * @return the invalidated rkey
     */
    public int invalidatedRkey() {
        return ibv_wc.invalidated_rkey(wc);
    }

    /** {@return whether a UD receive buffer starts with a 40-byte GRH} */
    public boolean hasGrh() {
        return (ibv_wc.wc_flags(wc) & GRH) != 0;
    }

    /** {@return the provider-specific error code of a failed completion} */
    public int vendorError() {
        return ibv_wc.vendor_err(wc);
    }

    /** A one-line description (allocates; for logs and test messages). */
    @Override
    public String toString() {
        return "wr_id " + wrId() + ": " + status() + (isSuccess() ? " " + opcode() + " " + byteLength() + " bytes" : "")
                + " on QP 0x" + Integer.toHexString(qpNumber());
    }
}
