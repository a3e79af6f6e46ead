// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import dev.jrdma.testing.AgentClient;
import dev.jrdma.testing.AgentProcess;
import dev.jrdma.testing.TwoNodes;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A two-node test's peer program on node 2, run by the testbed's shared program agent there
 * ({@link TwoNodes#agent}) while the test runs its own side on node 1: under emulation a fresh JVM
 * per peer cost 15-35 s of start-up. The request waits for its answer in a thread of its own, so
 * the test body goes on at once; the peer's result is awaited with a bound, and a failure of the
 * test body carries the peer's output.
 *
 * <p>A request cannot be cancelled, and the agent's interrupt (at the request's limit) does not
 * end a blocking socket or completion-queue wait, so a peer must end by itself: each of its waits
 * needs a timeout of its own (RetryPeer's and WireIntegrity's STEP), and the side on node 1 going
 * away (its socket closed, its queue pair destroyed) must end it within such a wait. Then a peer
 * releases its RDMA resources and its port within minutes whatever the test did; the request's
 * limit, longer than a peer should ever take, only reports one that did not.
 */
final class PeerOnNode2 {
    /** How long the agent on node 2 may take to start serving when a test of this JVM first asks for it. */
    private static final Duration AGENT_START = Duration.ofSeconds(300);
    private static final int CONNECT_TIMEOUT_MS = 30_000;

    private final String name;
    private final CompletableFuture<AgentClient.Result> result;
    private final AtomicBoolean printLater = new AtomicBoolean();

    /** Sends the request from a thread of its own; {@code name} says which peer in messages. */
    PeerOnNode2(String name, Callable<AgentClient.Result> request) {
        this.name = name;
        this.result = CompletableFuture.supplyAsync(() -> {
            try {
                return request.call();
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, r -> Thread.ofPlatform().daemon().name(name).start(r));
    }

    /**
     * Runs {@code program}'s {@code run(String...)} with {@code args} in the agent on node 2 (started
     * if none serves yet), which stops waiting for it after {@code limit}.
     */
    static PeerOnNode2 start(Duration limit, Class<?> program, String... args) throws Exception {
        AgentProcess agent = TwoNodes.agent(AGENT_START);
        return new PeerOnNode2(program.getSimpleName() + " " + String.join(" ", args) + " on node 2",
                () -> agent.run(limit, program.getName(), List.of(args)));
    }

    /**
     * A TCP connection to the peer's {@code port} on {@code host} once it listens: a refused
     * connection is tried again every 200 ms for at most {@code bound}, and fails at once, with the
     * peer's output, when the peer has ended.
     */
    Socket connect(String host, int port, Duration bound) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (true) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
                return s;
            } catch (ConnectException e) {
                s.close();
                if (result.isDone()) {
                    throw new AssertionError(name + " ended before listening on port " + port + ": " + outcome());
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("nothing listens on " + host + ":" + port + " after " + bound.toSeconds()
                            + " s (" + e.getMessage() + "); " + name + " still runs");
                }
                Thread.sleep(200);
            }
        }
    }

    /**
     * The peer's exit code and output, waiting at most {@code bound}; AssertionError when it does
     * not end within it (its output is printed when it does) or the agent did not run it to its end.
     */
    AgentClient.Result await(Duration bound) throws InterruptedException {
        try {
            return result.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            printWhenDone();
            throw new AssertionError(name + " did not end within " + bound.toSeconds() + " s; its output follows"
                    + " on stdout when it ends");
        } catch (ExecutionException e) {
            throw new AssertionError(name + ": " + e.getCause().getMessage(), e.getCause());
        }
    }

    /** The test's side, run while the peer runs. */
    @FunctionalInterface
    interface Side<T> {
        T run() throws Exception;
    }

    /**
     * Runs {@code side}; when it fails, the failure gets the peer's output as a suppressed
     * exception, after a wait of at most {@code bound} for the peer to end (it does once the test
     * side has gone, within one of its own waits; otherwise the output is printed when it ends).
     */
    <T> T alongside(Duration bound, Side<T> side) throws Exception {
        try {
            return side.run();
        } catch (Exception | Error failure) {
            String peer;
            try {
                peer = await(bound).all();
            } catch (AssertionError e) {
                peer = e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                peer = "interrupted while waiting for it";
            }
            failure.addSuppressed(new AssertionError(name + ", after this failure: " + peer));
            throw failure;
        }
    }

    private String outcome() {
        try {
            return result.join().all();
        } catch (CompletionException e) {
            return String.valueOf(e.getCause().getMessage());
        }
    }

    private void printWhenDone() {
        if (printLater.compareAndSet(false, true)) {
            result.whenComplete((r, e) -> System.out.println(name + " ended after its test had stopped waiting: "
                    + (r != null ? r.all() : e.getCause() != null ? e.getCause().getMessage() : e)));
        }
    }
}
