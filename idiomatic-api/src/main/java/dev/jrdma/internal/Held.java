// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

/**
 * Native calls begun on some resources by {@link CoreAccess#hold}: closing it ends them. An
 * {@link AutoCloseable} whose {@code close()} throws nothing, for try-with-resources.
 */
public interface Held extends AutoCloseable {
    @Override
    void close();
}
