// SPDX-License-Identifier: Apache-2.0
/**
 * RDMA sockets (librdmacm's rsockets, {@code rdma/rsocket.h}) in the shape of java.nio:
 * {@link dev.jrdma.rsocket.RdmaSocketChannel} and {@link dev.jrdma.rsocket.RdmaServerSocketChannel},
 * byte channels whose transfers are RDMA writes, {@link dev.jrdma.rsocket.RsocketReadiness} for
 * the readiness of many at once, and {@link dev.jrdma.rsocket.RdmaDatagramChannel} (datagram
 * rsockets, which need InfiniBand: RoCE refuses them). They interoperate with rdma-core's rsocket
 * tools ({@code rstream}, {@code riostream}) and any C program using rsockets, not with TCP.
 */
package dev.jrdma.rsocket;
