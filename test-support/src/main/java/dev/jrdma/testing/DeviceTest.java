// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks tests that need an RDMA device. Maven's host run excludes the tag; scripts/device-tests
 * runs it on the host's devices or in the Soft-RoCE VM. Without a device they fail, never skip.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("device")
public @interface DeviceTest {}
