// SPDX-License-Identifier: Apache-2.0
// Do yielding virtual threads starve one that an outside thread wakes? (issue #38)
// Run: java -Djdk.virtualThreadScheduler.parallelism=2 YieldStarvation.java <waiters> yield|backoff
// Each waiter polls a flag and, between polls, yields ("yield") or yields 110 times and then
// parks for times doubling from 10 us to 10 ms ("backoff"). A virtual thread that a platform
// thread started and then unparks sets the flag; the program prints how long that took.
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

public class YieldStarvation {
    public static void main(String[] args) throws Exception {
        int waiters = Integer.parseInt(args[0]);
        boolean yieldOnly = args[1].equals("yield");
        AtomicBoolean flag = new AtomicBoolean();
        long limit = TimeUnit.SECONDS.toNanos(10);
        CountDownLatch started = new CountDownLatch(waiters);
        Thread[] threads = new Thread[waiters];
        for (int i = 0; i < waiters; i++) {
            threads[i] = Thread.ofVirtual().start(() -> {
                started.countDown();
                long end = System.nanoTime() + limit;
                for (int n = 1; !flag.get() && System.nanoTime() - end < 0; n++) {
                    if (yieldOnly || n <= 110) {
                        Thread.yield();
                    } else {
                        LockSupport.parkNanos(Math.min(10_000L << Math.min(n - 111, 10), 10_000_000L));
                    }
                }
            });
        }
        started.await();
        Thread.sleep(200);
        long t0 = System.nanoTime();
        Thread setter = Thread.ofVirtual().start(() -> {
            LockSupport.park();
            flag.set(true);
        });
        Thread.sleep(50);
        LockSupport.unpark(setter);
        setter.join();
        System.out.printf("%s, %d waiters: the thread woken from outside ran after %.1f ms%n",
                yieldOnly ? "yield" : "backoff", waiters, (System.nanoTime() - t0) / 1e6 - 50);
        for (Thread t : threads) {
            t.join();
        }
    }
}
