// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_counter_attach_attr;
import dev.jrdma.bindings.generated.ibv_counters;
import dev.jrdma.bindings.generated.ibv_counters_init_attr;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.SteeringVerbs;
import dev.jrdma.internal.Unsupported;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A set of hardware counters ({@code struct ibv_counters}) that count the packets and bytes of
 * steering flows ({@link Flow}): each counter is attached at an index before the flow that
 * feeds it is created, then all are read at once. From {@link Context#createCounters()};
 * providers without counters (rxe) refuse it with {@link OperationNotSupportedException}.
 *
 * <p>{@link #toString()}: {@code counters on <device>}.
 */
@Reaches({"ibv_destroy_counters"})   // close() reaches them
public final class Counters extends NativeObject {
    /** What a counter counts ({@code enum ibv_counter_description}). */
    public enum Description {
        /** Packets. */
        PACKETS,
        /** Bytes. */
        BYTES
    }

    private final Context context;

    private Counters(Context context, MemorySegment handle) {
        super(handle, "counters on " + context.name(), context);
        this.context = context;
    }

    static Counters create(Context context) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(context)) {
            MemorySegment init = arena.allocate(ibv_counters_init_attr.layout());
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment counters = SteeringVerbs.ibv_create_counters(errno, context.handle(), init);
            RdmaException.checkCreated(Verb.IBV_CREATE_COUNTERS, context, errno, counters, context, "counters");
            return wrapCreated(counters, ibv_counters.layout(), h -> new Counters(context, h),
                    SteeringVerbs::ibv_destroy_counters);
        }
    }

    /**
     * Attaches a counter of {@code description} at {@code index}, to count the flows created
     * with these counters from now on ({@code ibv_attach_counters_point_flow} with no flow yet,
     * as the verbs require).
     *
     * @param description what the counter counts
     * @param index       its position in {@link #read}'s array
     */
    @Reaches({"ibv_attach_counters_point_flow"})
    public void attach(Description description, int index) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_counter_attach_attr.layout());
            ibv_counter_attach_attr.counter_desc(attr, description.ordinal());   // IBV_COUNTER_PACKETS = 0, _BYTES = 1
            ibv_counter_attach_attr.index(attr, index);
            enter();
            try {
                int rc = SteeringVerbs.ibv_attach_counters_point_flow(handle, attr, MemorySegment.NULL);
                if (rc != 0) {
                    throw RdmaException.of(Verb.IBV_ATTACH_COUNTERS_POINT_FLOW, this, rc,
                            Unsupported.detail(context, rc, "counters", description + " at index " + index));
                }
            } finally {
                exit();
            }
        }
    }

    /**
     * Reads the counters into {@code values} (one per attached index).
     *
     * @param values where the values go, index by index
     * @param sync   whether to read the device's current values ({@code IBV_READ_COUNTERS_ATTR_PREFER_CACHED} when false)
     */
    @Reaches({"ibv_read_counters"})
    public void read(long[] values, boolean sync) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG, Math.max(1, values.length));
            enter();
            try {
                int rc = SteeringVerbs.ibv_read_counters(handle, out, values.length, sync ? 0 : 1);
                RdmaException.check(Verb.IBV_READ_COUNTERS, this, rc, context, "counters");
            } finally {
                exit();
            }
            for (int i = 0; i < values.length; i++) {
                values[i] = out.getAtIndex(JAVA_LONG, i);
            }
        }
    }

    /** Destroys the counters; reaches {@code ibv_destroy_counters}. */
    @Override
    protected void release() {
        RdmaException.check(Verb.IBV_DESTROY_COUNTERS, this, SteeringVerbs.ibv_destroy_counters(handle));
    }
}
