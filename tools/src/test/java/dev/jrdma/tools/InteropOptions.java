// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import dev.jrdma.tools.perftest.TestKind;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The wire-visible perftest options of the interop matrix ({@link TwoNodeInteropDeviceTest}), by
 * option group: each case runs in the matrix's three pairings (jrdma with jrdma, and with perftest
 * 6.06 on either side). The option string is given to both sides as is (but for {self}, the wire
 * address of the node the side runs on), so it must mean the same to jrdma and to perftest.
 * scripts/lib/two-node-ci.sh picks the cases CI runs; all of them run with
 * {@code JRDMA_TWO_NODE_ONLY=""}.
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

    /**
     * Post lists (the matrix's 50 iterations are whole lists of 5), receive lists, an SRQ on the
     * receiving sides (its number stays 0 in the key message, as perftest's), a region per QP
     * (each QP announces its own rkey and address).
     */
    static List<Case> posting() {
        return List.of(
                new Case(TestKind.WRITE_BW, "-l 5"),
                new Case(TestKind.SEND_BW, "-l 5 --recv_post_list 5"),
                new Case(TestKind.SEND_BW, "--use-srq"),
                new Case(TestKind.SEND_LAT, "--use-srq"),
                new Case(TestKind.READ_BW, "-q 2 --mr_per_qp"));
    }

    /**
     * Traffic class and flow label, on a connected QP's route and on a UD address handle (perftest
     * 6.06 takes one --flow_label value and sets it on raw Ethernet QPs only; 26.04 sets it in the
     * GRH). Not here: an IPv6 GID needs another -x than the matrix's -x 1; perftest (5.70 and
     * later) exits at its version check with --dont_xchg_versions; and perftest's -g receiver
     * joins no IP group, which rxe's multicast reception needs (see runner.Addressing), so the
     * jrdma client with a perftest server would wait for it without end. Tried once across the
     * wire (send-bw -g -M 0:0:0:0:0:0:0:0:0:0:255:255:239:1:2:3): jrdma with jrdma and a perftest
     * client with a jrdma server both ran (the jrdma server received all 50 iterations).
     * <p>
     * IPv6 GIDs: --ipv6 (both tools then pick an IPv6 RoCE v2 GID, rxe's link-local one) and -x 0
     * (that GID by index); the matrix's -x 1 is left out for them. --source_ip (perftest 6.06's
     * name) with {self}, the address of the node each side runs on: a server listens on it, a
     * client's connection leaves from it. -z: the exchange over rdma_cm across the wire, the test
     * QPs still connected by verbs.
     */
    static List<Case> addressing() {
        return List.of(new Case(TestKind.WRITE_BW, "--tclass 40 --flow_label 5"),
                new Case(TestKind.SEND_BW, "-c UD --tclass 72"),
                new Case(TestKind.SEND_LAT, "--ipv6"),
                new Case(TestKind.WRITE_BW, "-x 0"),
                new Case(TestKind.WRITE_LAT, "--source_ip {self}"),
                new Case(TestKind.SEND_BW, "-z"));
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
