// SPDX-License-Identifier: Apache-2.0
/**
 * jrdma: RDMA verbs for Java 22+. The public API is {@code dev.jrdma}, the verbs
 * (libibverbs), and {@code dev.jrdma.cm}, the connection manager (librdmacm: rdma_cma.h and
 * rdma_verbs.h), which uses the verbs and is not used by them. {@code dev.jrdma.internal}, the
 * plumbing both share, and the raw bindings they are built on ({@code dev.jrdma.bindings}) are
 * implementation details: not exported.
 */
module dev.jrdma {
    requires dev.jrdma.bindings;
    requires jdk.jfr;
    exports dev.jrdma;
    exports dev.jrdma.cm;
    exports dev.jrdma.rsocket;
}
