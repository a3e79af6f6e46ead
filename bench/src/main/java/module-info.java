// SPDX-License-Identifier: Apache-2.0
/**
 * JMH benchmarks of the bindings and the API. Run from the shaded jar (class path):
 * {@code java --enable-native-access=ALL-UNNAMED -jar bench/target/benchmarks.jar}.
 */
module dev.jrdma.bench {
    requires dev.jrdma;
    requires dev.jrdma.bindings;
    requires jmh.core;
    opens dev.jrdma.bench;
}
