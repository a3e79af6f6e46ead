// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.rsocket.RdmaDatagramChannel;
import dev.jrdma.rsocket.RdmaServerSocketChannel;
import dev.jrdma.rsocket.RdmaSocketChannel;
import dev.jrdma.rsocket.RdmaSocketOptions;
import dev.jrdma.testing.DeviceTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The rsocket channels in the concurrent-close stress of {@link ConcurrentCloseDeviceTest} (its
 * {@link CloseStress}): a connected pair and its listener, with threads reading, writing, waiting
 * for readiness, accepting and asking for options and names, while the round closes the client,
 * the accepted peer, the listener or a bound datagram rsocket (whose receives only run out on
 * RoCE) at a random moment, then all four. Every worker must end
 * with {@link ClosedChannelException} (an {@code AsynchronousCloseException} when the close
 * caught it waiting; passed on as the stress's IllegalStateException) within the stress's bound.
 * A peer's close on the way only gives end-of-stream or a {@link SocketException}, after which
 * the worker goes on, as does a wait that ran out. Without the channels' {@code Guard} (rclose
 * freeing the rsocket under a concurrent rrecv or rpoll) the JVM would die here.
 */
@DeviceTest
@Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RsocketConcurrentCloseDeviceTest {
    private static final int ROUNDS = 24;
    private static final Duration WAIT = Duration.ofMillis(50);

    /** What a round closes first. */
    enum Target { CLIENT, PEER, LISTENER, DATAGRAM }

    /** A call on a channel, for the stress's steps. */
    interface ChannelCall {
        void run() throws IOException;
    }

    /** The step of {@code call}: a closed channel stops the worker, a quiet wait or a gone peer does not. */
    private static CloseStress.Step step(ChannelCall call) {
        return () -> {
            try {
                call.run();
            } catch (ClosedChannelException closed) {
                throw new IllegalStateException(closed);
            } catch (SocketException | SocketTimeoutException peerGoneOrQuiet) {
                // the wait ran out (SocketTimeoutException) or the peer closed first: still open
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
    }

    @Test
    void closingAChannelWhileOthersReadWritePollAndAcceptEndsEachCleanlyNeverCrashes() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        CloseStress stress = new CloseStress();
        stress.rounds("rsocket round", ROUNDS, Target.values(), 5_000, target -> {
            RdmaServerSocketChannel listener = RdmaServerSocketChannel.open().timeout(TestDevices.TIMEOUT)
                    .bind(new InetSocketAddress(address, 0), 4);
            List<AutoCloseable> all = new ArrayList<>(List.of(listener));
            AutoCloseable everything = () -> {
                for (AutoCloseable c : all) {
                    c.close();
                }
            };
            try {
                RdmaSocketChannel client = RdmaSocketChannel.open().timeout(TestDevices.TIMEOUT);
                all.add(client);
                client.configureBlocking(false).connect(new InetSocketAddress(address,
                        listener.getLocalAddress().getPort()));
                RdmaSocketChannel peer = listener.accept();
                all.add(peer);
                RdmaDatagramChannel datagram = RdmaDatagramChannel.open().timeout(WAIT)
                        .bind(new InetSocketAddress(address, 0));
                all.add(datagram);
                client.configureBlocking(true);
                assertTrue(client.finishConnect());
                client.timeout(WAIT);
                peer.timeout(WAIT);
                listener.timeout(WAIT);
                ByteBuffer out = ByteBuffer.allocateDirect(512);
                ByteBuffer in = ByteBuffer.allocateDirect(4096);
                ByteBuffer peerIn = ByteBuffer.allocate(4096);
                ByteBuffer datagramIn = ByteBuffer.allocateDirect(RdmaDatagramChannel.MAX_DATAGRAM);
                List<CloseStress.Step> steps = List.of(
                        step(() -> client.write(out.clear())),
                        step(() -> client.read(in.clear())),
                        step(() -> peer.read(peerIn.clear())),
                        step(() -> client.awaitReadable(WAIT)),
                        step(() -> listener.accept().close()),   // nobody connects: the wait runs out
                        step(() -> datagram.receive(datagramIn.clear())),   // nothing arrives on RoCE: runs out
                        step(() -> {
                            client.getOption(RdmaSocketOptions.SQ_SIZE);
                            peer.getLocalAddress();
                        }));
                AutoCloseable first = switch (target) {
                    case CLIENT -> client;
                    case PEER -> peer;
                    case LISTENER -> listener;
                    case DATAGRAM -> datagram;
                };
                stress.closeWhileRunning(steps, first, everything);
            } finally {
                everything.close();
            }
        }).assertWorkersEndedCleanly(7);
    }
}
