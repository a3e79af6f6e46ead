// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.UsageErrors.needs;
import static dev.jrdma.tools.UsageErrors.optional;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code -X/--vector}: the completion vector the test's completion queues signal their events
 * on (perftest's {@code eq_num}). Offered where perftest offers it, on the tests that have
 * {@code -e} (every verb but write); like perftest it needs {@code -e}, since only events go
 * through a vector. The device's own range is checked when the queues are created
 * ({@code Context#createCompletionQueue(int, CompletionChannel, int)} names device, value and range).
 */
final class CompletionVectorOption {
    /** perftest's MAX_EQ_NUM: the largest -X it parses, before the device is asked. */
    static final int MAX = 2048;

    @Option(names = {"-X", "--vector"}, paramLabel = "VECTOR",
            description = "The completion vector of the completion queues' events (0 to the device's "
                    + "num_comp_vectors - 1; needs -e).")
    Integer vector;

    /**
     * {@return the vector, or -1 for the device's default (none given)}
     *
     * @param events whether -e was given
     * @throws ParameterException naming -X when it is out of perftest's range or -e is missing
     */
    int resolve(CommandSpec spec, boolean events) {
        int v = optional(spec, "'--vector' (-X)", vector, 0, MAX, -1);
        if (vector != null && !events) {
            // perftest: " Events must be enabled to select a completion vector"
            throw needs(spec, "'--vector' (-X)", "--events (-e): "
                    + "a completion vector carries completion events, and without -e the test polls");
        }
        return v;
    }
}
