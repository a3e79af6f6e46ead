// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link ProgramAgent} in a JVM of its own, with this JVM's launcher and class path: started
 * (bounded), asked to run programs ({@link #run}), and stopped. Its own output (what no program
 * captured, its errors) goes to a log that every failure quotes, and a request that finds the
 * agent gone says so rather than only "connection refused".
 */
public final class AgentProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile(Pattern.quote(ProgramAgent.LISTENING) + "\\S+:(\\d+)");

    private final Process process;
    private final Path log;
    private final String host;
    private final AgentClient client;

    private AgentProcess(Process process, Path log, String host, int port) {
        this.process = process;
        this.log = log;
        this.host = host;
        this.client = new AgentClient(host, port);
    }

    /**
     * Starts an agent that listens on {@code host} (any free port) and waits until it serves.
     *
     * @param where turns the java command into the command that runs it where it should, e.g.
     *     {@link TwoNodes#onNode2}; the identity runs it here
     * @param startTimeout how long the JVM may take to start serving
     */
    public static AgentProcess start(UnaryOperator<List<String>> where, String host, Duration startTimeout)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(Jvm.command(ProgramAgent.class.getName()));
        command.addAll(List.of(host, "0"));
        Path log = Files.createTempFile("program-agent", ".log");
        Process p = new ProcessBuilder(where.apply(command)).redirectErrorStream(true).redirectOutput(log.toFile())
                .start();
        long deadline = System.nanoTime() + startTimeout.toNanos();
        while (true) {
            Matcher m = LISTENING.matcher(read(log));
            if (m.find()) {
                return new AgentProcess(p, log, host, Integer.parseInt(m.group(1)));
            }
            if (!p.isAlive() || System.nanoTime() > deadline) {
                String why = p.isAlive() ? "did not serve within " + startTimeout.toSeconds() + " s"
                        : "ended with exit " + p.exitValue();
                p.destroyForcibly();
                String out = read(log);
                Files.deleteIfExists(log);
                throw new AssertionError("the program agent (" + String.join(" ", where.apply(command)) + ") " + why
                        + "; its output:\n" + out);
            }
            Thread.sleep(200);
        }
    }

    /**
     * Runs {@code className}'s entry point in the agent ({@link AgentClient#run}); fails with the
     * agent's state and log when it cannot be reached or does not answer.
     */
    public AgentClient.Result run(Duration timeout, String className, List<String> args) {
        try {
            return client.run(timeout, className, args);
        } catch (IOException e) {
            String state = process.isAlive() ? "is running" : "ended with exit " + process.exitValue();
            throw new AssertionError("no answer from the program agent on " + host + " for " + className + " "
                    + String.join(" ", args) + " (" + e + "); the agent " + state + "; its log:\n" + log(), e);
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** What the agent printed besides the programs' output. */
    public String log() {
        return read(log);
    }

    private static String read(Path log) {
        try {
            return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** Stops the agent (killing the scripts/node of an agent on node 2 ends the JVM there). */
    @Override
    public void close() throws IOException, InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        Files.deleteIfExists(log);
    }
}
