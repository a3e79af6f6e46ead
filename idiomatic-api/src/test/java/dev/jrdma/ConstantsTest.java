// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static dev.jrdma.bindings.generated.rdma_h.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.generated.rdma_h;
import java.util.EnumSet;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The enums carry the C values of verbs.h (checked against the generated constants). */
class ConstantsTest {
    /**
     * An enum that mirrors a C enum or flag set: each constant {@code X} is the header's
     * {@code prefix + X} (or {@code prefix + cNames.get(X)} where the Java name says more),
     * except an {@code UNKNOWN} the header does not name.
     *
     * @param of the lookup from a C value back to the constant; null for flag sets, whose
     *           {@code of} reads a word of flags
     */
    record Mirrored<E extends Enum<E>>(Class<E> type, String prefix, ToIntFunction<E> value, IntFunction<E> of,
                                       Map<String, String> cNames) {
        @Override
        public String toString() {
            return type.getSimpleName();
        }
    }

    static Stream<Mirrored<?>> mirroredEnums() {
        return Stream.of(
                new Mirrored<>(Access.class, "IBV_ACCESS_", Access::bit, null, Map.of()),
                new Mirrored<>(SendOp.class, "IBV_QP_EX_WITH_", SendOp::bit, null, Map.of()),
                new Mirrored<>(WorkCompletionField.class, "IBV_WC_EX_WITH_", WorkCompletionField::bit, null,
                        Map.of("IMMEDIATE", "IMM", "QP_NUMBER", "QP_NUM", "SOURCE_QP", "SRC_QP")),
                new Mirrored<>(QpAttribute.class, "IBV_QP_", a -> a.bit, null, Map.of()),
                new Mirrored<>(WorkCompletionStatus.class, "IBV_WC_", WorkCompletionStatus::value,
                        WorkCompletionStatus::of, Map.of()),
                new Mirrored<>(WorkCompletionOpcode.class, "IBV_WC_", WorkCompletionOpcode::value,
                        WorkCompletionOpcode::of, Map.of()),
                new Mirrored<>(SendOpcode.class, "IBV_WR_", SendOpcode::value, null, Map.of()),
                new Mirrored<>(MemoryWindowType.class, "IBV_MW_", MemoryWindowType::value, MemoryWindowType::of,
                        Map.of()),
                new Mirrored<>(QueuePairType.class, "IBV_QPT_", QueuePairType::value, QueuePairType::of, Map.of()),
                new Mirrored<>(QueuePairState.class, "IBV_QPS_", QueuePairState::value, QueuePairState::of, Map.of()),
                new Mirrored<>(AsyncEventType.class, "IBV_EVENT_", Enum::ordinal, AsyncEventType::of, Map.of()),
                new Mirrored<>(NodeType.class, "IBV_NODE_", NodeType::value, NodeType::of, Map.of()),
                new Mirrored<>(TransportType.class, "IBV_TRANSPORT_", TransportType::value, TransportType::of,
                        Map.of()),
                new Mirrored<>(PortState.class, "IBV_PORT_", PortState::value, PortState::of, Map.of()),
                new Mirrored<>(LinkLayer.class, "IBV_LINK_LAYER_", LinkLayer::value, LinkLayer::of, Map.of()),
                new Mirrored<>(GidType.class, "IBV_GID_TYPE_", GidType::value, GidType::of, Map.of()),
                new Mirrored<>(AtomicCapability.class, "IBV_ATOMIC_", AtomicCapability::value, AtomicCapability::of,
                        Map.of()),
                new Mirrored<>(Mtu.class, "IBV_", Mtu::value, Mtu::of, Map.of()));
    }

    @ParameterizedTest
    @MethodSource("mirroredEnums")
    <E extends Enum<E>> void everyConstantIsItsHeadersValue(Mirrored<E> mirrored) throws ReflectiveOperationException {
        for (E constant : mirrored.type().getEnumConstants()) {
            String cName = mirrored.prefix() + mirrored.cNames().getOrDefault(constant.name(), constant.name());
            int c;
            try {
                c = ((Number) rdma_h.class.getMethod(cName).invoke(null)).intValue();
            } catch (NoSuchMethodException notInHeader) {
                assertEquals("UNKNOWN", constant.name(), cName + " is not in the generated header");
                continue;
            }
            assertEquals(c, mirrored.value().applyAsInt(constant), mirrored + "." + constant);
            if (mirrored.of() != null) {
                assertSame(constant, mirrored.of().apply(c), mirrored + ".of(" + cName + ")");
            }
        }
    }

    @Test
    void flagWords() {
        assertEquals(EnumSet.of(Access.LOCAL_WRITE), Access.DEFAULT);
        Access.DEFAULT.forEach(a -> assertTrue(a == Access.LOCAL_WRITE));
        int flags = Access.flags(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ));
        assertEquals(IBV_ACCESS_LOCAL_WRITE() | IBV_ACCESS_REMOTE_READ(), flags);
        assertEquals(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ), Access.of(flags));
        long sendOps = SendOp.flags(EnumSet.of(SendOp.SEND, SendOp.ATOMIC_WRITE));
        assertEquals(IBV_QP_EX_WITH_SEND() | IBV_QP_EX_WITH_ATOMIC_WRITE(), sendOps);
        assertEquals(EnumSet.of(SendOp.SEND, SendOp.ATOMIC_WRITE), SendOp.of(sendOps | (1L << 40)));
        assertEquals(IBV_WC_STANDARD_FLAGS(), WorkCompletionField.flags(WorkCompletionField.STANDARD));
    }

    @Test
    void valuesWithoutAConstantAndTheTextsOfTheVerbs() {
        assertSame(WorkCompletionStatus.UNKNOWN, WorkCompletionStatus.of(999));
        assertSame(WorkCompletionStatus.UNKNOWN, WorkCompletionStatus.of(-3));
        assertEquals("remote access error", WorkCompletionStatus.REM_ACCESS_ERR.description());
        assertEquals("success", WorkCompletionStatus.SUCCESS.description());
        assertEquals("local length error", WorkCompletionStatus.LOC_LEN_ERR.description());
        assertSame(WorkCompletionOpcode.UNKNOWN, WorkCompletionOpcode.of(77));
        assertTrue(WorkCompletionOpcode.RECV.isReceive());
        assertSame(AsyncEventType.UNKNOWN, AsyncEventType.of(IBV_EVENT_WQ_FATAL() + 1));
        assertEquals("port error", AsyncEventType.PORT_ERR.description());
        assertSame(NodeType.UNKNOWN, NodeType.of(-1));
        assertSame(NodeType.UNKNOWN, NodeType.of(42));
        assertSame(AtomicCapability.NONE, AtomicCapability.of(7));
    }

    @Test
    void mtuSizes() {
        for (Mtu m : Mtu.values()) {
            assertEquals(128 << m.value(), m.bytes());
        }
        assertThrows(IllegalArgumentException.class, () -> Mtu.of(0));
        assertThrows(IllegalArgumentException.class, () -> Mtu.of(6));
        assertEquals(1024, Mtu.of(IBV_MTU_1024()).bytes());
        assertSame(Mtu.MTU_1024, Mtu.MTU_4096.min(Mtu.MTU_1024));
    }
}
