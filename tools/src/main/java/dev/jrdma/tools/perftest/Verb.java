// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/** perftest's {@code VerbType}, in its order, with the names its header prints ({@code testsStr}). */
public enum Verb {
    SEND("Send"), WRITE("RDMA_Write"), READ("RDMA_Read"), ATOMIC("Atomic");

    private final String title;

    Verb(String title) {
        this.title = title;
    }

    /** The word in perftest's header line, e.g. "RDMA_Write". */
    public String title() {
        return title;
    }

    /** Latency deltas of send and write tests are ping-pong round trips, halved for the table. */
    public boolean latencyIsRoundTrip() {
        return this == SEND || this == WRITE;
    }
}
