// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.internal.Libc;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RdmaExceptionTest {
    @Test
    void namesVerbObjectErrnoAndText() {
        RdmaException e = RdmaException.of(Verb.IBV_ALLOC_PD, "context rxe0", 12);
        assertEquals("ibv_alloc_pd(context rxe0) failed: errno 12 (Cannot allocate memory)", e.getMessage());
        assertEquals(Verb.IBV_ALLOC_PD, e.verb());
        assertEquals(12, e.errno());
        assertEquals("context rxe0", e.object());
    }

    @Test
    void errorsHaveNamesAnApplicationCanUse() {
        RdmaException e = RdmaException.of(Verb.RDMA_RESOLVE_ROUTE, "rdma_cm id", 110);
        assertEquals(Optional.of(Errno.ETIMEDOUT), e.error());
        assertTrue(e.is(Errno.ETIMEDOUT));
        assertFalse(e.is(Errno.ENOMEM));
        assertEquals("Connection timed out", Errno.ETIMEDOUT.description());
        assertTrue(RdmaException.of(Verb.IBV_ALLOC_PD, "context rxe0", 12).is(Errno.ENOMEM));
        // A failure without an errno, and an errno the enum does not list, have no name.
        RdmaTimeoutException quiet = new RdmaTimeoutException("no completion", "a queue", java.time.Duration.ofSeconds(1));
        assertEquals(Optional.empty(), quiet.error());
        assertEquals(Optional.empty(), RdmaException.of(Verb.IBV_ALLOC_PD, "context rxe0", 4095).error());
    }

    @Test
    void errnoNamesMatchTheCHeaders() {
        // The shim's table and the public enum both come from the generated bindings: they agree.
        assertEquals(dev.jrdma.bindings.shim.Errno.ENOMEM, Errno.ENOMEM.value());
        assertEquals(dev.jrdma.bindings.shim.Errno.EINVAL, Errno.EINVAL.value());
        assertEquals(dev.jrdma.bindings.shim.Errno.EOPNOTSUPP, Errno.EOPNOTSUPP.value());
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (Errno e : Errno.values()) {
            assertTrue(seen.add(e.value()), e + " repeats a number");
            assertEquals(Optional.of(e), Errno.of(e.value()));
            assertEquals(Libc.strerror(e.value()), e.description());
        }
    }

    @Test
    void eopnotsuppHasItsOwnType() {
        RdmaException e = RdmaException.of(Verb.IBV_ALLOC_MW, "protection domain handle 1 on rxe0", 95);
        assertInstanceOf(OperationNotSupportedException.class, e);
        assertEquals("ibv_alloc_mw(protection domain handle 1 on rxe0) failed: errno 95 (Operation not supported)",
                e.getMessage());
    }

    @Test
    void detailIsAppended() {
        RdmaException e = RdmaException.of(Verb.IBV_POST_SEND, "queue pair 0x11 (RC) on rxe0", 22, "wr_id 5 was not posted");
        assertEquals("ibv_post_send(queue pair 0x11 (RC) on rxe0) failed: errno 22 (Invalid argument): wr_id 5 was"
                + " not posted", e.getMessage());
    }

    @Test
    void aVerbPrintsAsItsCName() {
        assertEquals("ibv_query_gid_ex", Verb.IBV_QUERY_GID_EX.toString());
        assertEquals("epoll_ctl(EPOLL_CTL_ADD)", Verb.EPOLL_CTL_ADD.toString());
        assertEquals(Verb.WAIT, new RdmaTimeoutException("no completion", "a queue", java.time.Duration.ofSeconds(1))
                .verb());
    }

    @Test
    void strerrorAndPageSizeComeFromLibc() {
        assertEquals("Operation not permitted", Libc.strerror(1));
        assertTrue(Libc.strerror(123456).contains("123456"));
        assertTrue(Libc.PAGE_SIZE >= 4096 && Long.bitCount(Libc.PAGE_SIZE) == 1);
    }
}
