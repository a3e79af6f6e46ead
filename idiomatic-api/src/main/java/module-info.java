// SPDX-License-Identifier: Apache-2.0
/**
 * jrdma: RDMA verbs for Java 22+. The public API is the single package {@code dev.jrdma};
 * the raw bindings it is built on ({@code dev.jrdma.bindings}) are an implementation detail.
 */
module dev.jrdma {
    requires dev.jrdma.bindings;
    requires jdk.jfr;
    exports dev.jrdma;
    exports dev.jrdma.cm;
}
