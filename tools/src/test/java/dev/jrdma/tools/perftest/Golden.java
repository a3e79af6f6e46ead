// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/** Reads the captured perftest files under src/test/resources/dev/jrdma/tools/perftest/golden. */
final class Golden {
    private Golden() {
    }

    static String text(String name) {
        try (InputStream in = Golden.class.getResourceAsStream("golden/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no golden file " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> lines(String name) {
        return text(name).lines().toList();
    }

    /** The two byte streams of a captured exchange: [0] client to server, [1] server to client. */
    static byte[][] wire(String test) {
        ByteArrayOutputStream c = new ByteArrayOutputStream();
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        for (String line : lines(test + ".wire.txt")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            byte[] bytes = HexFormat.of().parseHex(line.substring(4));
            (line.startsWith("C>S") ? c : s).writeBytes(bytes);
        }
        return new byte[][] {c.toByteArray(), s.toByteArray()};
    }
}
