// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * The native call an {@link RdmaException} reports, so that callers can branch per verb
 * ({@code switch (e.verb())}) instead of comparing strings. {@link #toString()} is the C name
 * the message shows, e.g. {@code ibv_reg_mr}.
 */
public enum Verb {
    /** Opening a device. */
    IBV_OPEN_DEVICE,
    /** Closing a device. */
    IBV_CLOSE_DEVICE,
    /** Querying the device's attributes. */
    IBV_QUERY_DEVICE_EX,
    /** Querying a port's attributes. */
    IBV_QUERY_PORT,
    /** Reading a GID table entry. */
    IBV_QUERY_GID_EX,
    /** Allocating a protection domain. */
    IBV_ALLOC_PD,
    /** Freeing a protection domain. */
    IBV_DEALLOC_PD,
    /** Registering memory. */
    IBV_REG_MR,
    /** Deregistering memory. */
    IBV_DEREG_MR,
    /** Allocating a memory window. */
    IBV_ALLOC_MW,
    /** Binding a memory window. */
    IBV_BIND_MW,
    /** Freeing a memory window. */
    IBV_DEALLOC_MW,
    /** Creating a completion channel. */
    IBV_CREATE_COMP_CHANNEL,
    /** Destroying a completion channel. */
    IBV_DESTROY_COMP_CHANNEL,
    /** Reading a completion event. */
    IBV_GET_CQ_EVENT,
    /** Creating a completion queue. */
    IBV_CREATE_CQ,
    /** Destroying a completion queue. */
    IBV_DESTROY_CQ,
    /** Arming a completion queue for an event. */
    IBV_REQ_NOTIFY_CQ,
    /** Polling a completion queue; also the verb of a completion with an error status. */
    IBV_POLL_CQ,
    /** Creating a queue pair. */
    IBV_CREATE_QP,
    /** Querying a queue pair. */
    IBV_QUERY_QP,
    /** Moving a queue pair to another state. */
    IBV_MODIFY_QP,
    /** Destroying a queue pair. */
    IBV_DESTROY_QP,
    /** Posting send work requests. */
    IBV_POST_SEND,
    /** Posting receive work requests. */
    IBV_POST_RECV,
    /** Creating a queue pair for the extended post API. */
    IBV_CREATE_QP_EX,
    /** Finding a queue pair's extended post API. */
    IBV_QP_TO_QP_EX,
    /** Opening a batch of extended work requests. */
    IBV_WR_START,
    /** Posting a batch of extended work requests. */
    IBV_WR_COMPLETE,
    /** Dropping a batch of extended work requests. */
    IBV_WR_ABORT,
    /** Building a SEND. */
    IBV_WR_SEND,
    /** Building a SEND with immediate data. */
    IBV_WR_SEND_IMM,
    /** Building a SEND that invalidates a remote key. */
    IBV_WR_SEND_INV,
    /** Building a TCP segmentation offload send. */
    IBV_WR_SEND_TSO,
    /** Building an RDMA WRITE. */
    IBV_WR_RDMA_WRITE,
    /** Building an RDMA WRITE with immediate data. */
    IBV_WR_RDMA_WRITE_IMM,
    /** Building an RDMA READ. */
    IBV_WR_RDMA_READ,
    /** Building an atomic compare-and-swap. */
    IBV_WR_ATOMIC_CMP_SWP,
    /** Building an atomic fetch-and-add. */
    IBV_WR_ATOMIC_FETCH_ADD,
    /** Building an atomic write. */
    IBV_WR_ATOMIC_WRITE,
    /** Building a memory window bind. */
    IBV_WR_BIND_MW,
    /** Building a local invalidate. */
    IBV_WR_LOCAL_INV,
    /** Setting a work request's scatter/gather entry. */
    IBV_WR_SET_SGE,
    /** Setting a work request's scatter/gather list. */
    IBV_WR_SET_SGE_LIST,
    /** Setting a work request's inline data. */
    IBV_WR_SET_INLINE_DATA,
    /** Setting a work request's inline data from a list of buffers. */
    IBV_WR_SET_INLINE_DATA_LIST,
    /** Setting a UD work request's destination. */
    IBV_WR_SET_UD_ADDR,
    /** Setting an XRC work request's remote SRQ number. */
    IBV_WR_SET_XRC_SRQN,
    /** Creating an extended completion queue. */
    IBV_CREATE_CQ_EX,
    /** Starting to read an extended completion queue. */
    IBV_START_POLL,
    /** Reading the next completion of an extended completion queue. */
    IBV_NEXT_POLL,
    /** Changing a completion queue's moderation. */
    IBV_MODIFY_CQ,
    /** Changing a completion queue's size. */
    IBV_RESIZE_CQ,
    /** Creating a shared receive queue. */
    IBV_CREATE_SRQ,
    /** Posting receives to a shared receive queue. */
    IBV_POST_SRQ_RECV,
    /** Destroying a shared receive queue. */
    IBV_DESTROY_SRQ,
    /** Creating an address handle. */
    IBV_CREATE_AH,
    /** Destroying an address handle. */
    IBV_DESTROY_AH,
    /** Creating an rdma_cm event channel. */
    RDMA_CREATE_EVENT_CHANNEL,
    /** Reading an rdma_cm event. */
    RDMA_GET_CM_EVENT,
    /** Creating an rdma_cm id. */
    RDMA_CREATE_ID,
    /** Destroying an rdma_cm id. */
    RDMA_DESTROY_ID,
    /** Resolving a destination address. */
    RDMA_RESOLVE_ADDR,
    /** Resolving the route to a destination. */
    RDMA_RESOLVE_ROUTE,
    /** Binding an rdma_cm id to a local address. */
    RDMA_BIND_ADDR,
    /** Listening for connection requests. */
    RDMA_LISTEN,
    /** Connecting to a listening peer. */
    RDMA_CONNECT,
    /** Accepting a connection request. */
    RDMA_ACCEPT,
    /** Rejecting a connection request. */
    RDMA_REJECT,
    /** Disconnecting. */
    RDMA_DISCONNECT,
    /** Creating the queue pair of an rdma_cm id. */
    RDMA_CREATE_QP,
    /** Creating the virtual-thread poller's epoll instance. */
    EPOLL_CREATE1,
    /** Adding a file descriptor to the virtual-thread poller. */
    EPOLL_CTL_ADD("epoll_ctl(EPOLL_CTL_ADD)"),
    /** Removing a file descriptor from the virtual-thread poller. */
    EPOLL_CTL_DEL("epoll_ctl(EPOLL_CTL_DEL)"),
    /** Waiting in the virtual-thread poller. */
    EPOLL_WAIT,
    /** A bounded wait that ended by its timeout ({@link RdmaTimeoutException}); no native call failed. */
    WAIT;

    private final String cName;

    Verb() {
        this.cName = name().toLowerCase(java.util.Locale.ROOT);
    }

    Verb(String cName) {
        this.cName = cName;
    }

    /** {@return the C name, as the exception's message shows it, e.g. {@code ibv_reg_mr}} */
    @Override
    public String toString() {
        return cName;
    }
}
