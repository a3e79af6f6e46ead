// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * getopt_long's abbreviations of long options, which perftest has and scripts written for it use
 * ({@code --iter 100} for {@code --iters}): an exact name wins, a prefix of exactly one option's
 * long name stands for it, and a prefix of several options' names is an error naming them all.
 * Names are compared character by character: {@code _} and {@code -} differ, as in getopt.
 *
 * <p>picocli's {@code setAbbreviatedOptionsAllowed} is not getopt: it splits names at hyphens and
 * capitals and matches each piece's prefix, so it takes {@code --r-c} for {@code --retry-count}
 * and {@code --no} for {@code --noPeak}-like names in ways getopt does not. This rewrites the
 * arguments before picocli sees them instead, against the chosen subcommand's options (hidden
 * ones included, as getopt's table includes options a test does not list).
 */
final class LongOptionPrefixes {
    private LongOptionPrefixes() {}

    /**
     * The arguments with every abbreviated long option of the subcommand they select replaced by
     * its full name; other arguments unchanged.
     *
     * @throws ParameterException naming the candidates when a prefix is ambiguous
     */
    static String[] expand(CommandLine root, String[] args) {
        CommandLine command = root;
        List<String> out = new ArrayList<>(args.length);
        boolean valueNext = false;
        boolean optionsEnded = false;
        for (String arg : args) {
            if (valueNext || optionsEnded || arg.equals("-") || !arg.startsWith("-")) {
                valueNext = false;
                CommandLine sub = optionsEnded ? null : command.getSubcommands().get(arg);
                if (sub != null && command == root) {
                    command = sub;
                }
                out.add(arg);
                continue;
            }
            if (arg.equals("--")) {
                optionsEnded = true;
                out.add(arg);
                continue;
            }
            CommandSpec spec = command.getCommandSpec();
            if (arg.startsWith("--")) {
                int eq = arg.indexOf('=');
                String name = eq < 0 ? arg : arg.substring(0, eq);
                OptionSpec option = match(command, name);
                if (option == null) {
                    out.add(arg);   // unknown: picocli names it
                    continue;
                }
                String full = exact(spec, name) != null ? name : longNameFor(option, name);
                out.add(eq < 0 ? full : full + arg.substring(eq));
                valueNext = eq < 0 && takesValue(option);
                continue;
            }
            // Short options, possibly clustered (-ab) or with an attached value (-s64).
            for (int i = 1; i < arg.length(); i++) {
                OptionSpec option = spec.findOption(arg.charAt(i));
                if (option == null) {
                    break;
                }
                if (takesValue(option)) {
                    valueNext = i == arg.length() - 1;
                    break;
                }
            }
            out.add(arg);
        }
        return out.toArray(String[]::new);
    }

    /**
     * The option {@code name} (with its leading "--") stands for: the exact one, else the one
     * option whose long names start with it; null when none does.
     */
    private static OptionSpec match(CommandLine command, String name) {
        CommandSpec spec = command.getCommandSpec();
        OptionSpec exact = exact(spec, name);
        if (exact != null) {
            return exact;
        }
        Map<OptionSpec, List<String>> candidates = new LinkedHashMap<>();
        for (OptionSpec o : spec.options()) {
            for (String n : o.names()) {
                if (n.startsWith("--") && n.startsWith(name) && n.length() > name.length()) {
                    candidates.computeIfAbsent(o, k -> new ArrayList<>()).add(n);
                }
            }
        }
        if (candidates.size() > 1) {
            // getopt's wording: option '--re' is ambiguous; possibilities: '--report-both' '--reversed'
            String names = candidates.values().stream().flatMap(List::stream).map(n -> "'" + n + "'")
                    .collect(Collectors.joining(" "));
            throw new ParameterException(command, "option '" + name + "' is ambiguous; possibilities: " + names);
        }
        return candidates.isEmpty() ? null : candidates.keySet().iterator().next();
    }

    /** The option named exactly {@code name} (picocli's findOption also matches "--s" to "-s"). */
    private static OptionSpec exact(CommandSpec spec, String name) {
        for (OptionSpec o : spec.options()) {
            for (String n : o.names()) {
                if (n.equals(name)) {
                    return o;
                }
            }
        }
        return null;
    }

    /** The long name of {@code option} that {@code prefix} abbreviates (an alias when only it matches). */
    private static String longNameFor(OptionSpec option, String prefix) {
        for (String n : option.names()) {
            if (n.startsWith(prefix)) {
                return n;
            }
        }
        throw new IllegalStateException(prefix + " abbreviates no name of " + option.longestName());
    }

    private static boolean takesValue(OptionSpec option) {
        return option.arity().min() > 0;
    }
}
