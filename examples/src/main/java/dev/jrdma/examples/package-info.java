// SPDX-License-Identifier: Apache-2.0
/**
 * Small programs, one per RDMA pattern, on the public {@code dev.jrdma} API only. Each is a
 * server and a client; {@code examples/run} in the repository runs them (in the Soft-RoCE VM
 * without RDMA hardware), and the guide's tutorials (docs/guide/tutorial-*.md) walk through
 * them step by step. The snippets below are the programs' own marked regions.
 *
 * <h2>SEND/RECV over RC: {@link HelloServer}, {@link HelloClient}</h2>
 * The objects, and a receive posted before the peer can send:
 * {@snippet class=dev.jrdma.examples.HelloServer region=setup}
 * {@snippet class=dev.jrdma.examples.HelloServer region=post-receive}
 * Exchanging endpoints out of band and walking the queue pair to RTS:
 * {@snippet class=dev.jrdma.examples.HelloServer region=accept}
 *
 * <h2>RDMA WRITE: {@link RdmaWrite}</h2>
 * {@snippet class=dev.jrdma.examples.RdmaWrite region=write}
 *
 * <h2>RDMA READ: {@link RdmaRead}</h2>
 * {@snippet class=dev.jrdma.examples.RdmaRead region=read}
 *
 * <h2>Atomics: {@link AtomicCounter}</h2>
 * {@snippet class=dev.jrdma.examples.AtomicCounter region=fetch-and-add}
 *
 * <h2>UD datagrams: {@link UdDatagram}</h2>
 * {@snippet class=dev.jrdma.examples.UdDatagram region=send}
 *
 * <h2>rdma_cm: {@link CmHello}</h2>
 * {@snippet class=dev.jrdma.examples.CmHello region=connect}
 *
 * <h2>A multi-client server on virtual threads: {@link CmEcho}</h2>
 * {@snippet class=dev.jrdma.examples.CmEcho region=echo-server}
 */
package dev.jrdma.examples;
