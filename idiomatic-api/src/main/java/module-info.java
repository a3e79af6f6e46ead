/**
 * jrdma: RDMA verbs for Java 22+. The typed API is being built on top of the raw bindings in
 * {@code dev.jrdma.bindings}; see the project README for its status.
 */
module dev.jrdma {
    requires dev.jrdma.bindings;
}
