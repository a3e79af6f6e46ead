// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;

/** The byte channels of rsockets: the whole-array forms of the scattering read and gathering write. */
interface VectoredChannel extends ByteChannel, ScatteringByteChannel, GatheringByteChannel {
    @Override
    default long read(ByteBuffer[] dsts) throws IOException {
        return read(dsts, 0, dsts.length);
    }

    @Override
    default long write(ByteBuffer[] srcs) throws IOException {
        return write(srcs, 0, srcs.length);
    }
}
