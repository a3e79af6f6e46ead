// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import dev.jrdma.testing.AgentProtocol.Answer;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;

/** Sends programs to a {@link ProgramAgent} and waits, bounded, for their ends. */
public final class AgentClient {
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** How much longer than a program's own time the answer may take to arrive. */
    static final Duration ANSWER_MARGIN = Duration.ofSeconds(30);

    private final InetSocketAddress agent;

    public AgentClient(String host, int port) {
        this.agent = new InetSocketAddress(host, port);
    }

    /** A program's exit code and what it printed. */
    public record Result(int code, String out, String err) {
        /** All of it, for a failure's message. */
        public String all() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /**
     * Runs {@code className}'s entry point with {@code args} in the agent. Throws AssertionError
     * when the agent cannot run the class or the program does not end within {@code timeout}
     * (with its output so far), IOException when the agent cannot be reached or does not answer
     * within {@code timeout} plus a margin.
     */
    public Result run(Duration timeout, String className, List<String> args) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(agent, (int) CONNECT_TIMEOUT.toMillis());
            s.setSoTimeout(Math.toIntExact(timeout.plus(ANSWER_MARGIN).toMillis()));
            AgentProtocol.write(new DataOutputStream(s.getOutputStream()),
                    new AgentProtocol.Request(className, timeout.toMillis(), List.copyOf(args)));
            Answer a = AgentProtocol.readAnswer(new DataInputStream(s.getInputStream()));
            Result r = new Result(a.code(), a.out(), a.err());
            return switch (a.status()) {
                case AgentProtocol.RAN -> r;
                case AgentProtocol.REFUSED -> throw new AssertionError("the program agent at " + where() + ": "
                        + a.message());
                case AgentProtocol.TIMED_OUT -> throw new AssertionError("the program agent at " + where() + ": "
                        + a.message() + "; output so far:\n" + r.all());
                default -> throw new IOException("the program agent at " + where() + " answered status " + a.status());
            };
        }
    }

    private String where() {
        return agent.getHostString() + ":" + agent.getPort();
    }
}
