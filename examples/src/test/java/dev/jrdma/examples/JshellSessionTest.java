// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The comparison {@link JshellSessionDeviceTest} makes, on the host: it can fail. */
class JshellSessionTest {
    @Test
    void thePagesSessionIsParsedIntoLinesAndAnswers() {
        List<JshellSessionDeviceTest.Step> steps = JshellSessionDeviceTest.session(List.of("text", "<!-- jshell session: x -->",
                "```text", "jshell> import dev.jrdma.*", "", "jshell> 1 + 1", "$2 ==> 2", "", "jshell> qp.post(r)", "```",
                "jshell> not part of it"));
        assertEquals(List.of(new JshellSessionDeviceTest.Step("import dev.jrdma.*", List.of()),
                new JshellSessionDeviceTest.Step("1 + 1", List.of("$2 ==> 2")),
                new JshellSessionDeviceTest.Step("qp.post(r)", List.of())), steps);
    }

    @Test
    void answersAreSplitAtThePrompts() {
        assertEquals(List.of(List.of(), List.of("$2 ==> 2"), List.of("|  Goodbye")),
                JshellSessionDeviceTest.answers("|  Welcome\n\njshell> \njshell> $2 ==> 2\n\njshell> |  Goodbye\n"));
    }

    @Test
    void numbersAsideAnAnswerMustBeTheOneShown() {
        assertTrue(JshellSessionDeviceTest.same("qp ==> queue pair 0x11 (RC) on rxe0", "qp ==> queue pair 0x2a (RC) on rxe0"));
        assertTrue(JshellSessionDeviceTest.same("$5 ==> ACTIVE", "$5 ==> ACTIVE"));
        assertFalse(JshellSessionDeviceTest.same("$5 ==> ACTIVE", "$5 ==> DOWN"));
        assertFalse(JshellSessionDeviceTest.same("$21 ==> \"Hello, RDMA!\"", "$21 ==> \"Hello, RDMA\""));
        assertTrue(JshellSessionDeviceTest.same("$13 ==> Endpoint[qpn=17, psn=1 ... , mtu=MTU_1024]",
                "$13 ==> Endpoint[qpn=18, psn=12 ... mtu=MTU_1024]"));
        assertFalse(JshellSessionDeviceTest.same("$13 ==> Endpoint[qpn=17 ... ]", "$14 ==> Endpoint[qpn=17 ... ]"));
    }
}
