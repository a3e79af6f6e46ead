// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.IllegalBlockingModeException;
import java.util.Objects;

/**
 * The {@link InputStream} and {@link OutputStream} of an {@link RdmaSocketChannel}. They go
 * through {@code rread}/{@code rwrite}, the read(2)/write(2)-shaped calls, straight from the
 * caller's array; like {@code Channels.newInputStream} they need blocking mode, since a stream
 * cannot say "nothing yet".
 */
final class ChannelStreams {
    private ChannelStreams() {}

    static InputStream in(RdmaSocketChannel channel) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                requireBlocking(channel);
                return len == 0 ? 0 : channel.io.readArray(b, off, len);
            }

            @Override
            public void close() throws IOException {
                channel.close();
            }
        };
    }

    static OutputStream out(RdmaSocketChannel channel) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                requireBlocking(channel);
                if (len > 0) {
                    channel.io.writeArray(b, off, len);
                }
            }

            @Override
            public void close() throws IOException {
                channel.close();
            }
        };
    }

    private static void requireBlocking(RdmaSocketChannel channel) {
        if (!channel.isBlocking()) {
            throw new IllegalBlockingModeException();
        }
    }
}
