// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import dev.jrdma.testing.TwoNodes;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * jrdma on node 2, run in one long-lived JVM there ({@link #main}) and called from a test on node 1
 * ({@link #run}): under emulation a JVM start costs 10-30 s, more than most runs of the matrix.
 * Requests travel over the testbed's control link, never over the RDMA wire under test. One
 * request per connection: the arguments; the answer: exit code, stdout, stderr.
 */
public final class RemoteJrdma implements AutoCloseable {
    static final int PORT = 7991;

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

    private final Process process;
    private final Path log;

    private RemoteJrdma(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** The node-2 side: serves requests until killed. */
    public static void main(String[] args) throws IOException {
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress(InetAddress.getByName(args[0]), PORT));
            System.out.println("remote-jrdma: listening on " + args[0] + ":" + PORT);
            while (true) {
                Socket s = server.accept();
                Thread.ofPlatform().daemon().start(() -> serve(s));
            }
        }
    }

    private static void serve(Socket s) {
        try (s; DataInputStream in = new DataInputStream(s.getInputStream());
             DataOutputStream out = new DataOutputStream(s.getOutputStream())) {
            String[] args = new String[in.readInt()];
            for (int i = 0; i < args.length; i++) {
                args[i] = in.readUTF();
            }
            StringWriter o = new StringWriter();
            StringWriter e = new StringWriter();
            int code = Jrdma.run(new PrintWriter(o), new PrintWriter(e), args);
            out.writeInt(code);
            writeText(out, o.toString());
            writeText(out, e.toString());
        } catch (IOException e) {
            System.err.println("remote-jrdma: " + e);
        }
    }

    private static void writeText(DataOutputStream out, String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readText(DataInputStream in) throws IOException {
        return new String(in.readNBytes(in.readInt()), StandardCharsets.UTF_8);
    }

    /** Starts the node-2 JVM and waits (at most {@code timeoutS}) until it serves. */
    public static RemoteJrdma start(long timeoutS) throws Exception {
        Path log = Files.createTempFile("remote-jrdma", ".log");
        Process p = TwoNodes.start(TwoNodes.java(RemoteJrdma.class.getName(), TwoNodes.NODE2_CONTROL), log);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
        while (!Files.readString(log).contains("remote-jrdma: listening")) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new AssertionError("jrdma on node 2 did not start:\n" + Files.readString(log));
            }
            Thread.sleep(200);
        }
        return new RemoteJrdma(p, log);
    }

    /** Runs {@code jrdma args} on node 2; a read timeout of {@code timeoutS} bounds it. */
    public Result run(long timeoutS, List<String> args) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(TwoNodes.NODE2_CONTROL, PORT), 10_000);
            s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(timeoutS));
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(args.size());
            for (String a : args) {
                out.writeUTF(a);
            }
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            int code = in.readInt();
            return new Result(code, readText(in), readText(in));
        }
    }

    /** What the node-2 JVM printed besides the answers (its errors). */
    public String log() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() throws IOException {
        process.destroy();   // scripts/node ends, and with it the JVM on node 2
        Files.deleteIfExists(log);
    }
}
