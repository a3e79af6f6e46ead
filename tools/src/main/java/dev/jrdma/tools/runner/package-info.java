// SPDX-License-Identifier: Apache-2.0
/**
 * The device part of jrdma's perftest-compatible tests, on the public {@code dev.jrdma} API; the
 * protocol, report math and output it drives live in {@code dev.jrdma.tools.perftest}.
 *
 * <h2>Pieces</h2>
 * <ul>
 * <li>{@link dev.jrdma.tools.runner.PerftestRunner}: the session's set-up - opens the device,
 *     decides the port, GID, read depth, inline size and (with the peer) the MTU and sizes
 *     ({@code SessionSettings}), warms the JIT up on a loopback pair
 *     ({@code WarmUp}) and opens the out-of-band channel (TCP, or rdma_cm
 *     with {@code RdmaCmSetup}).</li>
 * <li>{@code TestRun}: the run - the steps the schedule calls: connect,
 *     measure each size, print or exchange the rows ({@code RunOutput}).</li>
 * <li>{@code Side}: perftest's pingpong_context - the queues on the device,
 *     with its {@code BufferLayout}, its
 *     {@code PeerRecords} and the posting resources of the post options
 *     ({@code PostResources}).</li>
 * <li>{@code LatencyLoops} and {@code BandwidthLoops}:
 *     perftest's measurement loops; they read what they use into locals before looping and
 *     allocate nothing inside. {@code SendPoster},
 *     {@code Sends} and {@code Completions} post and
 *     poll for them; {@code StopRule} says when a run ends.</li>
 * </ul>
 */
package dev.jrdma.tools.runner;
