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
    /** Querying the device's classic attributes alone. */
    IBV_QUERY_DEVICE,
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
    // ---- the verbs.h groups that many providers leave out (XRC, device memory, domains,
    // ---- counters, flows, work queues, ECE, import, memory ops) --------------------------
    /** Re-registering memory. */
    IBV_REREG_MR,
    /** Registering a dmabuf. */
    IBV_REG_DMABUF_MR,
    /** Giving advice about an on-demand-paging range. */
    IBV_ADVISE_MR,
    /** Allocating a null memory region. */
    IBV_ALLOC_NULL_MR,
    /** Opening an XRC domain. */
    IBV_OPEN_XRCD,
    /** Closing an XRC domain. */
    IBV_CLOSE_XRCD,
    /** Creating a shared receive queue with extended attributes (XRC, tag matching, a CQ). */
    IBV_CREATE_SRQ_EX,
    /** Reading an SRQ's number (XRC). */
    IBV_GET_SRQ_NUM,
    /** Opening a shareable XRC target queue pair. */
    IBV_OPEN_QP,
    /** Posting tag-matching operations to a shared receive queue. */
    IBV_POST_SRQ_OPS,
    /** Allocating device memory. */
    IBV_ALLOC_DM,
    /** Freeing device memory. */
    IBV_FREE_DM,
    /** Copying host memory to device memory. */
    IBV_MEMCPY_TO_DM,
    /** Copying device memory to host memory. */
    IBV_MEMCPY_FROM_DM,
    /** Registering device memory as a memory region. */
    IBV_REG_DM_MR,
    /** Allocating a thread domain. */
    IBV_ALLOC_TD,
    /** Freeing a thread domain. */
    IBV_DEALLOC_TD,
    /** Allocating a parent domain. */
    IBV_ALLOC_PARENT_DOMAIN,
    /** Creating a counters object. */
    IBV_CREATE_COUNTERS,
    /** Destroying a counters object. */
    IBV_DESTROY_COUNTERS,
    /** Attaching a counter to a flow. */
    IBV_ATTACH_COUNTERS_POINT_FLOW,
    /** Reading counters. */
    IBV_READ_COUNTERS,
    /** Creating a steering flow. */
    IBV_CREATE_FLOW,
    /** Destroying a steering flow. */
    IBV_DESTROY_FLOW,
    /** Creating an ESP flow action. */
    IBV_CREATE_FLOW_ACTION_ESP,
    /** Modifying an ESP flow action. */
    IBV_MODIFY_FLOW_ACTION_ESP,
    /** Destroying a flow action. */
    IBV_DESTROY_FLOW_ACTION,
    /** Creating a work queue. */
    IBV_CREATE_WQ,
    /** Modifying a work queue. */
    IBV_MODIFY_WQ,
    /** Destroying a work queue. */
    IBV_DESTROY_WQ,
    /** Posting receives to a work queue. */
    IBV_POST_WQ_RECV,
    /** Creating a receive work queue indirection table. */
    IBV_CREATE_RWQ_IND_TABLE,
    /** Destroying a receive work queue indirection table. */
    IBV_DESTROY_RWQ_IND_TABLE,
    /** Querying a queue pair's enhanced connection establishment options. */
    IBV_QUERY_ECE,
    /** Setting a queue pair's enhanced connection establishment options. */
    IBV_SET_ECE,
    /** Limiting a queue pair's send rate. */
    IBV_MODIFY_QP_RATE_LIMIT,
    /** Importing a context another process opened. */
    IBV_IMPORT_DEVICE,
    /** Importing a protection domain. */
    IBV_IMPORT_PD,
    /** Importing a memory region. */
    IBV_IMPORT_MR,
    /** Importing device memory. */
    IBV_IMPORT_DM,
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
    /** Changing a shared receive queue's limit or size. */
    IBV_MODIFY_SRQ,
    /** Querying a shared receive queue. */
    IBV_QUERY_SRQ,
    /** Reading the GID tables of all ports at once. */
    IBV_QUERY_GID_TABLE,
    /** Reading a GID (the classic query). */
    IBV_QUERY_GID,
    /** Reading a P_Key table entry. */
    IBV_QUERY_PKEY,
    /** Reading the device's real-time values (its raw clock). */
    IBV_QUERY_RT_VALUES_EX,
    /** Resolving the Ethernet next hop of a RoCE GID. */
    IBV_RESOLVE_ETH_L2_FROM_GID,
    /** Preparing libibverbs for fork(). */
    IBV_FORK_INIT,
    /** Attaching a UD queue pair to a multicast group. */
    IBV_ATTACH_MCAST,
    /** Detaching a UD queue pair from a multicast group. */
    IBV_DETACH_MCAST,
    /** Creating an address handle back to the sender of a UD completion. */
    IBV_CREATE_AH_FROM_WC,
    /** Filling an address vector back to the sender of a UD completion. */
    IBV_INIT_AH_FROM_WC,
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
