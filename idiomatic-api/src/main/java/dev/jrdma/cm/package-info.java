// SPDX-License-Identifier: Apache-2.0
/**
 * The RDMA connection manager (librdmacm: {@code rdma/rdma_cma.h} and {@code rdma/rdma_verbs.h}),
 * over the verbs of {@link dev.jrdma}: it resolves IP addresses to devices and routes,
 * connects and accepts like sockets, and moves the queue pair through its states.
 *
 * <h2>The object graph</h2>
 * <pre>
 * CmEventChannel.create() -&gt; CmId                     (resolve/connect, or bind/listen/accept)
 *     CmId.context() -&gt; Context (librdmacm's), CmId.createQueuePair(builder) -&gt; QueuePair
 *     CmId.createSharedReceiveQueue(pd, ...) -&gt; SharedReceiveQueue
 *     CmId.verbs() -&gt; RdmaVerbs                         (rdma_verbs.h's post and wait helpers)
 * CmEventChannel.createDatagramId() -&gt; CmId -&gt; DatagramPeer, MulticastJoin (UD)
 * ExternalQueuePair.of(id, qp)                          (a queue pair the application drives)
 * </pre>
 * The queue pairs and shared receive queues an id creates are the verbs' own types, owned by the
 * id: closing the id closes them ({@code rdma_destroy_qp}, {@code rdma_destroy_srq}). This
 * package uses {@link dev.jrdma}; {@link dev.jrdma} does not use it, nor name it in its code:
 * these resources take part in the lifetime rules by composition, through the module's
 * internal bridge.
 */
package dev.jrdma.cm;
