// SPDX-License-Identifier: Apache-2.0
/** The jrdma command line: perftest-compatible tests and device tools. */
module dev.jrdma.tools {
    requires dev.jrdma;
    // --version (shim.LibraryInfo: the rdma-core the bindings came from, the libibverbs loaded), and
    // the libc calls of --pin-cpu and the progress line (isatty), through the bindings' Posix shim.
    requires dev.jrdma.bindings;
    requires info.picocli;
    requires com.fasterxml.jackson.core;
    // HdrHistogram 2.2.2 has no module descriptor; this is its automatic module name.
    requires HdrHistogram;
    // --plot: PNG through java.desktop's ImageIO, SVG through XChart's vector encoder.
    requires org.knowm.xchart;
    requires java.desktop;
    // TCP keepalive tuning of the out-of-band channel (jdk.net.ExtendedSocketOptions).
    requires jdk.net;
    // --warm-up: the JIT's total compilation time tells when the data path is compiled.
    requires java.management;
    // --run_infinitely: SIGINT stops the soak run and lets it end cleanly (sun.misc.Signal, by reflection).
    requires jdk.unsupported;

    exports dev.jrdma.tools.perftest;
    // picocli reflects on the command classes (annotated fields and methods).
    opens dev.jrdma.tools to info.picocli;
}
