// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Runs examples' {@code run(String...)} (main() without System.exit) in threads of this JVM,
 * with System.out and System.err captured (and still echoed) until closed. The examples prefix
 * their lines with "server:" or "client:", so one capture serves both sides. Starting a JVM
 * under the Soft-RoCE VM's CPU emulation costs ~25 s; here only the first example pays it.
 */
final class InJvm implements AutoCloseable {
    private final PrintStream out = System.out;
    private final PrintStream err = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private final List<Future<Integer>> started = new CopyOnWriteArrayList<>();

    InJvm() {
        PrintStream tee = new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (captured) {
                    captured.write(b);
                    captured.notifyAll();
                }
                out.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (captured) {
                    captured.write(b, off, len);
                    captured.notifyAll();
                }
                out.write(b, off, len);
            }
        }, true, StandardCharsets.UTF_8);
        System.setOut(tee);
        System.setErr(tee);
    }

    /** Starts {@code program} with {@code args} on a new thread; the future holds its exit code. */
    Future<Integer> start(Function<String[], Integer> program, String... args) {
        Future<Integer> f = CompletableFuture.supplyAsync(() -> program.apply(args), r -> Thread.ofPlatform().start(r));
        started.add(f);
        return f;
    }

    /** Waits for a line starting with {@code prefix}; fails at once when every started program has ended. */
    void awaitLine(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (captured) {
            while (true) {
                boolean ended = !started.isEmpty() && started.stream().allMatch(Future::isDone);   // before reading
                if (output().lines().anyMatch(line -> line.startsWith(prefix))) {
                    return;
                }
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0 || ended) {
                    fail("no line starting with '" + prefix + "' within " + timeout + (ended ? " (the programs ended)"
                            : "") + "; output:\n" + output());
                }
                captured.wait(Math.min(left, 200));
            }
        }
    }

    /** The exit code of a started program; fails after the timeout. */
    int exitCode(Future<Integer> program, Duration timeout) throws InterruptedException, ExecutionException {
        try {
            return program.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return fail("no exit within " + timeout + "; output:\n" + output());
        }
    }

    String output() {
        synchronized (captured) {
            return captured.toString(StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        System.setOut(out);
        System.setErr(err);
    }
}
