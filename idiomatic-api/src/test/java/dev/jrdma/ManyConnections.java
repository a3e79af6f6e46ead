// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.jrdma.cm.CmEventChannel;
import dev.jrdma.cm.CmId;
import dev.jrdma.cm.ConnectionRequest;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An rdma_cm echo service with many clients in one process (issue #38): a server that accepts
 * every connection on one event channel and serves each on its own thread, and as many client
 * connections, each on its own thread, sharing a second event channel. Each client does
 * {@code rounds} SEND round trips of {@code messageBytes} bytes; the server checks every byte
 * it receives against the client's pattern and sends it back, and the client checks every byte
 * of the echo. Among the clients, one vanishes after its first round (closes its id without
 * disconnecting) and one is rejected. Every wait has the settings' timeout; a run that does not
 * end within {@link Settings#bound()} is a stall, and its channels are closed to end it.
 * Used by {@code ManyConnectionsDeviceTest}, in a loop by {@code ManyConnectionsSoak}, and split
 * across two nodes ({@link Side}) by {@code TwoNodeManyConnectionsDeviceTest}.
 */
final class ManyConnections {
    private ManyConnections() {}

    /** What the client says in its connect request's private data: its kind and index. */
    private static final byte ECHO = 0;
    private static final byte VANISH = 1;
    private static final byte REJECT = 2;

    /**
     * @param connections    echo clients that complete (the vanishing and the rejected client come on top)
     * @param rounds         round trips per echo client
     * @param messageBytes   bytes per message
     * @param timeout        the bound of every single wait
     * @param virtualThreads threads per connection: virtual, or platform
     * @param strategy       how the waits for completions idle
     * @param channels       whether each connection's CQ has a completion channel of its own
     *                       (then a take that parks sleeps on it)
     * @param hold           whether every echo client waits until all are connected before its
     *                       first round, so that all connections are open at once (the servers'
     *                       first wait is then bounded by {@link #bound()}, not the timeout)
     */
    record Settings(int connections, int rounds, int messageBytes, Duration timeout, boolean virtualThreads,
                    WaitStrategy strategy, boolean channels, boolean hold) {
        Settings(int connections, int rounds, int messageBytes, Duration timeout, boolean virtualThreads,
                 WaitStrategy strategy) {
            this(connections, rounds, messageBytes, timeout, virtualThreads, strategy, false, false);
        }

        /** How long a whole run may take before it counts as a stall. */
        Duration bound() {
            return timeout.multipliedBy(4).plusSeconds(connections);
        }
    }

    /**
     * What a run saw.
     *
     * @param clientsPassed   echo clients whose every round trip was verified and who disconnected
     * @param clientFailures  what went wrong on the client side, by connection
     * @param serverPassed    server connections that verified every round and saw the disconnect
     * @param serverFailures  what went wrong on the server side, by connection (the vanished one expected)
     * @param rejected        whether the rejected client saw REJECTED
     * @param connectedNanos  from the start until every echo client was connected
     * @param echoedNanos     from the start until every echo client had passed
     * @param elapsedNanos    the whole run
     * @param fds             the process's open file descriptors when all were connected, less those at the start
     * @param rssKib          the process's resident memory then, less that at the start (KiB)
     * @param systemKib       the system's available memory at the start, less that then (KiB): the
     *                        process's growth and the kernel's (rxe's queues, rdma_cm)
     * @param stalled         threads were still running at the bound
     */
    record Report(int clientsPassed, Map<Integer, String> clientFailures, int serverPassed,
                  Map<Integer, String> serverFailures, boolean rejected, long connectedNanos, long echoedNanos,
                  long elapsedNanos, long fds, long rssKib, long systemKib, boolean stalled) {
        @Override
        public String toString() {
            return String.format("clients passed %d, server passed %d, rejected seen %b, connected after %.2f s,"
                    + " echoed after %.2f s, run %.1f s, +%d fds, +%d KiB resident, -%d KiB available%s%n"
                    + "client failures: %s%nserver failures: %s", clientsPassed, serverPassed, rejected,
                    connectedNanos / 1e9, echoedNanos / 1e9, elapsedNanos / 1e9, fds, rssKib, systemKib,
                    stalled ? ", STALLED" : "", clientFailures, serverFailures);
        }
    }

    /** Open file descriptors of this process. */
    static long openFds() {
        String[] names = new java.io.File("/proc/self/fd").list();
        return names == null ? -1 : names.length;
    }

    /** Resident memory of this process, KiB (VmRSS of /proc/self/status). */
    static long residentKib() {
        return kib("/proc/self/status", "VmRSS:");
    }

    /** The system's available memory, KiB (MemAvailable of /proc/meminfo). */
    static long availableKib() {
        return kib("/proc/meminfo", "MemAvailable:");
    }

    /** The number on the line of {@code file} that starts with {@code key} (a /proc file's KiB), or -1. */
    private static long kib(String file, String key) {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of(file))) {
                if (line.startsWith(key)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (java.io.IOException e) {
            return -1;
        }
        return -1;
    }

    /** Which parts of the service a run hosts: both in one process, or one of them (the two-node test). */
    enum Side { BOTH, SERVER, CLIENTS }

    static Report run(Inet4Address address, Settings s) throws InterruptedException {
        return run(address, 0, s, Side.BOTH, () -> { });
    }

    /**
     * One side of the service, or both: the server listens on {@code address}:{@code port} (0: any
     * port) and calls {@code listening} once it does; the clients connect to {@code address}:{@code port}
     * (the listener's port when both run here). A side's report counts only its side.
     */
    static Report run(Inet4Address address, int port, Settings s, Side side, Runnable listening)
            throws InterruptedException {
        long start = System.nanoTime();
        int vanishing = s.connections();
        int rejectedIndex = s.connections() + 1;
        Map<Integer, String> clientFailures = new ConcurrentHashMap<>();
        Map<Integer, String> serverFailures = new ConcurrentHashMap<>();
        AtomicLong clientsPassed = new AtomicLong();
        AtomicLong serverPassed = new AtomicLong();
        AtomicLong connected = new AtomicLong();
        AtomicLong allConnectedAt = new AtomicLong();
        AtomicLong allEchoedAt = new AtomicLong();
        java.util.concurrent.CountDownLatch allConnected = new java.util.concurrent.CountDownLatch(s.connections());
        long fdsAtStart = openFds();
        long rssAtStart = residentKib();
        long availableAtStart = availableKib();
        long[] atPeak = new long[3];
        boolean[] rejected = new boolean[1];
        ThreadFactory threads = s.virtualThreads() ? Thread.ofVirtual().name("conn-", 0).factory()
                : Thread.ofPlatform().name("conn-", 0).factory();
        List<Thread> started = new ArrayList<>();
        boolean stalled;
        try (CmEventChannel serverChannel = CmEventChannel.create();
             CmEventChannel clientChannel = CmEventChannel.create()) {
            CmId listener = side == Side.CLIENTS ? null : serverChannel.createId();
            if (listener != null) {
                listener.bind(new InetSocketAddress(address, port));
                listener.listen(s.connections() + 2);
                port = listener.localPort();
                listening.run();
            }
            int serverPort = port;
            List<Thread> handlers = new ArrayList<>();
            Thread acceptor = listener == null ? null : threads.newThread(() -> {
                for (int i = 0; i < s.connections() + 2; i++) {
                    ConnectionRequest request;
                    try {
                        request = listener.awaitConnectRequest(s.timeout());
                    } catch (RuntimeException e) {
                        serverFailures.put(-1, "accepting request " + i + ": " + e);
                        return;
                    }
                    ByteBuffer data = ByteBuffer.wrap(request.privateData());
                    byte kind = data.get();
                    int index = data.getInt();
                    if (kind == REJECT) {
                        try (CmId id = request.id()) {
                            id.reject(new byte[] {REJECT});
                        }
                        continue;
                    }
                    Thread handler = threads.newThread(() -> {
                        try {
                            serve(request.id(), index, s);
                            serverPassed.incrementAndGet();
                        } catch (RuntimeException | AssertionError e) {
                            serverFailures.put(index, e.toString());
                        }
                    });
                    synchronized (handlers) {
                        handlers.add(handler);
                    }
                    handler.start();
                }
            });
            if (acceptor != null) {
                acceptor.start();
                started.add(acceptor);
            }
            for (int i = 0; side != Side.SERVER && i < s.connections() + 2; i++) {
                int index = i;
                byte kind = i == vanishing ? VANISH : i == rejectedIndex ? REJECT : ECHO;
                Thread client = threads.newThread(() -> {
                    boolean[] counted = {false};
                    try {
                        boolean passed = client(clientChannel, address, serverPort, kind, index, s, () -> {
                            counted[0] = true;
                            if (connected.incrementAndGet() == s.connections()) {
                                allConnectedAt.set(System.nanoTime());
                                atPeak[0] = openFds() - fdsAtStart;
                                atPeak[1] = residentKib() - rssAtStart;
                                atPeak[2] = availableAtStart - availableKib();
                            }
                            allConnected.countDown();
                            if (s.hold()) {
                                try {
                                    if (!allConnected.await(s.bound().toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS)) {
                                        throw new AssertionError("not all clients connected within " + s.bound());
                                    }
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                    throw new AssertionError("interrupted while holding", e);
                                }
                            }
                        });
                        if (kind == ECHO && passed) {
                            if (clientsPassed.incrementAndGet() == s.connections()) {
                                allEchoedAt.set(System.nanoTime());
                            }
                        } else if (kind == REJECT) {
                            rejected[0] = passed;
                        }
                    } catch (RuntimeException | AssertionError e) {
                        clientFailures.put(index, e.toString());
                    } finally {
                        if (kind == ECHO && !counted[0]) {
                            allConnected.countDown();   // a client that never connected holds no one up
                        }
                    }
                });
                client.start();
                started.add(client);
            }
            long deadline = start + s.bound().toNanos();
            stalled = !joinAll(started, deadline) || !joinAll(handlers, deadline);
            if (stalled) {
                for (Thread t : started) {
                    if (t.isAlive()) {
                        clientFailures.putIfAbsent(-2, "still running at the bound: " + t + stack(t));
                    }
                }
            }
        }
        // Closing the channels woke every wait; the threads leave with IllegalStateException.
        joinAll(started, System.nanoTime() + s.timeout().toNanos());
        return new Report((int) clientsPassed.get(), clientFailures, (int) serverPassed.get(), serverFailures,
                rejected[0], allConnectedAt.get() == 0 ? -1 : allConnectedAt.get() - start,
                allEchoedAt.get() == 0 ? -1 : allEchoedAt.get() - start, System.nanoTime() - start, atPeak[0], atPeak[1],
                atPeak[2], stalled);
    }

    private static String stack(Thread t) {
        StringBuilder b = new StringBuilder();
        for (StackTraceElement e : t.getStackTrace()) {
            b.append("\n    at ").append(e);
        }
        return b.toString();
    }

    private static boolean joinAll(List<Thread> threads, long deadline) throws InterruptedException {
        List<Thread> copy;
        synchronized (threads) {
            copy = new ArrayList<>(threads);
        }
        for (Thread t : copy) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !t.join(Duration.ofNanos(left))) {
                return false;
            }
        }
        return true;
    }

    /** The byte at {@code position} of the client's message {@code round}: distinct per connection and round. */
    private static byte pattern(int index, int round, int position) {
        return (byte) (index * 31 + round * 7 + position * 13 + (position >>> 8));
    }

    private static void verify(MemorySegment got, int index, int round, String who) {
        for (int p = 0; p < got.byteSize(); p++) {
            byte expected = pattern(index, round, p);
            if (got.get(JAVA_BYTE, p) != expected) {
                throw new AssertionError(who + " of connection " + index + ", round " + round + ": byte " + p + " is "
                        + got.get(JAVA_BYTE, p) + ", not " + expected);
            }
        }
    }

    /**
     * Waits for the receive completion of {@code round}, counting the send completions that come
     * first; returns the number of send completions seen.
     */
    private static int awaitReceive(CompletionQueue cq, WorkCompletion wc, int round, Settings s, String who) {
        return awaitReceive(cq, wc, round, s.timeout(), s, who);
    }

    private static int awaitReceive(CompletionQueue cq, WorkCompletion wc, int round, Duration timeout, Settings s,
                                    String who) {
        int sends = 0;
        while (true) {
            cq.take(wc, timeout, s.strategy()).checkSuccess();
            if (wc.opcode() == WorkCompletionOpcode.RECV) {
                if (wc.wrId() != round || wc.byteLength() != s.messageBytes()) {
                    throw new AssertionError(who + ": receive " + wc.wrId() + " of " + wc.byteLength()
                            + " bytes, expected round " + round + " of " + s.messageBytes());
                }
                return sends;
            }
            sends++;
        }
    }

    /**
     * One end's verbs objects on an rdma_cm id: an RC queue pair on an 8-entry CQ (with a channel
     * if the settings ask), a region of two messages (received at 0, sent from the second) and
     * the first receive posted.
     */
    private record EchoQueues(CompletionQueue cq, QueuePair qp, MemoryRegion mr, ReceiveRequest receive, SendRequest send) {
        static EchoQueues open(CmId id, Settings s) {
            Context context = id.context();
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = s.channels() ? context.createCompletionQueue(8, context.createCompletionChannel())
                    : context.createCompletionQueue(8);
            QueuePair qp = id.createQueuePair(pd.queuePair(QueuePairType.RC).completionQueue(cq).maxWorkRequests(2, 2));
            int n = s.messageBytes();
            MemoryRegion mr = pd.allocate(2L * n);
            ReceiveRequest receive = new ReceiveRequest().sge(mr, 0, n);
            SendRequest send = new SendRequest().sge(mr, n, n);
            qp.post(receive.wrId(0));
            return new EchoQueues(cq, qp, mr, receive, send);
        }
    }

    /** The server side of one connection: accept, echo {@code rounds} verified messages, await the disconnect. */
    private static void serve(CmId id, int index, Settings s) {
        try (id) {
            String who = "server";
            EchoQueues q = EchoQueues.open(id, s);
            CompletionQueue cq = q.cq();
            QueuePair qp = q.qp();
            int n = s.messageBytes();
            MemoryRegion mr = q.mr();
            id.accept(new byte[0], s.timeout());
            WorkCompletion wc = new WorkCompletion();
            int sendsDone = 0;
            for (int r = 0; r < s.rounds(); r++) {
                sendsDone += awaitReceive(cq, wc, r, r == 0 && s.hold() ? s.bound() : s.timeout(), s, who);
                verify(mr.segment().asSlice(0, n), index, r, who);
                mr.segment().asSlice(n, n).copyFrom(mr.segment().asSlice(0, n));
                if (r + 1 < s.rounds()) {
                    qp.post(q.receive().wrId(r + 1));   // before the echo: the next message may follow it at once
                }
                qp.post(q.send().wrId(100 + r));
            }
            while (sendsDone < s.rounds()) {
                cq.take(wc, s.timeout(), s.strategy()).checkSuccess();
                sendsDone++;
            }
            id.awaitDisconnect(s.timeout());
        }
    }

    /**
     * One client connection; returns true when it did what its kind says: an echo client its
     * verified rounds and a disconnect, the vanishing one its first round, the rejected one a
     * REJECTED.
     */
    private static boolean client(CmEventChannel channel, Inet4Address address, int port, byte kind, int index,
                                  Settings s, Runnable onConnected) {
        CmId id = channel.createId();
        try {
            String who = "client";
            id.resolveAddress(new InetSocketAddress(address, port), s.timeout());
            id.resolveRoute(s.timeout());
            EchoQueues q = EchoQueues.open(id, s);
            CompletionQueue cq = q.cq();
            QueuePair qp = q.qp();
            int n = s.messageBytes();
            MemoryRegion mr = q.mr();
            byte[] hello = ByteBuffer.allocate(5).put(kind).putInt(index).array();
            if (kind == REJECT) {
                try {
                    id.connect(hello, s.timeout());
                } catch (RdmaException e) {
                    return e.getMessage().contains("REJECTED");
                }
                throw new AssertionError("the rejected client " + index + " was accepted");
            }
            id.connect(hello, s.timeout());
            if (kind == ECHO) {
                onConnected.run();
            }
            WorkCompletion wc = new WorkCompletion();
            int rounds = kind == VANISH ? 1 : s.rounds();
            int sendsDone = 0;
            for (int r = 0; r < rounds; r++) {
                MemorySegment out = mr.segment().asSlice(n, n);
                for (int p = 0; p < n; p++) {
                    out.set(JAVA_BYTE, p, pattern(index, r, p));
                }
                qp.post(q.send().wrId(100 + r));
                sendsDone += awaitReceive(cq, wc, r, s, who);
                verify(mr.segment().asSlice(0, n), index, r, "the echo to client");
                if (r + 1 < rounds) {
                    qp.post(q.receive().wrId(r + 1));
                }
            }
            while (sendsDone < rounds) {
                cq.take(wc, s.timeout(), s.strategy()).checkSuccess();
                sendsDone++;
            }
            if (kind == VANISH) {
                return true;   // the finally closes the id without a disconnect
            }
            id.disconnect(s.timeout());
            return true;
        } finally {
            id.close();
        }
    }
}
