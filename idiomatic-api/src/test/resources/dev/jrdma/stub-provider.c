// SPDX-License-Identifier: Apache-2.0
/*
 * A stub verbs provider for measuring the binding's own cost on a real CPU, without a device.
 *
 * It builds fake struct ibv_context / ibv_pd / ibv_cq / ibv_qp / ibv_mr in native memory, laid
 * out by the installed <infiniband/verbs.h>, with an ops table (ibv_context.ops) whose
 * post_send / post_recv / poll_cq do the least a user-space provider does: write the WQE into a
 * ring and, for a signalled send or any receive, one completion into the CQ's ring; poll_cq hands
 * the completions back in order as struct ibv_wc. The "device" consumes each WQE as it is written,
 * so the work queues never fill; the CQ ring drops its oldest entry when full (counted) so that a
 * post-only loop never stalls.
 *
 * The stub_harness_* functions are the C side of the comparison: the same stub functions called
 * through the same ops table, by the inline ibv_post_send / ibv_post_recv / ibv_poll_cq of
 * verbs.h, as a C application calls them.
 *
 * Nothing here links against libibverbs: the verbs used are verbs.h's static inline dispatch.
 * Objects are never freed: they live for the process (a test or a benchmark fork).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#define STUB_MAX_SGE 4

struct stub_wqe {
    uint64_t wr_id;
    uint32_t opcode;
    uint32_t flags;
    uint32_t num_sge;
    uint32_t imm_data;
    struct { uint64_t addr; uint32_t length; uint32_t lkey; } sge[STUB_MAX_SGE];
};

struct stub_wq {
    struct stub_wqe *ring;
    uint32_t mask;
    uint64_t head;
};

struct stub_cq {
    struct ibv_cq cq;
    struct ibv_wc *ring;
    uint32_t mask;
    uint64_t head, tail, overruns;
};

struct stub_qp {
    struct ibv_qp qp;
    struct stub_wq sq, rq;
    int sq_sig_all;
};

static uint32_t next_handle = 1;

static uint32_t ring_size(int depth) {
    uint32_t n = 1;
    while (n < (uint32_t) depth) {
        n <<= 1;
    }
    return n;
}

static void push_completion(struct stub_cq *cq, uint64_t wr_id, enum ibv_wc_opcode opcode, uint32_t byte_len,
                            uint32_t qp_num) {
    if (cq->head - cq->tail > cq->mask) {
        cq->tail++;
        cq->overruns++;
    }
    struct ibv_wc *wc = &cq->ring[cq->head & cq->mask];
    memset(wc, 0, sizeof *wc);
    wc->wr_id = wr_id;
    wc->status = IBV_WC_SUCCESS;
    wc->opcode = opcode;
    wc->byte_len = byte_len;
    wc->qp_num = qp_num;
    cq->head++;
}

static uint32_t write_sges(struct stub_wqe *wqe, const struct ibv_sge *sg_list, int num_sge) {
    uint32_t total = 0;
    wqe->num_sge = (uint32_t) num_sge;
    for (int i = 0; i < num_sge; i++) {
        wqe->sge[i].addr = sg_list[i].addr;
        wqe->sge[i].length = sg_list[i].length;
        wqe->sge[i].lkey = sg_list[i].lkey;
        total += sg_list[i].length;
    }
    return total;
}

static int stub_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr) {
    struct stub_qp *qp = (struct stub_qp *) ibqp;
    for (; wr != NULL; wr = wr->next) {
        if (wr->num_sge < 0 || wr->num_sge > STUB_MAX_SGE) {
            *bad_wr = wr;
            return EINVAL;
        }
        struct stub_wqe *wqe = &qp->sq.ring[qp->sq.head++ & qp->sq.mask];
        wqe->wr_id = wr->wr_id;
        wqe->opcode = wr->opcode;
        wqe->flags = wr->send_flags;
        wqe->imm_data = wr->imm_data;
        uint32_t total = write_sges(wqe, wr->sg_list, wr->num_sge);
        if (qp->sq_sig_all || (wr->send_flags & IBV_SEND_SIGNALED)) {
            push_completion((struct stub_cq *) ibqp->send_cq, wr->wr_id, IBV_WC_SEND, total, ibqp->qp_num);
        }
    }
    return 0;
}

static int stub_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr) {
    struct stub_qp *qp = (struct stub_qp *) ibqp;
    for (; wr != NULL; wr = wr->next) {
        if (wr->num_sge < 0 || wr->num_sge > STUB_MAX_SGE) {
            *bad_wr = wr;
            return EINVAL;
        }
        struct stub_wqe *wqe = &qp->rq.ring[qp->rq.head++ & qp->rq.mask];
        wqe->wr_id = wr->wr_id;
        wqe->opcode = 0;
        wqe->flags = 0;
        uint32_t total = write_sges(wqe, wr->sg_list, wr->num_sge);
        push_completion((struct stub_cq *) ibqp->recv_cq, wr->wr_id, IBV_WC_RECV, total, ibqp->qp_num);
    }
    return 0;
}

static int stub_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc) {
    struct stub_cq *cq = (struct stub_cq *) ibcq;
    int n = 0;
    while (n < num_entries && cq->tail != cq->head) {
        wc[n++] = cq->ring[cq->tail++ & cq->mask];
    }
    return n;
}

static int stub_req_notify_cq(struct ibv_cq *cq, int solicited_only) {
    (void) cq;
    (void) solicited_only;
    return EOPNOTSUPP;
}

/* Object construction, called once by the Java side. NULL when out of memory. */

