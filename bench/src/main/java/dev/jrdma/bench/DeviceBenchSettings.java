// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The settings of the benchmarks that need a device: an operation on a device takes
 * microseconds (more under emulation), so microseconds and 2 s iterations.
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public abstract class DeviceBenchSettings extends BenchSettings {}
