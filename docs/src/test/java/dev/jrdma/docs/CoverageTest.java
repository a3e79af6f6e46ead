// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.docs.ExercisesScan.Exercise;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/guide/coverage.md accounts for every function of rdma-core's application headers and is
 * what {@link Coverage} generates; with {@code -Djrdma.docs.write=true} ({@code scripts/docs-sync})
 * it is rewritten instead. The counts against issue #35's targets are printed, not asserted: a
 * function not reached yet is a listed, accounted state (the page says "not reached" and the
 * header's row says how far below target it is), while an unaccounted one fails the build.
 */
class CoverageTest {
    private static final Path PAGE = Guide.DIR.resolve(Coverage.PAGE);
    private static Coverage coverage;

    @BeforeAll
    static void readSources() throws Exception {
        coverage = Coverage.current();
    }

    @Test
    void committedPageIsTheGeneratedOne() throws Exception {
        String generated = coverage.generate();
        for (Coverage.Counts c : coverage.counts()) {
            System.out.printf("coverage: %-18s %3d functions, %3d reached (%d work on Soft-RoCE, %d refused), "
                    + "%3d not reached; target %d: %s%n", c.header(), c.functions(), c.reached(), c.works(),
                    c.refused(), c.notReached(), c.target(), c.verdict());
        }
        Guide.checkGenerated(PAGE, generated, " differs from the headers, @Reaches and @Exercises");
    }

    @Test
    void everyReachedFunctionIsTestedAndEveryNameIsAHeaderFunction() {
        List<String> problems = coverage.problems();
        assertTrue(problems.isEmpty(), problems.size() + " coverage problems:\n  " + String.join("\n  ", problems));
    }

    @Test
    void everyHeaderFunctionHasItsRow() {
        String page = coverage.generate();
        coverage.counted().forEach((header, functions) -> {
            for (String f : functions) {
                assertTrue(page.contains("\n| `" + f + "` | "), header + ": no row for " + f);
            }
        });
    }

    /** gcc's reading of the headers finds both kinds of function and leaves out the aliases. */
    @Test
    void headersYieldExportedAndInlineFunctionsWithoutAliases() {
        Map<String, SortedSet<String>> counted = coverage.counted();
        SortedSet<String> verbs = counted.get("infiniband/verbs.h");
        for (String f : List.of("ibv_get_device_list", "ibv_reg_mr_iova2", "ibv_post_send", "ibv_wr_send",
                "ibv_query_port", "ibv_start_poll", "ibv_reg_mr", "mbps_to_ibv_rate")) {
            assertTrue(verbs.contains(f), f);
        }
        for (String f : List.of("__ibv_reg_mr", "___ibv_query_port", "_ibv_query_gid_ex", "verbs_get_ctx",
                "ibv_wc_status_str")) {
            assertFalse(verbs.contains(f), f);
        }
        assertTrue(counted.get("rdma/rdma_cma.h").contains("rdma_create_ep"));
        assertFalse(counted.get("rdma/rdma_cma.h").contains("rdma_event_str"));
        assertTrue(counted.get("rdma/rdma_verbs.h").contains("rdma_post_send"), "static inline in rdma_verbs.h");
    }

    @Test
    void auxInfoLinesOfOtherFilesAreSkipped() {
        Map<String, SortedSet<String>> parsed = HeaderFunctions.parse(List.of(
                "/* compiled from: . */",
                "/* /usr/include/string.h:43:NC */ extern void *memcpy (void *, const void *, size_t);",
                "/* /usr/include/infiniband/verbs.h:2079:NC */ extern struct ibv_device **ibv_get_device_list "
                        + "(int *);",
                "/* /usr/include/infiniband/verbs.h:1325:NF */ static void ibv_wr_send (struct ibv_qp_ex *qp); "
                        + "/* (qp) struct ibv_qp_ex *qp; */"));
        assertEquals(List.of("ibv_get_device_list", "ibv_wr_send"), List.copyOf(parsed.get("infiniband/verbs.h")));
        assertTrue(parsed.get("rdma/rdma_cma.h").isEmpty());
    }

    @Test
    void aKernelDependentOutcomeNamesItsKernels() {
        String source = """
                @DeviceTest
                class AtomicWriteDeviceTest {
                    @Test
                    @EveryKernel
                    @Exercises(value = "ibv_wr_atomic_write", kernel = "6.12")
                    @Exercises(value = "ibv_wr_atomic_write", kernel = "6.1", refused = "no ATOMIC_WRITE in 6.1's rxe")
                    void atomicWrite() {}

                    @Test
                    @Exercises(value = "ibv_wr_flush", kernel = "6.12")
                    void flush() {}
                }
                """;
        List<Exercise> found = ExercisesScan.scanFile(Path.of("m/src/test/java/x/AtomicWriteDeviceTest.java"), source);
        assertEquals(List.of("6.12", "6.1", "6.12"), found.stream().map(Exercise::kernel).toList());
        Coverage c = new Coverage(inVerbsH("ibv_wr_atomic_write", "ibv_wr_flush"),
                reachedBy("ibv_wr_atomic_write", "QueuePairEx#atomicWrite", "ibv_wr_flush", "QueuePairEx#flush"), found);
        assertTrue(c.generate().contains("| `ibv_wr_atomic_write` | `QueuePairEx#atomicWrite` | works on Soft-RoCE "
                + "(Linux 6.12); refused on Soft-RoCE (Linux 6.1): no ATOMIC_WRITE in 6.1's rxe | "
                + "[AtomicWriteDeviceTest#atomicWrite](../../m/src/test/java/x/AtomicWriteDeviceTest.java) | 6.1, 6.12 |"),
                c.generate());
        assertEquals(List.of("@Exercises on m/src/test/java/x/AtomicWriteDeviceTest.java AtomicWriteDeviceTest#flush "
                + "describes kernel 6.12, but the test is not @EveryKernel, so CI never runs it there"), c.problems());
    }

    @Test
    void aClassPassedByHandOnTheOtherKernelSaysSo() {
        String source = """
                @DeviceTest
                class XrcDeviceTest {
                    @Test
                    @Exercises(value = "ibv_open_xrcd", refused = "no XRC in rxe")
                    void xrcDomainsAreRefused() {}
                }
                """;
        String everyKernel = """
                @DeviceTest
                @EveryKernel
                class RcDeviceTest {
                    @Test
                    @Exercises("ibv_alloc_pd")
                    void hello() {}
                }
                """;
        List<Exercise> found = new java.util.ArrayList<>(
                ExercisesScan.scanFile(Path.of("m/src/test/java/x/XrcDeviceTest.java"), source));
        found.addAll(ExercisesScan.scanFile(Path.of("m/src/test/java/x/RcDeviceTest.java"), everyKernel));
        Coverage c = new Coverage(inVerbsH("ibv_alloc_pd", "ibv_open_xrcd"), reachedBy("ibv_alloc_pd",
                "Context#allocateProtectionDomain", "ibv_open_xrcd", "Context#openXrcDomain"), found,
                Map.of("XrcDeviceTest", "2026-11-26", "RcDeviceTest", "2026-11-25", "GoneDeviceTest", "2026-11-25"));
        String page = c.generate();
        assertTrue(page.contains("[XrcDeviceTest#xrcDomainsAreRefused](../../m/src/test/java/x/XrcDeviceTest.java) | "
                + "6.1, 6.12 (by hand, 2026-11-26) |"), page);
        assertTrue(page.contains("[RcDeviceTest#hello](../../m/src/test/java/x/RcDeviceTest.java) | 6.1, 6.12 |"), page);
        assertEquals(List.of("PASSED_BY_HAND_ON_OTHER_KERNEL names GoneDeviceTest, which has no @Exercises",
                "PASSED_BY_HAND_ON_OTHER_KERNEL names RcDeviceTest, which CI runs on 6.12 (@EveryKernel): drop the entry"),
                c.problems());
    }

    /** The headers' functions of a test: {@code functions} in verbs.h, none in the others. */
    private static Map<String, SortedSet<String>> inVerbsH(String... functions) {
        Map<String, SortedSet<String>> declared = new java.util.LinkedHashMap<>();
        declared.put("infiniband/verbs.h", new java.util.TreeSet<>(List.of(functions)));
        declared.put("rdma/rdma_cma.h", new java.util.TreeSet<>());
        declared.put("rdma/rdma_verbs.h", new java.util.TreeSet<>());
        return declared;
    }

    /** What reaches each function: pairs of a function and the one API member that reaches it. */
    private static Map<String, SortedSet<String>> reachedBy(String... functionAndMember) {
        Map<String, SortedSet<String>> reached = new java.util.HashMap<>();
        for (int i = 0; i < functionAndMember.length; i += 2) {
            reached.put(functionAndMember[i], new java.util.TreeSet<>(List.of(functionAndMember[i + 1])));
        }
        return reached;
    }

    @Test
    void exercisesAreReadFromTheSource() {
        String source = """
                // SPDX-License-Identifier: Apache-2.0
                package x;

                @DeviceTest
                @EveryKernel
                class FooDeviceTest {
                    /** Not this: @Exercises("ibv_in_a_comment") */
                    @Test
                    @Exercises({"ibv_a", "ibv_b"})
                    void works() {}

                    @Exercises(value = "ibv_c", refused = "rxe has " + "no such thing")
                    @Timeout(5)
                    public void refuses(int x) {}
                }
                """;
        List<Exercise> found = ExercisesScan.scanFile(Path.of("m/src/test/java/x/FooDeviceTest.java"), source);
        assertEquals(2, found.size());
        assertEquals("FooDeviceTest#works", found.get(0).name());
        assertEquals(List.of("ibv_a", "ibv_b"), found.get(0).functions());
        assertFalse(found.get(0).isRefusal());
        assertTrue(found.get(0).everyKernel(), "from the class");
        assertEquals("FooDeviceTest#refuses", found.get(1).name());
        assertEquals("rxe has no such thing", found.get(1).refused());
    }
}
