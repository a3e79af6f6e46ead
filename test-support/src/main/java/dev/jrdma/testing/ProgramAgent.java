// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import dev.jrdma.testing.AgentProtocol.Answer;
import dev.jrdma.testing.AgentProtocol.Request;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A long-lived JVM that runs programs for a test in another JVM (usually on node 2 of the
 * two-node testbed, see {@link TwoNodes#agent}): starting a JVM under qemu TCG costs 15-35 s,
 * running one more program in a warm JVM a fraction of that. Each request (one TCP connection,
 * {@link AgentProtocol}) names a class on the agent's class path and its arguments; the agent runs
 * the class's entry point in a thread of its own and answers its exit code and output:
 * <ul>
 *   <li>{@code static int run(String... args)}, printing to System.out and System.err (the
 *       examples): the output is captured per thread ({@link ThreadOutput}), so concurrent
 *       requests each get their own;</li>
 *   <li>else {@code static int run(PrintWriter out, PrintWriter err, String... args)} (jrdma's
 *       {@code Jrdma.run}): the writers lead straight into the request's buffers.</li>
 * </ul>
 * A program that throws ends as under the java launcher: exit code 1, the stack trace on stderr.
 * One that outlives its request's time is interrupted and the request answered as timed out,
 * with what it printed so far; a thread cannot be killed, so one that ignores the interrupt runs
 * on until the agent ends. Programs share the JVM: they must not call System.exit.
 */
public final class ProgramAgent implements AutoCloseable {
    /** What the agent prints once it serves, followed by HOST:PORT. */
    static final String LISTENING = "program-agent: listening on ";

    private final ServerSocket server;

    private ProgramAgent(ServerSocket server) {
        this.server = server;
    }

    /**
     * Runs an agent until killed. Arguments: the address to listen on (on node 2 its control-link
     * address, never the RDMA wire's) and the port, 0 for any free one (the printed line tells).
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2 || !args[1].matches("\\d{1,5}")) {
            System.err.println("usage: ProgramAgent ADDRESS PORT");
            System.exit(2);
        }
        ProgramAgent agent = listen(new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[1])));
        System.out.println(LISTENING + args[0] + ":" + agent.port());
        agent.serve();
    }

    /** An agent in this JVM serving on {@code address} from a daemon thread, until closed. */
    public static ProgramAgent start(InetSocketAddress address) throws IOException {
        ProgramAgent agent = listen(address);
        Thread.ofPlatform().daemon().name("program-agent " + agent.port()).start(() -> {
            try {
                agent.serve();
            } catch (IOException e) {
                System.err.println("program-agent: " + e);
            }
        });
        return agent;
    }

    private static ProgramAgent listen(InetSocketAddress address) throws IOException {
        ThreadOutput.install();
        ServerSocket server = new ServerSocket();
        try {
            server.bind(address);
        } catch (IOException e) {
            server.close();
            throw new IOException("program-agent: cannot listen on " + address + ": " + e.getMessage(), e);
        }
        return new ProgramAgent(server);
    }

    /** The port it listens on. */
    public int port() {
        return server.getLocalPort();
    }

    private void serve() throws IOException {
        while (true) {
            Socket s;
            try {
                s = server.accept();
            } catch (SocketException e) {
                if (server.isClosed()) {
                    return;
                }
                throw e;
            }
            Thread.ofPlatform().daemon().name("program-agent request").start(() -> answer(s));
        }
    }

    private static void answer(Socket s) {
        try (s; DataInputStream in = new DataInputStream(s.getInputStream());
                DataOutputStream out = new DataOutputStream(s.getOutputStream())) {
            AgentProtocol.write(out, execute(AgentProtocol.readRequest(in)));
        } catch (IOException e) {
            System.err.println("program-agent: " + e);   // the caller went away; its side reports
        }
    }

    static Answer execute(Request r) {
        Program program;
        try {
            program = entryPoint(r.className());
        } catch (IllegalArgumentException e) {
            return new Answer(AgentProtocol.REFUSED, -1, "", "", e.getMessage());
        }
        ThreadOutput.Buffers buffers = new ThreadOutput.Buffers();
        CompletableFuture<Integer> code = new CompletableFuture<>();
        String[] args = r.args().toArray(String[]::new);
        Thread t = Thread.ofPlatform().daemon().name(r.className()).start(() -> {
            ThreadOutput.captureInto(buffers);
            try {
                code.complete(program.run(args, buffers));
            } catch (Throwable e) {
                Throwable cause = e instanceof InvocationTargetException ite && ite.getCause() != null ? ite.getCause() : e;
                System.err.print("Exception in thread \"" + Thread.currentThread().getName() + "\" ");
                cause.printStackTrace();
                code.complete(1);
            }
        });
        try {
            return new Answer(AgentProtocol.RAN, code.get(r.timeoutMs(), TimeUnit.MILLISECONDS), buffers.out(),
                    buffers.err(), "");
        } catch (TimeoutException e) {
            t.interrupt();
            return new Answer(AgentProtocol.TIMED_OUT, -1, buffers.out(), buffers.err(),
                    r.className() + " did not end within " + r.timeoutMs() + " ms; interrupted");
        } catch (InterruptedException | ExecutionException e) {
            t.interrupt();
            return new Answer(AgentProtocol.TIMED_OUT, -1, buffers.out(), buffers.err(),
                    r.className() + ": the agent stopped waiting: " + e);
        }
    }

    @FunctionalInterface
    private interface Program {
        int run(String[] args, ThreadOutput.Buffers buffers) throws Exception;
    }

    /** The class's entry point, in one of the two shapes in the class comment. */
    private static Program entryPoint(String className) {
        Class<?> c;
        try {
            c = Class.forName(className, false, ClassLoader.getSystemClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException("no class " + className + " on the agent's class path (" + e + ")");
        }
        Method plain = staticIntMethod(c, String[].class);
        if (plain != null) {
            return (args, buffers) -> (Integer) plain.invoke(null, (Object) args);
        }
        Method writers = staticIntMethod(c, PrintWriter.class, PrintWriter.class, String[].class);
        if (writers != null) {
            return (args, buffers) -> {
                try (PrintStream o = buffers.outStream(); PrintStream e = buffers.errStream();
                        PrintWriter out = new PrintWriter(o, true); PrintWriter err = new PrintWriter(e, true)) {
                    return (Integer) writers.invoke(null, out, err, args);
                }
            };
        }
        throw new IllegalArgumentException(className + " has neither static int run(String...) nor static int"
                + " run(PrintWriter, PrintWriter, String...)");
    }

    private static Method staticIntMethod(Class<?> c, Class<?>... parameters) {
        try {
            Method m = c.getDeclaredMethod("run", parameters);
            if (!Modifier.isStatic(m.getModifiers()) || m.getReturnType() != int.class) {
                return null;
            }
            m.setAccessible(true);   // the examples' run is package-private
            return m;
        } catch (NoSuchMethodException e) {
            return null;
        } catch (RuntimeException | LinkageError e) {   // e.g. a module that does not open the package
            throw new IllegalArgumentException("cannot call " + c.getName() + ".run: " + e, e);
        }
    }

    /** Stops accepting requests; programs still running go on. */
    @Override
    public void close() throws IOException {
        server.close();
    }
}
