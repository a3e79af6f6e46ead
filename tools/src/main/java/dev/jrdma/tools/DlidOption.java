// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.UsageErrors.usage;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --dlid}: the destination LID the test QPs are connected to instead of the one the peer
 * announced (perftest's {@code dlid}), on every test. LIDs are InfiniBand's: on a RoCE port
 * the device has none to route by, so {@link DeviceRefusals#ask} refuses it after asking the
 * port's link layer.
 */
final class DlidOption {
    @Option(names = "--dlid", paramLabel = "LID",
            description = "Connect to this destination LID instead of the peer's (decimal, or 0x hex; "
                    + "InfiniBand ports only, refused on RoCE).")
    String dlid;

    /**
     * {@return the LID, or 0 to use the peer's (none given)}
     *
     * @throws ParameterException naming --dlid when it is not a 16-bit LID
     */
    int resolve(CommandSpec spec) {
        if (dlid == null) {
            return 0;
        }
        int lid;
        try {
            lid = Integer.decode(dlid);   // as perftest's strtol(..., 0): 0x hex, 0 octal, decimal
        } catch (NumberFormatException e) {
            throw usage(spec, "option '--dlid': '" + dlid + "' is not a LID");
        }
        if (lid < 1 || lid > 0xFFFF) {
            throw usage(spec, "option '--dlid': must be between 1 and 65535, got "
                    + dlid);
        }
        return lid;
    }
}
