// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static dev.jrdma.bindings.shim.ExtensionVerbs.field;
import static dev.jrdma.bindings.shim.ExtensionVerbs.plain;
import static dev.jrdma.bindings.shim.VerbsContextOps.create;
import static dev.jrdma.bindings.shim.VerbsContextOps.destroy;
import static dev.jrdma.bindings.shim.VerbsContextOps.modify;
import static dev.jrdma.bindings.shim.VerbsContextOps.objectOp;
import static dev.jrdma.bindings.shim.VerbsContextOps.op;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.jrdma.bindings.generated.ibv_counters;
import dev.jrdma.bindings.generated.ibv_flow;
import dev.jrdma.bindings.generated.ibv_flow_action;
import dev.jrdma.bindings.generated.ibv_qp;
import dev.jrdma.bindings.generated.ibv_rwq_ind_table;
import dev.jrdma.bindings.generated.ibv_wq;
import dev.jrdma.bindings.generated.ibv_wq_init_attr;
import dev.jrdma.bindings.generated.verbs_context;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The {@code static inline} verbs of {@code infiniband/verbs.h} (rdma-core 44) for steering
 * received traffic: flows and flow actions, counters, work queues and receive work queue
 * indirection tables (RSS). They dispatch through {@code struct verbs_context} ops exactly as
 * {@link ExtensionVerbs} describes; {@code ibv_post_wq_recv} through the function the provider
 * stores in the WQ.
 */
public final class SteeringVerbs {
    private SteeringVerbs() {}

    // ---- counters ------------------------------------------------------------------------------
    private static final class Counters {
        static final long CREATE = verbs_context.create_counters$offset();
        static final long DESTROY = verbs_context.destroy_counters$offset();
        static final long ATTACH = verbs_context.attach_counters_point_flow$offset();
        static final long READ = verbs_context.read_counters$offset();
        static final MethodHandle ATTACH_MH = plain(verbs_context.attach_counters_point_flow.descriptor());
        static final MethodHandle READ_MH = plain(verbs_context.read_counters.descriptor());
        static final long CONTEXT = ibv_counters.context$offset();
    }

    /** {@code ibv_create_counters}: the op; NULL with errno EOPNOTSUPP without it. */
    public static MemorySegment ibv_create_counters(MemorySegment errno, MemorySegment context, MemorySegment initAttr) {
        return create(op(context, Counters.CREATE), errno, context, initAttr);
    }

    /** {@code ibv_destroy_counters}: 0 or an errno value (EOPNOTSUPP without the op). */
    public static int ibv_destroy_counters(MemorySegment counters) {
        return destroy(objectOp(counters, Counters.CONTEXT, Counters.DESTROY, "counters"), counters);
    }

