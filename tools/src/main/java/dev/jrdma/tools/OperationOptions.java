// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.UsageErrors.usage;

import dev.jrdma.tools.perftest.MemorySettings;
import dev.jrdma.tools.perftest.OperationSettings;
import dev.jrdma.tools.perftest.TestKind;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * perftest's other verbs: --send_with_imm on the send tests, --write_with_imm
 * ({@link WriteImmediateOptions}) on the write tests, --data_validation
 * ({@link DataValidationOptions}, with --data_validation_debug) on write-bw and read-bw, as
 * perftest's usage() offers them. perftest 26.04 also lists both on send-bw and atomic-bw but
 * refuses --data_validation there at run time: jrdma refuses both by name
 * ({@link RefusedOptions.DataValidation}).
 */
final class OperationOptions {
    @Option(names = "--send_with_imm",
            description = "Send with immediate data (SEND_WITH_IMM) instead of SEND; the receiver fails on a "
                    + "message without it, so give it to both sides.")
    boolean sendWithImmediate;

    /** --write_with_imm: the write tests. */
    static final class WriteImmediateOptions {
        @Option(names = "--write_with_imm",
                description = "RDMA write with immediate data (RDMA_WRITE_WITH_IMM) instead of RDMA write: each "
                        + "write consumes a receive at the peer, so the write-bw server runs too and prints its own "
                        + "row, and write-lat's sides wait for completions instead of polling the buffer. Give it "
                        + "to both sides.")
        boolean writeWithImmediate;
    }

    /** --data_validation: write-bw and read-bw. */
    static final class DataValidationOptions {
        @Option(names = "--data_validation",
                description = "Check the data: the side the bytes come from fills them with a known pattern, and "
                        + "the side they land on (the write-bw server, the read-bw client; both with -b) checks "
                        + "every byte after the run and prints PASSED, or fails naming the first wrong byte. RC, "
                        + "one size (no -a), -t 32 or more, no --payload_file_path or --use-null-mr (as perftest). "
                        + "Give it to both sides.")
        boolean dataValidation;

        @Option(names = "--data_validation_debug",
                description = "perftest 26.04: verbose output of --data_validation. The checking side prints on "
                        + "stderr, each line starting '[validation]', each QP's landing bytes, pattern and bytes "
                        + "checked; on a wrong byte, the 16 bytes around it as expected and as found. Without "
                        + "--data_validation it does nothing (as perftest).")
        boolean dataValidationDebug;
    }

    /**
     * The settings.
     *
     * @param spec     the command, for usage errors
     * @param send     the test's --send_with_imm, or null where it does not offer it
     * @param write    the test's --write_with_imm, or null where it does not offer it
     * @param validate the test's --data_validation, or null where it does not offer it
     * @param common   the common options (-c, -a, -t)
     * @param memory   the resolved memory options (--payload_file_path, --use-null-mr)
     * @throws ParameterException naming --data_validation where perftest's rules refuse it
     */
    static OperationSettings resolve(CommandSpec spec, OperationOptions send, WriteImmediateOptions write,
                                     DataValidationOptions validate, PerftestOptions.CommonOptions common,
                                     MemorySettings memory) {
        boolean s = send != null && send.sendWithImmediate;
        boolean w = write != null && write.writeWithImmediate;
        boolean v = validate != null && validate.dataValidation;
        boolean debug = v && validate.dataValidationDebug;
        if (v) {
            String refused = common.connection != TestKind.Connection.RC ? "needs RC (-c RC)"
                    : common.all ? "excludes -a (one size only)"
                    : common.txDepth < 32 ? "needs -t 32 or more, got " + common.txDepth
                    : memory.payload().length > 0 ? "excludes --payload_file_path (the pattern is its own)"
                    : memory.nullMr() ? "excludes --use-null-mr (no bytes to check)"
                    : w ? "excludes --write_with_imm"
                    : null;
            if (refused != null) {
                throw usage(spec, "option '--data_validation': " + refused);
            }
        }
        return s || w || v ? new OperationSettings(s, w, v, debug) : OperationSettings.DEFAULT;
    }
}
