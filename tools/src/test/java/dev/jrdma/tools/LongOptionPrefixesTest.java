// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** getopt_long's abbreviations: exact wins, a unique prefix is taken, an ambiguous one names the candidates. */
class LongOptionPrefixesTest {
    private static String[] expand(String... args) {
        CommandLine cl = Jrdma.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        return LongOptionPrefixes.expand(cl, args);
    }

    @Test
    void aUniquePrefixStandsForTheOption() {
        assertArrayEquals(new String[] {"send-lat", "--iters", "100", "--size=64", "10.0.0.1"},
                expand("send-lat", "--iter", "100", "--siz=64", "10.0.0.1"));
        assertArrayEquals(new String[] {"write-bw", "--bidirectional"}, expand("write-bw", "--bid"));
    }

    @Test
    void anExactNameWinsOverLongerOnes() {
        // --qp is exact although --qp-timeout starts with it (getopt takes the exact match).
        assertArrayEquals(new String[] {"write-bw", "--qp", "2"}, expand("write-bw", "--qp", "2"));
    }

    @Test
    void underscoresAndHyphensDiffer() {
        // --report_ is a prefix of --report_gbits only; --report- of no BW option but --report-... names.
        assertArrayEquals(new String[] {"write-bw", "--report_gbits"}, expand("write-bw", "--report_"));
        assertArrayEquals(new String[] {"write-bw", "--retry_count", "3"}, expand("write-bw", "--retry_c", "3"));
        assertArrayEquals(new String[] {"write-bw", "--retry-count", "3"}, expand("write-bw", "--retry-c", "3"));
    }

    @Test
    void aliasesOfOneOptionAreNotAmbiguous() {
        // --retry matches --retry-count and --retry_count: the same option, as getopt treats
        // entries with the same flag and value.
        assertArrayEquals(new String[] {"write-bw", "--retry-count", "3"}, expand("write-bw", "--retry", "3"));
    }

    @Test
    void anAmbiguousPrefixNamesTheCandidates() {
        ParameterException e = assertThrows(ParameterException.class, () -> expand("send-lat", "--i", "3"));
        assertTrue(e.getMessage().startsWith("option '--i' is ambiguous; possibilities: "), e.getMessage());
        assertTrue(e.getMessage().contains("'--ib-dev'") && e.getMessage().contains("'--iters'")
                && e.getMessage().contains("'--ib-port'"), e.getMessage());
    }

    @Test
    void valuesAndOperandsAreLeftAlone() {
        // "--iter" as the value of --histogram is a file name, not an option; after "--" nothing is rewritten.
        assertArrayEquals(new String[] {"send-lat", "--histogram", "--iter", "-s", "--x"},
                expand("send-lat", "--histogram", "--iter", "-s", "--x"));
        assertArrayEquals(new String[] {"send-lat", "--", "--iter"}, expand("send-lat", "--", "--iter"));
        assertArrayEquals(new String[] {"send-lat", "--nosuch"}, expand("send-lat", "--nosuch"));
    }

    @Test
    void theCommandLineTakesPrefixesAndReportsAmbiguityWithExit2() {
        StringWriter err = new StringWriter();
        int code = Jrdma.run(new PrintWriter(new StringWriter()), new PrintWriter(err), "send-bw", "--re", "10.0.0.1");
        assertEquals(2, code, err.toString());
        assertTrue(err.toString().startsWith("jrdma send-bw: option '--re' is ambiguous; possibilities: "),
                err.toString());
        assertEquals(1, err.toString().lines().count(), err.toString());
        // A prefix of a refused option reaches its refusal.
        err = new StringWriter();
        code = Jrdma.run(new PrintWriter(new StringWriter()), new PrintWriter(err), "send-bw", "--use_cuda_b", "0");
        assertEquals(2, code, err.toString());
        assertTrue(err.toString().contains("option '--use_cuda_bus_id'"), err.toString());
    }
}
