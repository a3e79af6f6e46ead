// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.internal.Libc;
import java.util.Optional;

/**
 * The errno values a verb or an rdma_cm call reports, by name, so that a handler can say
 * {@code e.is(Errno.ETIMEDOUT)} ({@link RdmaException#is}) instead of comparing with 110. The
 * numbers come from the C headers the bindings were generated from (Linux on x86-64 and
 * aarch64), not typed again. An errno outside this list is still in
 * {@link RdmaException#errno()}, and {@link RdmaException#error()} is then empty.
 *
 * <p>What the common ones mean to an RDMA program: {@link #ENOMEM} (a queue or a table is full,
 * or memory cannot be pinned: see {@code ulimit -l}), {@link #EINVAL} (an attribute the device
 * rejected), {@link #EOPNOTSUPP} (the device lacks the feature, as an
 * {@link OperationNotSupportedException}), {@link #ETIMEDOUT} (rdma_cm address or route
 * resolution found no answer), {@link #ECONNREFUSED} (the rdma_cm peer rejected or nobody
 * listens), {@link #EACCES} / {@link #EPERM} (permissions of {@code /dev/infiniband}).
 */
public enum Errno {
    /** Operation not permitted. */
    EPERM(rdma_h.EPERM()),
    /** No such file or directory (e.g. no such GID table entry). */
    ENOENT(rdma_h.ENOENT()),
    /** Interrupted system call. */
    EINTR(rdma_h.EINTR()),
    /** Input/output error. */
    EIO(rdma_h.EIO()),
    /** Try again. */
    EAGAIN(rdma_h.EAGAIN()),
    /** Cannot allocate memory: a full queue or table, or memory that cannot be pinned. */
    ENOMEM(rdma_h.ENOMEM()),
    /** Permission denied. */
    EACCES(rdma_h.EACCES()),
    /** Bad address. */
    EFAULT(rdma_h.EFAULT()),
    /** Device or resource busy. */
    EBUSY(rdma_h.EBUSY()),
    /** File exists. */
    EEXIST(rdma_h.EEXIST()),
    /** No such device. */
    ENODEV(rdma_h.ENODEV()),
    /** Invalid argument: an attribute or a state transition the device rejected. */
    EINVAL(rdma_h.EINVAL()),
    /** No space left on device. */
    ENOSPC(rdma_h.ENOSPC()),
    /** Function not implemented. */
    ENOSYS(rdma_h.ENOSYS()),
    /** No data available. */
    ENODATA(rdma_h.ENODATA()),
    /** Protocol error. */
    EPROTO(rdma_h.EPROTO()),
    /** Value too large for defined data type. */
    EOVERFLOW(rdma_h.EOVERFLOW()),
    /** Message too long. */
    EMSGSIZE(rdma_h.EMSGSIZE()),
    /** Protocol not supported. */
    EPROTONOSUPPORT(rdma_h.EPROTONOSUPPORT()),
    /** Operation not supported: the device lacks the feature ({@link OperationNotSupportedException}). */
    EOPNOTSUPP(rdma_h.EOPNOTSUPP()),
    /** Address family not supported. */
    EAFNOSUPPORT(rdma_h.EAFNOSUPPORT()),
    /** Address already in use (an rdma_cm port that is bound already). */
    EADDRINUSE(rdma_h.EADDRINUSE()),
    /** Cannot assign requested address (no RDMA device has that address). */
    EADDRNOTAVAIL(rdma_h.EADDRNOTAVAIL()),
    /** Network is unreachable. */
    ENETUNREACH(rdma_h.ENETUNREACH()),
    /** Connection aborted. */
    ECONNABORTED(rdma_h.ECONNABORTED()),
    /** Connection reset by peer. */
    ECONNRESET(rdma_h.ECONNRESET()),
    /** No buffer space available. */
    ENOBUFS(rdma_h.ENOBUFS()),
    /** Already connected. */
    EISCONN(rdma_h.EISCONN()),
    /** Not connected. */
    ENOTCONN(rdma_h.ENOTCONN()),
    /** Connection timed out (rdma_cm: no answer to address or route resolution, or to a connect). */
    ETIMEDOUT(rdma_h.ETIMEDOUT()),
    /** Connection refused (rdma_cm: the peer rejected, or nobody listens on that port). */
    ECONNREFUSED(rdma_h.ECONNREFUSED()),
    /** No route to host (no path to the peer's address). */
    EHOSTUNREACH(rdma_h.EHOSTUNREACH()),
    /** Operation already in progress. */
    EALREADY(rdma_h.EALREADY()),
    /** Operation now in progress. */
    EINPROGRESS(rdma_h.EINPROGRESS()),
    /** Operation canceled. */
    ECANCELED(rdma_h.ECANCELED()),
    /** Remote I/O error. */
    EREMOTEIO(rdma_h.EREMOTEIO());

    private static final Errno[] VALUES = values();

    private final int value;

    Errno(int value) {
        this.value = value;
    }

    /** {@return the number, as C's {@code errno} holds it} */
    public int value() {
        return value;
    }

    /** {@return the C library's text for this errno ({@code strerror}), e.g. "Connection timed out"} */
    public String description() {
        return Libc.strerror(value);
    }

    /**
     * {@return the named errno for {@code value}; empty for 0 and for numbers this enum does not list}
     *
     * @param value an errno number
     */
    public static Optional<Errno> of(int value) {
        for (Errno e : VALUES) {
            if (e.value == value) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }
}
