// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static dev.jrdma.bindings.generated.rdma_h.*;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Exported libibverbs calls that report failure through errno, re-bound with errno capture.
 *
 * <p>Why: jextract's handles do not capture errno, and these verbs return NULL (or -1) and set
 * errno; reading errno after the downcall returns is unreliable on the JVM. Each method takes
 * the capture state ({@link Errno#allocate}) as its first argument and otherwise mirrors the C
 * signature. Descriptors and addresses come from the generated bindings, so they cannot drift.
 */
public final class ErrnoVerbs {
    private ErrnoVerbs() {}

    // Holder classes: a handle is only linked when its verb is first used.
    private static final class GetDeviceList {
        static final MethodHandle MH = Errno.capturing(ibv_get_device_list$address(), ibv_get_device_list$descriptor());
    }
    private static final class OpenDevice {
        static final MethodHandle MH = Errno.capturing(ibv_open_device$address(), ibv_open_device$descriptor());
    }
    private static final class AllocPd {
        static final MethodHandle MH = Errno.capturing(ibv_alloc_pd$address(), ibv_alloc_pd$descriptor());
    }
    private static final class RegMrIova2 {
        static final MethodHandle MH = Errno.capturing(ibv_reg_mr_iova2$address(), ibv_reg_mr_iova2$descriptor());
    }
    private static final class CreateCq {
        static final MethodHandle MH = Errno.capturing(ibv_create_cq$address(), ibv_create_cq$descriptor());
    }
    private static final class CreateCompChannel {
        static final MethodHandle MH = Errno.capturing(ibv_create_comp_channel$address(), ibv_create_comp_channel$descriptor());
    }
    private static final class CreateQp {
        static final MethodHandle MH = Errno.capturing(ibv_create_qp$address(), ibv_create_qp$descriptor());
    }
    private static final class CreateSrq {
        static final MethodHandle MH = Errno.capturing(ibv_create_srq$address(), ibv_create_srq$descriptor());
    }
    private static final class CreateAh {
        static final MethodHandle MH = Errno.capturing(ibv_create_ah$address(), ibv_create_ah$descriptor());
    }

    private static final class GetCqEvent {
        static final MethodHandle MH = Errno.capturing(ibv_get_cq_event$address(), ibv_get_cq_event$descriptor());
    }
    private static final class GetAsyncEvent {
        static final MethodHandle MH = Errno.capturing(ibv_get_async_event$address(), ibv_get_async_event$descriptor());
    }

    /**
     * {@code ibv_get_cq_event(channel, &cq, &cq_context)}: 0, or -1 and errno. Blocks until an
     * event arrives; wait for {@code channel->fd} with {@link Posix#awaitReadable} first. Every
     * event must be acknowledged ({@code ibv_ack_cq_events}) before the CQ can be destroyed.
     */
    public static int ibv_get_cq_event(MemorySegment errno, MemorySegment channel, MemorySegment cqOut,
                                       MemorySegment cqContextOut) {
        try {
            return (int) GetCqEvent.MH.invokeExact(errno, channel, cqOut, cqContextOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code ibv_get_async_event(context, event)}: 0, or -1 and errno. Blocks; wait for
     * {@code context->async_fd} first. Acknowledge with {@code ibv_ack_async_event}.
     */
    public static int ibv_get_async_event(MemorySegment errno, MemorySegment context, MemorySegment event) {
        try {
            return (int) GetAsyncEvent.MH.invokeExact(errno, context, event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code ibv_get_device_list}. NULL (with errno) when libibverbs finds no uverbs support;
     * note that {@code ibv_free_device_list(NULL)} crashes, so only free a non-NULL list.
     */
    public static MemorySegment ibv_get_device_list(MemorySegment errno, MemorySegment numDevices) {
        try {
            return (MemorySegment) GetDeviceList.MH.invokeExact(errno, numDevices);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_open_device}: NULL and errno on failure. */
    public static MemorySegment ibv_open_device(MemorySegment errno, MemorySegment device) {
        try {
            return (MemorySegment) OpenDevice.MH.invokeExact(errno, device);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_alloc_pd}: NULL and errno on failure. */
    public static MemorySegment ibv_alloc_pd(MemorySegment errno, MemorySegment context) {
        try {
            return (MemorySegment) AllocPd.MH.invokeExact(errno, context);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code ibv_reg_mr} and {@code ibv_reg_mr_iova} are macros over inline helpers that pick
     * {@code ibv_reg_mr_iova2} (IBVERBS_1.8) whenever the flags are not compile-time constants;
     * calling it directly behaves the same for every flag, IBV_ACCESS_OPTIONAL_RANGE included.
     * For plain registration pass {@code iova == addr.address()}.
     */
    public static MemorySegment ibv_reg_mr_iova2(MemorySegment errno, MemorySegment pd, MemorySegment addr,
                                                 long length, long iova, int access) {
        try {
            return (MemorySegment) RegMrIova2.MH.invokeExact(errno, pd, addr, length, iova, access);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_create_cq}: NULL and errno on failure. */
    public static MemorySegment ibv_create_cq(MemorySegment errno, MemorySegment context, int cqe,
                                              MemorySegment cqContext, MemorySegment channel, int compVector) {
        try {
            return (MemorySegment) CreateCq.MH.invokeExact(errno, context, cqe, cqContext, channel, compVector);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_create_comp_channel}: NULL and errno on failure. */
    public static MemorySegment ibv_create_comp_channel(MemorySegment errno, MemorySegment context) {
        try {
            return (MemorySegment) CreateCompChannel.MH.invokeExact(errno, context);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_create_qp}: NULL and errno on failure; the provider updates {@code initAttr.cap}. */
    public static MemorySegment ibv_create_qp(MemorySegment errno, MemorySegment pd, MemorySegment initAttr) {
        try {
            return (MemorySegment) CreateQp.MH.invokeExact(errno, pd, initAttr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_create_srq}: NULL and errno on failure. */
    public static MemorySegment ibv_create_srq(MemorySegment errno, MemorySegment pd, MemorySegment initAttr) {
        try {
            return (MemorySegment) CreateSrq.MH.invokeExact(errno, pd, initAttr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_create_ah}: NULL and errno on failure. */
    public static MemorySegment ibv_create_ah(MemorySegment errno, MemorySegment pd, MemorySegment ahAttr) {
        try {
            return (MemorySegment) CreateAh.MH.invokeExact(errno, pd, ahAttr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new AssertionError("downcall threw a checked exception", t);
    }
}
