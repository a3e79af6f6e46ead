// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.Exercises;
import org.junit.jupiter.api.Test;

/**
 * Completion vectors: a queue on the device's last vector signals its channel and completes
 * work; a vector the device lacks is refused before ibv_create_cq, naming device, value and range.
 */
@DeviceTest
class CompletionVectorDeviceTest extends DeviceFixture {

    @Test
    @Exercises({"ibv_create_cq", "ibv_create_cq_ex"})
    void aQueueOnTheLastVectorSignalsItsChannelAndCompletesWork() {
        int vectors = context.completionVectors();
        assertTrue(vectors >= 1, "num_comp_vectors of " + context.name() + ": " + vectors);
        int last = vectors - 1;
        CompletionChannel channel = context.createCompletionChannel();
        CompletionQueue cq = context.createCompletionQueue(16, channel, last);
        try (ExtendedCompletionQueue ex = context.extendedCompletionQueue(4).completionVector(last).build()) {
            assertTrue(ex.asCompletionQueue().capacity() >= 4);
        }
        QueuePair a = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
        QueuePair b = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
        TestDevices.connectEachOther(a, b);
        MemoryRegion mr = pd.allocate(4096);

        cq.requestNotification(false);
        TestDevices.sendAndAwaitChannel(a, b, mr, cq, channel);
    }

    @Test
    void aVectorTheDeviceLacksIsRefusedNamingDeviceValueAndRange() {
        int vectors = context.completionVectors();
        String range = vectors == 1 ? " vector (0)" : " vectors (0 to " + (vectors - 1) + ")";
        IllegalArgumentException beyond = assertThrows(IllegalArgumentException.class,
                () -> context.createCompletionQueue(16, null, vectors));
        assertEquals("completion vector " + vectors + " is out of range for " + context.name() + ": it has "
                + vectors + range, beyond.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> context.extendedCompletionQueue(16).completionVector(-1));
        assertEquals("completion vector -1 is out of range for " + context.name() + ": it has " + vectors + range,
                negative.getMessage());
    }
}
