// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.Access;
import dev.jrdma.AtomicCapability;
import dev.jrdma.CompletionQueue;
import dev.jrdma.Context;
import dev.jrdma.ControlConnection;
import dev.jrdma.Endpoint;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.RemoteMemory;
import dev.jrdma.SendOpcode;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * Atomics: a 64-bit counter in the server's memory that several clients increment at the same
 * time with fetch-and-add, each through its own queue pair. No increment is lost: the server's
 * device performs each read-add-write as one step. The server checks the final value.
 *
 * <pre>
 * AtomicCounter --port P [--clients N] [--device D] [--timeout S]          the server (2 clients)
 * AtomicCounter HOST --port P [--increments N] [--device D] [--timeout S]  a client (1000 increments)
 * </pre>
 */
public final class AtomicCounter {
    static final String USAGE = "AtomicCounter [HOST] --port P [--clients N | --increments N] [--device D]"
            + " [--timeout SECONDS]   (without HOST: the server)";

    private AtomicCounter() {}

    /** Runs the example with the arguments in the class comment; exits with 0, 1 (failed) or 2 (usage). */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return Cli.run(USAGE, Map.of("--clients", 2, "--increments", 1000), args,
                AtomicCounter::server, AtomicCounter::client);
    }

    private static void server(Cli.Options options) throws Exception {
        int clients = options.number("--clients");
        try (Context context = options.openDevice();
             ServerSocket listener = new ServerSocket(options.port())) {
            if (context.queryDevice().atomicCapability() == AtomicCapability.NONE) {
                throw new IllegalStateException(context.name() + " does not support atomic operations");
            }
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);
            // @start region="counter"
            // The target of an atomic is 8 bytes, 8-byte aligned, in a region with REMOTE_ATOMIC
            // (which, like the remote write right, requires LOCAL_WRITE). It starts at 0.
            MemoryRegion counter = pd.allocate(8, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_ATOMIC));
            // @end
            System.out.println("server: listening on port " + options.port() + " (device " + context.name()
                    + "), waiting for " + clients + " clients");

            // @start region="one-qp-per-client"
            // RC connects exactly two queue pairs: one QP per client, all on the same PD, so all
            // may use the counter's rkey.
            List<ControlConnection> controls = new ArrayList<>();
            try {
                for (int i = 0; i < clients; i++) {
                    ControlConnection control = ControlConnection.accept(listener, options.timeout());
                    controls.add(control);
                    QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
                    Endpoint local = qp.localEndpoint();
                    qp.connect(control.exchange(local));
                    control.send(counter.remote());
                    System.out.println("server: client " + (i + 1) + " connected");
                }
                // @end
                // @start region="check"
                // Each client reports how many increments it made once they have all completed.
                long expected = 0;
                for (ControlConnection control : controls) {
                    expected += control.receiveLong();
                }
                long value = counter.segment().get(JAVA_LONG, 0);
                // @end
                System.out.println("server: counter = " + value + " (expected " + expected + ")");
                if (value != expected) {
                    throw new IllegalStateException("lost updates: counter " + value + ", expected " + expected);
                }
            } finally {
                for (ControlConnection control : controls) {
                    control.close();
                }
            }
        }
    }

    private static void client(Cli.Options options) throws Exception {
        int increments = options.number("--increments");
        try (Context context = options.openDevice();
             ControlConnection control = options.connectToServer()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);
            QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
            // The device stores the counter's value from before the add here: LOCAL_WRITE.
            MemoryRegion old = pd.allocate(8, EnumSet.of(Access.LOCAL_WRITE));
            Endpoint local = qp.localEndpoint();
            qp.connect(control.exchange(local));   // ConnectionOptions.DEFAULTS allow remote atomics
            RemoteMemory counter = control.receiveRemoteMemory();
            System.out.println("client: the counter is at " + counter);

            // @start region="fetch-and-add"
            // Built once, posted many times: posting copies the request, so it can be reposted at once.
            SendRequest add = new SendRequest().opcode(SendOpcode.ATOMIC_FETCH_AND_ADD)
                    .compareAdd(1)        // the value to add
                    .sge(old, 0, 8)       // where the value before the add lands
                    .remote(counter);     // the 8 bytes to add to
            WorkCompletion wc = new WorkCompletion();
            long first = -1;
            long previous = -1;
            for (int i = 0; i < increments; i++) {
                qp.post(add.wrId(i));
                cq.take(wc, options.timeout()).checkSuccess();
                long before = old.segment().get(JAVA_LONG, 0);
                // Every add sees a value no other add saw: later adds of ours see larger ones.
                if (before <= previous) {
                    throw new IllegalStateException("fetched " + before + " after " + previous);
                }
                previous = before;
                first = first < 0 ? before : first;
            }
            // @end
            System.out.println("client: added 1 " + increments + " times, seeing values from " + first + " to "
                    + previous);
            control.send(increments);
        }
    }
}
