// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.jrdma.bindings.generated.ibv_rwq_ind_table;
import dev.jrdma.bindings.generated.ibv_rwq_ind_table_init_attr;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.SteeringVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A receive work queue indirection table ({@code struct ibv_rwq_ind_table}): the table an RSS
 * queue pair hashes incoming packets into, each entry a {@link WorkQueue}. From
 * {@link Context#createIndirectionTable(List)}; providers without RSS (rxe, whose
 * {@link DeviceAttributes#rss()} is empty) refuse it with {@link OperationNotSupportedException}.
 *
 * <p>{@link #toString()}: {@code RWQ indirection table <n> on <device>}.
 */
@Reaches({"ibv_destroy_rwq_ind_table"})   // close() reaches them
public final class RwqIndirectionTable extends NativeObject {
    private RwqIndirectionTable(Context context, MemorySegment handle, List<WorkQueue> queues) {
        super(handle, "RWQ indirection table " + ibv_rwq_ind_table.ind_tbl_num(handle) + " on " + context.name(),
                owners(context, queues));
    }

    private static NativeResource[] owners(Context context, List<WorkQueue> queues) {
        NativeResource[] owners = new NativeResource[queues.size() + 1];
        owners[0] = context;
        for (int i = 0; i < queues.size(); i++) {
            owners[i + 1] = queues.get(i);
        }
        return owners;
    }

    static RwqIndirectionTable create(Context context, List<WorkQueue> queues) {
        int size = queues.size();
        if (size == 0 || Integer.bitCount(size) != 1) {
            throw new IllegalArgumentException("an indirection table has a power-of-two number of work queues, not "
                    + size);
        }
        try (Arena arena = Arena.ofConfined(); var _ = hold(queues.toArray(NativeResource[]::new))) {
            MemorySegment table = arena.allocate(ADDRESS, size);
            for (int i = 0; i < size; i++) {
                table.setAtIndex(ADDRESS, i, queues.get(i).handle());
            }
            MemorySegment init = arena.allocate(ibv_rwq_ind_table_init_attr.layout());
            ibv_rwq_ind_table_init_attr.log_ind_tbl_size(init, Integer.numberOfTrailingZeros(size));
            ibv_rwq_ind_table_init_attr.ind_tbl(init, table);
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment created;
            try (var _ = hold(context)) {
                created = SteeringVerbs.ibv_create_rwq_ind_table(errno, context.handle(), init);
            }
            RdmaException.checkCreated(Verb.IBV_CREATE_RWQ_IND_TABLE, context + ", " + size + " work queues", errno, created,
                    context, "receive-side scaling (RWQ indirection tables)");
            return wrapCreated(created, ibv_rwq_ind_table.layout(), h -> new RwqIndirectionTable(context, h, queues),
                    SteeringVerbs::ibv_destroy_rwq_ind_table);
        }
    }

    /** Destroys the table; reaches {@code ibv_destroy_rwq_ind_table}. */
    @Override
    protected void release() {
        RdmaException.check(Verb.IBV_DESTROY_RWQ_IND_TABLE, this, SteeringVerbs.ibv_destroy_rwq_ind_table(handle));
    }
}
