// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import dev.jrdma.tools.perftest.TestKind;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The wire-visible perftest options of the interop matrix ({@link TwoNodeInteropDeviceTest}), by
 * option group: each case runs in the matrix's three pairings (jrdma with jrdma, and with perftest
 * 6.06 on either side). The option string is given to both sides as is, so it must mean the same
 * to jrdma and to perftest. scripts/lib/two-node-ci.sh picks the cases CI runs; all of them run
 * with {@code JRDMA_TWO_NODE_ONLY=""}.
 */
final class InteropOptions {
    private InteropOptions() {
    }

    /** One test with one option string. */
    record Case(TestKind kind, String options) {
    }

    /** The option strings tried with {@code kind}, in the matrix's order. */
    static List<String> forKind(TestKind kind) {
        List<String> options = new ArrayList<>();
        Stream.of(posting(), addressing(), reports(), rateAndOperations()).flatMap(List::stream)
                .filter(c -> c.kind() == kind).forEach(c -> options.add(c.options()));
        return options;
    }

    /** Post lists, SRQ, the old post path. */
    static List<Case> posting() {
        return List.of();
    }

    /** Traffic class, flow label, IPv6 GIDs, multicast, --dont_xchg_versions. */
    static List<Case> addressing() {
        return List.of();
    }

    /**
     * --reversed and the report options that change what the sides exchange: --reversed swaps
     * perftest's machine roles (the server sends), so the sides run each other's loops while the
     * exchange keeps its order: write_bw's passive side is the client, send_bw's receiver too.
     * The other report and run-control options change only one side's output or timing.
     */
    static List<Case> reports() {
        return List.of(new Case(TestKind.WRITE_BW, "--reversed"), new Case(TestKind.SEND_BW, "--reversed"),
                new Case(TestKind.READ_BW, "--reversed"));
    }

    /** Rate limits, immediate data, data validation. */
    static List<Case> rateAndOperations() {
        return List.of();
    }
}
