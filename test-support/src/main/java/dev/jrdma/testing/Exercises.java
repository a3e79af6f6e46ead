// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The rdma-core C functions a test calls through the typed API and checks the effect of, for
 * the coverage page (docs/guide/coverage.md): each function there names the test that shows it
 * working on the test device, or the test that asserts the device's refusal.
 *
 * <p>{@link #refused()} empty: the test shows the functions working. Non-empty: the test asserts
 * that the device refuses them with one clear exception (device, capability, errno), and the
 * text says why, as a user would want to read it (e.g. {@code "rxe has no XRC: librxe 44 leaves
 * open_xrcd to libibverbs' EOPNOTSUPP stub"}).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
public @interface Exercises {
    /** {@return the C function names, as the headers spell them} */
    String[] value();

    /** {@return why the device refuses the functions; empty when the test shows them working} */
    String refused() default "";
}
