// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The ownership graph, with fake resources that record their release instead of calling verbs.
 * NativeResource is sealed; the fakes extend this package's NativeObject with a NULL handle.
 */
class NativeResourceTest {
    private final List<String> released = new ArrayList<>();

    private final class Fake extends NativeObject {
        final String name;
        RuntimeException failure;

        Fake(String name, NativeResource... owners) {
            super(MemorySegment.NULL, "fake " + name, owners);
            this.name = name;
        }

        void use() {
            checkOpen();
        }

        @Override
        protected void release() {
            synchronized (released) {
                released.add(name);
            }
            if (failure != null) {
                throw failure;
            }
        }
    }

    @Test
    void closingAParentClosesChildrenFirstNewestFirst() {
        Fake context = new Fake("context");
        Fake pd = new Fake("pd", context);
        Fake cq = new Fake("cq", context);
        Fake mr1 = new Fake("mr1", pd);
        Fake qp = new Fake("qp", pd, cq, cq);
        Fake mr2 = new Fake("mr2", pd);
        context.close();
        // The context closes the CQ (its newest child) first, and the CQ its QP; then the PD.
        assertEquals(List.of("qp", "cq", "mr2", "mr1", "pd", "context"), released);
        for (Fake f : List.of(context, pd, cq, mr1, qp, mr2)) {
            assertTrue(f.isClosed(), f.name);
        }
    }

    @Test
    void aChildWithTwoOwnersIsClosedByEither() {
        Fake pd = new Fake("pd");
        Fake cq = new Fake("cq");
        Fake qp = new Fake("qp", pd, cq);
        cq.close();
        assertEquals(List.of("qp", "cq"), released);
        assertTrue(pd.dependents().isEmpty(), "the closed QP must leave the PD's dependents");
        pd.close();
        assertEquals(List.of("qp", "cq", "pd"), released);
        assertTrue(qp.isClosed());
    }

    @Test
    void closeIsIdempotent() {
        Fake pd = new Fake("pd");
        Fake mr = new Fake("mr", pd);
        mr.close();
        mr.close();
        pd.close();
        pd.close();
        assertEquals(List.of("mr", "pd"), released);
    }

    @Test
    void closedChildLeavesItsParent() {
        Fake pd = new Fake("pd");
        Fake mr = new Fake("mr", pd);
        assertEquals(List.of(mr), pd.dependents());
        mr.close();
        assertEquals(List.of(), pd.dependents());
    }

    @Test
    void useAfterCloseNamesTheObject() {
        Fake pd = new Fake("pd");
        pd.use();
        pd.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, pd::use);
        assertEquals("fake pd is closed", e.getMessage());
    }

    @Test
    void noChildOfAClosedParent() {
        Fake pd = new Fake("pd");
        Fake cq = new Fake("cq");
        pd.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new Fake("qp", cq, pd));
        assertEquals("fake pd is closed", e.getMessage());
        assertTrue(cq.dependents().isEmpty(), "a failed construction must not stay registered with other owners");
    }

    @Test
    void aFailingReleaseStillClosesEverythingAndIsReported() {
        Fake pd = new Fake("pd");
        Fake mr = new Fake("mr", pd);
        Fake qp = new Fake("qp", pd);
        mr.failure = new IllegalStateException("mr release failed");
        pd.failure = new IllegalStateException("pd release failed");
        IllegalStateException e = assertThrows(IllegalStateException.class, pd::close);
        assertEquals("mr release failed", e.getMessage());
        assertEquals("pd release failed", e.getSuppressed()[0].getMessage());
        assertEquals(List.of("qp", "mr", "pd"), released);
        assertTrue(pd.isClosed() && mr.isClosed() && qp.isClosed());
    }

    @Test
    void aParentClosedWhileAnotherThreadReleasesAChildWaitsForIt() throws Exception {
        CountDownLatch childReleasing = new CountDownLatch(1);
        CountDownLatch letChildFinish = new CountDownLatch(1);
        List<String> order = java.util.Collections.synchronizedList(new ArrayList<>());
        NativeResource parent = new NativeObject(MemorySegment.NULL, "parent") {
            @Override
            protected void release() {
                order.add("parent");
            }
        };
        NativeResource child = new NativeObject(MemorySegment.NULL, "child", parent) {
            @Override
            protected void release() {
                childReleasing.countDown();
                try {
                    letChildFinish.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                order.add("child");
            }
        };
        Thread a = Thread.ofPlatform().start(child::close);
        assertTrue(childReleasing.await(10, TimeUnit.SECONDS));
        Thread b = Thread.ofPlatform().start(parent::close);
        Thread.sleep(100);
        assertEquals(List.of(), order, "the parent must not be released while its child is being released");
        letChildFinish.countDown();
        a.join(10_000);
        b.join(10_000);
        assertEquals(List.of("child", "parent"), order);
    }

    @Test
    void concurrentClosesReleaseOnce() throws Exception {
        AtomicInteger releases = new AtomicInteger();
        NativeResource parent = new NativeObject(MemorySegment.NULL, "parent") {
            @Override
            protected void release() {
                releases.incrementAndGet();
            }
        };
        List<NativeResource> children = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            children.add(new NativeObject(MemorySegment.NULL, "child", parent) {
                @Override
                protected void release() {
                    releases.incrementAndGet();
                }
            });
        }
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int offset = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < children.size(); i++) {
                        children.get((i + offset * 13) % children.size()).close();
                    }
                    parent.close();
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(101, releases.get());
        assertFalse(children.stream().anyMatch(c -> !c.isClosed()));
    }
}
