// SPDX-License-Identifier: Apache-2.0
/**
 * jrdma: RDMA verbs for Java 22+, typed, {@link java.lang.AutoCloseable}, with native memory
 * from {@link java.lang.foreign.Arena}s and no allocation on the data path.
 *
 * <h2>The object graph</h2>
 * <pre>
 * Rdma.devices() -&gt; RdmaDevice.open() -&gt; Context
 *     Context.allocateProtectionDomain() -&gt; ProtectionDomain
 *         ProtectionDomain.allocate(size, access) / register(segment, access) -&gt; MemoryRegion
 *         ProtectionDomain.queuePair(RC).completionQueue(cq).build() -&gt; QueuePair
 *         ProtectionDomain.createSharedReceiveQueue(...) -&gt; SharedReceiveQueue
 *         ProtectionDomain.createAddressHandle(remote, port, gidIndex) -&gt; AddressHandle (UD)
 *         ProtectionDomain.allocateMemoryWindow() -&gt; MemoryWindow
 *     Context.createCompletionChannel() -&gt; CompletionChannel
 *     Context.createCompletionQueue(depth[, channel]) -&gt; CompletionQueue
 *     Context.onAsyncEvent(listener)                  (port changes, QP/CQ errors)
 *
 * </pre>
 * The connection manager (rdma_cm) is package {@link dev.jrdma.cm}: an id resolves, connects or
 * listens, and makes these objects of its own device context.
 * Every object keeps the objects it was made from alive, and closing an object first closes
 * what was made from it (newest first): closing the {@link dev.jrdma.Context} releases
 * everything. {@code close()} is idempotent ({@link dev.jrdma.RdmaResource}); any use of a
 * closed object throws {@link java.lang.IllegalStateException} naming it, before native code
 * is reached.
 *
 * <h2>Connecting two queue pairs</h2>
 * <pre>{@code
 * try (Context context = Rdma.openDefault();
 *      ControlConnection control = ControlConnection.connect(server, timeout)) {  // retries until the server listens
 *     ProtectionDomain pd = context.allocateProtectionDomain();
 *     CompletionQueue cq = context.createCompletionQueue(64);
 *     QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();  // sends from context.defaultGid()
 *     // Out of band, over TCP: swap endpoints, RESET -> INIT -> RTR -> RTS, and wait until the
 *     // server's queue pair is ready too. The connection then carries RemoteMemory, longs, bytes.
 *     Endpoint remote = control.connect(qp);
 *
 *     MemoryRegion buffer = pd.allocate(4096, EnumSet.of(Access.LOCAL_WRITE));
 *     SendRequest send = new SendRequest().opcode(SendOpcode.SEND).sge(buffer, 0, 12);
 *     WorkCompletion wc = new WorkCompletion();
 *     for (long i = 0; ; i++) {
 *         qp.post(send.wrId(i));                              // built once, re-posted
 *         cq.take(wc, Duration.ofSeconds(5)).checkSuccess();  // WorkCompletionException on error
 *     }
 * }
 * }</pre>
 *
 * <h2>Memory</h2>
 * {@link dev.jrdma.ProtectionDomain#allocate} returns a region that owns page-aligned memory
 * and frees it on close. {@link dev.jrdma.ProtectionDomain#register} registers a native
 * segment the caller owns; heap segments are refused. A region must not outlive its segment's
 * arena: every use checks the arena, and the three-argument {@code register(segment, arena,
 * access)} deregisters the region when the arena closes. Access rights are an
 * {@link java.util.EnumSet} of {@link dev.jrdma.Access}; the default is local write only.
 * One-sided operations target a {@link dev.jrdma.RemoteMemory} (address, length, rkey) that
 * the owner obtains from {@link dev.jrdma.MemoryRegion#remote()} and sends to its peer.
 *
 * <h2>The data path</h2>
 * {@link dev.jrdma.SendRequest} and {@link dev.jrdma.ReceiveRequest} are work requests in
 * native memory: build them once, change a field, post again. {@link dev.jrdma.WorkCompletion}
 * and {@link dev.jrdma.WorkCompletions} are reusable views the completion queue is polled
 * into. None of these allocate per operation; none of them are thread-safe.
 *
 * <p>A request posted many times in a loop can be checked once instead of at every post:
 * {@link dev.jrdma.PreparedSend#of} and {@link dev.jrdma.PreparedReceive#of} check a request
 * (or a chain) for its queue as a post would, and copy it into native memory of their own.
 * Their {@code post()} tests only the prepared request's open state and the queue pair's
 * state, then calls the provider; between posts the wr_id, the signalled flag, a length up to
 * the one prepared and an offset into the remote memory prepared may change, each checked
 * against what was prepared. A prepared request depends on its queue, regions and address
 * handle: closing one of them closes it, and its next post throws
 * {@link java.lang.IllegalStateException}. This is how perftest posts, and how {@code jrdma}'s
 * loops post.
 *
 * <h2>Waiting</h2>
 * Every wait is bounded: {@link dev.jrdma.CompletionQueue#take} polls with a timeout, waiting
 * between empty polls as a {@link dev.jrdma.WaitStrategy} says (by default a platform thread
 * spins and a virtual thread spins briefly, yields, then parks, on the CQ's own completion
 * channel when it has one),
 * {@link dev.jrdma.CompletionChannel#await} sleeps until a completion event or the timeout,
 * {@link dev.jrdma.ControlConnection} and {@link dev.jrdma.EndpointExchange} bound every socket
 * operation, and every {@link dev.jrdma.cm.CmId} method that waits for an rdma_cm event takes a
 * timeout. A wait that runs out of time throws {@link dev.jrdma.RdmaTimeoutException}. A
 * virtual thread waiting on a completion channel or an rdma_cm event parks and leaves its
 * carrier free.
 *
 * <h2>Flight Recorder</h2>
 * With a JFR recording running, jrdma emits {@code jrdma.*} events: connections established
 * and closed, queue pair state changes, error completions, async and rdma_cm events, memory
 * registrations ({@code jfr print --events 'jrdma.*' recording.jfr}). Without one they cost
 * nothing.
 *
 * <h2>Errors</h2>
 * A failing verb throws {@link dev.jrdma.RdmaException} with the verb, the object, the errno
 * and its text ({@link dev.jrdma.OperationNotSupportedException} for EOPNOTSUPP); an EINVAL
 * from a queue pair transition says which attribute bits the IB state table requires or
 * forbids. A failed work request arrives as a completion whose
 * {@link dev.jrdma.WorkCompletion#checkSuccess()} throws {@link dev.jrdma.WorkCompletionException}.
 * Argument errors found in Java (a range outside a memory region, a misaligned atomic target)
 * are {@link java.lang.IllegalArgumentException}s thrown before anything is posted.
 *
 * <h2>Threads</h2>
 * Creating and closing objects is thread-safe, also while other threads post, poll or wait on
 * the object or on what depends on it: their calls either complete or throw
 * {@link java.lang.IllegalStateException}, and the native object is destroyed only once no call
 * is inside it. Queue pairs, completion queues and the request and completion objects are not
 * safe for concurrent use on one queue (post sends from one thread, receives from one thread,
 * poll a CQ from one thread).
 *
 * <h2>The types, by concept</h2>
 * Every public type of the package, one line each; {@link dev.jrdma.cm} holds the connection
 * manager's.
 *
 * <h3>Lifetime</h3>
 * Every object that owns a native resource; closing one closes what was made from it first.
 * <ul>
 *   <li>{@link RdmaResource}: an object that owns a native resource: idempotent close, children first</li>
 *   <li>{@link NativeResource}: the sealed base of them all, and the ownership graph between them</li>
 * </ul>
 *
 * <h3>Device</h3>
 * Finding and opening a device, and what it reports.
 * <ul>
 *   <li>{@link Rdma}: the entry point: the devices libibverbs finds, the default one</li>
 *   <li>{@link RdmaDevice}: a device as listed, valid after the list is gone</li>
 *   <li>{@link Context}: an open device ({@code ibv_context}): the root of everything else</li>
 *   <li>{@link DeviceAttributes}: what a device can do ({@code ibv_device_attr_ex})</li>
 *   <li>{@link PortAttributes}: state and properties of a port ({@code ibv_port_attr})</li>
 *   <li>{@link PortState}: a port's state</li>
 *   <li>{@link LinkLayer}: InfiniBand or Ethernet</li>
 *   <li>{@link NodeType}: what kind of node the device is</li>
 *   <li>{@link TransportType}: the device's transport</li>
 *   <li>{@link Gid}: a 128-bit global identifier</li>
 *   <li>{@link GidEntry}: one valid entry of a port's GID table</li>
 *   <li>{@link GidType}: InfiniBand, RoCE v1 or RoCE v2</li>
 *   <li>{@link Mtu}: a path MTU</li>
 *   <li>{@link Rate}: a static rate ({@code ibv_rate})</li>
 *   <li>{@link AtomicCapability}: which atomic operations the device guarantees</li>
 *   <li>{@link QueuePairOffload}: a feature offered only on some queue pair types</li>
 *   <li>{@link ForkProtection}: whether registered memory survives {@code fork()}</li>
 *   <li>{@link EthernetL2Address}: the Ethernet next hop of a RoCE destination</li>
 * </ul>
 *
 * <h3>Memory</h3>
 * What the device may read and write, and who may reach it.
 * <ul>
 *   <li>{@link ProtectionDomain}: the scope in which memory and queue pairs work together</li>
 *   <li>{@link Access}: access rights of a region, window or queue pair</li>
 *   <li>{@link MemoryRegion}: registered memory, with its lkey and rkey</li>
 *   <li>{@link UnmappedMemoryRegion}: a region with keys but no mapped memory (the null MR, device memory)</li>
 *   <li>{@link RemoteMemory}: a peer's memory that one-sided operations target (address, length, rkey)</li>
 *   <li>{@link MemoryWindow}: a remote key for a sub-range of a region, bound through a queue pair</li>
 *   <li>{@link MemoryWindowType}: how a window is bound and revoked</li>
 *   <li>{@link DeviceMemory}: memory on the device itself ({@code ibv_dm})</li>
 * </ul>
 *
 * <h3>Queues</h3>
 * Queue pairs, what they are built from, and how two of them connect.
 * <ul>
 *   <li>{@link QueuePair}: a send and a receive queue, RC, UC or UD</li>
 *   <li>{@link QueuePairType}: RC, UC, UD, raw packet, XRC</li>
 *   <li>{@link QueuePairState}: RESET to RTS, and the error states</li>
 *   <li>{@link QueuePairCapabilities}: the queue sizes the provider granted</li>
 *   <li>{@link QueuePairAttributes}: what a queue pair is now, read back ({@code ibv_query_qp})</li>
 *   <li>{@link ConnectionOptions}: tunables of the INIT, RTR and RTS transitions</li>
 *   <li>{@link Endpoint}: what a peer needs to connect a queue pair to this one</li>
 *   <li>{@link Ece}: enhanced connection establishment options ({@code ibv_ece})</li>
 *   <li>{@link RateLimit}: a send rate limit enforced by packet pacing</li>
 *   <li>{@link CompletionQueue}: where the completions of work requests arrive</li>
 *   <li>{@link CompletionChannel}: lets a thread sleep until a completion queue has an event</li>
 *   <li>{@link SharedReceiveQueue}: one pool of receive buffers for many queue pairs (its {@code Builder}: XRC, tag matching)</li>
 *   <li>{@link SharedReceiveQueueAttributes}: what a shared receive queue is now</li>
 *   <li>{@link AddressHandle}: the route to a remote port that UD sends carry</li>
 *   <li>{@link AddressVector}: a route to a remote port, as derived from a received datagram</li>
 *   <li>{@link MulticastGroup}: a UD multicast group: its GID and LID</li>
 *   <li>{@link MulticastMembership}: a UD queue pair's membership in a multicast group</li>
 *   <li>{@link XrcDomain}: the scope of XRC receive resources</li>
 *   <li>{@link XrcQueuePair}: an XRC initiator or target</li>
 *   <li>{@link ThreadDomain}: a promise that objects are used by one thread at a time</li>
 *   <li>{@link WorkQueue}: a receive work queue without a queue pair</li>
 *   <li>{@link RwqIndirectionTable}: the table an RSS queue pair hashes packets into</li>
 * </ul>
 *
 * <h3>Work requests</h3>
 * Built once in native memory, changed and re-posted.
 * <ul>
 *   <li>{@link SendRequest}: a send work request ({@code ibv_send_wr})</li>
 *   <li>{@link SendOpcode}: what a send work request does</li>
 *   <li>{@link ReceiveRequest}: a receive work request ({@code ibv_recv_wr})</li>
 *   <li>{@link TagOperation}: a tag-matching operation on a tag-matching SRQ</li>
 * </ul>
 *
 * <h3>Completions</h3>
 * Reusable views the completion queue is polled into, and how to wait.
 * <ul>
 *   <li>{@link WorkCompletion}: one work completion ({@code ibv_wc}), a reusable flyweight</li>
 *   <li>{@link WorkCompletions}: a reusable batch of work completions</li>
 *   <li>{@link WorkCompletionStatus}: success or the error a request completed with</li>
 *   <li>{@link WorkCompletionOpcode}: what a completed work request did</li>
 *   <li>{@link WaitStrategy}: what a thread does between two empty polls</li>
 * </ul>
 *
 * <h3>Prepared fast paths</h3>
 * Checked once, then posted or polled in a loop with the least work per call.
 * <ul>
 *   <li>{@link PreparedSend}: a send request (or chain) checked once for one queue pair</li>
 *   <li>{@link PreparedReceive}: a receive request (or chain) checked once for a queue pair or SRQ</li>
 *   <li>{@link PreparedPoll}: a poll of one completion queue set up once for a polling loop</li>
 *   <li>{@link PreparedExtendedSend}: a send request posted through the extended post API</li>
 * </ul>
 *
 * <h3>Extended verbs</h3>
 * The {@code _ex} verbs: extended posts and completions, steering.
 * <ul>
 *   <li>{@link ExtendedSendQueue}: the extended post API of a queue pair ({@code ibv_wr_*})</li>
 *   <li>{@link SendOp}: an operation the extended post API may build</li>
 *   <li>{@link ExtendedCompletionQueue}: a completion queue read field by field ({@code ibv_cq_ex})</li>
 *   <li>{@link ExtendedCompletions}: a reusable batch read from an extended completion queue</li>
 *   <li>{@link WorkCompletionField}: a field an extended completion queue reports</li>
 *   <li>{@link Flow}: a steering rule that delivers matching frames to a queue pair</li>
 *   <li>{@link Counters}: hardware counters of steering flows</li>
 *   <li>{@link EspFlowAction}: IPsec ESP crypto offload a flow applies</li>
 * </ul>
 *
 * <h3>Events</h3>
 * What the device reports on its own (JFR events need no type: see Flight Recorder above).
 * <ul>
 *   <li>{@link AsyncEvent}: an asynchronous event of a device</li>
 *   <li>{@link AsyncEventType}: what the event is about</li>
 * </ul>
 *
 * <h3>Errors</h3>
 * Each names the verb, the object and the errno.
 * <ul>
 *   <li>{@link RdmaException}: a verb failed</li>
 *   <li>{@link Verb}: the native call an exception reports, to branch on</li>
 *   <li>{@link Errno}: the error number an exception carries, by name, to branch on</li>
 *   <li>{@link OperationNotSupportedException}: the provider does not implement it (EOPNOTSUPP)</li>
 *   <li>{@link RdmaTimeoutException}: a wait's timeout passed</li>
 *   <li>{@link WorkCompletionException}: a work request completed with an error status</li>
 * </ul>
 *
 * <h3>Helpers</h3>
 * Above the verbs.
 * <ul>
 *   <li>{@link ControlConnection}: the TCP connection beside an RDMA one: endpoints, remote memory, values</li>
 *   <li>{@link EndpointExchange}: a minimal exchange of endpoints over TCP</li>
 *   <li>{@link Reaches}: the rdma-core C functions an API member is the way to reach</li>
 * </ul>
 */
package dev.jrdma;

