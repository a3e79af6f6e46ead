// SPDX-License-Identifier: Apache-2.0
// Which wake-ups reach a virtual thread while others wait with Thread.yield()? (issue #38)
// Run: java -Djdk.virtualThreadScheduler.parallelism=2 WakeUnderYield.java <yielders> <how>
// <yielders> virtual threads loop on Thread.yield() for 10 s (an application's cq.poll + yield
// loop). One more virtual thread waits for a signal that a platform thread gives 50 ms later,
// in one of these ways (<how>):
//   unpark   parks; the platform thread unparks it (jrdma's fd poller ends rdma_cm and channel waits so)
//   sleep    polls a flag between Thread.sleep(1) (a timed park, ended by the JDK's delay scheduler)
//   backoff  polls a flag with WaitStrategy.backoff()'s steps: 100 spins, 10 yields, parks 10 us..10 ms
//   pipe     blocks reading a java.nio Pipe the platform thread writes to (the JDK's own I/O poller)
//   yield    polls a flag between Thread.yield() (it stays in the carriers' local queues)
// Prints how long after the signal the waiter saw it (about 10,000 ms: only when the yielders stopped).
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

public class WakeUnderYield {
    public static void main(String[] args) throws Exception {
        int yielders = Integer.parseInt(args[0]);
        String how = args[1];
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean signal = new AtomicBoolean();
        Pipe pipe = Pipe.open();
        CountDownLatch started = new CountDownLatch(yielders);
        Thread[] threads = new Thread[yielders];
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        // Started by a virtual thread, as an accept loop starts its handlers: into a carrier's local queue.
        Thread.ofVirtual().start(() -> {
            for (int i = 0; i < yielders; i++) {
                threads[i] = Thread.ofVirtual().start(() -> {
                    started.countDown();
                    while (!stop.get() && System.nanoTime() - end < 0) {
                        Thread.yield();
                    }
                });
            }
        }).join();
        started.await();
        long[] seen = new long[1];
        AtomicBoolean waiting = new AtomicBoolean();
        Thread waiter = Thread.ofVirtual().unstarted(() -> {
            waiting.set(true);
            try {
                switch (how) {
                    case "unpark" -> { while (!signal.get()) LockSupport.park(); }
                    case "sleep" -> { while (!signal.get()) Thread.sleep(1); }
                    case "yield" -> { while (!signal.get()) Thread.yield(); }
                    case "backoff" -> {
                        for (int n = 1; !signal.get(); n++) {
                            if (n <= 100) Thread.onSpinWait();
                            else if (n <= 110) Thread.yield();
                            else LockSupport.parkNanos(Math.min(10_000L << Math.min(n - 111, 10), 10_000_000L));
                        }
                    }
                    case "pipe" -> pipe.source().read(ByteBuffer.allocate(1));
                    default -> throw new IllegalArgumentException(how);
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
            seen[0] = System.nanoTime();
        });
        // Started by a carrier, so that it begins in a local queue and reaches its wait.
        Thread.ofVirtual().start(waiter::start).join();
        Thread.sleep(200);
        if (!waiting.get()) throw new IllegalStateException("the waiter did not start within 200 ms");
        long t0 = System.nanoTime();
        signal.set(true);
        if (how.equals("unpark")) LockSupport.unpark(waiter);
        if (how.equals("pipe")) pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
        waiter.join();
        stop.set(true);
        System.out.printf("%s, %d yielders: the waiter saw the signal after %.1f ms%n",
                how, yielders, (seen[0] - t0) / 1e6);
        for (Thread t : threads) t.join();
    }
}
