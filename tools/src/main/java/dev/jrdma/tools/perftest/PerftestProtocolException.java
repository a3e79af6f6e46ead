// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.io.IOException;

/**
 * The peer on perftest's out-of-band TCP channel sent something we cannot accept (malformed,
 * truncated, incompatible version) or closed the connection. The message names the step and
 * the field, so it can be printed as one line. A peer that does not answer in time is a
 * {@link dev.jrdma.RdmaTimeoutException} instead, as every timed-out wait in jrdma.
 */
public final class PerftestProtocolException extends IOException {
    private static final long serialVersionUID = 1L;

    public PerftestProtocolException(String message) {
        super(message);
    }

    public PerftestProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
