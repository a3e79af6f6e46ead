// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import picocli.CommandLine.Option;

/**
 * perftest's options that ask for what jrdma does anyway, accepted so that a perftest command
 * line runs unchanged. Each says why it changes nothing. perftest's getopt takes them on every
 * test, so jrdma does too.
 */
final class NoEffectOptions {
    @Option(names = "--no_enhanced_reorder",
            description = "As perftest: do not let the receiver consume out-of-order work requests. jrdma never "
                    + "enables that mlx5 capability (perftest 26.04 does on mlx5 RC QPs), so it has no effect.")
    boolean noEnhancedReorder;

    @Option(names = "--disable_pcie_relaxed",
            description = "As perftest: register memory without PCIe relaxed ordering. jrdma never asks for relaxed "
                    + "ordering (IBV_ACCESS_RELAXED_ORDERING), so it has no effect.")
    boolean disablePcieRelaxed;

    @Option(names = "--inline_recv", paramLabel = "BYTES",
            description = "perftest 6.06's inline receive size: 6.06 parses it and uses it nowhere (later perftest "
                    + "dropped it); accepted, no effect.")
    Integer inlineRecv;
}
