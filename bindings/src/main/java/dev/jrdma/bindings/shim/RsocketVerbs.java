// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static dev.jrdma.bindings.generated.rsocket_h.*;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * librdmacm's RDMA sockets (rsocket.h) re-bound with errno capture.
 *
 * <p>Why: every rsocket call reports failure as -1 with the reason in errno, which the
 * generated handles do not capture. Each method takes the capture state
 * ({@link Errno#allocate}) first and otherwise mirrors the C signature. The byte-moving calls
 * ({@code rrecv}, {@code rsend}, {@code rread}, {@code rwrite}) are also bound as critical
 * with heap access, so a heap {@code ByteBuffer}'s array is passed without a copy; that is
 * sound only because jrdma's sockets are always in {@code O_NONBLOCK} mode at the native level
 * (a critical call must not block). Everything that can block inside librdmacm
 * ({@code rshutdown} and {@code rclose} wait for the sends in flight, {@code rpoll} with a
 * timeout) is a normal downcall. {@code rfcntl} is variadic; it is bound for its one
 * {@code int} argument form (F_GETFL/F_SETFL).
 */
public final class RsocketVerbs {
    private RsocketVerbs() {}

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(true);

    private static final MethodHandle SOCKET = Errno.capturing(rsocket$address(), rsocket$descriptor());
    private static final MethodHandle BIND = Errno.capturing(rbind$address(), rbind$descriptor());
    private static final MethodHandle LISTEN = Errno.capturing(rlisten$address(), rlisten$descriptor());
    private static final MethodHandle ACCEPT = Errno.capturing(raccept$address(), raccept$descriptor());
    private static final MethodHandle CONNECT = Errno.capturing(rconnect$address(), rconnect$descriptor());
    private static final MethodHandle SHUTDOWN = Errno.capturing(rshutdown$address(), rshutdown$descriptor());
    private static final MethodHandle CLOSE = Errno.capturing(rclose$address(), rclose$descriptor());
    private static final MethodHandle RECV = critical(rrecv$address(), rrecv$descriptor());
    private static final MethodHandle SEND = critical(rsend$address(), rsend$descriptor());
    private static final MethodHandle READ = critical(rread$address(), rread$descriptor());
    private static final MethodHandle WRITE = critical(rwrite$address(), rwrite$descriptor());
    private static final MethodHandle RECVFROM = Errno.capturing(rrecvfrom$address(), rrecvfrom$descriptor());
    private static final MethodHandle SENDTO = Errno.capturing(rsendto$address(), rsendto$descriptor());
    private static final MethodHandle RECVMSG = Errno.capturing(rrecvmsg$address(), rrecvmsg$descriptor());
    private static final MethodHandle SENDMSG = Errno.capturing(rsendmsg$address(), rsendmsg$descriptor());
    private static final MethodHandle READV = Errno.capturing(rreadv$address(), rreadv$descriptor());
    private static final MethodHandle WRITEV = Errno.capturing(rwritev$address(), rwritev$descriptor());
    private static final MethodHandle POLL = Errno.capturing(rpoll$address(), rpoll$descriptor());
    private static final MethodHandle SELECT = Errno.capturing(rselect$address(), rselect$descriptor());
    private static final MethodHandle GETPEERNAME =
            Errno.capturing(rgetpeername$address(), rgetpeername$descriptor());
    private static final MethodHandle GETSOCKNAME =
            Errno.capturing(rgetsockname$address(), rgetsockname$descriptor());
    private static final MethodHandle SETSOCKOPT = Errno.capturing(rsetsockopt$address(), rsetsockopt$descriptor());
    private static final MethodHandle GETSOCKOPT = Errno.capturing(rgetsockopt$address(), rgetsockopt$descriptor());
    private static final MethodHandle FCNTL = LINKER.downcallHandle(rfcntl.address(),
            FunctionDescriptor.of(C_INT, C_INT, C_INT, C_INT), Linker.Option.firstVariadicArg(2), Errno.CAPTURE);
    private static final MethodHandle IOMAP = Errno.capturing(riomap$address(), riomap$descriptor());
    private static final MethodHandle IOUNMAP = Errno.capturing(riounmap$address(), riounmap$descriptor());
    private static final MethodHandle IOWRITE = Errno.capturing(riowrite$address(), riowrite$descriptor());

    private static MethodHandle critical(MemorySegment address, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(address, descriptor, Errno.CAPTURE, CRITICAL);
    }

    public static int socket(MemorySegment errno, int domain, int type, int protocol) {
        try {
            return (int) SOCKET.invokeExact(errno, domain, type, protocol);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static int bind(MemorySegment errno, int fd, MemorySegment addr, int addrlen) {
        try {
            return (int) BIND.invokeExact(errno, fd, addr, addrlen);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static int listen(MemorySegment errno, int fd, int backlog) {
        try {
            return (int) LISTEN.invokeExact(errno, fd, backlog);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static int accept(MemorySegment errno, int fd, MemorySegment addr, MemorySegment addrlen) {
        try {
            return (int) ACCEPT.invokeExact(errno, fd, addr, addrlen);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static int connect(MemorySegment errno, int fd, MemorySegment addr, int addrlen) {
        try {
            return (int) CONNECT.invokeExact(errno, fd, addr, addrlen);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static int shutdown(MemorySegment errno, int fd, int how) {
        try {
            return (int) SHUTDOWN.invokeExact(errno, fd, how);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static int close(MemorySegment errno, int fd) {
        try {
            return (int) CLOSE.invokeExact(errno, fd);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rrecv}; {@code buf} may be a heap segment (critical call, non-blocking sockets only). */
    public static long recv(MemorySegment errno, int fd, MemorySegment buf, long len, int flags) {
        try {
            return (long) RECV.invokeExact(errno, fd, buf, len, flags);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rsend}; {@code buf} may be a heap segment (critical call, non-blocking sockets only). */
    public static long send(MemorySegment errno, int fd, MemorySegment buf, long len, int flags) {
        try {
            return (long) SEND.invokeExact(errno, fd, buf, len, flags);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rread}; {@code buf} may be a heap segment (critical call, non-blocking sockets only). */
    public static long read(MemorySegment errno, int fd, MemorySegment buf, long count) {
        try {
            return (long) READ.invokeExact(errno, fd, buf, count);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rwrite}; {@code buf} may be a heap segment (critical call, non-blocking sockets only). */
    public static long write(MemorySegment errno, int fd, MemorySegment buf, long count) {
        try {
            return (long) WRITE.invokeExact(errno, fd, buf, count);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static long recvfrom(MemorySegment errno, int fd, MemorySegment buf, long len, int flags,
            MemorySegment addr, MemorySegment addrlen) {
        try {
            return (long) RECVFROM.invokeExact(errno, fd, buf, len, flags, addr, addrlen);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static long sendto(MemorySegment errno, int fd, MemorySegment buf, long len, int flags,
            MemorySegment addr, int addrlen) {
        try {
            return (long) SENDTO.invokeExact(errno, fd, buf, len, flags, addr, addrlen);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static long recvmsg(MemorySegment errno, int fd, MemorySegment msg, int flags) {
        try {
            return (long) RECVMSG.invokeExact(errno, fd, msg, flags);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static long sendmsg(MemorySegment errno, int fd, MemorySegment msg, int flags) {
        try {
            return (long) SENDMSG.invokeExact(errno, fd, msg, flags);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static long readv(MemorySegment errno, int fd, MemorySegment iov, int iovcnt) {
        try {
            return (long) READV.invokeExact(errno, fd, iov, iovcnt);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static long writev(MemorySegment errno, int fd, MemorySegment iov, int iovcnt) {
        try {
            return (long) WRITEV.invokeExact(errno, fd, iov, iovcnt);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static int poll(MemorySegment errno, MemorySegment fds, long nfds, int timeoutMillis) {
        try {
            return (int) POLL.invokeExact(errno, fds, nfds, timeoutMillis);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static int select(MemorySegment errno, int nfds, MemorySegment readfds, MemorySegment writefds,
            MemorySegment exceptfds, MemorySegment timeout) {
        try {
            return (int) SELECT.invokeExact(errno, nfds, readfds, writefds, exceptfds, timeout);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static int getpeername(MemorySegment errno, int fd, MemorySegment addr, MemorySegment addrlen) {
        try {
            return (int) GETPEERNAME.invokeExact(errno, fd, addr, addrlen);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static int getsockname(MemorySegment errno, int fd, MemorySegment addr, MemorySegment addrlen) {
        try {
            return (int) GETSOCKNAME.invokeExact(errno, fd, addr, addrlen);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static int setsockopt(MemorySegment errno, int fd, int level, int name, MemorySegment value, int len) {
        try {
            return (int) SETSOCKOPT.invokeExact(errno, fd, level, name, value, len);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static int getsockopt(MemorySegment errno, int fd, int level, int name, MemorySegment value,
            MemorySegment len) {
        try {
            return (int) GETSOCKOPT.invokeExact(errno, fd, level, name, value, len);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rfcntl(fd, cmd, arg)} for the commands taking an int (F_GETFL ignores it, F_SETFL). */
    public static int fcntl(MemorySegment errno, int fd, int cmd, int arg) {
        try {
            return (int) FCNTL.invokeExact(errno, fd, cmd, arg);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static long iomap(MemorySegment errno, int fd, MemorySegment buf, long len, int prot, int flags,
            long offset) {
        try {
            return (long) IOMAP.invokeExact(errno, fd, buf, len, prot, flags, offset);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    public static int iounmap(MemorySegment errno, int fd, MemorySegment buf, long len) {
        try {
            return (int) IOUNMAP.invokeExact(errno, fd, buf, len);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code riowrite}; returns the bytes written, or -1 (its size_t (size_t)-1) with errno. */
    public static long iowrite(MemorySegment errno, int fd, MemorySegment buf, long count, long offset, int flags) {
        try {
            return (long) IOWRITE.invokeExact(errno, fd, buf, count, offset, flags);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }
}
