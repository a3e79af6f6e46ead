// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.CommandLines.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.PostSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The posting and queue options: per-test availability, perftest's dependencies, usage errors. */
class PostOptionsTest {
    private static String[] line(String s) {
        return s.trim().split(" ");
    }

    @Test
    void defaultsArePerftests() {
        PostSettings p = settings("write-bw", "host").posting();
        assertEquals(1, p.postList());
        assertEquals(1, p.recvPostList());
        assertFalse(p.useSrq());
        assertEquals(16, p.cqePoll(), "CTX_POLL_BATCH");
        assertTrue(p.dynamicPolling(), "a BW run of 5000 iterations polls dynamically");
        assertFalse(p.oldPostSend(), "the extended post API by default");
        assertFalse(p.noLock());
        assertFalse(p.mrPerQp());
        assertEquals(PostSettings.DEFAULT, settings("send-lat").posting(), "latency tests: no dynamic polling");
    }

    @Test
    void postListSetsCqModerationAsPerftest() {
        PerftestSettings s = settings("write-bw", "-l", "4", "-n", "100", "host");
        assertEquals(4, s.posting().postList());
        assertEquals(4, s.cqMod(), "Post List requested - CQ moderation will be the size of the post list");
        s = settings("send-bw", "-l", "8", "-Q", "2", "-n", "64", "host");
        assertEquals(2, s.cqMod(), "an explicit -Q that divides the list stays");
        assertEquals(8, settings("read-bw", "-l", "8", "-s", "65536", "host").cqMod(), "not 1 for large messages");
        assertEquals(4, settings("write-bw", "-l", "4", "-D", "2", "host").posting().postList(), "-D: any -n");
    }

    @Test
    void dynamicPollingFollowsPerftest26() {
        assertFalse(settings("write-bw", "-n", "2999", "host").posting().dynamicPolling(), "< 3000 iterations");
        assertTrue(settings("write-bw", "-n", "3000", "host").posting().dynamicPolling());
        assertTrue(settings("write-bw", "-D", "2", "host").posting().dynamicPolling());
        assertFalse(settings("send-bw", "-b", "host").posting().dynamicPolling(), "bidirectional send");
        assertFalse(settings("write-bw", "--disable_dynamic_polling", "host").posting().dynamicPolling());
        PostSettings p = settings("write-bw", "--cqe_poll", "64", "host").posting();
        assertFalse(p.dynamicPolling(), "--cqe_poll fixes the size");
        assertEquals(64, p.cqePoll());
        assertEquals(64, p.initialPollSize());
        assertEquals(1024, settings("write-bw", "host").posting().pollCapacity());
        assertEquals(3, settings("send-lat", "--cqe_poll", "3").posting().cqePoll(), "offered on every test");
    }

    @Test
    void srqRaisesTheUcAndUdRxDepthAsPerftest() {
        PerftestSettings s = settings("send-bw", "--use-srq", "-c", "UD", "-n", "50");
        assertTrue(s.posting().useSrq());
        assertEquals(100, s.rxDepth(), "MIN_SRQ_UD_RX_DEPTH for counted UC/UD runs of 100 or fewer");
        assertEquals(50, settings("send-bw", "-c", "UD", "-n", "50").rxDepth(), "without an SRQ: -n");
        assertEquals(50, settings("send-bw", "--use-srq", "-n", "50").rxDepth(), "RC: clamped to -n");
        assertTrue(settings("send-lat", "--use-srq").posting().useSrq());
    }

    @Test
    void otherFlagsAreCarried() {
        PostSettings p = settings("atomic-bw", "--use_old_post_send", "--no_lock", "--mr_per_qp", "--recv_post_list",
                "5", "-n", "100", "host").posting();
        assertTrue(p.oldPostSend());
        assertTrue(p.noLock());
        assertTrue(p.mrPerQp());
        assertEquals(5, p.recvPostList());
        assertTrue(settings("read-lat", "--use_old_post_send", "host").posting().oldPostSend());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "write-bw -l 3 -n 100 | option '--post_list' (-l): the number of iterations (-n 100) must be a multiple of the post list size 3",
        "write-bw -l 4 -Q 3 -n 100 | option '--post_list' (-l): the post list size must be a multiple of --cq-mod (-Q), got -l 4 and -Q 3",
        "write-bw -l 8 -t 4 -n 64 | option '--post_list' (-l): a post list of 8 does not fit the send queue (--tx-depth 4)",
        "write-bw -l 0 | option '--post_list' (-l): must be between 1 and 65536, got 0",
        "send-bw --recv_post_list 3 -n 100 | option '--recv_post_list': the number of iterations (-n 100) must be a multiple",
        "send-bw --recv_post_list 8 -r 4 -n 64 | does not fit the receive queue (--rx-depth 4)",
        "send-bw --use-srq -q 4 -r 2 -n 100 | option '--use-srq': the SRQ depth (--rx-depth 2) must be at least the number of QPs (-q 4)",
        "write-bw --cqe_poll 0 | option '--cqe_poll': must be between 1 and 65535, got 0",
        "send-lat -l 2 | Unknown option: '-l'",
        "write-lat --recv_post_list 2 | Unknown option: '--recv_post_list'",
        "write-bw --use-srq | Unknown option: '--use-srq'",
        "read-lat --mr_per_qp | Unknown option: '--mr_per_qp'",
        "send-lat --disable_dynamic_polling | Unknown option: '--disable_dynamic_polling'",
    })
    void usageErrorsNameTheOption(String args, String expected) {
        CommandLines.usageError(expected.trim(), line(args));
    }
}