struct ibv_context *stub_open_context(void) {
    struct ibv_device *device = calloc(1, sizeof *device);
    struct ibv_context *ctx = calloc(1, sizeof *ctx);
    if (device == NULL || ctx == NULL) {
        return NULL;
    }
    strcpy(device->name, "stub0");
    strcpy(device->dev_name, "stub0");
    device->node_type = IBV_NODE_CA;
    device->transport_type = IBV_TRANSPORT_IB;
    ctx->device = device;
    ctx->ops.post_send = stub_post_send;
    ctx->ops.post_recv = stub_post_recv;
    ctx->ops.poll_cq = stub_poll_cq;
    ctx->ops.req_notify_cq = stub_req_notify_cq;
    return ctx;
}

struct ibv_pd *stub_alloc_pd(struct ibv_context *ctx) {
    struct ibv_pd *pd = calloc(1, sizeof *pd);
    if (pd != NULL) {
        pd->context = ctx;
        pd->handle = next_handle++;
    }
    return pd;
}

struct ibv_cq *stub_create_cq(struct ibv_context *ctx, int depth) {
    struct stub_cq *cq = calloc(1, sizeof *cq);
    uint32_t n = ring_size(depth);
    if (cq == NULL || (cq->ring = calloc(n, sizeof *cq->ring)) == NULL) {
        return NULL;
    }
    cq->mask = n - 1;
    cq->cq.context = ctx;
    cq->cq.cqe = (int) n;
    cq->cq.handle = next_handle++;
    return &cq->cq;
}

struct ibv_qp *stub_create_qp(struct ibv_pd *pd, struct ibv_cq *send_cq, struct ibv_cq *recv_cq, int depth,
                              int sq_sig_all) {
    struct stub_qp *qp = calloc(1, sizeof *qp);
    uint32_t n = ring_size(depth);
    if (qp == NULL || (qp->sq.ring = calloc(n, sizeof(struct stub_wqe))) == NULL
            || (qp->rq.ring = calloc(n, sizeof(struct stub_wqe))) == NULL) {
        return NULL;
    }
    qp->sq.mask = qp->rq.mask = n - 1;
    qp->sq_sig_all = sq_sig_all;
    qp->qp.context = pd->context;
    qp->qp.pd = pd;
    qp->qp.send_cq = send_cq;
    qp->qp.recv_cq = recv_cq;
    qp->qp.handle = next_handle++;
    qp->qp.qp_num = 0x100 + qp->qp.handle;
    qp->qp.state = IBV_QPS_RTS;
    qp->qp.qp_type = IBV_QPT_RC;
    return &qp->qp;
}

struct ibv_mr *stub_reg_mr(struct ibv_pd *pd, void *addr, size_t length) {
    struct ibv_mr *mr = calloc(1, sizeof *mr);
    if (mr != NULL) {
        mr->context = pd->context;
        mr->pd = pd;
        mr->addr = addr;
        mr->length = length;
        mr->handle = next_handle++;
        mr->lkey = 0x1000 + mr->handle;
        mr->rkey = 0x2000 + mr->handle;
    }
    return mr;
}

/* The last WQE written to a queue pair's send (1) or receive (0) queue, for the functional test. */
const struct stub_wqe *stub_last_wqe(struct ibv_qp *ibqp, int send) {
    struct stub_qp *qp = (struct stub_qp *) ibqp;
    struct stub_wq *wq = send ? &qp->sq : &qp->rq;
    return wq->head == 0 ? NULL : &wq->ring[(wq->head - 1) & wq->mask];
}

uint64_t stub_cq_overruns(struct ibv_cq *cq) {
    return ((struct stub_cq *) cq)->overruns;
}

/* The C harness: n calls each, as an application written against verbs.h makes them. Each returns
 * the number of failed posts (or the completions read), so a broken run shows. */

long stub_harness_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, long n) {
    struct ibv_send_wr *bad;
    long failed = 0;
    for (long i = 0; i < n; i++) {
        failed += ibv_post_send(qp, wr, &bad) != 0;
    }
    return failed;
}

