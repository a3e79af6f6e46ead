// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ib_uverbs_flow_action_esp;
import dev.jrdma.bindings.generated.ibv_flow_action;
import dev.jrdma.bindings.generated.ibv_flow_action_esp_attr;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.SteeringVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An IPsec ESP flow action ({@code struct ibv_flow_action}): crypto offload a flow applies to
 * the packets it matches. From {@link Context#createEspFlowAction(Esp)}; providers without
 * IPsec offload (rxe) refuse it with {@link OperationNotSupportedException}.
 *
 * <p>{@link #toString()}: {@code ESP flow action spi 0x.. on <device>}.
 */
@Reaches({"ibv_destroy_flow_action"})   // close() reaches them
public final class EspFlowAction extends NativeObject {
    /**
     * The security association.
     *
     * @param spi   the security parameter index
     * @param seq   the initial sequence number
     * @param flags {@code enum ib_uverbs_flow_action_esp_flags} (inline crypto, encrypt/decrypt, ...)
     */
    public record Esp(int spi, int seq, int flags) {}

    private final Context context;

    private EspFlowAction(Context context, MemorySegment handle, Esp esp) {
        super(handle, "ESP flow action spi 0x" + Integer.toHexString(esp.spi()) + " on " + context.name(), context);
        this.context = context;
    }

    private static MemorySegment attributes(Arena arena, Esp esp) {
        MemorySegment attr = arena.allocate(ibv_flow_action_esp_attr.layout());
        MemorySegment sa = arena.allocate(ib_uverbs_flow_action_esp.layout());
        ib_uverbs_flow_action_esp.spi(sa, esp.spi());
        ib_uverbs_flow_action_esp.seq(sa, esp.seq());
        ib_uverbs_flow_action_esp.flags(sa, esp.flags());
        ibv_flow_action_esp_attr.esp_attr(attr, sa);
        return attr;
    }

    static EspFlowAction create(Context context, Esp esp) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(context)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment action = SteeringVerbs.ibv_create_flow_action_esp(errno, context.handle(), attributes(arena, esp));
            RdmaException.checkCreated(Verb.IBV_CREATE_FLOW_ACTION_ESP, context, errno, action,
                    context, "ESP flow actions (IPsec offload)");
            return wrapCreated(action, ibv_flow_action.layout(), h -> new EspFlowAction(context, h, esp),
                    SteeringVerbs::ibv_destroy_flow_action);
        }
    }

    /**
     * Changes the security association (e.g. a new sequence number after rekeying).
     *
     * @param esp the new values
     */
    @Reaches({"ibv_modify_flow_action_esp"})
    public void modify(Esp esp) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = attributes(arena, esp);
            enter();
            try {
                int rc = SteeringVerbs.ibv_modify_flow_action_esp(handle, attr);
                RdmaException.check(Verb.IBV_MODIFY_FLOW_ACTION_ESP, this, rc,
                        context, "ESP flow actions (IPsec offload)");
            } finally {
                exit();
            }
        }
    }

    /** Destroys the action; reaches {@code ibv_destroy_flow_action}. */
    @Override
    protected void release() {
        RdmaException.check(Verb.IBV_DESTROY_FLOW_ACTION, this, SteeringVerbs.ibv_destroy_flow_action(handle));
    }
}
