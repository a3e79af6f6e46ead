// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/**
 * Other verbs: --send_with_imm, --write_with_imm, --data_validation (and -e on the atomic tests,
 * which is EventOptions').
 * <p>
 * One group of {@link PerftestSettings}, resolved from its picocli mixin by
 * {@code PerftestCommands}; {@link #DEFAULT} is perftest's behaviour when none of the group's
 * options is given (and what a test that does not offer them runs with).
 *
 * @param sendWithImmediate --send_with_imm: SEND_WITH_IMM instead of SEND; every message carries
 *                          {@link #IMMEDIATE}, and the receiver fails on a completion without
 *                          immediate data (perftest's IBV_WC_WITH_IMM check), so both sides need it
 * @param writeWithImmediate --write_with_imm: RDMA_WRITE_WITH_IMM instead of RDMA_WRITE; each write
 *                          consumes a receive at the peer, which then runs too (write-bw: perftest's
 *                          run_iter_bw_server; write-lat: a ping-pong of completions, not of polled
 *                          bytes), with the same check; both sides need it (perftest: SYMMETRIC)
 * @param dataValidation    --data_validation (write-bw, read-bw): the source bytes carry a known
 *                          pattern and the side where they land checks every byte after the run
 * @param dataValidationDebug --data_validation_debug with --data_validation: the check says on
 *                          stderr what it compares per QP and, on a wrong byte, the bytes around it
 */
public record OperationSettings(boolean sendWithImmediate, boolean writeWithImmediate, boolean dataValidation,
                                boolean dataValidationDebug) {
    /** None of the group's options given. */
    public static final OperationSettings DEFAULT = new OperationSettings(false, false, false, false);

    /** {@return whether every message carries immediate data and consumes a receive} */
    public boolean immediate() {
        return sendWithImmediate || writeWithImmediate;
    }

    /** The immediate data of every message: perftest's ({@code ibv_wr_send_imm(qpx, 0)}). */
    public static final int IMMEDIATE = 0;

    /** The group's parameters for --json/--csv (perftest's JSON has none of them). */
    public java.util.Map<String, Object> toParameters() {
        java.util.Map<String, Object> p = new java.util.LinkedHashMap<>();
        p.put("send_with_imm", sendWithImmediate);
        p.put("write_with_imm", writeWithImmediate);
        p.put("data_validation", dataValidation);
        p.put("data_validation_debug", dataValidationDebug);
        return p;
    }
}
