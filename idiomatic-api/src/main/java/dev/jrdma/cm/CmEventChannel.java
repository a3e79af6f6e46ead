// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.jrdma.RdmaException;
import dev.jrdma.RdmaTimeoutException;
import dev.jrdma.Reaches;
import dev.jrdma.Verb;
import dev.jrdma.bindings.generated.rdma_cm_event;
import dev.jrdma.bindings.generated.rdma_cm_id;
import dev.jrdma.bindings.generated.rdma_conn_param;
import dev.jrdma.bindings.generated.rdma_event_channel;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.Posix;
import dev.jrdma.bindings.shim.RdmaCmVerbs;
import dev.jrdma.internal.NativeAccess;
import dev.jrdma.internal.Readiness;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * An rdma_cm event channel ({@code struct rdma_event_channel}): the root of connection
 * management, from {@link #create()}. Ids created on it ({@link #createId()}) report their
 * events here; the id methods wait for the event they need, each wait bounded by a timeout.
 * Closing the channel closes its ids (and the queue pairs and contexts of those) first.
 *
 * <p>Thread safety: any number of threads may wait on one channel, each for the events of its
 * own id: one of them at a time reads the channel and queues what it reads for the id it is
 * for, waking the threads that wait for that id and no others (a server whose hundreds of
 * connections wait for their DISCONNECTED at once would otherwise wake every waiter for every
 * event); a reader that leaves hands its turn to one other waiter. A {@link #close()} of the channel or of an id from another thread
 * wakes the waits, which throw {@link IllegalStateException} (a platform thread's within
 * 50 ms: it waits in slices), and destroys the channel or id only after they have left.
 */
@Reaches({"rdma_get_cm_event", "rdma_ack_cm_event"})
public final class CmEventChannel extends CmResource {
    /** An event, copied out of librdmacm before it was acknowledged. */
    record Event(CmEventType type, int status, byte[] privateData, CmId newId, DatagramPeer peer) {}

    private final MemorySegment handle;
    private final int fd;
    /**
     * Guards the maps and {@link #reading}. Not the object's monitor: close() takes that, and
     * must not wait behind a thread that waits for an event.
     */
    private final ReentrantLock lock = new ReentrantLock();
    /** The threads waiting for an event, by the address of the id they wait for. */
    private final Map<Long, Waiting> waiting = new HashMap<>();
    /** Events read but not yet taken, by the address of the id they are for. */
    private final Map<Long, ArrayDeque<Event>> pending = new HashMap<>();
    private final Map<Long, CmId> ids = new HashMap<>();
    /** True while a thread waits on the fd: only one may (a second one-shot epoll registration fails). */
    private boolean reading;

    /** The most events one turn reads before it looks at its own id's queue again. */
    private static final int EVENTS_PER_TURN = 64;

    /** The threads waiting for one id's events (usually one), and their condition. */
    private final class Waiting {
        /** Signalled when an event for the id is queued, the turn to read is handed over, or a close. */
        final Condition arrived = lock.newCondition();
        int threads;
    }

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
    @Reaches({"rdma_create_event_channel", "rdma_destroy_event_channel"})
    public static CmEventChannel create() {
        NativeAccess.require();
        MemorySegment channel;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            channel = CORE.checkCreated(Verb.RDMA_CREATE_EVENT_CHANNEL, "rdma_cm", errno,
                    RdmaCmVerbs.rdma_create_event_channel(errno));
        }
        MemorySegment handle = channel.reinterpret(rdma_event_channel.layout().byteSize());
        try {
            return new CmEventChannel(handle);
        } catch (RuntimeException e) {
            rdma_h.rdma_destroy_event_channel(handle);
            throw e;
        }
    }

    /** {@return a new connection id for reliable connections (port space TCP, RC queue pairs)} */
    @Reaches({"rdma_create_id", "rdma_destroy_id"})
    public CmId createId() {
        // Held: a close() from another thread must not destroy the channel under rdma_create_id.
        try (var _ = CORE.hold(lifetime)) {
            return CmId.create(this, rdma_h.RDMA_PS_TCP());
        }
    }

    /**
     * {@return a new id for datagrams (port space UDP, UD queue pairs)}: resolve and connect it
     * for one peer's address handle and QPN ({@link CmId#connectDatagram}), or join multicast
     * groups with it ({@link MulticastJoin#join})
     */
    @Reaches("rdma_create_id")
    public CmId createDatagramId() {
        try (var _ = CORE.hold(lifetime)) {
            return CmId.create(this, rdma_h.RDMA_PS_UDP());
        }
    }

    /**
     * Creates an endpoint ({@code rdma_create_ep}) for an {@link AddressInfo} result: an active
     * one comes back with its address and route resolved (create its queue pair, then
     * {@link CmId#connect}); a passive one bound to the source address ({@link CmId#listen},
     * then {@link CmId#awaitConnectRequest}, which takes requests with {@code rdma_get_request}).
     * Closing it destroys it with {@code rdma_destroy_ep}.
     *
     * @param info where to connect to or listen on
     * @return the endpoint's id, on this channel
     * @throws RdmaException when the address or route does not resolve within librdmacm's 2 s
     */
    @Reaches({"rdma_create_ep", "rdma_destroy_ep"})
    public CmId createEndpoint(AddressInfo info) {
        return CmEndpoints.create(this, info);
    }

    MemorySegment handle() {
        checkOpen();
        return handle;
    }

    void register(CmId id, long address) {
        lock.lock();
        try {
            ids.put(address, id);
        } finally {
            lock.unlock();
        }
    }

    /** Registers a migrated id, with the events the old channel had read for it but not handed out. */
    void register(CmId id, long address, List<Event> queued) {
        lock.lock();
        try {
            ids.put(address, id);
            if (!queued.isEmpty()) {
                pending.computeIfAbsent(address, k -> new ArrayDeque<>()).addAll(queued);
                signal(address);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Unregisters an id migrating away, returning the events read for it and not yet taken. */
    List<Event> unregisterMigrating(long address) {
        lock.lock();
        try {
            ids.remove(address);
            ArrayDeque<Event> queued = pending.remove(address);
            return queued == null ? List.of() : List.copyOf(queued);
        } finally {
            lock.unlock();
        }
    }

    void unregister(long address) {
        lock.lock();
        try {
            ids.remove(address);
            pending.remove(address);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next event for {@code id}; RdmaTimeoutException naming {@code what} after the timeout,
     * IllegalStateException when the channel or the id is closed meanwhile.
     */
    Event await(CmId id, long idAddress, Duration timeout, String what) {
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        boolean interrupted = false;
        // Held for the whole wait: close() destroys neither the channel nor the id under it.
        try (var _ = CORE.hold(lifetime, id.lifetime)) {
            lock.lock();
            Waiting self = waiting.computeIfAbsent(idAddress, k -> new Waiting());
            self.threads++;
            try {
                while (true) {
                    // An interrupt does not end the wait (it is bounded), but a set flag would make
                    // every park below return at once; it is cleared here and restored on return.
                    interrupted |= Thread.interrupted();
                    ArrayDeque<Event> queued = pending.get(idAddress);
                    if (queued != null && !queued.isEmpty()) {
                        return queued.removeFirst();
                    }
                    if (isClosed() || id.isClosed()) {
                        throw new IllegalStateException((isClosed() ? this : id)
                                + " was closed while a thread awaited an rdma_cm event (" + what + ")");
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new RdmaTimeoutException("no rdma_cm event (" + what + ")", id, timeout);
                    }
                    long millis = (left + 999_999) / 1_000_000L;
                    if (!reading) {
                        readSlice(millis, () -> isClosed() || id.isClosed());
                    } else {
                        try {
                            self.arrived.await(millis, TimeUnit.MILLISECONDS);
                        } catch (InterruptedException e) {
                            interrupted = true;
                        }
                    }
                }
            } finally {
                if (--self.threads == 0) {
                    waiting.remove(idAddress, self);
                }
                handOverTurn();
                lock.unlock();
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Called and returns with the lock held; waits on the fd without it (a platform thread for at
     * most a slice, see {@link Readiness}), then reads the events there are (up to
     * {@link #EVENTS_PER_TURN}), waking the waiters of the ids they are for. The caller keeps the
     * turn until it leaves {@link #await}, which hands it over.
     */
    private void readSlice(long millis, BooleanSupplier stop) {
        reading = true;
        boolean readable = false;
        lock.unlock();
        try {
            readable = Readiness.await(fd, millis, stop);
        } finally {
            lock.lock();
            reading = false;
        }
        if (readable) {
            for (int i = 0; i < EVENTS_PER_TURN && readOne(); i++) {
                // each event read has woken its id's waiters
            }
        }
    }

    /** Wakes the threads waiting for the id at {@code address}; called with the lock held. */
    private void signal(long address) {
        Waiting w = waiting.get(address);
        if (w != null) {
            w.arrived.signalAll();
        }
    }

    /**
     * Called with the lock held by a thread leaving {@link #await}: when nobody reads the channel,
     * wakes one waiter (of any id) to take the turn. Woken without an event, it reads.
     */
    private void handOverTurn() {
        if (!reading) {
            for (Waiting w : waiting.values()) {
                if (w.threads > 0) {
                    w.arrived.signal();
                    return;
                }
            }
        }
    }

    /**
     * Reads one event, if there is one, queues it for its id and wakes that id's waiters; called
     * with the lock held.
     *
     * @return false when there was none
     */
    private boolean readOne() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment out = arena.allocate(ADDRESS);
            if (RdmaCmVerbs.rdma_get_cm_event(errno, handle, out) != 0) {
                if (Errno.get(errno) == Errno.EAGAIN) {
                    return false;
                }
                throw CORE.exception(Verb.RDMA_GET_CM_EVENT, this, Errno.get(errno));
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
                DatagramPeer peer = null;
                boolean datagram = rdma_cm_id.qp_type(id.reinterpret(rdma_cm_id.layout().byteSize()))
                        == rdma_h.IBV_QPT_UD();
                if (type == CmEventType.MULTICAST_JOIN || datagram && (type == CmEventType.ESTABLISHED
                        || type == CmEventType.CONNECT_REQUEST)) {
                    peer = DatagramPeer.copyOf(rdma_cm_event.param.ud(rdma_cm_event.param(event)));
                }
                copy = new Event(type, rdma_cm_event.status(event), data, newId, peer);
                CmEvents.cm(this, type, copy.status());
            } finally {
                // rdma_destroy_id waits for every event of its id to be acknowledged.
                RdmaCmVerbs.rdma_ack_cm_event(Errno.allocate(arena), event);
            }
            if (ids.containsKey(target)) {
                pending.computeIfAbsent(target, k -> new ArrayDeque<>()).addLast(copy);
                signal(target);
            } else if (copy.newId() != null) {
                copy.newId().close();   // the listener is gone: nobody will accept
            }
            return true;
        }
    }

    /** Wakes every wait on this channel, so that it looks at the closed marks of the channel and its id. */
    void wakeWaiters() {
        lock.lock();
        try {
            for (Waiting w : waiting.values()) {
                w.arrived.signalAll();
            }
        } finally {
            lock.unlock();
        }
        Readiness.wake(fd);
    }

    @Override
    void closing() {
        wakeWaiters();
    }

    @Reaches("rdma_destroy_event_channel")
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
