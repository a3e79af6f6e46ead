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
    /** Setting an option of an rdma_cm id. */
    RDMA_SET_OPTION,
    /** Moving an rdma_cm id to another event channel. */
    RDMA_MIGRATE_ID,
    /** Asking rdma_cm for the attributes of a queue pair state. */
    RDMA_INIT_QP_ATTR,
    /** Telling the peer a connection with an application-driven queue pair is up. */
    RDMA_ESTABLISH,
    /** Reporting a queue pair event to rdma_cm. */
    RDMA_NOTIFY,
    /** Setting the ECE options of a connection. */
    RDMA_SET_LOCAL_ECE,
    /** Reading the peer's ECE options. */
    RDMA_GET_REMOTE_ECE,
    /** Joining a multicast group. */
    RDMA_JOIN_MULTICAST,
    /** Leaving a multicast group. */
    RDMA_LEAVE_MULTICAST,
    /** Resolving an address for the endpoint API. */
    RDMA_GETADDRINFO,
    /** Creating an endpoint (rdma_cm id of the endpoint API). */
    RDMA_CREATE_EP,
    /** Taking a connect request from a listening endpoint. */
    RDMA_GET_REQUEST,
    /** Creating the shared receive queue of an rdma_cm id. */
    RDMA_CREATE_SRQ,
    /** Listing the device contexts rdma_cm uses. */
    RDMA_GET_DEVICES,
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
