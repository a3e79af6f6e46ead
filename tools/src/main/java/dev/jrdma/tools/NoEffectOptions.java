// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;

/**
 * perftest's options that ask for what jrdma does anyway, accepted so that a perftest command
 * line runs unchanged. Each says why it changes nothing. perftest's getopt takes them on every
 * test, so jrdma does too. A table, as {@link RefusedOptions}': nothing reads their values.
 */
final class NoEffectOptions {
    private NoEffectOptions() {}

    /** One accepted option: its name, the value it takes ({@code label}, null for a flag) and why it changes nothing. */
    private record Accepted(String name, String label, String why) {
    }

    private static final List<Accepted> ACCEPTED = List.of(
            new Accepted("--no_enhanced_reorder", null, "As perftest: do not let the receiver consume out-of-order "
                    + "work requests. jrdma never enables that mlx5 capability (perftest 26.04 does on mlx5 RC QPs), "
                    + "so it has no effect."),
            new Accepted("--disable_pcie_relaxed", null, "As perftest: register memory without PCIe relaxed "
                    + "ordering. jrdma never asks for relaxed ordering (IBV_ACCESS_RELAXED_ORDERING), so it has no "
                    + "effect."),
            new Accepted("--inline_recv", "BYTES", "perftest 6.06's inline receive size: 6.06 parses it and uses "
                    + "it nowhere (later perftest dropped it); accepted, no effect."));

    /** Adds the accepted options to a test command; their values are parsed (a BYTES must be a number) and dropped. */
    static void addTo(CommandSpec command) {
        for (Accepted a : ACCEPTED) {
            command.addOption(tableOption(a.name(), a.label(), Integer.class).description(a.why())
                    .setter(new ISetter() {
                        @Override
                        public <T> T set(T value) {
                            return null;
                        }
                    }).build());
        }
    }

    /**
     * An option of a table (this one's, {@link RefusedOptions}'): a flag where {@code label} is
     * null, else one value of {@code type}; no field holds it, so the caller gives the setter.
     */
    static OptionSpec.Builder tableOption(String name, String label, Class<?> type) {
        OptionSpec.Builder b = OptionSpec.builder(name).hasInitialValue(false);
        return label == null ? b.type(boolean.class).arity("0") : b.type(type).paramLabel(label).arity("1");
    }
}
