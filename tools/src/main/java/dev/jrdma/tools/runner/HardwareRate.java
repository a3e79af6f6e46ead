// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.QueuePair;
import dev.jrdma.RateLimit;
import dev.jrdma.RdmaException;
import dev.jrdma.tools.perftest.RateSettings;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.Verb;
import java.io.IOException;

/**
 * --rate_limit_type HW and PP: asks the device to limit each connected QP's send rate
 * ({@link RateLimit}, ibv_modify_qp_rate_limit). Where the device refuses (rxe has no packet
 * pacing), the answer decides as perftest's does: an explicit HW or PP type is an error that
 * quotes the device's answer (device, capability, errno); a bare --rate_limit falls back to the
 * software limiter with a warning, as perftest's "The QP failed to accept HW rate limit,
 * providing SW rate limit".
 */
final class HardwareRate {
    private HardwareRate() {
    }

    /** Applies the hardware limit to the side's QPs (RTS), or falls back; nothing without one. */
    static void apply(Side side, Console console) throws IOException {
        RateSettings rate = side.rate;
        if (!rate.hardware()) {
            return;
        }
        RateLimit limit = rate.hardwareLimit();
        try {
            for (QueuePair qp : side.qps) {
                limit.applyTo(qp);
            }
        } catch (RdmaException e) {
            TestKind kind = side.kind;
            boolean softwareCannot = kind.verb() == Verb.ATOMIC || (kind.verb() == Verb.SEND && side.s.bidirectional());
            if (rate.typeGiven() || softwareCannot) {
                throw new IOException("--rate_limit_type " + rate.type() + ": " + side.session.context().name() + " refused the QP "
                        + "rate limit of " + limit.kilobitsPerSecond() + " kb/s (" + rate.describe() + "): " + e.getMessage()
                        + (rate.typeGiven() ? "" : "; the SW limiter cannot pace this test instead"), e);
            }
            console.error("warning: the QPs failed to accept the HW rate limit, the SW rate limiter paces instead ("
                    + side.session.context().name() + ": " + e.getMessage() + ")");
            side.rate = rate.asSoftware();
        }
    }
}
