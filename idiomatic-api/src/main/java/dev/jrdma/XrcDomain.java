// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_qp;
import dev.jrdma.bindings.generated.ibv_qp_open_attr;
import dev.jrdma.bindings.generated.ibv_xrcd;
import dev.jrdma.bindings.generated.ibv_xrcd_init_attr;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ExtensionVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An XRC domain ({@code struct ibv_xrcd}): the scope of eXtended Reliable Connection receive
 * resources. An XRC initiator QP ({@link ProtectionDomain#createXrcSendQueuePair}) sends to any
 * XRC SRQ of a domain ({@link SharedReceiveQueue.Builder#xrc}) through one XRC target QP
 * ({@link #createTargetQueuePair}), so N processes on a node need one connection per remote
 * node rather than one per remote process. Processes share a domain by opening it on the same
 * file ({@link Options#file}). From {@link Context#openXrcDomain(Options)}; devices whose
 * {@link DeviceAttributes#supportsXrc()} is false (rxe among them) refuse it with
 * {@link OperationNotSupportedException}.
 *
 * <p>{@link #toString()}: {@code XRC domain on <device>}.
 */
@Reaches({"ibv_close_xrcd"})   // close() reaches them
public final class XrcDomain extends NativeObject {
    /** {@code O_CREAT} of Linux's {@code <fcntl.h>} (x86-64 and aarch64 alike). */
    private static final int O_CREAT = 0100;

    private final Context context;

    /**
     * How to open the domain.
     *
     * @param fd     a file descriptor naming the domain to share between processes, or -1 for a
     *               domain of this process only
     * @param create with a file: create the domain if none is associated with it yet ({@code O_CREAT})
     */
    public record Options(int fd, boolean create) {
        /** A domain of this process only. */
        public static final Options PRIVATE = new Options(-1, true);

        /**
         * {@return options for the domain shared through the open file {@code fd}}
         *
         * @param fd     an open file descriptor (the same file in every process that shares it)
         * @param create whether to create the domain if the file has none yet
         */
        public static Options file(int fd, boolean create) {
            return new Options(fd, create);
        }
    }

    private XrcDomain(Context context, MemorySegment handle) {
        super(handle, "XRC domain on " + context.name(), context);
        this.context = context;
    }

    static XrcDomain open(Context context, Options options) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(context)) {
            MemorySegment init = arena.allocate(ibv_xrcd_init_attr.layout());
            ibv_xrcd_init_attr.comp_mask(init, rdma_h.IBV_XRCD_INIT_ATTR_FD() | rdma_h.IBV_XRCD_INIT_ATTR_OFLAGS());
            ibv_xrcd_init_attr.fd(init, options.fd());
            ibv_xrcd_init_attr.oflags(init, options.create() ? O_CREAT : 0);
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment xrcd = ExtensionVerbs.ibv_open_xrcd(errno, context.handle(), init);
            RdmaException.checkCreated(Verb.IBV_OPEN_XRCD, context, errno, xrcd, context, "XRC domains");
            return wrapCreated(xrcd, ibv_xrcd.layout(), h -> new XrcDomain(context, h), ExtensionVerbs::ibv_close_xrcd);
        }
    }

    /** {@return the context} */
    public Context context() {
        return context;
    }

    /**
     * Creates an XRC target QP ({@code IBV_QPT_XRC_RECV}) in this domain: the receiving end of
     * XRC connections, which delivers into the domain's XRC SRQs. It is connected like an RC QP.
     *
     * @return the queue pair, owned by this domain
     */
    @Reaches({"ibv_create_qp_ex"})
    public XrcQueuePair createTargetQueuePair() {
        checkOpen();
        return XrcQueuePair.createTarget(this);
    }

    /**
     * Opens the XRC target QP {@code qpNumber} that another process created in this (shared)
     * domain, to receive through it as well.
     *
     * @param qpNumber the target QP's number
     * @return the queue pair, owned by this domain; closing it leaves the other process's open
     */
    @Reaches({"ibv_open_qp"})
    public XrcQueuePair openTargetQueuePair(int qpNumber) {
        checkOpen();
        try (Arena arena = Arena.ofConfined(); var _ = hold(this, context)) {
            MemorySegment attr = arena.allocate(ibv_qp_open_attr.layout());
            ibv_qp_open_attr.comp_mask(attr, rdma_h.IBV_QP_OPEN_ATTR_NUM() | rdma_h.IBV_QP_OPEN_ATTR_XRCD()
                    | rdma_h.IBV_QP_OPEN_ATTR_TYPE());
            ibv_qp_open_attr.qp_num(attr, qpNumber);
            ibv_qp_open_attr.xrcd(attr, handle);
            ibv_qp_open_attr.qp_type(attr, rdma_h.IBV_QPT_XRC_RECV());
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment qp = ExtensionVerbs.ibv_open_qp(errno, context.handle(), attr);
            RdmaException.checkCreated(Verb.IBV_OPEN_QP, this + ", QP " + qpNumber, errno, qp,
                    context, "opening shared XRC target QPs");
            return wrapCreated(qp, ibv_qp.layout(), h -> new XrcQueuePair(context, h, "opened XRC target QP", this),
                    rdma_h::ibv_destroy_qp);
        }
    }

    /** Closes the domain; reaches {@code ibv_close_xrcd}. */
    @Override
    protected void release() {
        RdmaException.check(Verb.IBV_CLOSE_XRCD, this, ExtensionVerbs.ibv_close_xrcd(handle));
    }
}
