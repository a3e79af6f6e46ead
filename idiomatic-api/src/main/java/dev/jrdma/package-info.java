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
 */
package dev.jrdma;

