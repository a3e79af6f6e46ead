// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.shim.ExtendedPollVerbs;
import java.lang.foreign.MemorySegment;

/**
 * The provider's poll and {@code ibv_wc_read_*} functions of one {@code struct ibv_cq_ex},
 * read once when the queue is created: the provider picks them per queue from its wc_flags and
 * leaves NULL the readers of fields the queue was not created with (a {@code MemorySegment.NULL}
 * here, which the callers check before calling).
 */
record ExtendedPollFunctions(MemorySegment start, MemorySegment next, MemorySegment end, MemorySegment opcode,
                             MemorySegment vendorErr, MemorySegment wcFlags, MemorySegment byteLen,
                             MemorySegment imm, MemorySegment qpNum, MemorySegment srcQp, MemorySegment slid,
                             MemorySegment sl, MemorySegment dlidPathBits, MemorySegment timestamp,
                             MemorySegment wallclock, MemorySegment cvlan, MemorySegment flowTag,
                             MemorySegment tmInfo) {

    static ExtendedPollFunctions of(long cqEx) {
        return new ExtendedPollFunctions(fn(cqEx, ExtendedPollVerbs.START_POLL), fn(cqEx, ExtendedPollVerbs.NEXT_POLL),
                fn(cqEx, ExtendedPollVerbs.END_POLL), fn(cqEx, ExtendedPollVerbs.READ_OPCODE),
                fn(cqEx, ExtendedPollVerbs.READ_VENDOR_ERR), fn(cqEx, ExtendedPollVerbs.READ_WC_FLAGS),
                fn(cqEx, ExtendedPollVerbs.READ_BYTE_LEN), fn(cqEx, ExtendedPollVerbs.READ_IMM_DATA),
                fn(cqEx, ExtendedPollVerbs.READ_QP_NUM), fn(cqEx, ExtendedPollVerbs.READ_SRC_QP),
                fn(cqEx, ExtendedPollVerbs.READ_SLID), fn(cqEx, ExtendedPollVerbs.READ_SL),
                fn(cqEx, ExtendedPollVerbs.READ_DLID_PATH_BITS), fn(cqEx, ExtendedPollVerbs.READ_COMPLETION_TS),
                fn(cqEx, ExtendedPollVerbs.READ_COMPLETION_WALLCLOCK_NS), fn(cqEx, ExtendedPollVerbs.READ_CVLAN),
                fn(cqEx, ExtendedPollVerbs.READ_FLOW_TAG), fn(cqEx, ExtendedPollVerbs.READ_TM_INFO));
    }

    private static MemorySegment fn(long cqEx, long offset) {
        return ExtendedPollVerbs.function(cqEx, offset);
    }
}
