// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static dev.jrdma.bindings.generated.rdma_h.*;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Exported libibverbs calls of the newer memory and sharing verbs that report failure through
 * errno, re-bound with errno capture (see {@link ErrnoVerbs} for why): importing a context, PD,
 * MR or device memory that another process shares, dmabuf registration and re-registration.
 * The {@code ibv_unimport_*} functions return nothing and are called through the generated
 * bindings.
 */
public final class ImportVerbs {
    private ImportVerbs() {}

    private static final class ImportDevice {
        static final MethodHandle MH = Errno.capturing(ibv_import_device$address(), ibv_import_device$descriptor());
    }
    private static final class ImportPd {
        static final MethodHandle MH = Errno.capturing(ibv_import_pd$address(), ibv_import_pd$descriptor());
    }
    private static final class ImportMr {
        static final MethodHandle MH = Errno.capturing(ibv_import_mr$address(), ibv_import_mr$descriptor());
    }
    private static final class ImportDm {
        static final MethodHandle MH = Errno.capturing(ibv_import_dm$address(), ibv_import_dm$descriptor());
    }
    private static final class RegDmabufMr {
        static final MethodHandle MH = Errno.capturing(ibv_reg_dmabuf_mr$address(), ibv_reg_dmabuf_mr$descriptor());
    }
    private static final class ReregMr {
        static final MethodHandle MH = Errno.capturing(ibv_rereg_mr$address(), ibv_rereg_mr$descriptor());
    }

    /** {@code ibv_import_device(cmd_fd)}: a context sharing {@code cmd_fd}'s device file; NULL and errno on failure. */
    public static MemorySegment ibv_import_device(MemorySegment errno, int cmdFd) {
        try {
            return (MemorySegment) ImportDevice.MH.invokeExact(errno, cmdFd);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_import_pd(context, pd_handle)}: NULL and errno on failure. */
    public static MemorySegment ibv_import_pd(MemorySegment errno, MemorySegment context, int pdHandle) {
        try {
            return (MemorySegment) ImportPd.MH.invokeExact(errno, context, pdHandle);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_import_mr(pd, mr_handle)}: NULL and errno on failure. */
    public static MemorySegment ibv_import_mr(MemorySegment errno, MemorySegment pd, int mrHandle) {
        try {
            return (MemorySegment) ImportMr.MH.invokeExact(errno, pd, mrHandle);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_import_dm(context, dm_handle)}: NULL and errno on failure. */
    public static MemorySegment ibv_import_dm(MemorySegment errno, MemorySegment context, int dmHandle) {
        try {
            return (MemorySegment) ImportDm.MH.invokeExact(errno, context, dmHandle);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_reg_dmabuf_mr(pd, offset, length, iova, fd, access)}: NULL and errno on failure. */
    public static MemorySegment ibv_reg_dmabuf_mr(MemorySegment errno, MemorySegment pd, long offset, long length,
                                                  long iova, int fd, int access) {
        try {
            return (MemorySegment) RegDmabufMr.MH.invokeExact(errno, pd, offset, length, iova, fd, access);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /**
     * {@code ibv_rereg_mr}: 0, or a negative {@code enum ibv_rereg_mr_err_code} with errno. Note
     * that libibverbs reports any failure of the provider's op as {@code IBV_REREG_MR_ERR_CMD}
     * ("the MR should not be used"), also when the op is its own EOPNOTSUPP stub that changed nothing.
     */
    public static int ibv_rereg_mr(MemorySegment errno, MemorySegment mr, int flags, MemorySegment pd,
                                   MemorySegment addr, long length, int access) {
        try {
            return (int) ReregMr.MH.invokeExact(errno, mr, flags, pd, addr, length, access);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }
}
