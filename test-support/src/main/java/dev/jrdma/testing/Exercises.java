// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
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
 *
 * <p>Where the outcome depends on the kernel, a test marked {@link EveryKernel} says which one
 * it expects on which (branching on {@link Kernel#atLeast}) and carries one annotation per
 * kernel, e.g. {@code @Exercises(value = "ibv_wr_atomic_write", kernel = "6.12")} and
 * {@code @Exercises(value = "ibv_wr_atomic_write", kernel = "6.1", refused = "rxe in 6.1 has no
 * ATOMIC_WRITE opcode")}. The page reads the annotations from the source, as written: string
 * literals only.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Repeatable(Exercises.List.class)
public @interface Exercises {
    /** {@return the C function names, as the headers spell them} */
    String[] value();

    /** {@return why the device refuses the functions; empty when the test shows them working} */
    String refused() default "";

    /**
     * {@return the kernel series ({@code "6.1"}, {@code "6.12"}) on which this state holds; empty:
     * on every kernel the test runs on}
     */
    String kernel() default "";

    /** The container of repeated {@link Exercises}. */
    @Target({ElementType.TYPE, ElementType.METHOD})
    @Retention(RetentionPolicy.RUNTIME)
    @interface List {
        /** {@return the annotations} */
        Exercises[] value();
    }
}
