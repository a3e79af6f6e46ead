// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** The examples' argument handling, on the host: bad arguments print the usage and exit with 2. */
class CliTest {
    /** What one run printed and returned. */
    record Result(int exitCode, String out, String err) {}

    private static Result capture(Function<String[], Integer> program, String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(outBytes, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(errBytes, true, StandardCharsets.UTF_8));
            int code = program.apply(args);
            return new Result(code, outBytes.toString(StandardCharsets.UTF_8),
                    errBytes.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    static Stream<Arguments> badArguments() {
        Function<String[], Integer> helloServer = HelloServer::run;
        Function<String[], Integer> helloClient = HelloClient::run;
        Function<String[], Integer> write = RdmaWrite::run;
        Function<String[], Integer> read = RdmaRead::run;
        Function<String[], Integer> atomic = AtomicCounter::run;
        Function<String[], Integer> ud = UdDatagram::run;
        Function<String[], Integer> cm = CmHello::run;
        return Stream.of(
                Arguments.of("HelloServer", helloServer, new String[] {}, "--port is required"),
                Arguments.of("HelloServer", helloServer, new String[] {"host", "--port", "1"},
                        "a server takes no HOST"),
                Arguments.of("HelloServer", helloServer, new String[] {"--port"}, "--port needs a value"),
                Arguments.of("HelloServer", helloServer, new String[] {"--port", "x"}, "--port takes a number"),
                Arguments.of("HelloServer", helloServer, new String[] {"--port", "70000"}, "--port takes a number"),
                Arguments.of("HelloServer", helloServer, new String[] {"--port", "0"}, "--port takes a number"),
                Arguments.of("HelloServer", helloServer, new String[] {"--port", "1", "--bogus", "1"},
                        "unknown option --bogus"),
                Arguments.of("HelloClient", helloClient, new String[] {"--port", "7471"}, "HOST is required"),
                Arguments.of("HelloClient", helloClient, new String[] {"a", "b", "--port", "1"},
                        "unexpected argument 'b'"),
                Arguments.of("HelloClient", helloClient, new String[] {"a", "--port", "1", "--timeout", "0"},
                        "--timeout takes a number"),
                Arguments.of("RdmaWrite", write, new String[] {"host"}, "--port is required"),
                Arguments.of("RdmaRead", read, new String[] {"--device"}, "--device needs a value"),
                Arguments.of("AtomicCounter", atomic, new String[] {"--port", "1", "--clients", "0"},
                        "--clients takes a number"),
                Arguments.of("AtomicCounter", atomic, new String[] {"h", "--port", "1", "--increments", "many"},
                        "--increments takes a number"),
                Arguments.of("UdDatagram", ud, new String[] {"--port", "1", "--clients", "2"},
                        "unknown option --clients"),
                Arguments.of("CmHello", cm, new String[] {}, "--port is required"));
    }

    @ParameterizedTest(name = "{0} {2}")
    @MethodSource("badArguments")
    void badArgumentsPrintTheUsageAndExitWith2(String name, Function<String[], Integer> program, String[] args,
                                               String message) {
        Result result = capture(program, args);
        assertEquals(Cli.USAGE, result.exitCode());
        assertTrue(result.err().startsWith("error: " + message), result.err());
        assertTrue(result.err().contains("usage: " + name + " "), result.err());
        assertEquals("", result.out());
    }

    @Test
    void helpPrintsTheUsageAndExitsWith0() {
        Result result = capture(AtomicCounter::run, "--help");
        assertEquals(Cli.OK, result.exitCode());
        assertTrue(result.out().startsWith("usage: AtomicCounter [HOST] --port P"), result.out());
        assertEquals("", result.err());
    }

    @Test
    void parsesHostPortDeviceTimeoutAndNumbers() throws Exception {
        Cli.Options client = Cli.parse(Cli.Role.EITHER, Map.of("--increments", 1000),
                new String[] {"--device", "rxe0", "10.200.0.1", "--port", "7471", "--increments", "5",
                    "--timeout", "9"});
        assertEquals(Optional.of("10.200.0.1"), client.host());
        assertEquals(7471, client.port());
        assertEquals(Optional.of("rxe0"), client.device());
        assertEquals(Duration.ofSeconds(9), client.timeout());
        assertEquals(5, client.number("--increments"));

        Cli.Options server = Cli.parse(Cli.Role.EITHER, Map.of("--clients", 2), new String[] {"--port", "1"});
        assertTrue(server.isServer());
        assertEquals(Optional.empty(), server.device());
        assertEquals(Cli.DEFAULT_TIMEOUT, server.timeout());
        assertEquals(2, server.number("--clients"));
        assertThrows(IllegalArgumentException.class, () -> server.number("--increments"));
    }

    @Test
    void aFailingBodyExitsWith1AndPrintsTheError() {
        Result result = capture(args -> Cli.run("X --port P", Cli.Role.SERVER, Map.of(), args, options -> {
            throw new IllegalStateException("boom", new RuntimeException("root"));
        }), "--port", "1");
        assertEquals(Cli.FAILED, result.exitCode());
        assertEquals("error: java.lang.IllegalStateException: boom\n  caused by: java.lang.RuntimeException: root\n",
                result.err().replace(System.lineSeparator(), "\n"));
    }
}
