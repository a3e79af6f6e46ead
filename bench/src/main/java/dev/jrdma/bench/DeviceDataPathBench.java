// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bench;

import dev.jrdma.Access;
import dev.jrdma.CompletionQueue;
import dev.jrdma.ConnectionOptions;
import dev.jrdma.Context;
import dev.jrdma.GidEntry;
import dev.jrdma.GidType;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.Rdma;
import dev.jrdma.RdmaDevice;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The data path on a real device (needs one: run it in the Soft-RoCE VM, see bench/README.md):
 * a 2-byte inline SEND on a loopback RC pair (two QPs of one device connected to each other)
 * from post to both completions with the receive re-posted, and polling an empty CQ. Through the public jrdma API; run with
 * {@code -prof gc} to see the data path's B/op. The device is the first one, or -Djrdma.device.
 */
public class DeviceDataPathBench extends DeviceBenchSettings {
    private static final Set<Access> ACCESS = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE,
            Access.REMOTE_READ);

    private Context context;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private CompletionQueue emptyCq;
    private QueuePair a;
    private QueuePair b;
    private SendRequest send;
    private ReceiveRequest recv;
    private final WorkCompletion wc = new WorkCompletion();
    private long wrId;

    @Setup(Level.Trial)
    public void setup() {
        context = openDevice();
        pd = context.allocateProtectionDomain();
        cq = context.createCompletionQueue(64);
        emptyCq = context.createCompletionQueue(1);
        List<GidEntry> gids = context.gidTable(1);
        GidEntry gid = gids.stream().filter(g -> g.type() == GidType.ROCE_V2 && g.ipv4().isPresent()).findFirst()
                .or(() -> gids.stream().findFirst()).orElseThrow();
        a = pd.queuePair(QueuePairType.RC).completionQueue(cq).maxInlineData(64).sourceGid(gid).build();
        b = pd.queuePair(QueuePairType.RC).completionQueue(cq).maxInlineData(64).sourceGid(gid).build();
        MemoryRegion memA = pd.allocate(4096, ACCESS);
        MemoryRegion memB = pd.allocate(4096, ACCESS);
        a.connect(b.localEndpoint(), ConnectionOptions.DEFAULTS);
        b.connect(a.localEndpoint(), ConnectionOptions.DEFAULTS);
        send = new SendRequest().sge(memA, 0, 2).inline(true);
        recv = new ReceiveRequest().sge(memB, 0, 64);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        context.close();
    }

    /** The first RDMA device, or the one named by -Djrdma.device. */
    static Context openDevice() {
        List<RdmaDevice> devices = Rdma.devices();
        String wanted = System.getProperty("jrdma.device");
        RdmaDevice device = devices.stream().filter(d -> wanted == null || d.name().equals(wanted)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no RDMA device" + (wanted == null ? "" : " " + wanted)
                        + ": this benchmark needs one (run it in the Soft-RoCE VM)"));
        return device.open();
    }

    /** One 2-byte inline SEND round: re-post the receive, post the send, poll both completions. */
    @Benchmark
    public long sendInline2BytesPostAndPoll() {
        long id = ++wrId;
        b.post(recv.wrId(id));
        a.post(send.wrId(id));
        int seen = 0;
        long spins = 0;
        while (seen < 2) {
            if (cq.poll(wc) != 0) {
                if (!wc.isSuccess()) {
                    throw new IllegalStateException(wc.toString());
                }
                seen++;
            } else if (++spins > 1_000_000_000L) {
                throw new IllegalStateException("no completion");
            }
        }
        return spins;
    }

    /** Polling a CQ that has nothing: the fixed cost of one poll in a spin loop. */
    @Benchmark
    public int pollEmptyCq() {
        return emptyCq.poll(wc);
    }
}
