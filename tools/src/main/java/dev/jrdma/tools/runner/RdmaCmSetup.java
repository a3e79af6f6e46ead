// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.RdmaTimeoutException;
import dev.jrdma.cm.CmEventChannel;
import dev.jrdma.cm.CmId;
import dev.jrdma.tools.perftest.PerftestProtocolException;
import dev.jrdma.tools.perftest.PerftestSettings;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;

/**
 * -R (perftest's {@code work_rdma_cm} and {@code use_rdma_cm}): the control connection over an
 * rdma_cm QP ({@link RdmaCmControl}) and the test QP created and connected by rdma_cm on the same
 * -p port, on the device context rdma_cm resolved; the buffer, CQs and PD are created there too
 * and closed with the id. Closing this closes the event channel, and with it every id and what
 * belongs to it.
 */
final class RdmaCmSetup implements AutoCloseable {
    private final PerftestSettings s;
    private final Duration timeout;
    private final CmEventChannel events = CmEventChannel.create();
    /** The server's listener for the test QPs' connect requests. */
    private CmId listener;

    RdmaCmSetup(PerftestSettings s) {
        this.s = s;
        this.timeout = s.timeout();
    }

    /**
     * The control connection on the -p port: the client retries while the server is not
     * listening yet; the server prints {@code waiting} once it listens (a perftest client does not
     * retry a rejected control connect) and listens again for the test QPs at once.
     */
    RdmaCmControl control(Runnable waiting) throws IOException {
        if (s.client()) {
            return RdmaCmControl.connect(events, serverAddress(), timeout);
        }
        InetSocketAddress any = new InetSocketAddress(InetAddress.getByAddress(new byte[4]), s.port());
        CmId control = events.createId();
        control.bind(any);
        control.listen(1);
        waiting.run();
        RdmaCmControl connection = RdmaCmControl.accept(control, timeout);
        // perftest destroys the control listener once connected and listens again on the same
        // port for the test QPs right after the next sync; its client retries a rejected connect
        // only for about a second, so this side listens at once and queues the request.
        control.close();
        if (s.rdmaCm()) {   // -z alone: the test QPs are connected by verbs, nothing more to listen for
            listener = events.createId();
            listener.bind(any);
            listener.listen(s.qps());
        }
        return connection;
    }

    private InetSocketAddress serverAddress() throws IOException {
        InetAddress address;
        try {
            address = InetAddress.getByName(s.host());
        } catch (UnknownHostException e) {
            throw new PerftestProtocolException("connect: cannot resolve host '" + s.host() + "'", e);
        }
        if (!(address instanceof Inet4Address)) {
            throw new PerftestProtocolException("-R (rdma_cm): '" + s.host() + "' is not an IPv4 address;"
                    + " give the IPv4 address of the server's RDMA interface");
        }
        return new InetSocketAddress(address, s.port());
    }

    /**
     * perftest's rdma_cm_client_connection / rdma_cm_server_connection for the test QP: the
     * client resolves the server's address and route on the -p port, creates the side's
     * resources on the device rdma_cm chose and connects, retrying a rejected request every
     * 100 ms (the server listens again only after the sync before this step); the server takes
     * the request and accepts. rdma_cm moves the QP to RTS: no key record is needed for that, the
     * records exchanged afterwards carry only the rkey and address.
     */
    void connectTestQueuePair(Side side) throws IOException {
        if (s.client()) {
            InetSocketAddress server = serverAddress();
            RdmaCmControl.connectRetrying(events, server, timeout, id -> Addressing.typeOfService(s, id), id -> {
                requireDevice(side, id, server.getAddress().getHostAddress());
                side.createResources(id.context(), id);
                return id;
            }, "rdma_cm connection of the test QP to " + server + " failed within " + RdmaTimeoutException.plain(timeout));
            return;
        }
        CmId id;
        try {
            id = listener.awaitConnectRequest(timeout).id();
        } catch (RdmaTimeoutException e) {
            throw new RdmaTimeoutException(timeout, "rdma_cm: the client did not connect its test QP within "
                    + RdmaTimeoutException.plain(timeout), e);
        }
        requireDevice(side, id, "the client's request");
        side.createResources(id.context(), id);
        id.accept(new byte[0], timeout);
        listener.close();   // as perftest, once its QPs are connected
        listener = null;
    }

    /**
     * The device rdma_cm chose by IP address must be the one this side queried (-d, or the first
     * device) for the port, GID and header.
     */
    private void requireDevice(Side side, CmId id, String what) throws IOException {
        String chosen = id.context().name();
        if (!chosen.equals(side.session.context().name())) {
            id.close();
            throw new PerftestProtocolException("-R (rdma_cm): " + what + " goes through device " + chosen + ", not "
                    + side.session.context().name() + (s.device() == null ? "; give -d " + chosen : " (-d)"));
        }
    }

    @Override
    public void close() {
        events.close();   // the ids, their QPs, CQs, buffers and PDs
    }
}
