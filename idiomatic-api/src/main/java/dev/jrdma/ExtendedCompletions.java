// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.shim.ExtendedPollVerbs;

/**
 * A reusable batch of completions read from an {@link ExtendedCompletionQueue} by
 * {@link ExtendedCompletionQueue#poll(ExtendedCompletions)}: the fields of each completion
 * copied into Java arrays, so that reading them after the poll has ended costs no native call
 * and creating nothing per poll. Index {@code i} runs from 0 to {@link #count()}; a field the
 * queue was not created with throws {@link IllegalStateException}. Not thread-safe.
 */
public final class ExtendedCompletions {
    private final long[] wrId;
    private final int[] status;
    private final int[] opcode;
    private final int[] vendorError;
    private final int[] flags;
    private final int[] byteLength;
    private final int[] immediate;
    private final int[] qpNumber;
    private final int[] sourceQp;
    private final int[] sourceLid;
    private final int[] serviceLevel;
    private final int[] dlidPathBits;
    private final long[] timestamp;
    private final long[] wallclock;
    private final int[] cvlan;
    private final int[] flowTag;
    private int count;
    /** The wc_flags of the queue the last poll read. */
    private long fieldMask;

    /**
     * Creates a batch with room for {@code capacity} completions.
     *
     * @param capacity the most completions one poll reads
     */
    public ExtendedCompletions(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a batch holds at least 1 completion, not " + capacity);
        }
        wrId = new long[capacity];
        status = new int[capacity];
        opcode = new int[capacity];
        vendorError = new int[capacity];
        flags = new int[capacity];
        byteLength = new int[capacity];
        immediate = new int[capacity];
        qpNumber = new int[capacity];
        sourceQp = new int[capacity];
        sourceLid = new int[capacity];
        serviceLevel = new int[capacity];
        dlidPathBits = new int[capacity];
        timestamp = new long[capacity];
        wallclock = new long[capacity];
        cvlan = new int[capacity];
        flowTag = new int[capacity];
    }

    /** Reads the current completion of {@code q}, which is inside start/end poll, into entry {@code i}. */
    void read(ExtendedCompletionQueue q, int i) {
        long cq = q.address();
        wrId[i] = ExtendedPollVerbs.wrId(cq);
        status[i] = ExtendedPollVerbs.status(cq);
        opcode[i] = ExtendedPollVerbs.readInt(q.fn.opcode(), cq);
        vendorError[i] = ExtendedPollVerbs.readInt(q.fn.vendorErr(), cq);
        flags[i] = ExtendedPollVerbs.readInt(q.fn.wcFlags(), cq);
        if (q.fn.byteLen().address() != 0) {
            byteLength[i] = ExtendedPollVerbs.readInt(q.fn.byteLen(), cq);
        }
        if (q.fn.imm().address() != 0) {
            immediate[i] = ExtendedPollVerbs.readInt(q.fn.imm(), cq);
        }
        if (q.fn.qpNum().address() != 0) {
            qpNumber[i] = ExtendedPollVerbs.readInt(q.fn.qpNum(), cq);
        }
        if (q.fn.srcQp().address() != 0) {
            sourceQp[i] = ExtendedPollVerbs.readInt(q.fn.srcQp(), cq);
        }
        if (q.fn.slid().address() != 0) {
            sourceLid[i] = ExtendedPollVerbs.readInt(q.fn.slid(), cq);
        }
        if (q.fn.sl().address() != 0) {
            serviceLevel[i] = ExtendedPollVerbs.readByte(q.fn.sl(), cq);
        }
        if (q.fn.dlidPathBits().address() != 0) {
            dlidPathBits[i] = ExtendedPollVerbs.readByte(q.fn.dlidPathBits(), cq);
        }
        if (q.fn.timestamp().address() != 0) {
            timestamp[i] = ExtendedPollVerbs.readLong(q.fn.timestamp(), cq);
        }
        if (q.fn.wallclock().address() != 0) {
            wallclock[i] = ExtendedPollVerbs.readLong(q.fn.wallclock(), cq);
        }
        if (q.fn.cvlan().address() != 0) {
            cvlan[i] = ExtendedPollVerbs.readShort(q.fn.cvlan(), cq);
        }
        if (q.fn.flowTag().address() != 0) {
            flowTag[i] = ExtendedPollVerbs.readInt(q.fn.flowTag(), cq);
        }
    }

    void count(int count, long fieldMask) {
        this.count = count;
        this.fieldMask = fieldMask;
    }

    /** {@return the completions the last poll read} */
    public int count() {
        return count;
    }

    /** {@return the most completions one poll reads} */
    public int capacity() {
        return wrId.length;
    }

    /**
     * {@return its work request id}
     *
     * @param i the completion, below {@link #count()}
     */
    public long wrId(int i) {
        return wrId[index(i)];
    }

    /**
     * {@return its status}
     *
     * @param i the completion
     */
    public WorkCompletionStatus status(int i) {
        return WorkCompletionStatus.of(status[index(i)]);
    }

    /**
     * {@return whether it succeeded}
     *
     * @param i the completion
     */
    public boolean isSuccess(int i) {
        return status[index(i)] == 0;
    }

    /**
     * Throws {@link WorkCompletionException} unless completion {@code i} succeeded.
     *
     * @param i the completion
     * @return this batch
     */
    public ExtendedCompletions checkSuccess(int i) {
        if (!isSuccess(i)) {
            throw new WorkCompletionException(status(i), wrId[i], qpNumber[i], vendorError[i]);
        }
        return this;
    }

    /**
     * {@return what its work request did ({@code ibv_wc_read_opcode})}
     *
     * @param i the completion
     */
    public WorkCompletionOpcode opcode(int i) {
        return WorkCompletionOpcode.of(opcode[index(i)]);
    }

    /**
     * {@return the provider's error detail ({@code ibv_wc_read_vendor_err})}
     *
     * @param i the completion
     */
    public int vendorError(int i) {
        return vendorError[index(i)];
    }

    /**
     * {@return its {@code ibv_wc_flags} ({@code ibv_wc_read_wc_flags})}
     *
     * @param i the completion
     */
    public int completionFlags(int i) {
        return flags[index(i)];
    }

    /**
     * {@return the bytes received or read}
     *
     * @param i the completion
     */
    public int byteLength(int i) {
        return field(byteLength, i, WorkCompletionField.BYTE_LEN);
    }

    /**
     * {@return the immediate data, host order}
     *
     * @param i the completion
     */
    public int immediateData(int i) {
        return Integer.reverseBytes(field(immediate, i, WorkCompletionField.IMMEDIATE));
    }

    /**
     * {@return the rkey its SEND with invalidate invalidated}
     *
     * @param i the completion
     */
    public int invalidatedRkey(int i) {
        return field(immediate, i, WorkCompletionField.IMMEDIATE);
    }

    /**
     * {@return the local queue pair number}
     *
     * @param i the completion
     */
    public int qpNumber(int i) {
        return field(qpNumber, i, WorkCompletionField.QP_NUMBER);
    }

    /**
     * {@return the sender's queue pair number (UD)}
     *
     * @param i the completion
     */
    public int sourceQpNumber(int i) {
        return field(sourceQp, i, WorkCompletionField.SOURCE_QP);
    }

    /**
     * {@return the sender's LID}
     *
     * @param i the completion
     */
    public int sourceLid(int i) {
        return field(sourceLid, i, WorkCompletionField.SLID);
    }

    /**
     * {@return the service level}
     *
     * @param i the completion
     */
    public int serviceLevel(int i) {
        return field(serviceLevel, i, WorkCompletionField.SL);
    }

    /**
     * {@return the destination LID path bits}
     *
     * @param i the completion
     */
    public int dlidPathBits(int i) {
        return field(dlidPathBits, i, WorkCompletionField.DLID_PATH_BITS);
    }

    /**
     * {@return the device clock at completion}
     *
     * @param i the completion
     */
    public long completionTimestamp(int i) {
        requireField(WorkCompletionField.COMPLETION_TIMESTAMP);
        return timestamp[index(i)];
    }

    /**
     * {@return the wall clock at completion, ns}
     *
     * @param i the completion
     */
    public long completionWallclockNanos(int i) {
        requireField(WorkCompletionField.COMPLETION_TIMESTAMP_WALLCLOCK);
        return wallclock[index(i)];
    }

    /**
     * {@return the stripped customer VLAN tag}
     *
     * @param i the completion
     */
    public int cvlan(int i) {
        return field(cvlan, i, WorkCompletionField.CVLAN);
    }

    /**
     * {@return the flow steering tag}
     *
     * @param i the completion
     */
    public int flowTag(int i) {
        return field(flowTag, i, WorkCompletionField.FLOW_TAG);
    }

    private int field(int[] values, int i, WorkCompletionField field) {
        requireField(field);
        return values[index(i)];
    }

    private void requireField(WorkCompletionField field) {
        if ((fieldMask & field.bit()) == 0) {
            throw new IllegalStateException("the queue this batch was read from does not report " + field);
        }
    }

    private int index(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("completion " + i + " of " + count);
        }
        return i;
    }
}
