// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/** A row of a result table: the message size and the number of iterations it was measured over. */
interface ResultRow {
    /** {@return the message size in bytes} */
    long size();

    /** {@return the iterations measured} */
    long iters();
}
