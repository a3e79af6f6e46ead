// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.TestDevices;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.Exercises;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NotYetConnectedException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Datagram rsockets on Soft-RoCE: refused, each call with the reason (see
 * {@link RdmaDatagramChannel}), and nothing left hanging.
 */
@DeviceTest
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RsocketDatagramDeviceTest {
    @Test
    @Exercises(value = {"rsendto", "rrecvfrom", "rrecvmsg"}, refused = "rsockets' datagram path builds each"
            + " destination's address handle from the port's LID without a GRH (rdma-core 44 to today, rsocket.c"
            + " ds_add_qp_dest), which RoCE refuses: rsendto and rconnect fail (ENOENT, librdmacm's clean-up after"
            + " ibv_create_ah's EINVAL), so no datagram reaches rrecvfrom or rrecvmsg")
    @Exercises(value = "rsendmsg", refused = "rsendmsg on a datagram rsocket runs rdma-core's stream code"
            + " (rsocket.c rsendv has no datagram branch) and the process dies with SIGSEGV (measured on rxe):"
            + " jrdma refuses the gathering write before the call")
    void datagramsAreRefusedOnRoceWithTheReasonAndNothingHangs() throws Exception {
        InetSocketAddress any = new InetSocketAddress(TestDevices.ipv4Address(), 0);
        Duration wait = Duration.ofMillis(300);
        try (RdmaDatagramChannel a = RdmaDatagramChannel.open().timeout(wait).bind(any);
                RdmaDatagramChannel b = RdmaDatagramChannel.open().timeout(wait).bind(any)) {
            InetSocketAddress toB = b.getLocalAddress();
            assertEquals(TestDevices.ipv4Address(), toB.getAddress());
            assertTrue(toB.getPort() != 0, toB.toString());

            SocketException send = assertThrows(SocketException.class,
                    () -> a.send(ByteBuffer.wrap(new byte[] {1, 2, 3}), toB));
            assertTrue(send.getMessage().contains("rsendto") && send.getMessage().contains("without a GRH")
                    && send.getMessage().contains("InfiniBand"), send.getMessage());

            // Nothing can arrive: a receive finds none, now or within the channel's timeout.
            b.configureBlocking(false);
            assertNull(b.receive(ByteBuffer.allocate(64)));
            b.configureBlocking(true);
            SocketTimeoutException none = assertThrows(SocketTimeoutException.class,
                    () -> b.receive(ByteBuffer.allocate(64)));
            assertTrue(none.getMessage().contains("datagram receive"), none.getMessage());

            SocketException connect = assertThrows(SocketException.class, () -> a.connect(toB));
            assertTrue(connect.getMessage().contains("rconnect") && connect.getMessage().contains("without a GRH"),
                    connect.getMessage());
            assertThrows(NotYetConnectedException.class, () -> a.read(new ByteBuffer[] {ByteBuffer.allocate(8)}));
            assertThrows(NotYetConnectedException.class, () -> a.write(ByteBuffer.allocate(8)));

            UnsupportedOperationException gather = assertThrows(UnsupportedOperationException.class,
                    () -> a.write(new ByteBuffer[] {ByteBuffer.allocate(8), ByteBuffer.allocate(8)}));
            assertTrue(gather.getMessage().contains("SIGSEGV"), gather.getMessage());

            IllegalArgumentException oversize = assertThrows(IllegalArgumentException.class,
                    () -> a.send(ByteBuffer.allocate(RdmaDatagramChannel.MAX_DATAGRAM + 1), toB));
            assertTrue(oversize.getMessage().contains(String.valueOf(RdmaDatagramChannel.MAX_DATAGRAM)),
                    oversize.getMessage());
        }
        RdmaDatagramChannel closed = RdmaDatagramChannel.open();
        closed.close();
        assertThrows(ClosedChannelException.class, () -> closed.receive(ByteBuffer.allocate(8)));
        assertThrows(ClosedChannelException.class, () -> closed.send(ByteBuffer.allocate(8),
                new InetSocketAddress(TestDevices.ipv4Address(), 9)));
    }
}
