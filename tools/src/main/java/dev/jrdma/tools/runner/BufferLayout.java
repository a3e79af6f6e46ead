// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.MemoryRegion;

/**
 * The layout of a {@link Side}'s test buffer as perftest's create_mr makes it: per QP a send slot and a receive slot of
 * {@code slot} bytes each.
 *
 * @param mr the buffer's region (the first QP's with --mr_per_qp), from
 *     {@link PostResources#allocateBuffers} with the memory options
 * @param slot B = max(largest size (+ the GRH on UD), page size), rounded up to pages
 */
record BufferLayout(MemoryRegion mr, long slot) {
}
