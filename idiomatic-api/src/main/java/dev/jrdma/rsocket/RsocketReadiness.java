// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import dev.jrdma.Reaches;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RsocketVerbs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which of many rsocket channels are ready now, in one call ({@code rselect}), like
 * {@link java.nio.channels.Selector#selectNow()}.
 *
 * <p>Only "now": {@code rselect} hands its timeout to {@code rpoll}, which in rdma-core before 63
 * leaks its count of polling threads whenever a positive timeout expires and then livelocks every
 * later rpoll of the process (see research/notes/2026-11-28-rsockets.md). To wait, use a channel's
 * blocking calls or {@link RdmaSocketChannel#awaitReadable}, which check without a timeout and
 * pause in Java. {@code fd_set} holds descriptors below 1024 (FD_SETSIZE); rsockets' descriptors
 * are kernel file descriptors, so a process with more open files gets an exception naming it.
 */
public final class RsocketReadiness {
    private RsocketReadiness() {}

    /** FD_SETSIZE of glibc: the descriptors an fd_set can hold. */
    public static final int FD_SETSIZE = 1024;

    /**
     * The channels that are ready.
     *
     * @param readable those of the readers that are readable (or at end of stream, or failed), or
     *        listeners with a connection to accept
     * @param writable those of the writers with room to send
     */
    public record Ready(List<RsocketChannel<?>> readable, List<RsocketChannel<?>> writable) {}

    /**
     * Checks the channels once, without waiting ({@code rselect} with a zero timeout).
     *
     * @param readers channels to check for reading or accepting
     * @param writers channels to check for writing
     * @return the ready ones, in the order given
     * @throws java.nio.channels.ClosedChannelException if one of the channels is closed
     * @throws IllegalArgumentException if a channel's rsocket is not below {@value #FD_SETSIZE}
     * @throws IOException if rselect fails
     */
    @Reaches({"rselect"})
    public static Ready selectNow(Collection<? extends RsocketChannel<?>> readers,
            Collection<? extends RsocketChannel<?>> writers) throws IOException {
        Set<RsocketChannel<?>> all = new LinkedHashSet<>(readers);
        all.addAll(writers);
        List<RsocketChannel<?>> begun = new ArrayList<>();
        try (Arena a = Arena.ofConfined()) {
            for (RsocketChannel<?> c : all) {
                if (c.fd >= FD_SETSIZE) {
                    throw new IllegalArgumentException("rselect's fd_set holds descriptors below " + FD_SETSIZE
                            + "; " + c + " has " + c.fd);
                }
                c.guard.begin();   // rclose waits until rselect has left the rsocket
                begun.add(c);
            }
            MemorySegment read = set(a, readers);
            MemorySegment write = set(a, writers);
            MemorySegment zero = a.allocate(16, 8);   // struct timeval {0, 0}
            int nfds = all.stream().mapToInt(c -> c.fd + 1).max().orElse(0);
            MemorySegment errno = Errno.allocate(a);
            if (RsocketVerbs.select(errno, nfds, read, write, MemorySegment.NULL, zero) < 0) {
                throw Rsockets.failure("rselect", all.size() + " rsockets", Errno.get(errno));
            }
            return new Ready(ready(read, readers), ready(write, writers));
        } finally {
            begun.forEach(c -> c.guard.end());
        }
    }

    private static MemorySegment set(Arena a, Collection<? extends RsocketChannel<?>> channels) {
        MemorySegment set = a.allocate(FD_SETSIZE / 8, 8);
        for (RsocketChannel<?> c : channels) {
            long word = (c.fd / 64) * 8L;
            set.set(ValueLayout.JAVA_LONG, word, set.get(ValueLayout.JAVA_LONG, word) | (1L << (c.fd % 64)));
        }
        return set;
    }

    private static List<RsocketChannel<?>> ready(MemorySegment set, Collection<? extends RsocketChannel<?>> channels) {
        List<RsocketChannel<?>> out = new ArrayList<>();
        for (RsocketChannel<?> c : channels) {
            if ((set.get(ValueLayout.JAVA_LONG, (c.fd / 64) * 8L) & (1L << (c.fd % 64))) != 0) {
                out.add(c);
            }
        }
        return out;
    }
}
