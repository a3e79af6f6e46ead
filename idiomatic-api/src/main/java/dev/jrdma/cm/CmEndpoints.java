// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.jrdma.NativeResource;
import dev.jrdma.RdmaTimeoutException;
import dev.jrdma.Verb;
import dev.jrdma.bindings.generated.rdma_cm_event;
import dev.jrdma.bindings.generated.rdma_cm_id;
import dev.jrdma.bindings.generated.rdma_conn_param;
import dev.jrdma.bindings.generated.rdma_event_channel;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RdmaCmVerbs;
import dev.jrdma.internal.CoreAccess;
import dev.jrdma.internal.Readiness;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * The endpoint API ({@code rdma_create_ep}, {@code rdma_get_request}) on top of the event
 * channels: librdmacm makes each endpoint a synchronous id with a channel of its own, whose
 * calls block without a bound. An active endpoint is moved to the application's channel at once
 * ({@code rdma_migrate_id}), so it then works as any other id, every wait bounded; a passive one
 * stays synchronous, as {@code rdma_get_request} requires, and is waited for on its own channel's
 * fd, bounded, before {@code rdma_get_request} reads the request that is there.
 */
final class CmEndpoints {
    private static final CoreAccess CORE = CoreAccess.get();

    private CmEndpoints() {}

    static CmId create(CmEventChannel channel, AddressInfo info) {
        try (Arena arena = Arena.ofConfined(); var _ = CORE.hold(channel.lifetime)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment out = arena.allocate(ADDRESS);
            // Active: rdma_create_ep resolves the address and route itself, each bounded by 2 s.
            if (RdmaCmVerbs.rdma_create_ep(errno, out, info.toNative(arena), MemorySegment.NULL,
                    MemorySegment.NULL) != 0) {
                throw CORE.exception(Verb.RDMA_CREATE_EP, info, Errno.get(errno));
            }
            MemorySegment id = out.get(ADDRESS, 0);
            if (!info.passive() && RdmaCmVerbs.rdma_migrate_id(errno, id, channel.handle()) != 0) {
                int failure = Errno.get(errno);
                rdma_h.rdma_destroy_ep(id);
                throw CORE.exception(Verb.RDMA_MIGRATE_ID, info, failure, "to " + channel);
            }
            return CmId.adopt(channel, id, true);
        }
    }

    /** Waits, bounded, for a request on passive endpoint {@code listener}'s own channel; then takes it. */
    static ConnectionRequest getRequest(CmId listener, Duration timeout) {
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        try (Arena arena = Arena.ofConfined(); var _ = CORE.hold(listener.lifetime)) {
            MemorySegment own = rdma_cm_id.channel(listener.handle())
                    .reinterpret(rdma_event_channel.layout().byteSize());
            int fd = rdma_event_channel.fd(own);
            while (!Readiness.await(fd, Math.max(1, (deadline - System.nanoTime()) / 1_000_000L),
                    listener::isClosed)) {
                if (listener.isClosed()) {
                    throw new IllegalStateException(listener + " was closed while a thread awaited a connect request");
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw new RdmaTimeoutException("no rdma_cm event (awaiting a connect request)", listener, timeout);
                }
            }
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment out = arena.allocate(ADDRESS);
            if (RdmaCmVerbs.rdma_get_request(errno, listener.handle(), out) != 0) {
                throw CORE.exception(Verb.RDMA_GET_REQUEST, listener, Errno.get(errno));
            }
            MemorySegment id = out.get(ADDRESS, 0).reinterpret(rdma_cm_id.layout().byteSize());
            // rdma_get_request leaves the request event in id->event until the next call on the id.
            MemorySegment event = rdma_cm_id.event(id).reinterpret(rdma_cm_event.layout().byteSize());
            MemorySegment conn = rdma_cm_event.param.conn(rdma_cm_event.param(event));
            int length = Byte.toUnsignedInt(rdma_conn_param.private_data_len(conn));
            byte[] data = length == 0 ? new byte[0]
                    : rdma_conn_param.private_data(conn).reinterpret(length).toArray(JAVA_BYTE);
            // The new id is synchronous too; on the listener's application channel it becomes an
            // ordinary id (rdma_migrate_id acks the request event and frees the id's own channel).
            CmEventChannel channel = listener.channel();
            if (RdmaCmVerbs.rdma_migrate_id(errno, id, channel.handle()) != 0) {
                int failure = Errno.get(errno);
                rdma_h.rdma_destroy_ep(id);
                throw CORE.exception(Verb.RDMA_MIGRATE_ID, "the connect request's id", failure, "to " + channel);
            }
            return new ConnectionRequest(CmId.adopt(channel, id, true), data);
        }
    }
}
