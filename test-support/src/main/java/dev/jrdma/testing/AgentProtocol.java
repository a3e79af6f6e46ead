// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The wire format between a {@link ProgramAgent} and its callers, one request per TCP connection.
 * Request: the program's class name, the time it may take (ms), its arguments. Answer: a status,
 * the exit code, what the program printed on stdout and on stderr, and the agent's message when it
 * did not run the program to its end. Arguments are short (modified UTF-8); texts length-prefixed.
 */
final class AgentProtocol {
    /** The program returned (or threw: exit code 1, as the java launcher does). */
    static final byte RAN = 0;
    /** The agent could not run the class: no such class, or no entry point it knows. */
    static final byte REFUSED = 1;
    /** The program did not end within the request's time; the output is what it printed so far. */
    static final byte TIMED_OUT = 2;

    private AgentProtocol() {}

    record Request(String className, long timeoutMs, List<String> args) {}

    record Answer(byte status, int code, String out, String err, String message) {}

    static void write(DataOutputStream out, Request r) throws IOException {
        out.writeUTF(r.className());
        out.writeLong(r.timeoutMs());
        out.writeInt(r.args().size());
        for (String a : r.args()) {
            out.writeUTF(a);
        }
        out.flush();
    }

    static Request readRequest(DataInputStream in) throws IOException {
        String className = in.readUTF();
        long timeoutMs = in.readLong();
        int n = in.readInt();
        if (n < 0 || n > 10_000 || timeoutMs <= 0) {
            throw new IOException("malformed request: " + n + " arguments, timeout " + timeoutMs + " ms");
        }
        List<String> args = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            args.add(in.readUTF());
        }
        return new Request(className, timeoutMs, args);
    }

    static void write(DataOutputStream out, Answer a) throws IOException {
        out.writeByte(a.status());
        out.writeInt(a.code());
        writeText(out, a.out());
        writeText(out, a.err());
        writeText(out, a.message());
        out.flush();
    }

    static Answer readAnswer(DataInputStream in) throws IOException {
        return new Answer(in.readByte(), in.readInt(), readText(in), readText(in), readText(in));
    }

    private static void writeText(DataOutputStream out, String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readText(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("malformed answer: a text of " + n + " bytes");
        }
        byte[] b = in.readNBytes(n);
        if (b.length != n) {
            throw new IOException("the answer ended after " + b.length + " of " + n + " bytes");
        }
        return new String(b, StandardCharsets.UTF_8);
    }
}
