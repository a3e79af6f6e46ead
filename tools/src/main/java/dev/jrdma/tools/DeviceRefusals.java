// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.UsageErrors.usage;

import dev.jrdma.Context;
import dev.jrdma.DeviceAttributes;
import dev.jrdma.LinkLayer;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.Rdma;
import dev.jrdma.RdmaDevice;
import dev.jrdma.RdmaException;
import dev.jrdma.UnmappedMemoryRegion;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.Verb;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Stack;
import picocli.CommandLine.IParameterPreprocessor;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * perftest's options for what a device may or may not offer, refused after asking the device
 * rather than from a fixed list: {@code -c XRC} (the device's {@code IBV_DEVICE_XRC}) and
 * {@code --use_ib_dm_dmabuf} (its device memory, {@code max_dm_size}), {@code -O} (its port count)
 * and {@code --use-null-mr} (a null memory region, ibv_alloc_null_mr); {@code --odp} (its
 * {@code IBV_ODP_SUPPORT}: where it is offered the run registers with it). A device that lacks it is
 * named with what it lacks; one that has it is told that jrdma's tests do not implement it.
 * Either way exit status 2 and one line, before anything is connected. {@code --dlid} too: a
 * LID means something on an InfiniBand port only, so the port's link layer is asked. Also the fixed refusals
 * of {@code -c DC} and {@code -c SRD} (mlx5's and EFA's own transports), which need the value of
 * {@code -c} before picocli converts it to one of jrdma's connection types.
 */
final class DeviceRefusals {
    static final String DEVICE_MEMORY = "asks the device named for device memory (max_dm_size): refused when it "
            + "has none (rxe has none); on one that has some, exporting it as DMA-BUF needs "
            + "ibv_dm_export_dmabuf_fd, newer than rdma-core 44";
    static final String XRC = "asks the device (-d, or the first one) for XRC (IBV_DEVICE_XRC): refused when it "
            + "lacks it (rxe does); on one that has it, jrdma's tests do not connect XRC QPs yet";
    static final String DC = "needs the DC transport (mlx5 direct verbs)";
    static final String SRD = "needs the SRD transport (an AWS EFA device, efadv)";

    private DeviceRefusals() {}

    /**
     * {@code -c}'s values that perftest has and jrdma's connection types lack, taken before
     * picocli converts the value: DC and SRD are refused at once where perftest offers them, XRC
     * is remembered for {@link #ask}. Other values go on to picocli (an unknown one is its usage
     * error listing RC, UC and UD).
     */
    static final class ConnectionTypes implements IParameterPreprocessor {
        @Override
        public boolean preprocess(Stack<String> args, CommandSpec spec, ArgSpec argSpec, Map<String, Object> info) {
            if (args.isEmpty() || !(spec.userObject() instanceof PerftestCommands.TestCommand test)) {
                return false;
            }
            String value = args.peek();
            if (!offered(test.kind()).contains(value)) {
                return false;
            }
            switch (value) {
                case "DC" -> throw usage(spec, "option '--connection' (-c): DC " + DC);
                case "SRD" -> throw usage(spec, "option '--connection' (-c): SRD " + SRD);
                default -> {   // XRC
                    args.pop();
                    test.refusals.xrc = true;
                    return true;
                }
            }
        }

        /** perftest 26.04's -c values beyond RC, UC and UD for a test (its usage()). */
        private static Set<String> offered(TestKind kind) {
            return kind.verb() == Verb.ATOMIC ? Set.of("XRC", "DC") : Set.of("XRC", "DC", "SRD");
        }
    }

    /**
     * Asks the device about what the command line asked for and the device may lack; returns when
     * nothing was asked.
     *
     * @throws ParameterException naming the option, the device and what it lacks
     */
    static void ask(CommandSpec spec, RefusedOptions refused, PerftestSettings settings) {
        if (refused.xrc) {
            String name = settings.device();
            try (Context context = open("XRC", name)) {
                String device = context.device().name();
                if (!context.queryDevice().supportsXrc()) {
                    throw usage(spec, "option '--connection' (-c): XRC needs a device "
                            + "that offers it; " + device + " does not (no IBV_DEVICE_XRC in its capability flags)");
                }
                throw usage(spec, "option '--connection' (-c): " + device
                        + " offers XRC, but jrdma's tests do not connect XRC QPs yet");
            }
        }
        if (settings.dlid() != 0) {
            try (Context context = open("its link layer (--dlid)", settings.device())) {
                LinkLayer link = context.queryPort(settings.ibPort()).linkLayer();
                if (link == LinkLayer.ETHERNET) {   // UNSPECIFIED: an older InfiniBand driver
                    throw usage(spec, "option '--dlid': " + context.device().name()
                            + " port " + settings.ibPort() + " has link layer " + link
                            + ": it routes by GID and has no LIDs (--dlid is InfiniBand's)");
                }
            }
        }
        if (settings.addressing().dualPort()) {
            try (Context context = open("its ports (-O)", settings.device())) {
                int ports = context.queryDevice().physicalPortCount();
                String device = context.device().name();
                throw usage(spec, "option '--dualport' (-O): " + (ports < 2
                        ? device + " has " + ports + " port; dual-port mode runs on ports 1 and 2"
                        : device + " has " + ports + " ports, but jrdma does not implement dual-port runs"));
            }
        }
        if (settings.memory().nullMr()) {
            try (Context context = open("a null memory region (--use-null-mr)", settings.device());
                 ProtectionDomain pd = context.allocateProtectionDomain()) {
                String device = context.device().name();
                try (UnmappedMemoryRegion granted = pd.allocateNullMemoryRegion()) {
                    throw usage(spec, "option '--use-null-mr': " + device + " offers a "
                            + "null memory region (lkey " + granted.lkey() + "), but jrdma's work requests cannot "
                            + "carry its key (no SGE of an UnmappedMemoryRegion in the API)");
                } catch (RdmaException e) {
                    throw usage(spec, "option '--use-null-mr': " + e.getMessage());
                }
            }
        }
        if (settings.memory().onDemand()) {
            try (Context context = open("on-demand paging (--odp)", settings.device())) {
                if (!context.queryDevice().supportsOnDemandPaging()) {
                    throw usage(spec, "option '--odp': " + context.device().name()
                            + " does not offer on-demand paging (no IBV_ODP_SUPPORT in odp_caps.general_caps)");
                }
            }
        }
        if (refused.deviceMemoryDevice != null) {
            try (Context context = open("device memory", refused.deviceMemoryDevice)) {
                DeviceAttributes attributes = context.queryDevice();
                String device = context.device().name();
                if (attributes.maxDeviceMemorySize() == 0) {
                    throw usage(spec, "option '--use_ib_dm_dmabuf': " + device
                            + " has no device memory (max_dm_size 0)");
                }
                throw usage(spec, "option '--use_ib_dm_dmabuf': " + device + " has "
                        + attributes.maxDeviceMemorySize() + " bytes of device memory, but exporting it as DMA-BUF "
                        + "needs ibv_dm_export_dmabuf_fd, newer than the rdma-core 44 jrdma binds");
            }
        }
    }

    /**
     * Opens the device {@code name}, or the first one when null, to ask it about {@code what}; no
     * such device is a failure of the run (exit status 1), as it is for the test itself.
     */
    private static Context open(String what, String name) {
        List<RdmaDevice> devices = Rdma.devices();
        RdmaDevice device = name == null ? devices.stream().findFirst().orElse(null)
                : devices.stream().filter(d -> d.name().equals(name)).findFirst().orElse(null);
        if (device == null) {
            throw new IllegalStateException("no RDMA device "
                    + (name == null ? "" : "'" + name + "' ") + "to ask for " + what + " (devices: "
                    + (devices.isEmpty() ? "none" : String.join(", ", devices.stream().map(RdmaDevice::name).toList()))
                    + ")");
        }
        return device.open();
    }
}