long stub_harness_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, long n) {
    struct ibv_recv_wr *bad;
    long failed = 0;
    for (long i = 0; i < n; i++) {
        failed += ibv_post_recv(qp, wr, &bad) != 0;
    }
    return failed;
}

long stub_harness_poll_cq(struct ibv_cq *cq, long n) {
    struct ibv_wc wc;
    long polled = 0;
    for (long i = 0; i < n; i++) {
        polled += ibv_poll_cq(cq, 1, &wc);
    }
    return polled;
}

/* Post one signalled send and poll its completion, n times; returns the completions read. */
long stub_harness_send_and_poll(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_cq *cq, long n) {
    struct ibv_send_wr *bad;
    struct ibv_wc wc;
    long polled = 0;
    for (long i = 0; i < n; i++) {
        ibv_post_send(qp, wr, &bad);
        polled += ibv_poll_cq(cq, 1, &wc);
    }
    return polled;
}

/* ---- The extended post API: a queue pair with struct ibv_qp_ex (ExtendedStubProviderBench) ----
 * The builders write the same stub_wqe as stub_post_send; wr_complete pushes the completions of
 * the batch's signalled requests, wr_abort drops the batch. Every builder the CLI's loops call
 * is here (send, send with immediate, RDMA write with and without immediate, RDMA read, both
 * atomics, set_sge, set_inline_data, set_ud_addr); the remote address, rkey and UD destination
 * are kept beside the WQE (stub_last_remote_ex) for the functional tests. */

/* What the last builder set beyond a stub_wqe: remote memory, atomic operands, UD destination. */
struct stub_remote {
    uint64_t remote_addr;
    uint64_t compare_add;
    uint64_t swap;
    uint32_t rkey;
    uint32_t remote_qpn;
    uint32_t remote_qkey;
    uint32_t pad;
    uint64_t ah;
};

struct stub_qp_ex {
    struct ibv_qp_ex qpx;
    struct stub_wq sq;
    struct stub_wqe *cur;
    uint64_t start_head;
    int sq_sig_all;
    struct stub_remote remote;
};

static void stubx_wr_start(struct ibv_qp_ex *qpx) {
    struct stub_qp_ex *q = (struct stub_qp_ex *) qpx;
    q->start_head = q->sq.head;
    q->cur = NULL;
}

static struct stub_wqe *stubx_begin(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode, uint32_t imm_data) {
    struct stub_qp_ex *q = (struct stub_qp_ex *) qpx;
    struct stub_wqe *wqe = &q->sq.ring[q->sq.head++ & q->sq.mask];
    wqe->wr_id = qpx->wr_id;
    wqe->opcode = opcode;
    wqe->flags = qpx->wr_flags;
    wqe->num_sge = 0;
    wqe->imm_data = imm_data;
    q->cur = wqe;
    return wqe;
}

static void stubx_remote(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, uint64_t compare_add,
                         uint64_t swap) {
    struct stub_remote *r = &((struct stub_qp_ex *) qpx)->remote;
    r->rkey = rkey;
    r->remote_addr = remote_addr;
    r->compare_add = compare_add;
    r->swap = swap;
}

static void stubx_wr_send(struct ibv_qp_ex *qpx) {
    stubx_begin(qpx, IBV_WR_SEND, 0);
}

static void stubx_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data) {
    stubx_begin(qpx, IBV_WR_SEND_WITH_IMM, imm_data);
}

static void stubx_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr) {
    stubx_begin(qpx, IBV_WR_RDMA_WRITE, 0);
    stubx_remote(qpx, rkey, remote_addr, 0, 0);
}

static void stubx_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, __be32 imm_data) {
    stubx_begin(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, imm_data);
    stubx_remote(qpx, rkey, remote_addr, 0, 0);
}

static void stubx_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr) {
    stubx_begin(qpx, IBV_WR_RDMA_READ, 0);
    stubx_remote(qpx, rkey, remote_addr, 0, 0);
}

static void stubx_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, uint64_t compare,
                                    uint64_t swap) {
    stubx_begin(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, 0);
    stubx_remote(qpx, rkey, remote_addr, compare, swap);
}

static void stubx_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, uint64_t add) {
    stubx_begin(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, 0);
    stubx_remote(qpx, rkey, remote_addr, add, 0);
}

/* Inline data: the WQE records where it came from and its length (lkey 0), as set_sge would. */
static void stubx_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr, size_t length) {
    struct stub_wqe *wqe = ((struct stub_qp_ex *) qpx)->cur;
    wqe->num_sge = 1;
    wqe->sge[0].addr = (uint64_t) (uintptr_t) addr;
    wqe->sge[0].length = (uint32_t) length;
    wqe->sge[0].lkey = 0;
}

