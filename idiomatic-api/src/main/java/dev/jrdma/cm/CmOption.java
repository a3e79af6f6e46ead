// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.jrdma.NativeResource;
import dev.jrdma.Verb;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RdmaCmVerbs;
import dev.jrdma.internal.CoreAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An option of an rdma_cm id, set with {@link CmId#setOption} ({@code rdma_set_option}); the
 * type parameter is the Java type of its value. Set the options before the call they affect:
 * {@link #REUSE_ADDRESS} and {@link #AF_ONLY} before {@link CmId#bind}, {@link #TYPE_OF_SERVICE}
 * before {@link CmId#resolveRoute} (it picks the path's traffic class), {@link #ACK_TIMEOUT}
 * before the queue pair reaches RTS.
 *
 * @param <T> the value's type
 */
public final class CmOption<T> {
    private static final CoreAccess CORE = CoreAccess.get();

    /**
     * {@code RDMA_OPTION_ID_TOS}: the IP type of service (0-255) of the connection; on RoCE v2
     * it becomes the traffic class of the queue pair's path, i.e. the IP header's DSCP and ECN.
     */
    public static final CmOption<Integer> TYPE_OF_SERVICE = new CmOption<>("TYPE_OF_SERVICE", rdma_h.RDMA_OPTION_ID(),
            rdma_h.RDMA_OPTION_ID_TOS(), 1, 255);
    /** {@code RDMA_OPTION_ID_REUSEADDR}: bind to an address whose port another id still holds (e.g. in time-wait). */
    public static final CmOption<Boolean> REUSE_ADDRESS = new CmOption<>("REUSE_ADDRESS", rdma_h.RDMA_OPTION_ID(),
            rdma_h.RDMA_OPTION_ID_REUSEADDR(), 4, 1);
    /** {@code RDMA_OPTION_ID_AFONLY}: an id bound to an IPv6 wildcard address takes IPv6 only, no IPv4. */
    public static final CmOption<Boolean> AF_ONLY = new CmOption<>("AF_ONLY", rdma_h.RDMA_OPTION_ID(),
            rdma_h.RDMA_OPTION_ID_AFONLY(), 4, 1);
    /**
     * {@code RDMA_OPTION_ID_ACK_TIMEOUT}: the local ACK timeout (0-31, 4.096 us x 2^value) rdma_cm
     * gives the queue pair at RTS, instead of the one it derives from the path.
     */
    public static final CmOption<Integer> ACK_TIMEOUT = new CmOption<>("ACK_TIMEOUT", rdma_h.RDMA_OPTION_ID(),
            rdma_h.RDMA_OPTION_ID_ACK_TIMEOUT(), 1, 31);

    private final String name;
    private final int level;
    private final int optname;
    /** The C value's size: 1 (uint8_t) or 4 (int). */
    private final int size;
    private final int max;

    private CmOption(String name, int level, int optname, int size, int max) {
        this.name = name;
        this.level = level;
        this.optname = optname;
        this.size = size;
        this.max = max;
    }

    int level() {
        return level;
    }

    int optname() {
        return optname;
    }

    /** {@link CmId#setOption}: {@code rdma_set_option} of this option on {@code id}. */
    void set(CmId id, T value) {
        try (Arena arena = Arena.ofConfined(); var _ = CORE.hold(id.lifetime)) {
            MemorySegment c = encode(arena, value);
            MemorySegment errno = Errno.allocate(arena);
            if (RdmaCmVerbs.rdma_set_option(errno, id.rawHandle(), level, optname, c, c.byteSize()) != 0) {
                throw CORE.exception(Verb.RDMA_SET_OPTION, id, Errno.get(errno), this + " = " + value);
            }
        }
    }

    /** The C value, checked against the option's range. */
    MemorySegment encode(Arena arena, T value) {
        int v = value instanceof Boolean b ? (b ? 1 : 0) : (Integer) value;
        if (v < 0 || v > max) {
            throw new IllegalArgumentException(name + " must be within 0.." + max + ", not " + v);
        }
        MemorySegment c = arena.allocate(size, size);
        if (size == 1) {
            c.set(JAVA_BYTE, 0, (byte) v);
        } else {
            c.set(JAVA_INT, 0, v);
        }
        return c;
    }

    /** {@return the option's name, e.g. {@code TYPE_OF_SERVICE}} */
    @Override
    public String toString() {
        return name;
    }
}
