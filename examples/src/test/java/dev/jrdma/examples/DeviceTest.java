// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks tests that need an RDMA device. Maven's host run excludes them; scripts/device-tests
 * runs them (in the Soft-RoCE VM through scripts/softroce). Without a device they fail.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("device")
@interface DeviceTest {}