    /** {@code ibv_attach_counters_point_flow}: 0 or an errno value (EOPNOTSUPP without the op). */
    public static int ibv_attach_counters_point_flow(MemorySegment counters, MemorySegment attr, MemorySegment flow) {
        long fn = objectOp(counters, Counters.CONTEXT, Counters.ATTACH, "counters");
        if (fn == 0) {
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) Counters.ATTACH_MH.invokeExact(MemorySegment.ofAddress(fn), counters, attr, flow);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_read_counters}: fills {@code values} (ncounters uint64_t); 0 or an errno value. */
    public static int ibv_read_counters(MemorySegment counters, MemorySegment values, int ncounters, int flags) {
        long fn = objectOp(counters, Counters.CONTEXT, Counters.READ, "counters");
        if (fn == 0) {
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) Counters.READ_MH.invokeExact(MemorySegment.ofAddress(fn), counters, values, ncounters, flags);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    // ---- flows and flow actions ----------------------------------------------------------------
    private static final class Flows {
        static final long CREATE = verbs_context.ibv_create_flow$offset();
        static final long DESTROY = verbs_context.ibv_destroy_flow$offset();
        static final long CREATE_ESP = verbs_context.create_flow_action_esp$offset();
        static final long MODIFY_ESP = verbs_context.modify_flow_action_esp$offset();
        static final long DESTROY_ACTION = verbs_context.destroy_flow_action$offset();
    }

    /** {@code ibv_create_flow}: the op of {@code qp}'s context; NULL with errno EOPNOTSUPP without it. */
    public static MemorySegment ibv_create_flow(MemorySegment errno, MemorySegment qp, MemorySegment flowAttr) {
        return create(objectOp(qp, ibv_qp.context$offset(), Flows.CREATE, "qp"), errno, qp, flowAttr);
    }

    /** {@code ibv_destroy_flow}: 0 or an errno value (EOPNOTSUPP without the op). */
    public static int ibv_destroy_flow(MemorySegment flow) {
        return destroy(objectOp(flow, ibv_flow.context$offset(), Flows.DESTROY, "flow"), flow);
    }

    /** {@code ibv_create_flow_action_esp}: the op; NULL with errno EOPNOTSUPP without it. */
    public static MemorySegment ibv_create_flow_action_esp(MemorySegment errno, MemorySegment context, MemorySegment esp) {
        return create(op(context, Flows.CREATE_ESP), errno, context, esp);
    }

    /** {@code ibv_modify_flow_action_esp}: 0 or an errno value (EOPNOTSUPP without the op). */
    public static int ibv_modify_flow_action_esp(MemorySegment action, MemorySegment esp) {
        return modify(objectOp(action, ibv_flow_action.context$offset(), Flows.MODIFY_ESP, "action"), action, esp);
    }

    /** {@code ibv_destroy_flow_action}: 0 or an errno value (EOPNOTSUPP without the op). */
    public static int ibv_destroy_flow_action(MemorySegment action) {
        return destroy(objectOp(action, ibv_flow_action.context$offset(), Flows.DESTROY_ACTION, "action"), action);
    }

    // ---- work queues and indirection tables ----------------------------------------------------
    private static final class WorkQueues {
        static final long CREATE = verbs_context.create_wq$offset();
        static final long MODIFY = verbs_context.modify_wq$offset();
        static final long DESTROY = verbs_context.destroy_wq$offset();
        static final long CREATE_TABLE = verbs_context.create_rwq_ind_table$offset();
        static final long DESTROY_TABLE = verbs_context.destroy_rwq_ind_table$offset();
        static final MethodHandle POST_RECV_MH = plain(ibv_wq.post_recv.descriptor());
        static final long CONTEXT = ibv_wq.context$offset();
        // The C inline initialises the WQ's event mutex and condition after the op returns.
        static final FunctionDescriptor INIT = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle MUTEX_INIT = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().find("pthread_mutex_init").orElseThrow(), INIT);
        static final MethodHandle COND_INIT = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().find("pthread_cond_init").orElseThrow(), INIT);
    }

    /**
     * {@code ibv_create_wq}: the op; NULL with errno EOPNOTSUPP without it. On success, as in C,
     * copies {@code wq_context} from the attributes, zeroes {@code events_completed} and
     * initialises the WQ's mutex and condition variable.
     */
    public static MemorySegment ibv_create_wq(MemorySegment errno, MemorySegment context, MemorySegment initAttr) {
        MemorySegment wq = create(op(context, WorkQueues.CREATE), errno, context, initAttr);
        if (wq.address() != 0) {
            MemorySegment w = wq.reinterpret(ibv_wq.layout().byteSize());
            ibv_wq.wq_context(w, ibv_wq_init_attr.wq_context(initAttr.reinterpret(ibv_wq_init_attr.layout().byteSize())));
            ibv_wq.events_completed(w, 0);
            try {
                int unused = (int) WorkQueues.MUTEX_INIT.invokeExact(ibv_wq.mutex(w), MemorySegment.NULL);
                unused = (int) WorkQueues.COND_INIT.invokeExact(ibv_wq.cond(w), MemorySegment.NULL);
            } catch (Throwable t) {
                throw ErrnoVerbs.rethrow(t);
            }
        }
        return wq;
    }

    /** {@code ibv_modify_wq}: 0 or an errno value (EOPNOTSUPP without the op). */
    public static int ibv_modify_wq(MemorySegment wq, MemorySegment attr) {
        return modify(objectOp(wq, WorkQueues.CONTEXT, WorkQueues.MODIFY, "wq"), wq, attr);
    }

    /** {@code ibv_destroy_wq}: 0 or an errno value (EOPNOTSUPP without the op). */
    public static int ibv_destroy_wq(MemorySegment wq) {
        return destroy(objectOp(wq, WorkQueues.CONTEXT, WorkQueues.DESTROY, "wq"), wq);
    }

    /** {@code ibv_post_wq_recv}: {@code wq->post_recv(wq, wr, bad_wr)}; 0 or an errno value (EOPNOTSUPP if NULL). */
    public static int ibv_post_wq_recv(MemorySegment wq, MemorySegment recvWr, MemorySegment badRecvWr) {
        long fn = field(wq, ibv_wq.post_recv$offset(), "wq");
        if (fn == 0) {
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) WorkQueues.POST_RECV_MH.invokeExact(MemorySegment.ofAddress(fn), wq, recvWr, badRecvWr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_create_rwq_ind_table}: the op; NULL with errno EOPNOTSUPP without it. */
    public static MemorySegment ibv_create_rwq_ind_table(MemorySegment errno, MemorySegment context, MemorySegment initAttr) {
        return create(op(context, WorkQueues.CREATE_TABLE), errno, context, initAttr);
    }

    /** {@code ibv_destroy_rwq_ind_table}: 0 or an errno value (EOPNOTSUPP without the op). */
    public static int ibv_destroy_rwq_ind_table(MemorySegment table) {
        return destroy(objectOp(table, ibv_rwq_ind_table.context$offset(), WorkQueues.DESTROY_TABLE, "rwq_ind_table"), table);
    }
}
