// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.CommandLines.settings;
import static dev.jrdma.tools.CommandLines.usageError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.tools.perftest.PerftestFormat;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.TestInfo;
import dev.jrdma.tools.perftest.Verb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** -X/--vector, --dlid and -z on the command line and in the header: where offered, values, what they need. */
class VectorAndDlidOptionsTest {
    @Test
    void theVectorAndTheLidReachTheSettings() {
        PerftestSettings s = settings("read-bw", "-e", "-X", "3", "--dlid", "0x11", "host");
        assertEquals(3, s.completionVector());
        assertEquals(0x11, s.dlid());
        PerftestSettings none = settings("send-lat", "host");
        assertEquals(-1, none.completionVector());
        assertEquals(0, none.dlid());
        assertEquals(3, s.forWarmUp(true, 8, 4).completionVector(), "the warm-up's CQs on the same vector");
        assertEquals(0, s.forWarmUp(true, 8, 4).dlid(), "the warm-up's peer is this device");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "send-lat -X 1 host | option '--vector' (-X): needs --events (-e)",
        "send-bw -e -X 2049 host | option '--vector' (-X): must be between 0 and 2048, got 2049",
        "read-lat -e --vector -1 host | option '--vector' (-X): must be between 0 and 2048, got -1",
        "atomic-bw -X 0 host | option '--vector' (-X): needs --events (-e)",
        "write-bw -e -X 0 host | Unknown option",
        "write-lat -X 0 host | Unknown option",
        "send-lat --dlid 0 host | option '--dlid': must be between 1 and 65535, got 0",
        "write-bw --dlid 0x10000 host | option '--dlid': must be between 1 and 65535, got 0x10000",
        "read-bw --dlid lid host | option '--dlid': 'lid' is not a LID",
    })
    void usageErrorsNameTheOption(String line, String expected) {
        usageError(expected.trim(), line.trim().split(" "));
    }

    @Test
    void theEventsLineNamesTheVector() {
        TestInfo info = new TestInfo(Verb.SEND, null, false, false, true, "rxe0", 1, "IB", "RC", false, "ON", "OFF",
                1, 512, 1, 1, 1024, "Ethernet", 1, 0, 1, false, true, 0, 3, false);
        assertTrue(PerftestFormat.header(info).contains(" Test with events. Using rxe0_comp3\n"),
                PerftestFormat.header(info));
    }

    @Test
    void withCommRdmaCmAloneTheExchangeIsRdmaCmAndTheQueuePairsAreNot() {
        TestInfo info = new TestInfo(Verb.SEND, null, false, false, false, "rxe0", 1, "IB", "RC", false, "ON", "OFF",
                1, 512, 1, 1, 1024, "Ethernet", 1, 0, 1, false, false, 0, 0, true);
        String header = PerftestFormat.header(info);
        assertTrue(header.contains(" rdma_cm QPs\t : OFF\n Data ex. method : rdma_cm\n---"), header);
    }
}
