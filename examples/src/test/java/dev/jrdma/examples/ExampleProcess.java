// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static org.junit.jupiter.api.Assertions.fail;

import dev.jrdma.testing.Jvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One example's main() in its own {@code java} process, started the way a user would (same
 * JDK, this JVM's class path), its stdout and stderr collected line by line. Closing it kills
 * the process if it is still running.
 */
final class ExampleProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;

    private ExampleProcess(String name, Process process) {
        this.name = name;
        this.process = process;
        this.reader = Thread.ofPlatform().daemon().name("output of " + name).start(this::read);
    }

    static ExampleProcess start(String mainClass, List<String> args) throws IOException {
        List<String> command = new ArrayList<>(Jvm.program("dev.jrdma.examples." + mainClass));
        command.addAll(args);
        String name = mainClass + " " + String.join(" ", args);
        System.out.println("starting " + name);
        return new ExampleProcess(name, new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                System.out.println("  [" + name + "] " + line);
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            // the process was killed
        }
    }

    /** Waits for a line starting with {@code prefix}; fails when the process ends or the timeout passes first. */
    String awaitLine(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            while (true) {
                for (String line : lines) {
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                }
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0 || (!process.isAlive() && !reader.isAlive())) {
                    fail(name + ": no line starting with '" + prefix + "' within " + timeout + "; output:\n"
                            + String.join("\n", lines));
                }
                lines.wait(Math.min(left, 200));
            }
        }
    }

    /** Waits for the process to end and returns its exit code; fails after the timeout (killing it). */
    int exitCode(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            fail(name + " did not end within " + timeout + "; output:\n" + output());
        }
        reader.join(timeout.toMillis());
        return process.exitValue();
    }

    /** All output so far, one line each. */
    String output() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
