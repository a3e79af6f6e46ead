// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The rdma-core C functions ({@code infiniband/verbs.h}, {@code rdma/rdma_cma.h}, {@code rdma/rsocket.h},
 * {@code rdma/rdma_verbs.h}) that this API member is the way to reach, e.g.
 * {@code @Reaches("ibv_modify_srq")}. Documentation only: the coverage page
 * (docs/guide/coverage.md) is generated from these annotations, and its test fails when a
 * header function is neither reached by a member nor accounted for otherwise.
 *
 * <p>Name a function on the member an application calls for it, not on every internal call
 * site: {@code close()} reaches {@code ibv_destroy_qp}, the constructor does not. A resource's
 * {@code close()} is final in its base class, so its destroy function goes on the resource's
 * {@code release()}, which only {@code close()} calls; the page shows it as {@code close()}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.TYPE, ElementType.FIELD})
public @interface Reaches {
    /** {@return the C function names, as the headers spell them} */
    String[] value();
}
