package dev.jrdma.tools;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code jrdma devices} and {@code jrdma devinfo} (like ibv_devices and ibv_devinfo). */
final class DeviceCommands {
    private DeviceCommands() {
    }

    @Command(name = "devices", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "List the RDMA devices (like ibv_devices).")
    static final class Devices implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            return PerftestCommands.notImplemented(spec);
        }
    }

    @Command(name = "devinfo", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Show device and port attributes (like ibv_devinfo).")
    static final class DevInfo implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "Only this device (default: all).")
        String device;

        @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", description = "Only this port (default: all).")
        Integer port;

        @Option(names = {"-v", "--verbose"}, description = "All attributes, GID table included.")
        boolean verbose;

        @Override
        public Integer call() {
            if (port != null && port < 1) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "option '--ib-port' (-i): must be >= 1, got " + port);
            }
            return PerftestCommands.notImplemented(spec);
        }
    }
}
