// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A program agent in the test's own JVM on 127.0.0.1, for the class's tests
 * ({@code @RegisterExtension static final LocalAgent AGENT = new LocalAgent();}): what runs on
 * node 2 in the two-node tests, tested on the host without a second node.
 */
public final class LocalAgent implements BeforeAllCallback, AfterAllCallback {
    private ProgramAgent agent;
    private AgentClient client;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        agent = ProgramAgent.start(new InetSocketAddress("127.0.0.1", 0));
        client = new AgentClient("127.0.0.1", agent.port());
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        agent.close();
    }

    /** {@return a client of the agent; between the class's first and last test} */
    public AgentClient client() {
        if (client == null) {
            throw new IllegalStateException("the local agent starts before the class's tests: register it with "
                    + "@RegisterExtension on a static field");
        }
        return client;
    }
}
