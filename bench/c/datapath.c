// SPDX-License-Identifier: Apache-2.0
/*
 * The C baseline of DeviceDataPathBench: the same two operations through libibverbs, timed the
 * same way (ns per operation over fixed-length iterations), so that jrdma's figures can be read
 * as ratios against C measured in the same VM boot.
 *
 *   sendInline2BytesPostAndPoll: on a loopback RC pair (two QPs of one device connected to each
 *     other, one CQ), re-post the receive, post a 2-byte inline SEND, poll both completions.
 *   pollEmptyCq: ibv_poll_cq on a CQ that never has anything.
 *
 * Build: cc -O2 -o datapath datapath.c -libverbs
 * Usage: datapath [DEVICE] [SECONDS_PER_ITERATION] [ITERATIONS]
 */
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void die(const char *what) {
    perror(what);
    exit(1);
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

static int roce_v2_ipv4_gid(struct ibv_context *ctx, union ibv_gid *gid) {
    for (int i = 0; i < 16; i++) {
        struct ibv_gid_entry e;
        if (ibv_query_gid_ex(ctx, 1, i, &e, 0) != 0) {
            continue;
        }
        static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (e.gid_type == IBV_GID_TYPE_ROCE_V2 && memcmp(e.gid.raw, v4mapped, 12) == 0) {
            *gid = e.gid;
            return i;
        }
    }
    fprintf(stderr, "no RoCE v2 IPv4 GID on port 1\n");
    exit(1);
}

static void connect_qp(struct ibv_qp *qp, uint32_t dest_qpn, union ibv_gid *gid, int gid_index) {
    struct ibv_qp_attr a = {0};
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
        die("ibv_modify_qp INIT");
    }
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = dest_qpn;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = *gid;
    a.ah_attr.grh.sgid_index = gid_index;
    a.ah_attr.grh.hop_limit = 64;
    a.ah_attr.port_num = 1;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN
                              | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
        die("ibv_modify_qp RTR");
    }
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.max_rd_atomic = 1;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN
                              | IBV_QP_MAX_QP_RD_ATOMIC)) {
        die("ibv_modify_qp RTS");
    }
}

static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq) {
    struct ibv_qp_init_attr init = {0};
    init.send_cq = cq;
    init.recv_cq = cq;
    init.qp_type = IBV_QPT_RC;
    init.cap.max_send_wr = 16;
    init.cap.max_recv_wr = 16;
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    init.cap.max_inline_data = 64;
    struct ibv_qp *qp = ibv_create_qp(pd, &init);
    if (!qp) {
        die("ibv_create_qp");
    }
    return qp;
}

struct bench {
    struct ibv_cq *cq, *empty;
    struct ibv_qp *a, *b;
    struct ibv_send_wr send;
    struct ibv_recv_wr recv;
    uint64_t wr_id;
};

static void send_round(struct bench *x) {
    struct ibv_send_wr *bad_send;
    struct ibv_recv_wr *bad_recv;
    struct ibv_wc wc;
    uint64_t id = ++x->wr_id;
    x->recv.wr_id = id;
    if (ibv_post_recv(x->b, &x->recv, &bad_recv)) {
        die("ibv_post_recv");
    }
    x->send.wr_id = id;
    if (ibv_post_send(x->a, &x->send, &bad_send)) {
        die("ibv_post_send");
    }
    int seen = 0;
    long spins = 0;
    while (seen < 2) {
        int n = ibv_poll_cq(x->cq, 1, &wc);
        if (n < 0) {
            die("ibv_poll_cq");
        } else if (n > 0) {
            if (wc.status != IBV_WC_SUCCESS) {
                fprintf(stderr, "completion failed: %s\n", ibv_wc_status_str(wc.status));
                exit(1);
            }
            seen++;
        } else if (++spins > 1000000000L) {
            fprintf(stderr, "no completion\n");
            exit(1);
        }
    }
}

static volatile int sink;

static void poll_empty(struct bench *x) {
    struct ibv_wc wc;
    sink = ibv_poll_cq(x->empty, 1, &wc);
}

/* JMH-like: warm-up iterations, then measured ones, each a fixed time; ns per operation. */
static void run(const char *name, void (*op)(struct bench *), struct bench *x, double seconds, int iterations) {
    double sum = 0;
    printf("%s:", name);
    for (int i = -2; i < iterations; i++) {
        uint64_t start = now_ns(), end = start + (uint64_t) (seconds * 1e9), t;
        long ops = 0;
        do {
            for (int k = 0; k < 64; k++) {
                op(x);
            }
            ops += 64;
        } while ((t = now_ns()) < end);
        double per = (double) (t - start) / (double) ops;
        if (i >= 0) {
            sum += per;
            printf(" %.1f", per);
        }
    }
    printf(" -> mean %.1f ns/op\n", sum / iterations);
    fflush(stdout);
}

int main(int argc, char **argv) {
    const char *want = argc > 1 ? argv[1] : NULL;
    double seconds = argc > 2 ? atof(argv[2]) : 2.0;
    int iterations = argc > 3 ? atoi(argv[3]) : 3;
    int n;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list || n == 0) {
        fprintf(stderr, "no RDMA device\n");
        return 1;
    }
    struct ibv_device *dev = NULL;
    for (int i = 0; i < n && !dev; i++) {
        if (!want || strcmp(ibv_get_device_name(list[i]), want) == 0) {
            dev = list[i];
        }
    }
    if (!dev) {
        fprintf(stderr, "no RDMA device %s\n", want);
        return 1;
    }
    struct ibv_context *ctx = ibv_open_device(dev);
    if (!ctx) {
        die("ibv_open_device");
    }
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    struct bench x = {0};
    x.cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
    x.empty = ibv_create_cq(ctx, 1, NULL, NULL, 0);
    if (!pd || !x.cq || !x.empty) {
        die("ibv_alloc_pd/ibv_create_cq");
    }
    x.a = rc_qp(pd, x.cq);
    x.b = rc_qp(pd, x.cq);
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    void *bufA = aligned_alloc(4096, 4096), *bufB = aligned_alloc(4096, 4096);
    struct ibv_mr *memA = ibv_reg_mr(pd, bufA, 4096, access), *memB = ibv_reg_mr(pd, bufB, 4096, access);
    if (!memA || !memB) {
        die("ibv_reg_mr");
    }
    union ibv_gid gid;
    int gid_index = roce_v2_ipv4_gid(ctx, &gid);
    connect_qp(x.a, x.b->qp_num, &gid, gid_index);
    connect_qp(x.b, x.a->qp_num, &gid, gid_index);

    static struct ibv_sge send_sge, recv_sge;
    send_sge = (struct ibv_sge) {.addr = (uintptr_t) bufA, .length = 2, .lkey = memA->lkey};
    recv_sge = (struct ibv_sge) {.addr = (uintptr_t) bufB, .length = 64, .lkey = memB->lkey};
    x.send = (struct ibv_send_wr) {.sg_list = &send_sge, .num_sge = 1, .opcode = IBV_WR_SEND,
                                   .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE};
    x.recv = (struct ibv_recv_wr) {.sg_list = &recv_sge, .num_sge = 1};

    printf("device %s, %d x %.1f s after 2 warm-up iterations\n", ibv_get_device_name(dev), iterations, seconds);
    run("sendInline2BytesPostAndPoll", send_round, &x, seconds, iterations);
    run("pollEmptyCq", poll_empty, &x, seconds, iterations);
    return 0;
}
