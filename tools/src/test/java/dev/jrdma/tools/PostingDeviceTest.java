// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.JrdmaRuns.ADDRESS;
import static dev.jrdma.tools.JrdmaRuns.DEVICE;
import static dev.jrdma.tools.JrdmaRuns.freePort;
import static dev.jrdma.tools.JrdmaRuns.jrdma;
import static dev.jrdma.tools.JrdmaRuns.jsonValue;
import static dev.jrdma.tools.JrdmaRuns.serverAndClient;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.Exercises;
import dev.jrdma.tools.JrdmaRuns.Pair;
import dev.jrdma.tools.JrdmaRuns.Result;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The posting and queue options on a Soft-RoCE device, each pair of jrdma sides run in-process
 * with --json, whose parameters count what each side posted: -l posts its messages in lists,
 * --recv_post_list re-posts receives in lists, --use-srq takes every receive from the SRQ, the
 * extended post API (which perftest, and so jrdma by default, does not use on rxe: the tests ask
 * for it with the system property jrdma.extendedPost=always) and ibv_post_send (rxe's default,
 * and --use_old_post_send) both run the test to its end, and
 * --no_lock is refused naming the device, which has no thread domains.
 */
@DeviceTest
class PostingDeviceTest {
    /** Posts through the extended post API on rxe too, for the "ibv_wr" cases; cleared after each test. */
    private static final String EXTENDED_POST = "jrdma.extendedPost";

    @AfterEach
    void defaultPostPath() {
        System.clearProperty(EXTENDED_POST);
    }

    /** The options that choose {@code api} on rxe: the property for ibv_wr, --use_old_post_send for ibv_post_send. */
    private static List<String> postApi(String api) {
        if (api.equals("ibv_wr")) {
            System.setProperty(EXTENDED_POST, "always");
            return List.of();
        }
        System.clearProperty(EXTENDED_POST);
        return List.of("--use_old_post_send");
    }

    private static Pair run(String test, String... options) throws Exception {
        int port = freePort();
        List<String> common = new ArrayList<>(List.of(test, "-d", DEVICE, "-x", "1", "-p", Integer.toString(port),
                "--json", "--warm-up", "0"));
        common.addAll(List.of(options));
        return serverAndClient(port, common).succeeded();
    }

    private static String parameter(String json, String name) {
        return jsonValue(json, name);
    }

    private static long count(String json, String name) {
        return Long.parseLong(parameter(json, name));
    }

    /**
     * -l 4: the client posts 200 writes (send) in 50 posts, through the extended post API and
     * with ibv_post_send; the send-bw server re-posts its receives in lists of 4 from an rx depth
     * of 40: 10 lists before the run, 40 during it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"ibv_wr", "ibv_post_send"})
    @Exercises({"ibv_wr_start", "ibv_wr_rdma_write", "ibv_wr_send", "ibv_wr_complete", "ibv_post_send", "ibv_post_recv"})
    void postListsPostFourRequestsPerCall(String api) throws Exception {
        List<String> old = postApi(api);
        List<String> write = new ArrayList<>(List.of("-l", "4", "-n", "200", "-s", "64"));
        write.addAll(old);
        Pair w = run("write-bw", write.toArray(String[]::new));
        assertEquals(api, parameter(w.client().out(), "post_api"));
        assertEquals(4, count(w.client().out(), "post_list"));
        assertEquals(50, count(w.client().out(), "send_posts"), "200 writes in lists of 4");
        assertEquals(200, count(w.client().out(), "send_requests"));

        List<String> send = new ArrayList<>(List.of("-l", "4", "--recv_post_list", "4", "-r", "40", "-n", "200",
                "-s", "64"));
        send.addAll(old);
        Pair s = run("send-bw", send.toArray(String[]::new));
        assertEquals(api, parameter(s.client().out(), "post_api"));
        assertEquals(50, count(s.client().out(), "send_posts"));
        assertEquals(200, count(s.client().out(), "send_requests"));
        assertEquals(50, count(s.server().out(), "receive_posts"), "10 lists before the run, 40 re-posted");
        assertEquals(200, count(s.server().out(), "receive_requests"), "one receive per message");
    }

    /**
     * --use-srq with two QPs: the server's 200 receives all go to the SRQ (rx depth 20: 10 per QP
     * before the run), and both QPs' messages arrive; send-lat's two sides both receive from one.
     */
    @Test
    @Exercises({"ibv_create_srq", "ibv_post_srq_recv", "ibv_destroy_srq"})
    void sharedReceiveQueueTakesEveryReceive() throws Exception {
        Pair bw = run("send-bw", "--use-srq", "-q", "2", "-r", "20", "-n", "100", "-s", "64");
        assertEquals("true", parameter(bw.server().out(), "use_srq"));
        assertEquals("false", parameter(bw.client().out(), "use_srq"), "the one-way client receives nothing");
        assertEquals(200, count(bw.server().out(), "receive_requests"), "100 per QP, all through the SRQ");
        Pair lat = run("send-lat", "--use-srq", "-n", "50");
        for (Result r : List.of(lat.server(), lat.client())) {
            assertEquals("true", parameter(r.out(), "use_srq"));
            assertEquals(50, count(r.out(), "receive_requests"), "rx depth 50 before the run, none re-posted");
        }
    }

    /**
     * The extended post API and ibv_post_send on the other tests: read, atomic and UD send
     * lists, --mr_per_qp, inline data (write-lat -I 64).
     */
    @Test
    void everyTestRunsOnBothPostPaths() throws Exception {
        for (String api : List.of("ibv_wr", "ibv_post_send")) {
            List<String> old = postApi(api);
            for (List<String> t : List.of(List.of("read-bw", "-l", "2", "-q", "2", "--mr_per_qp", "-n", "100"),
                    List.of("atomic-bw", "-l", "2", "-n", "100"),
                    List.of("send-bw", "-c", "UD", "-l", "2", "-n", "100", "-s", "64"),
                    List.of("send-lat", "-n", "50"), List.of("write-lat", "-n", "50", "-I", "64"),
                    List.of("read-lat", "-n", "50"))) {
                List<String> options = new ArrayList<>(t.subList(1, t.size()));
                options.addAll(old);
                Pair p = run(t.getFirst(), options.toArray(String[]::new));
                assertEquals(api, parameter(p.client().out(), "post_api"), t.toString());
                assertTrue(count(p.client().out(), "send_requests") > 0, t.toString());
            }
        }
    }

    /** --no_lock on rxe: one line naming the device and the thread domains it lacks, exit 1. */
    @Test
    @Exercises(value = {"ibv_alloc_td"}, refused = "rxe has no thread or parent domains: librxe 44 leaves alloc_td and "
            + "alloc_parent_domain to libibverbs' EOPNOTSUPP stubs")
    void noLockIsRefusedByTheDevice() {
        Result r = jrdma("write-bw", "-d", DEVICE, "-x", "1", "--no_lock", "--warm-up", "0", ADDRESS);
        assertEquals(1, r.code(), r.all());
        assertTrue(r.err().contains("--no_lock") && r.err().contains(DEVICE) && r.err().contains("thread domains"),
                r.all());
    }
}
