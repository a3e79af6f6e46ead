// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import dev.jrdma.Context;
import dev.jrdma.ControlConnection;
import dev.jrdma.Rdma;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The examples' shared command line: {@code [HOST] --port P [--device D] [--timeout S]} plus
 * a few numeric options of their own. A server takes no HOST, a client needs one. Exit codes:
 * 0 success, 1 failure (the error is printed), 2 bad arguments (the usage is printed).
 */
final class Cli {
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    /** Which positional HOST argument a program takes. */
    enum Role {
        /** No HOST: the program listens. */
        SERVER,
        /** HOST required: the program connects to it. */
        CLIENT,
        /** HOST optional: without it the program is the server, with it the client. */
        EITHER
    }

    /**
     * Parsed arguments.
     *
     * @param host    the server to connect to; empty for a server
     * @param port    the TCP port (rdma_cm: the rdma_cm port) the server listens on
     * @param device  the RDMA device to use; empty for the first one
     * @param timeout the bound on every wait
     * @param numbers the program's own numeric options, defaults filled in
     */
    record Options(Optional<String> host, int port, Optional<String> device, Duration timeout,
                   Map<String, Integer> numbers) {
        boolean isServer() {
            return host.isEmpty();
        }

        /** The device --device names, or the default one (HelloServer spells this out). */
        Context openDevice() {
            return device.map(Rdma::open).orElseGet(Rdma::openDefault);
        }

        /**
         * The address an rdma_cm server listens on: --device's IPv4 address, or every RDMA
         * device's (0.0.0.0) without --device.
         */
        InetAddress listenAddress() throws IOException {
            if (device.isEmpty()) {
                return InetAddress.getByName("0.0.0.0");
            }
            try (Context context = openDevice()) {
                return context.defaultGid().ipv4().orElseThrow(() -> new IllegalStateException(
                        context.name() + " has no IPv4 address in its GID table"));
            }
        }

        /** The control connection to the server at HOST and --port, within --timeout. */
        ControlConnection connectToServer() throws IOException {
            return ControlConnection.connect(new InetSocketAddress(host.orElseThrow(), port), timeout);
        }

        int number(String option) {
            Integer value = numbers.get(option);
            if (value == null) {
                throw new IllegalArgumentException("no option " + option);
            }
            return value;
        }
    }

    /** A program body; it fails by throwing. */
    interface Body {
        void run(Options options) throws Exception;
    }

    /** Bad arguments. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    private Cli() {}

    /**
     * Parses {@code args}, runs {@code body} and returns the exit code. {@code numbers} are the
     * program's own options ({@code --name}) with their defaults; their values must be at least 1.
     */
    static int run(String usage, Role role, Map<String, Integer> numbers, String[] args, Body body) {
        Options options;
        try {
            options = parse(role, numbers, args);
        } catch (UsageException e) {
            PrintStream err = System.err;
            err.println("error: " + e.getMessage());
            err.println("usage: " + usage);
            return USAGE;
        }
        if (options == null) {   // --help
            System.out.println("usage: " + usage);
            return OK;
        }
        try {
            body.run(options);
            return OK;
        } catch (Exception e) {
            System.err.println("error: " + e);
            for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                System.err.println("  caused by: " + cause);
            }
            return FAILED;
        }
    }

    /** As {@link #run(String, Role, Map, String[], Body)}: the server without HOST, the client with it. */
    static int run(String usage, Map<String, Integer> numbers, String[] args, Body server, Body client) {
        return run(usage, Role.EITHER, numbers, args, options -> (options.isServer() ? server : client).run(options));
    }

    /** The options, or null for {@code --help}. */
    static Options parse(Role role, Map<String, Integer> numbers, String[] args) throws UsageException {
        String host = null;
        Integer port = null;
        String device = null;
        Duration timeout = DEFAULT_TIMEOUT;
        Map<String, Integer> values = new HashMap<>(numbers);
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("-h") || arg.equals("--help")) {
                return null;
            }
            if (!arg.startsWith("-")) {
                if (host != null) {
                    throw new UsageException("unexpected argument '" + arg + "'");
                }
                host = arg;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new UsageException(arg + " needs a value");
            }
            String value = args[++i];
            switch (arg) {
                case "--port" -> port = number(arg, value, 1, 65535);
                case "--device" -> device = value;
                case "--timeout" -> timeout = Duration.ofSeconds(number(arg, value, 1, 3600));
                default -> {
                    if (!numbers.containsKey(arg)) {
                        throw new UsageException("unknown option " + arg);
                    }
                    values.put(arg, number(arg, value, 1, Integer.MAX_VALUE));
                }
            }
        }
        if (port == null) {
            throw new UsageException("--port is required");
        }
        if (role == Role.SERVER && host != null) {
            throw new UsageException("a server takes no HOST (got '" + host + "')");
        }
        if (role == Role.CLIENT && host == null) {
            throw new UsageException("HOST is required");
        }
        return new Options(Optional.ofNullable(host), port, Optional.ofNullable(device), timeout, Map.copyOf(values));
    }

    private static int number(String option, String value, int min, int max) throws UsageException {
        try {
            int n = Integer.parseInt(value);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(option + " takes a number from " + min + " to " + max + ", not '" + value + "'");
    }
}