static void stubx_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah, uint32_t remote_qpn, uint32_t remote_qkey) {
    struct stub_remote *r = &((struct stub_qp_ex *) qpx)->remote;
    r->ah = (uint64_t) (uintptr_t) ah;
    r->remote_qpn = remote_qpn;
    r->remote_qkey = remote_qkey;
}

static void stubx_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr, uint32_t length) {
    struct stub_wqe *wqe = ((struct stub_qp_ex *) qpx)->cur;
    wqe->num_sge = 1;
    wqe->sge[0].addr = addr;
    wqe->sge[0].length = length;
    wqe->sge[0].lkey = lkey;
}

static int stubx_wr_complete(struct ibv_qp_ex *qpx) {
    struct stub_qp_ex *q = (struct stub_qp_ex *) qpx;
    for (uint64_t i = q->start_head; i != q->sq.head; i++) {
        struct stub_wqe *wqe = &q->sq.ring[i & q->sq.mask];
        if (q->sq_sig_all || (wqe->flags & IBV_SEND_SIGNALED)) {
            push_completion((struct stub_cq *) qpx->qp_base.send_cq, wqe->wr_id, IBV_WC_SEND,
                            wqe->num_sge ? wqe->sge[0].length : 0, qpx->qp_base.qp_num);
        }
    }
    q->cur = NULL;
    return 0;
}

static void stubx_wr_abort(struct ibv_qp_ex *qpx) {
    struct stub_qp_ex *q = (struct stub_qp_ex *) qpx;
    q->sq.head = q->start_head;
    q->cur = NULL;
}

/* A queue pair whose struct ibv_qp is the first member of a struct ibv_qp_ex, as libibverbs'
 * verbs_qp lays it out; returns the ibv_qp_ex (its qp_base is the ibv_qp). */
struct ibv_qp_ex *stub_create_qp_ex(struct ibv_pd *pd, struct ibv_cq *send_cq, struct ibv_cq *recv_cq, int depth) {
    struct stub_qp_ex *q = calloc(1, sizeof *q);
    uint32_t n = ring_size(depth);
    if (q == NULL || (q->sq.ring = calloc(n, sizeof(struct stub_wqe))) == NULL) {
        return NULL;
    }
    q->sq.mask = n - 1;
    struct ibv_qp *qp = &q->qpx.qp_base;
    qp->context = pd->context;
    qp->pd = pd;
    qp->send_cq = send_cq;
    qp->recv_cq = recv_cq;
    qp->handle = next_handle++;
    qp->qp_num = 0x100 + qp->handle;
    qp->state = IBV_QPS_RTS;
    qp->qp_type = IBV_QPT_RC;
    q->qpx.wr_start = stubx_wr_start;
    q->qpx.wr_complete = stubx_wr_complete;
    q->qpx.wr_abort = stubx_wr_abort;
    q->qpx.wr_send = stubx_wr_send;
    q->qpx.wr_send_imm = stubx_wr_send_imm;
    q->qpx.wr_rdma_write = stubx_wr_rdma_write;
    q->qpx.wr_rdma_write_imm = stubx_wr_rdma_write_imm;
    q->qpx.wr_rdma_read = stubx_wr_rdma_read;
    q->qpx.wr_atomic_cmp_swp = stubx_wr_atomic_cmp_swp;
    q->qpx.wr_atomic_fetch_add = stubx_wr_atomic_fetch_add;
    q->qpx.wr_set_sge = stubx_wr_set_sge;
    q->qpx.wr_set_inline_data = stubx_wr_set_inline_data;
    q->qpx.wr_set_ud_addr = stubx_wr_set_ud_addr;
    return &q->qpx;
}

/* The last WQE the extended queue pair wrote, for the functional test. */
const struct stub_wqe *stub_last_wqe_ex(struct ibv_qp_ex *qpx) {
    struct stub_qp_ex *q = (struct stub_qp_ex *) qpx;
    return q->sq.head == 0 ? NULL : &q->sq.ring[(q->sq.head - 1) & q->sq.mask];
}

/* What the last remote builder and set_ud_addr set, for the functional tests. */
const struct stub_remote *stub_last_remote_ex(struct ibv_qp_ex *qpx) {
    return &((struct stub_qp_ex *) qpx)->remote;
}

/* The C twin of ExtendedSendQueue's one-request batch: start, wr_id and flags, send, set_sge,
 * complete, n times, through verbs.h's inline ibv_wr_*; returns the failed completes. */
long stub_harness_wr_send(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr, uint32_t length, long n) {
    long failed = 0;
    for (long i = 0; i < n; i++) {
        ibv_wr_start(qpx);
        qpx->wr_id = (uint64_t) i;
        qpx->wr_flags = 0;
        ibv_wr_send(qpx);
        ibv_wr_set_sge(qpx, lkey, addr, length);
        failed += ibv_wr_complete(qpx) != 0;
    }
    return failed;
}
