// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.Access;
import dev.jrdma.Context;
import dev.jrdma.MemoryRegion;
import dev.jrdma.OperationNotSupportedException;
import dev.jrdma.PreparedReceive;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendOp;
import dev.jrdma.SharedReceiveQueue;
import dev.jrdma.ThreadDomain;
import dev.jrdma.cm.CmId;
import dev.jrdma.tools.perftest.PostSettings;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What {@link PostSettings} changes in a {@link Side}'s resources, as perftest's
 * ctx_init/create_mr/ctx_set_recv_wqes do: the shared receive queue of --use-srq (on the sides
 * that receive), one buffer and region per QP with --mr_per_qp, the parent domain over a thread
 * domain of --no_lock, the receive lists of --recv_post_list, and whether the QPs are created
 * for the extended post API (the default, where the device offers it; not with
 * --use_old_post_send or -R).
 */
final class PostResources {
    private final Side side;
    private final PostSettings p;
    /** --use-srq on a side that receives. */
    SharedReceiveQueue srq;
    /** Whether the QPs took their receives from an SRQ (it stays true once the SRQ is closed). */
    private boolean srqUsed;
    /** --mr_per_qp: per QP its region ([send slot, receive slot]); null for one region of all. */
    private MemoryRegion[] regions;
    /** The buffers behind {@link #regions} (or the one region): what closeBuffers frees or unmaps. */
    private TestBuffer[] buffers;
    private ThreadDomain threadDomain;
    private ProtectionDomain parentDomain;
    /** Whether the QPs were created for the extended post API ({@link SendPoster} posts through it). */
    boolean extendedPost;
    /** Whether asking for it failed once on this device (then the QPs use ibv_post_send, as perftest without it). */
    private boolean extendedRefused;

    // What this side posted, for --json's parameters (the device tests read them): plain counts,
    // one add per post (a list counts once in the posts, and its length in the requests).
    long sendPosts;
    long sendRequests;
    long receivePosts;
    long receiveRequests;

    PostResources(Side side) {
        this.side = side;
        this.p = side.s.posting();
    }

    /**
     * --no_lock: that the device has thread domains, before anything else is built (perftest
     * fails in ctx_init too); a device without them (rxe) refuses with its name.
     */
    static void checkDevice(Context context, PostSettings p) {
        if (p.noLock()) {
            try (ThreadDomain probe = context.allocateThreadDomain()) {
                // the device has thread domains: each side allocates its own in queueDomain
            } catch (RuntimeException e) {
                throw new IllegalStateException("--no_lock: " + e.getMessage(), e);
            }
        }
    }

    /** The least count of messages that is whole send lists and whole receive lists (their lcm). */
    static int listMultiple(PostSettings p) {
        int a = p.postList();
        int b = p.recvPostList();
        return a / java.math.BigInteger.valueOf(a).gcd(java.math.BigInteger.valueOf(b)).intValue() * b;
    }

    /** The buffer: one region of {@code bytes}, or with --mr_per_qp one per QP of its share; the first. */
    MemoryRegion allocateBuffers(long bytes, Set<Access> access) {
        int n = side.s.qps();
        int count = !p.mrPerQp() || n == 1 ? 1 : n;
        buffers = new TestBuffer[count];
        for (int i = 0; i < count; i++) {
            // Each QP's share gets the memory options (--use_hugepages, --mmap, ...) of the whole buffer.
            buffers[i] = TestBuffer.allocate(side.pd, bytes / count, access, side.s.memory());
        }
        if (count == 1) {
            regions = null;
        } else {
            regions = new MemoryRegion[count];
            for (int i = 0; i < count; i++) {
                regions[i] = buffers[i].region();
            }
        }
        return buffers[0].region();
    }

    boolean perQpRegions() {
        return regions != null;
    }

    MemoryRegion region(int qp) {
        return regions != null ? regions[qp] : side.buffer.mr();
    }

    /**
     * The domain the QPs (and the SRQ) are created in: the protection domain, or with --no_lock a
     * parent domain over a thread domain; creates the SRQ of --use-srq of {@code rxDepth}.
     */
    ProtectionDomain queueDomain(Context context, int rxDepth) {
        ProtectionDomain domain = side.pd;
        if (p.noLock()) {
            threadDomain = context.allocateThreadDomain();
            parentDomain = context.allocateParentDomain(side.pd, threadDomain);
            domain = parentDomain;
        }
        srq = p.useSrq() && side.receives() ? domain.createSharedReceiveQueue(rxDepth, 1) : null;
        srqUsed = srq != null;
        return domain;
    }

    /**
     * Builds a QP: on the SRQ if there is one, for the extended post API where perftest posts
     * through it ({@link #perftestPostsExtended}) unless --use_old_post_send or -R (rdma_cm
     * creates its QPs with ibv_create_qp) or the device refuses it (EOPNOTSUPP: then
     * ibv_post_send, as perftest built without the ibv_wr API).
     */
    QueuePair build(Supplier<QueuePair.Builder> builders, CmId cmId) {
        if (cmId != null) {
            extendedPost = false;
            return cmId.createQueuePair(onSrq(builders.get()));
        }
        if (!p.oldPostSend() && !extendedRefused && (perftestPostsExtended(side.session.context().queryDevice().vendorPartId())
                || "always".equals(System.getProperty(EXTENDED_POST_PROPERTY)))) {
            try {
                QueuePair qp = onSrq(builders.get()).extendedPost(sendOp()).build();
                extendedPost = true;
                return qp;
            } catch (OperationNotSupportedException e) {
                extendedRefused = true;
            }
        }
        extendedPost = false;
        return onSrq(builders.get()).build();
    }

