// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.MutableCallSite;

/**
 * The data-path ops of {@link InlineVerbs} with the provider's function bound into the call: the
 * first post_send, post_recv, post_srq_recv and poll_cq function a process resolves becomes the
 * target of a {@link MutableCallSite}, which the JIT compiles as a constant. The function is then
 * no argument: no segment to check per call (jrdma's NULL check, the linker's class, NULL and
 * liveness checks), ~12 instructions per call fewer in the tb-profile of read_lat. A queue pair or
 * CQ whose function differs (a second provider in the process) is not bound and calls through
 * {@link InlineVerbs} as before. The downcalls are critical, as there (see InlineVerbs).
 *
 * <p>A bound function stays callable: libibverbs does not unload a provider while the process
 * runs, and only an object whose own ops table holds that address calls it.
 */
public final class BoundVerbs {
    private BoundVerbs() {}

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);
    private static final FunctionDescriptor POST = FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG);
    private static final FunctionDescriptor POLL = FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG);

    private static final Site POST_SEND_SITE = new Site(POST);
    private static final Site POST_RECV_SITE = new Site(POST);
    private static final Site POST_SRQ_RECV_SITE = new Site(POST);
    private static final Site POLL_CQ_SITE = new Site(POLL);
    private static final MethodHandle POST_SEND = POST_SEND_SITE.site.dynamicInvoker();
    private static final MethodHandle POST_RECV = POST_RECV_SITE.site.dynamicInvoker();
    private static final MethodHandle POST_SRQ_RECV = POST_SRQ_RECV_SITE.site.dynamicInvoker();
    private static final MethodHandle POLL_CQ = POLL_CQ_SITE.site.dynamicInvoker();

    /** One op's call site and the function it is bound to. */
    private static final class Site {
        final MutableCallSite site;
        final FunctionDescriptor descriptor;
        /** 0 while unbound; guarded by BoundVerbs.class (the bind methods are synchronized). */
        long bound;

        /** Unbound, the site throws: its op is only called once its bind answered true. */
        Site(FunctionDescriptor descriptor) {
            MethodType type = LINKER.downcallHandle(descriptor).type().dropParameterTypes(0, 1);
            MethodHandle fail = MethodHandles.throwException(int.class, IllegalStateException.class)
                    .bindTo(new IllegalStateException("a BoundVerbs op called before its function was bound"));
            this.site = new MutableCallSite(MethodHandles.dropArguments(fail, 0, type.parameterList()));
            this.descriptor = descriptor;
        }

        /** Binds {@code fn} unless another function is; true when the site calls {@code fn}. */
        boolean bind(MemorySegment fn) {
            if (bound == 0 && fn.address() != 0) {
                site.setTarget(LINKER.downcallHandle(fn, descriptor, CRITICAL));
                MutableCallSite.syncAll(new MutableCallSite[] {site});
                bound = fn.address();
            }
            return fn.address() != 0 && bound == fn.address();
        }
    }

    /** Binds {@code fn} (from {@link InlineVerbs#postSendFunction}) unless another is; true when {@link #postSend} calls it. */
    public static synchronized boolean bindPostSend(MemorySegment fn) {
        return POST_SEND_SITE.bind(fn);
    }

    /** As {@link #bindPostSend}, for {@link InlineVerbs#postRecvFunction} and {@link #postRecv}. */
    public static synchronized boolean bindPostRecv(MemorySegment fn) {
        return POST_RECV_SITE.bind(fn);
    }

    /** As {@link #bindPostSend}, for {@link InlineVerbs#postSrqRecvFunction} and {@link #postSrqRecv}. */
    public static synchronized boolean bindPostSrqRecv(MemorySegment fn) {
        return POST_SRQ_RECV_SITE.bind(fn);
    }

    /** As {@link #bindPostSend}, for {@link InlineVerbs#pollCqFunction} and {@link #pollCq}. */
    public static synchronized boolean bindPollCq(MemorySegment fn) {
        return POLL_CQ_SITE.bind(fn);
    }

    /** The bound post_send on {@code qp}; as {@link InlineVerbs#postSend}, for a queue pair {@link #bindPostSend} bound. */
    public static int postSend(long qp, long wr, long badWr) {
        try {
            return (int) POST_SEND.invokeExact(qp, wr, badWr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** The bound post_recv; as {@link InlineVerbs#postRecv}. */
    public static int postRecv(long qp, long wr, long badWr) {
        try {
            return (int) POST_RECV.invokeExact(qp, wr, badWr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** The bound post_srq_recv; as {@link InlineVerbs#postSrqRecv}. */
    public static int postSrqRecv(long srq, long wr, long badWr) {
        try {
            return (int) POST_SRQ_RECV.invokeExact(srq, wr, badWr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** The bound poll_cq; as {@link InlineVerbs#pollCq}. */
    public static int pollCq(long cq, int numEntries, long wc) {
        try {
            return (int) POLL_CQ.invokeExact(cq, numEntries, wc);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }
}
