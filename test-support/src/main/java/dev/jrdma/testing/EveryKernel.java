// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks device tests that CI runs on every kernel it boots, not only on the default one: all
 * device tests run on Linux 6.1 (scripts/softroce), these also on 6.12
 * ({@code scripts/softroce --kernel 6.12}, {@code scripts/device-tests --tag every-kernel}).
 * Put it on the tests of what differs between the kernels' rxe (atomic write and flush exist only
 * in 6.12's; such a test says which behaviour it expects on which kernel, e.g. through
 * {@link Kernel#atLeast}), and on the few that stand for the basics working there.
 * The coverage page (docs/guide/coverage.md) lists both kernels for them.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("every-kernel")
public @interface EveryKernel {}
