// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import dev.jrdma.testing.AgentClient;
import dev.jrdma.testing.AgentProcess;
import dev.jrdma.testing.TwoNodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;

/**
 * jrdma on node 2, run by the testbed's shared program agent there ({@link TwoNodes#agent}) and
 * called from a test on node 1: under emulation a JVM start costs 15-35 s, more than most runs of
 * the matrix. Requests travel over the control link, never over the RDMA wire under test; the
 * agent calls {@link Jrdma#run(PrintWriter, PrintWriter, String...)} with writers of its own per
 * request, so concurrent runs keep their output apart.
 */
public final class RemoteJrdma implements AutoCloseable {
    /** A jrdma run: exit code and what it printed. */
    public record Result(int code, String out, String err) {
        public String all() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }

        /** Runs jrdma in this JVM. */
        public static Result local(List<String> args) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int code = Jrdma.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
            return new Result(code, out.toString(), err.toString());
        }
    }

    private final AgentProcess agent;

    private RemoteJrdma(AgentProcess agent) {
        this.agent = agent;
    }

    /** The agent on node 2, started if none runs yet; waits at most {@code timeoutS} for it to serve. */
    public static RemoteJrdma start(long timeoutS) throws Exception {
        return new RemoteJrdma(TwoNodes.agent(Duration.ofSeconds(timeoutS)));
    }

    /** Runs {@code jrdma args} on node 2, bounded by {@code timeoutS}; fails with the agent's log if it is gone. */
    public Result run(long timeoutS, List<String> args) {
        AgentClient.Result r = agent.run(Duration.ofSeconds(timeoutS), Jrdma.class.getName(), args);
        return new Result(r.code(), r.out(), r.err());
    }

    /** Nothing to release here: the shared agent stops when this JVM exits. */
    @Override
    public void close() {}
}
