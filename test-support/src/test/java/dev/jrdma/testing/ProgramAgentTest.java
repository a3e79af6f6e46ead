// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The program agent's protocol on the host: an agent in this JVM on 127.0.0.1, one in a JVM of its own. */
class ProgramAgentTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    @RegisterExtension
    static final LocalAgent AGENT = new LocalAgent();

    /** Prints its arguments on stdout, "err" on stderr; exits with the number of arguments. */
    static final class Echo {
        static int run(String... args) {
            System.out.println("out " + String.join(" ", args));
            System.err.println("err");
            return args.length;
        }
    }

    /** Two runs meet (so they surely overlap), then print their argument from two threads each. */
    static final class Rendezvous {
        static final CyclicBarrier BOTH = new CyclicBarrier(2);

        static int run(String... args) throws Exception {
            BOTH.await(20, TimeUnit.SECONDS);
            Thread child = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 50; i++) {
                    System.out.println("child " + args[0]);
                }
            });
            for (int i = 0; i < 50; i++) {
                System.out.println("run " + args[0]);
            }
            child.join();
            return Integer.parseInt(args[0]);
        }
    }

    /** jrdma's shape of entry point. */
    static final class Writers {
        static int run(PrintWriter out, PrintWriter err, String... args) {
            out.println("to out " + args[0]);
            err.println("to err");
            return 7;
        }
    }

    static final class Thrower {
        static int run(String... args) {
            throw new IllegalStateException("boom");
        }
    }

    static final class Sleeper {
        static int run(String... args) throws InterruptedException {
            System.out.println("started");
            Thread.sleep(60_000);
            return 0;
        }
    }

    static final class NoEntryPoint {
        static void run(String... args) {}
    }

    @Test
    void runsAProgramAndAnswersItsExitCodeAndOutput() throws Exception {
        AgentClient.Result r = AGENT.client().run(TIMEOUT, Echo.class.getName(), List.of("a", "b c"));
        assertEquals(new AgentClient.Result(2, "out a b c\n", "err\n"), normalized(r));
    }

    @Test
    void concurrentRunsGetTheirOwnExitCodesAndOutput() throws Exception {
        // Threads of their own: the common pool may have a single thread on a small machine.
        Executor threads = r -> Thread.ofPlatform().start(r);
        CompletableFuture<AgentClient.Result> one = CompletableFuture.supplyAsync(() -> call(Rendezvous.class, "1"),
                threads);
        CompletableFuture<AgentClient.Result> two = CompletableFuture.supplyAsync(() -> call(Rendezvous.class, "2"),
                threads);
        for (int n = 1; n <= 2; n++) {
            AgentClient.Result r = (n == 1 ? one : two).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(n, r.code(), r.all());
            List<String> lines = r.out().lines().toList();
            assertEquals(100, lines.size(), r.all());
            String self = Integer.toString(n);
            assertTrue(lines.stream().allMatch(l -> l.equals("run " + self) || l.equals("child " + self)), r.all());
        }
    }

    @Test
    void takesJrdmasEntryPointWithWriters() throws Exception {
        AgentClient.Result r = AGENT.client().run(TIMEOUT, Writers.class.getName(), List.of("x"));
        assertEquals(new AgentClient.Result(7, "to out x\n", "to err\n"), normalized(r));
    }

    @Test
    void aProgramThatThrowsExitsWith1AndItsStackTrace() throws Exception {
        AgentClient.Result r = AGENT.client().run(TIMEOUT, Thrower.class.getName(), List.of());
        assertEquals(1, r.code(), r.all());
        assertTrue(r.err().contains("java.lang.IllegalStateException: boom"), r.all());
        assertTrue(r.err().contains("at " + Thrower.class.getName() + ".run"), r.all());
    }

    @Test
    void aMissingClassOrEntryPointIsAClearErrorNotAHang() {
        AssertionError missing = assertTimeoutPreemptively(TIMEOUT, () -> assertThrows(AssertionError.class,
                () -> AGENT.client().run(TIMEOUT, "dev.jrdma.testing.NoSuchProgram", List.of())));
        assertTrue(missing.getMessage().contains("no class dev.jrdma.testing.NoSuchProgram on the agent's class path"),
                missing.getMessage());
        AssertionError noRun = assertThrows(AssertionError.class,
                () -> AGENT.client().run(TIMEOUT, NoEntryPoint.class.getName(), List.of()));
        assertTrue(noRun.getMessage().contains("has neither static int run(String...)"), noRun.getMessage());
    }

    @Test
    void aProgramOverItsTimeIsInterruptedAndReportedWithItsOutputSoFar() {
        AssertionError e = assertTimeoutPreemptively(TIMEOUT, () -> assertThrows(AssertionError.class,
                () -> AGENT.client().run(Duration.ofMillis(500), Sleeper.class.getName(), List.of())));
        assertTrue(e.getMessage().contains(Sleeper.class.getName() + " did not end within 500 ms"), e.getMessage());
        assertTrue(e.getMessage().contains("started"), e.getMessage());
    }

    @Test
    void anAgentInItsOwnJvmServesAndItsDeathIsReported() throws Exception {
        AgentProcess process = AgentProcess.start(UnaryOperator.identity(), "127.0.0.1", Duration.ofSeconds(60));
        try {
            AgentClient.Result r = process.run(TIMEOUT, Echo.class.getName(), List.of("remote"));
            assertEquals(new AgentClient.Result(1, "out remote\n", "err\n"), normalized(r));
        } finally {
            process.close();
        }
        AssertionError e = assertTimeoutPreemptively(TIMEOUT, () -> assertThrows(AssertionError.class,
                () -> process.run(TIMEOUT, Echo.class.getName(), List.of())));
        assertTrue(e.getMessage().contains("no answer from the program agent on 127.0.0.1"), e.getMessage());
        assertTrue(e.getMessage().contains("the agent ended with exit"), e.getMessage());
    }

    private static AgentClient.Result call(Class<?> program, String... args) {
        try {
            return AGENT.client().run(TIMEOUT, program.getName(), List.of(args));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static AgentClient.Result normalized(AgentClient.Result r) {
        String nl = System.lineSeparator();
        return new AgentClient.Result(r.code(), r.out().replace(nl, "\n"), r.err().replace(nl, "\n"));
    }
}
