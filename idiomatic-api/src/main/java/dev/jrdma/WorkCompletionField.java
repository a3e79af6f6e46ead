// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * A field an extended completion queue reports beyond status, wr_id, opcode, vendor error and
 * completion flags ({@code enum ibv_create_cq_wc_flags}): chosen when the queue is created
 * ({@link ExtendedCompletionQueue.Builder#fields}), so that a provider can skip the work of
 * fields nobody reads. Reading a field the queue was not created with throws
 * {@link IllegalStateException}; a provider refuses a field it cannot report at creation time
 * with {@link OperationNotSupportedException} (librxe 44 reports the {@link #STANDARD} seven and
 * refuses the timestamps, CVLAN, flow tag and tag-matching info).
 */
public enum WorkCompletionField {
    /** {@code ibv_wc_read_byte_len}. */
    BYTE_LEN(1),
    /** {@code ibv_wc_read_imm_data} and {@code ibv_wc_read_invalidated_rkey} (one union). */
    IMMEDIATE(1 << 1),
    /** {@code ibv_wc_read_qp_num}. */
    QP_NUMBER(1 << 2),
    /** {@code ibv_wc_read_src_qp}. */
    SOURCE_QP(1 << 3),
    /** {@code ibv_wc_read_slid}. */
    SLID(1 << 4),
    /** {@code ibv_wc_read_sl}. */
    SL(1 << 5),
    /** {@code ibv_wc_read_dlid_path_bits}. */
    DLID_PATH_BITS(1 << 6),
    /** {@code ibv_wc_read_completion_ts}: the device clock ({@link DeviceAttributes#hcaCoreClock()} kHz). */
    COMPLETION_TIMESTAMP(1 << 7),
    /** {@code ibv_wc_read_cvlan}. */
    CVLAN(1 << 8),
    /** {@code ibv_wc_read_flow_tag}. */
    FLOW_TAG(1 << 9),
    /** {@code ibv_wc_read_tm_info}. */
    TM_INFO(1 << 10),
    /** {@code ibv_wc_read_completion_wallclock_ns}. */
    COMPLETION_TIMESTAMP_WALLCLOCK(1 << 11);

    /** {@code IBV_WC_STANDARD_FLAGS}: the fields of a classic {@code struct ibv_wc}, which every provider reports. */
    public static final Set<WorkCompletionField> STANDARD = Collections.unmodifiableSet(EnumSet.of(BYTE_LEN, IMMEDIATE,
            QP_NUMBER, SOURCE_QP, SLID, SL, DLID_PATH_BITS));

    private final int bit;

    WorkCompletionField(int bit) {
        this.bit = bit;
    }

    /** The C flag. */
    int bit() {
        return bit;
    }

    /** {@code wc_flags} for a set of fields. */
    static long flags(Set<WorkCompletionField> fields) {
        return CFlags.word(fields, WorkCompletionField::bit);
    }
}
