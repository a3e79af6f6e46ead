// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.CommandLines.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jrdma.tools.perftest.JsonReport;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.RunReport;
import dev.jrdma.tools.perftest.TestInfo;
import dev.jrdma.tools.perftest.Verb;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The JSON document's parameters carry every option group (--json, and the --out_json file):
 * reports, run control, addressing, rate, memory and operations, as resolved from the command
 * line, with stable keys (null where an option is not given) and lists as JSON arrays.
 */
class JsonParametersTest {
    private static JsonNode parameters(PerftestSettings s) throws Exception {
        TestInfo info = new TestInfo(Verb.WRITE, null, true, false, true, "rxe0", 1, "IB", "RC", false, "ON", "ON",
                128, 512, 1, 100, 1024, "Ethernet", 1, 0, 1, false, false, 0);
        StringWriter out = new StringWriter();
        JsonReport.write(new RunReport(s.kind().command(), info, s.toParameters(), "6.06", List.of(), List.of(),
                List.of(), List.of(), false), out);
        return new ObjectMapper().readTree(out.toString()).get("parameters");
    }

    @Test
    void everyGroupIsInTheParameters() throws Exception {
        JsonNode p = parameters(settings("write-bw", "-D", "4", "-f", "1", "--cpu_util", "-W",
                "hw_counters/sent_pkts,hw_counters/rcvd_pkts", "--out_json", "--out_json_file", "r.json", "-w", "10",
                "--wait_destroy", "3", "--perform_warm_up", "--tclass", "40", "--flow_label", "5,6", "-q", "2",
                "--rate_limit", "100", "--rate_units", "p", "--rate_limit_type", "SW", "--burst_size", "5",
                "--odp", "--write_with_imm", "host"));
        // reports
        assertTrue(p.get("cpu_util").asBoolean());
        assertEquals(1, p.get("margin").asInt());
        assertTrue(p.get("report_counters").isArray());
        assertEquals("hw_counters/rcvd_pkts", p.get("report_counters").get(1).asText());
        assertEquals("r.json", p.get("out_json_file").asText());
        // run control
        assertEquals(10.0, p.get("limit_bw").asDouble());
        assertTrue(p.get("limit_msgrate").isNull());
        assertEquals(3, p.get("wait_destroy_s").asInt());
        assertTrue(p.get("perform_warm_up").asBoolean());
        assertFalse(p.get("run_infinitely").asBoolean());
        // addressing: lists are arrays
        assertEquals(40, p.get("traffic_class").asInt());
        assertTrue(p.get("flow_labels").isArray());
        assertEquals(6, p.get("flow_labels").get(1).asInt());
        // rate
        assertEquals(100.0, p.get("rate_limit").asDouble());
        assertEquals("p", p.get("rate_units").asText());
        assertEquals("SW", p.get("rate_limit_type").asText());
        assertEquals(5, p.get("burst_size").asInt());
        // memory
        assertTrue(p.get("odp").asBoolean());
        assertFalse(p.get("use_hugepages").asBoolean());
        assertTrue(p.get("mmap").isNull());
        assertTrue(p.get("numa_node").isNull());
        // operations
        assertTrue(p.get("write_with_imm").asBoolean());
        assertFalse(p.get("data_validation").asBoolean());
    }

    @Test
    void defaultsAreStableKeys() throws Exception {
        Map<String, Object> p = settings("send-lat").toParameters();
        for (String key : List.of("report_cycles", "run_infinitely", "rate_limit", "rate_limit_type", "use_null_mr",
                "numa_node", "send_with_imm", "completion_vector", "dlid", "margin", "out_json_file")) {
            assertTrue(p.containsKey(key), key + " in " + p);
        }
        assertEquals("NONE", p.get("rate_limit_type"));
        assertEquals(null, p.get("rate_limit"));
        JsonNode json = parameters(settings("send-bw", "-g", "--connectionless", "--run_infinitely"));
        assertTrue(json.get("connectionless").asBoolean());
        assertTrue(json.get("multicast").asBoolean());
        assertTrue(json.get("run_infinitely").asBoolean());
        assertTrue(parameters(settings("send-lat", "-z", "host")).get("comm_rdma_cm").asBoolean());
    }
}
