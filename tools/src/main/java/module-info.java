/** The jrdma command line: perftest-style tests and device tools (planned). */
module dev.jrdma.tools {
    requires dev.jrdma;
}
