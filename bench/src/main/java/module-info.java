/** JMH benchmarks of the bindings and the API (planned). */
module dev.jrdma.bench {
    requires dev.jrdma;
}
