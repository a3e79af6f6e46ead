// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_cq;
import dev.jrdma.bindings.generated.ibv_cq_ex;
import dev.jrdma.bindings.generated.ibv_cq_init_attr_ex;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ExtendedPollVerbs;
import dev.jrdma.bindings.shim.VerbsContextOps;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * An extended completion queue ({@code struct ibv_cq_ex}, from {@code ibv_create_cq_ex}):
 * completions are read field by field through the provider's {@code ibv_wc_read_*} functions,
 * only the {@link WorkCompletionField fields} chosen at creation, instead of being copied whole
 * into {@code struct ibv_wc}. From {@link Context#extendedCompletionQueue(int)}.
 *
 * <p>It is a completion queue too: {@link #asCompletionQueue()} ({@code ibv_cq_ex_to_cq}) is the
 * {@link CompletionQueue} to build queue pairs on, arm for events and hand to anything that
 * takes one; both objects are the one native CQ, and closing either closes both (and first the
 * queue pairs on it).
 *
 * <p>Two ways to read it, both allocation-free:
 * <ul>
 *   <li>{@link #poll(ExtendedCompletions)} reads a batch into a reusable view, running
 *       {@code ibv_start_poll}, {@code ibv_next_poll} and {@code ibv_end_poll} itself: the end
 *       that must follow every successful start cannot be forgotten.</li>
 *   <li>The raw loop for code that acts on each completion in place: {@link #startPoll()}, the
 *       readers ({@link #wrId()}, {@link #status()}, {@link #opcode()}, {@link #byteLength()},
 *       ...), {@link #nextPoll()}, and {@link #endPoll()} in a {@code finally} when startPoll
 *       returned true. The CQ stays locked (and cannot be destroyed) from start to end.</li>
 * </ul>
 *
 * <p>librxe before rdma-core 55 ends the poll inside a next_poll that finds nothing, and an
 * end_poll after it corrupts the queue (see {@code ExtendedPollVerbs.nextPollReleasesOnEmpty});
 * this class detects that provider when the queue is created and skips the native end_poll
 * there, so both ways follow the verbs contract on every provider.
 *
 * <p>Not thread-safe: poll from one thread. Closing from any thread is safe: a poll in progress
 * completes (close waits for an open raw loop to end) or throws IllegalStateException.
 */
public final class ExtendedCompletionQueue implements RdmaResource {
    private final CompletionQueue cq;
    private final long address;
    private final Set<WorkCompletionField> fields;
    private final long fieldMask;
    private final MemorySegment tmInfo;
    /** The provider's functions; package-private for ExtendedCompletions. */
    final ExtendedPollFunctions fn;
    /** The start, next and end poll, and the raw loop's state. */
    private final ExtendedPollLoop loop;

    private ExtendedCompletionQueue(CompletionQueue cq, MemorySegment cqEx, Set<WorkCompletionField> fields) {
        this.cq = cq;
        this.address = cqEx.address();
        this.fields = Collections.unmodifiableSet(fields.isEmpty() ? EnumSet.noneOf(WorkCompletionField.class)
                : EnumSet.copyOf(fields));
        this.fieldMask = WorkCompletionField.flags(fields);
        this.fn = ExtendedPollFunctions.of(address);
        this.loop = new ExtendedPollLoop(cq, address, fn);
        this.tmInfo = Arena.ofAuto().allocate(16, 8);   // struct ibv_wc_tm_info { uint64_t tag; uint32_t priv; }
    }

    /** Builds an extended completion queue; from {@link Context#extendedCompletionQueue(int)}. */
    public static final class Builder {
        private final Context context;
        private final int depth;
        private CompletionChannel channel;
        private int completionVector;
        private Set<WorkCompletionField> fields = WorkCompletionField.STANDARD;

        Builder(Context context, int depth) {
            if (depth < 1) {
                throw new IllegalArgumentException("a completion queue needs a depth of at least 1, not " + depth);
            }
            this.context = context;
            this.depth = depth;
        }

        /**
         * Chooses the fields completions report (default {@link WorkCompletionField#STANDARD});
         * status, wr_id, opcode, vendor error and completion flags are always there.
         *
         * @param fields the fields to read
         * @return this builder
         */
        public Builder fields(Set<WorkCompletionField> fields) {
            this.fields = Set.copyOf(fields);
            return this;
        }

        /**
         * Signals completions on {@code channel} once armed ({@link CompletionQueue#requestNotification}).
         *
         * @param channel a completion channel of the same context
         * @return this builder
         */
        public Builder channel(CompletionChannel channel) {
            if (channel.context() != context) {
                throw new IllegalArgumentException(channel + " belongs to another context than " + context);
            }
            this.channel = channel;
            return this;
        }

        /**
         * Steers the queue's events to one of the device's completion vectors (default 0); see
         * {@link Context#createCompletionQueue(int, CompletionChannel, int)}.
         *
         * @param completionVector the vector, from 0 to {@link Context#completionVectors()} - 1
         * @return this builder
         * @throws IllegalArgumentException when the device has no such vector
         */
        public Builder completionVector(int completionVector) {
            CompletionQueue.checkCompletionVector(context, completionVector);
            this.completionVector = completionVector;
            return this;
        }

        /**
         * Creates the queue ({@code ibv_create_cq_ex}).
         *
         * @return the queue, owned by the context
         * @throws OperationNotSupportedException when the provider cannot report a chosen field
         *                                        (librxe 44: anything beyond the standard seven)
         */
        @Reaches("ibv_create_cq_ex")
        public ExtendedCompletionQueue build() {
            return create(this);
        }
    }

    private static ExtendedCompletionQueue create(Builder b) {
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(b.context, b.channel)) {
            MemorySegment attr = arena.allocate(ibv_cq_init_attr_ex.layout());
            ibv_cq_init_attr_ex.cqe(attr, b.depth);
            ibv_cq_init_attr_ex.channel(attr, b.channel == null ? MemorySegment.NULL : b.channel.handle());
            ibv_cq_init_attr_ex.wc_flags(attr, WorkCompletionField.flags(b.fields));
            ibv_cq_init_attr_ex.comp_vector(attr, b.completionVector);
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment created = VerbsContextOps.ibv_create_cq_ex(errno, b.context.handle(), attr);
            if (created.address() == 0) {
                throw RdmaException.of(Verb.IBV_CREATE_CQ_EX, b.context, Errno.get(errno), "depth " + b.depth
                        + ", fields " + b.fields);
            }
            MemorySegment cqEx = created.reinterpret(ibv_cq_ex.layout().byteSize());
            CompletionQueue cq = NativeResource.wrapCreated(ExtendedPollVerbs.ibv_cq_ex_to_cq(cqEx), ibv_cq.layout(),
                    h -> CompletionQueue.adopt(b.context, b.channel, h), rdma_h::ibv_destroy_cq);
            try {
                return new ExtendedCompletionQueue(cq, cqEx, b.fields);
            } catch (RuntimeException e) {
                cq.close();
                throw e;
            }
        }
    }

    /**
     * {@return this queue as a {@link CompletionQueue}: the same native CQ, to build queue pairs
     * on, arm for events, or poll the classic way}
     */
    @Reaches("ibv_cq_ex_to_cq")
    public CompletionQueue asCompletionQueue() {
        return cq;
    }

    /** {@return the fields completions report} */
    public Set<WorkCompletionField> fields() {
        return fields;
    }

    /** {@return the number of completions the queue can hold} */
    public int capacity() {
        return cq.capacity();
    }

    /**
     * Reads up to {@code batch.capacity()} completions into {@code batch} (start, next and end
     * poll, and every chosen field of each); returns how many. Never blocks.
     *
     * @param batch the views to fill
     * @return the number of completions read, 0 when none
     */
    @Reaches({"ibv_start_poll", "ibv_next_poll", "ibv_end_poll"})
    public int poll(ExtendedCompletions batch) {
        return loop.poll(this, batch, fieldMask);
    }

    // ---- the raw loop ----------------------------------------------------------------------

    /**
     * Starts reading ({@code ibv_start_poll}): true with the first completion current, after
     * which {@link #endPoll()} must follow (the queue stays locked until then); false when the
     * queue is empty (nothing to end).
     *
     * @return whether a completion is current
     */
    @Reaches("ibv_start_poll")
    public boolean startPoll() {
        return loop.start();
    }

    /**
     * Moves to the next completion ({@code ibv_next_poll}).
     *
     * @return whether there was one; false leaves none current (still call {@link #endPoll()})
     */
    @Reaches("ibv_next_poll")
    public boolean nextPoll() {
        return loop.next();
    }

    /** Ends the reading that {@link #startPoll()} began ({@code ibv_end_poll}): consumes the completions read and unlocks the queue. */
    @Reaches("ibv_end_poll")
    public void endPoll() {
        loop.end();
    }

    /** {@return the current completion's work request id} */
    public long wrId() {
        loop.requireCurrent();
        return ExtendedPollVerbs.wrId(address);
    }

    /** {@return the current completion's status} */
    public WorkCompletionStatus status() {
        loop.requireCurrent();
        return WorkCompletionStatus.of(ExtendedPollVerbs.status(address));
    }

    /** {@return what the current completion's work request did} */
    @Reaches("ibv_wc_read_opcode")
    public WorkCompletionOpcode opcode() {
        loop.requireCurrent();
        return WorkCompletionOpcode.of(ExtendedPollVerbs.readInt(fn.opcode(), address));
    }

    /** {@return the provider's error detail of the current completion} */
    @Reaches("ibv_wc_read_vendor_err")
    public int vendorError() {
        loop.requireCurrent();
        return ExtendedPollVerbs.readInt(fn.vendorErr(), address);
    }

    /** {@return the current completion's {@code ibv_wc_flags} (IBV_WC_GRH 1, WITH_IMM 2, IP_CSUM_OK 4, WITH_INV 8, TM 16...)} */
    @Reaches("ibv_wc_read_wc_flags")
    public int completionFlags() {
        loop.requireCurrent();
        return ExtendedPollVerbs.readInt(fn.wcFlags(), address);
    }

    /** {@return the bytes received or read ({@link WorkCompletionField#BYTE_LEN})} */
    @Reaches("ibv_wc_read_byte_len")
    public int byteLength() {
        return readInt(fn.byteLen(), WorkCompletionField.BYTE_LEN);
    }

    /** {@return the immediate data, host order ({@link WorkCompletionField#IMMEDIATE})} */
    @Reaches("ibv_wc_read_imm_data")
    public int immediateData() {
        return Integer.reverseBytes(readInt(fn.imm(), WorkCompletionField.IMMEDIATE));
    }

    /** {@return the rkey a SEND with invalidate invalidated ({@link WorkCompletionField#IMMEDIATE}: one union)} */
    @Reaches("ibv_wc_read_invalidated_rkey")
    public int invalidatedRkey() {
        return readInt(fn.imm(), WorkCompletionField.IMMEDIATE);
    }

    /** {@return the local queue pair number ({@link WorkCompletionField#QP_NUMBER})} */
    @Reaches("ibv_wc_read_qp_num")
    public int qpNumber() {
        return readInt(fn.qpNum(), WorkCompletionField.QP_NUMBER);
    }

    /** {@return the sender's queue pair number of a UD receive ({@link WorkCompletionField#SOURCE_QP})} */
    @Reaches("ibv_wc_read_src_qp")
    public int sourceQpNumber() {
        return readInt(fn.srcQp(), WorkCompletionField.SOURCE_QP);
    }

    /** {@return the sender's LID ({@link WorkCompletionField#SLID}; 0 on RoCE)} */
    @Reaches("ibv_wc_read_slid")
    public int sourceLid() {
        return readInt(fn.slid(), WorkCompletionField.SLID);
    }

    /** {@return the service level ({@link WorkCompletionField#SL})} */
    @Reaches("ibv_wc_read_sl")
    public int serviceLevel() {
        requireField(fn.sl(), WorkCompletionField.SL);
        return ExtendedPollVerbs.readByte(fn.sl(), address);
    }

    /** {@return the destination LID path bits ({@link WorkCompletionField#DLID_PATH_BITS})} */
    @Reaches("ibv_wc_read_dlid_path_bits")
    public int dlidPathBits() {
        requireField(fn.dlidPathBits(), WorkCompletionField.DLID_PATH_BITS);
        return ExtendedPollVerbs.readByte(fn.dlidPathBits(), address);
    }

    /** {@return the device clock at completion ({@link WorkCompletionField#COMPLETION_TIMESTAMP})} */
    @Reaches("ibv_wc_read_completion_ts")
    public long completionTimestamp() {
        requireField(fn.timestamp(), WorkCompletionField.COMPLETION_TIMESTAMP);
        return ExtendedPollVerbs.readLong(fn.timestamp(), address);
    }

    /** {@return the wall clock at completion, ns ({@link WorkCompletionField#COMPLETION_TIMESTAMP_WALLCLOCK})} */
    @Reaches("ibv_wc_read_completion_wallclock_ns")
    public long completionWallclockNanos() {
        requireField(fn.wallclock(), WorkCompletionField.COMPLETION_TIMESTAMP_WALLCLOCK);
        return ExtendedPollVerbs.readLong(fn.wallclock(), address);
    }

    /** {@return the stripped customer VLAN tag ({@link WorkCompletionField#CVLAN})} */
    @Reaches("ibv_wc_read_cvlan")
    public int cvlan() {
        requireField(fn.cvlan(), WorkCompletionField.CVLAN);
        return ExtendedPollVerbs.readShort(fn.cvlan(), address);
    }

    /** {@return the flow steering tag ({@link WorkCompletionField#FLOW_TAG})} */
    @Reaches("ibv_wc_read_flow_tag")
    public int flowTag() {
        return readInt(fn.flowTag(), WorkCompletionField.FLOW_TAG);
    }

    /** {@return the tag-matching tag of the current completion ({@link WorkCompletionField#TM_INFO})} */
    @Reaches("ibv_wc_read_tm_info")
    public long tagMatchingTag() {
        requireField(fn.tmInfo(), WorkCompletionField.TM_INFO);
        ExtendedPollVerbs.readTmInfo(fn.tmInfo(), address, tmInfo.address());
        return tmInfo.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0);
    }

    private int readInt(MemorySegment fn, WorkCompletionField field) {
        requireField(fn, field);
        return ExtendedPollVerbs.readInt(fn, address);
    }

    private void requireField(MemorySegment fn, WorkCompletionField field) {
        loop.requireCurrent();
        if (fn.address() == 0) {
            throw new IllegalStateException(cq + " reports " + fields + ", not " + field
                    + " (choose it when building the queue)");
        }
    }

    /** The {@code struct ibv_cq_ex}, for the batch reader. */
    long address() {
        return address;
    }

    // ---- control path ------------------------------------------------------------------------

    /**
     * Sets completion moderation ({@code ibv_modify_cq}): an event after {@code count}
     * completions or {@code periodMicros} microseconds, whichever comes first.
     *
     * @param count        completions per event (16 bits)
     * @param periodMicros microseconds per event (16 bits)
     * @throws OperationNotSupportedException when the provider has no moderation (librxe 44)
     */
    @Reaches("ibv_modify_cq")
    public void moderate(int count, int periodMicros) {
        cq.moderate(count, periodMicros);
    }

    /**
     * Changes the queue's size ({@code ibv_resize_cq}); see {@link CompletionQueue#resize(int)}.
     *
     * @param depth the completions the queue must hold
     */
    @Reaches("ibv_resize_cq")
    public void resize(int depth) {
        cq.resize(depth);
    }

    @Override
    public boolean isClosed() {
        return cq.isClosed();
    }

    /** Closes the queue pairs on this queue, then the queue ({@code ibv_destroy_cq}); as closing {@link #asCompletionQueue()}. */
    @Override
    @Reaches("ibv_destroy_cq")
    public void close() {
        cq.close();
    }

    @Override
    public String toString() {
        return "extended " + cq;
    }
}
