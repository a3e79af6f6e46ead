// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks tests that need the two-node testbed ({@code scripts/softroce --nodes 2}, see
 * {@link TwoNodes}). Neither Maven's host run nor the one-node device run includes the tag;
 * {@code scripts/device-tests --two-node} runs it on node 1.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("two-node")
public @interface TwoNodeTest {}
