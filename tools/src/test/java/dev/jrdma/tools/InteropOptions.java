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

    /** --reversed and the report options that change what the sides exchange. */
    static List<Case> reports() {
        return List.of();
    }

    /**
     * Rate limits, immediate data, data validation. perftest 6.06 has the rate limiter but not
     * --send_with_imm, --write_with_imm or --data_validation (6.2x options: a 6.06 peer refuses
     * them), so only the limiter is tried against it: the software limiter pacing the sender, and
     * a bare --rate_limit, which both tools ask the device for (HW) and, refused by rxe, fall back
     * to the software limiter with a warning.
     */
    static List<Case> rateAndOperations() {
        return List.of(
                new Case(TestKind.WRITE_BW, "--rate_limit 100 --rate_units p --rate_limit_type SW --burst_size 5"),
                new Case(TestKind.SEND_BW, "--rate_limit 10 --rate_units M -s 4096"));
    }
}