    /**
     * The system property that, set to {@code always}, posts through the extended post API on
     * every device that offers it, also where perftest would not (its device tests on rxe).
     */
    static final String EXTENDED_POST_PROPERTY = "jrdma.extendedPost";

    /**
     * Whether perftest posts through the extended post API on a device of {@code vendorPartId}:
     * perftest's verify_params_with_device_context turns --use_old_post_send on for every device
     * but those it names as supporting it (mlx5's Connect-IB, ConnectX-4 to -8 and their VF,
     * BlueField 1-3, AWS EFA, HiSilicon HNS), by the part ids of its ib_dev_name. Everywhere
     * else, Soft-RoCE (rxe) among them, perftest posts with ibv_post_send, so jrdma does too:
     * the same post path on both sides of a comparison.
     */
    static boolean perftestPostsExtended(int vendorPartId) {
        return switch (vendorPartId) {
            case 4113,                                      // Connect-IB
                 4115, 4116, 4117, 4118, 4119, 4120, 4121, 4122,   // ConnectX-4, -4 Lx, -5, -5 Ex
                 4123, 4124, 4125, 4126, 4127, 4129, 4131,  // ConnectX-6, -6 Dx, mlx5 VF, -6 Lx, -7, -8
                 41682, 41683, 41686, 41692,                // BlueField, BlueField-2, BlueField-3
                 61344, 61345, 61346,                       // EFA
                 41506, 41507, 41508, 41509, 41510, 41512, 41519 -> true;   // HNS
            default -> false;
        };
    }

    private QueuePair.Builder onSrq(QueuePair.Builder builder) {
        return srq == null ? builder : builder.sharedReceiveQueue(srq);
    }

    /** The one operation the test's QPs build. */
    private SendOp sendOp() {
        return switch (side.verb) {
            case SEND -> side.withImmediate ? SendOp.SEND_WITH_IMM : SendOp.SEND;
            case WRITE -> side.writeImmediate ? SendOp.RDMA_WRITE_WITH_IMM : SendOp.RDMA_WRITE;
            case READ -> SendOp.RDMA_READ;
            case ATOMIC -> side.s.atomicType() == dev.jrdma.tools.perftest.TestKind.AtomicType.CMP_AND_SWAP
                    ? SendOp.ATOMIC_CMP_AND_SWP : SendOp.ATOMIC_FETCH_AND_ADD;
        };
    }

    /**
     * Receives each QP has posted before a run, as perftest's ctx_set_recv_wqes: rx-depth, with
     * --use-srq its share of the SRQ (rx-depth / QPs), in whole receive lists.
     */
    int receivesPostedPerQp() {
        int perQp = side.s.rxDepth() / (srq != null ? side.qps.size() : 1);
        return perQp / p.recvPostList() * p.recvPostList();
    }

    /**
     * QP {@code qp}'s receive list (--recv_post_list requests, one without it), prepared for its
     * queue and confined to the calling thread.
     */
    PreparedReceive prepareReceive(int qp, long size) {
        ReceiveRequest head = side.receiveRequest(qp, size);
        ReceiveRequest last = head;
        for (int k = 1; k < p.recvPostList(); k++) {
            ReceiveRequest next = side.receiveRequest(qp, size);
            last.next(next);
            last = next;
        }
        // Confined, as SendPoster's: the loop that prepares them posts and closes them.
        return srq != null ? PreparedReceive.ofConfined(srq, head)
                : PreparedReceive.ofConfined(side.qps.get(qp), head);
    }

    /** A receive list of {@code requests} was posted. */
    void receivesPosted(int requests) {
        receivePosts++;
        receiveRequests += requests;
    }

    /** Counts {@code posts} posts of {@code requests} receives in all (a loop's tally, added once). */
    void receivesPosted(long posts, long requests) {
        receivePosts += posts;
        receiveRequests += requests;
    }

    /** The group's settings as they ran, and what was posted, for --json's parameters. */
    void describe(java.util.Map<String, Object> parameters) {
        parameters.put("post_list", p.postList());
        parameters.put("recv_post_list", p.recvPostList());
        parameters.put("use_srq", srqUsed);
        parameters.put("post_api", extendedPost ? "ibv_wr" : "ibv_post_send");
        parameters.put("cqe_poll", p.cqePoll());
        parameters.put("dynamic_polling", p.dynamicPolling());
        parameters.put("mr_per_qp", p.mrPerQp());
        parameters.put("no_lock", p.noLock());
        parameters.put("send_posts", sendPosts);
        parameters.put("send_requests", sendRequests);
        parameters.put("receive_posts", receivePosts);
        parameters.put("receive_requests", receiveRequests);
    }

    /** After the QPs: the SRQ, then the parent and thread domains. */
    void closeQueues() {
        if (srq != null) {
            srq.close();
            srq = null;
        }
        if (parentDomain != null) {
            parentDomain.close();
            parentDomain = null;
        }
        if (threadDomain != null) {
            threadDomain.close();
            threadDomain = null;
        }
    }

    /** The regions of QPs 1.. of --mr_per_qp (the side closes the first, its {@code mr}). */
    /**
     * Deregisters every buffer, then frees or unmaps its memory; safe to call again, and after the
     * context's close has deregistered the regions.
     */
    void closeBuffers() {
        if (buffers != null) {
            for (int i = buffers.length - 1; i >= 0; i--) {
                if (buffers[i] != null) {
                    buffers[i].close();
                }
            }
            buffers = null;
        }
        regions = null;
    }
}
