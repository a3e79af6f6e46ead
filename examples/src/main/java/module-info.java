// SPDX-License-Identifier: Apache-2.0
/**
 * The jrdma examples: one small program per RDMA pattern, written against the public
 * {@code dev.jrdma} API only. The guide's tutorial pages quote their marked regions.
 */
module dev.jrdma.examples {
    requires dev.jrdma;
}
