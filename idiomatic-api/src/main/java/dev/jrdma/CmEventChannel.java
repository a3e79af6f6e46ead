// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.jrdma.bindings.generated.rdma_cm_event;
import dev.jrdma.bindings.generated.rdma_conn_param;
import dev.jrdma.bindings.generated.rdma_event_channel;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.Posix;
import dev.jrdma.bindings.shim.RdmaCmVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * An rdma_cm event channel ({@code struct rdma_event_channel}): the root of connection
 * management, from {@link #create()}. Ids created on it ({@link #createId()}) report their
 * events here; the id methods wait for the event they need, each wait bounded by a timeout.
 * Closing the channel closes its ids (and the queue pairs and contexts of those) first.
 *
 * <p>Thread safety: waits on one channel are serialised; use one channel per thread that
 * waits, as one would per process.
 */
public final class CmEventChannel extends NativeResource {
    /** An event, copied out of librdmacm before it was acknowledged. */
    record Event(CmEventType type, int status, byte[] privateData, CmId newId) {}

    private final MemorySegment handle;
    private final int fd;
    /** Events that arrived for ids other than the one being waited for, by id address. */
    private final Map<Long, ArrayDeque<Event>> pending = new HashMap<>();
    private final Map<Long, CmId> ids = new HashMap<>();

    private CmEventChannel(MemorySegment handle) {
        this.handle = handle;
        this.fd = rdma_event_channel.fd(handle);
        // Non-blocking: destroying an id withdraws its pending events, so a readable fd may
        // have nothing left to read, and a blocking read would then never return.
        Posix.setNonBlocking(fd);
    }

    /**
     * {@return a new event channel}
     *
     * @throws RdmaException when the kernel has no rdma_ucm support
     * @throws IllegalCallerException when the JVM runs without native access for jrdma; the
     *         message names the {@code --enable-native-access} flag to add
     */
    public static CmEventChannel create() {
        NativeAccess.require();
        MemorySegment channel;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            channel = RdmaCmVerbs.rdma_create_event_channel(errno);
            if (channel.address() == 0) {
                throw RdmaException.of(Verb.RDMA_CREATE_EVENT_CHANNEL, "rdma_cm", Errno.get(errno));
            }
        }
        channel = channel.reinterpret(rdma_event_channel.layout().byteSize());
        try {
            return new CmEventChannel(channel);
        } catch (RuntimeException e) {
            rdma_h.rdma_destroy_event_channel(channel);
            throw e;
        }
    }

    /** {@return a new connection id for reliable connections (port space TCP, RC queue pairs)} */
    public CmId createId() {
        checkOpen();
        return CmId.create(this);
    }

    MemorySegment handle() {
        checkOpen();
        return handle;
    }

    synchronized void register(CmId id, long address) {
        ids.put(address, id);
    }

    synchronized void unregister(long address) {
        ids.remove(address);
        pending.remove(address);
    }

    /** The next event for {@code id}; RdmaTimeoutException naming {@code what} after the timeout. */
    synchronized Event await(CmId id, long idAddress, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            checkOpen();
            ArrayDeque<Event> queued = pending.get(idAddress);
            if (queued != null && !queued.isEmpty()) {
                return queued.removeFirst();
            }
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0 || !Readiness.await(fd, left)) {
                throw new RdmaTimeoutException("no rdma_cm event (" + what + ")", id, timeout);
            }
            readOne();
        }
    }

    private void readOne() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment out = arena.allocate(ADDRESS);
            if (RdmaCmVerbs.rdma_get_cm_event(errno, handle, out) != 0) {
                if (Errno.get(errno) == Errno.EAGAIN) {
                    return;
                }
                throw RdmaException.of(Verb.RDMA_GET_CM_EVENT, this, Errno.get(errno));
            }
            MemorySegment event = out.get(ADDRESS, 0).reinterpret(rdma_cm_event.layout().byteSize());
            Event copy;
            long target;
            try {
                CmEventType type = CmEventType.of(rdma_cm_event.event(event));
                MemorySegment conn = rdma_cm_event.param.conn(rdma_cm_event.param(event));
                byte[] data = new byte[0];
                MemorySegment dataPointer = rdma_conn_param.private_data(conn);
                int length = Byte.toUnsignedInt(rdma_conn_param.private_data_len(conn));
                boolean hasConnData = type == CmEventType.CONNECT_REQUEST || type == CmEventType.ESTABLISHED
                        || type == CmEventType.REJECTED || type == CmEventType.CONNECT_RESPONSE;
                if (hasConnData && dataPointer.address() != 0 && length > 0) {
                    data = dataPointer.reinterpret(length).toArray(JAVA_BYTE);
                }
                MemorySegment id = rdma_cm_event.id(event);
                CmId newId = null;
                if (type == CmEventType.CONNECT_REQUEST) {
                    // The event names the new id; it is reported to the listener.
                    target = rdma_cm_event.listen_id(event).address();
                    newId = CmId.adopt(this, id);
                } else {
                    target = id.address();
                }
                copy = new Event(type, rdma_cm_event.status(event), data, newId);
                Events.cm(this, type, copy.status());
            } finally {
                // rdma_destroy_id waits for every event of its id to be acknowledged.
                RdmaCmVerbs.rdma_ack_cm_event(Errno.allocate(arena), event);
            }
            if (ids.containsKey(target)) {
                pending.computeIfAbsent(target, k -> new ArrayDeque<>()).addLast(copy);
            } else if (copy.newId() != null) {
                copy.newId().close();   // the listener is gone: nobody will accept
            }
        }
    }

    @Override
    void release() {
        rdma_h.rdma_destroy_event_channel(handle);
    }

    /** {@code rdma_cm event channel fd <n>}. */
    @Override
    public String toString() {
        return "rdma_cm event channel fd " + fd;
    }
}
