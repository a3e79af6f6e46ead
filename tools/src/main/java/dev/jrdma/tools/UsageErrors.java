// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The usage errors of the commands' options: picocli prints the message as one line and exits
 * with status 2. The option groups' {@code resolve} methods, {@link SettingsResolver}, the -X and
 * --dlid options, {@link RefusedOptions} and devinfo raise theirs here, so that an option out of
 * its range, one without the option it needs, or two options that exclude each other read the
 * same whichever option it is; an option that may be left out gets its range check and its
 * default in one place ({@link #optional}). Options are named as the messages print them: quoted,
 * with the short name after the long one ({@code '--tos' (-T)}).
 */
final class UsageErrors {
    private UsageErrors() {
    }

    /** A usage error of {@code spec}'s command line. */
    static ParameterException usage(CommandSpec spec, String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /**
     * Checks that {@code value} is within {@code [min, max]}.
     *
     * @throws ParameterException {@code option ...: must be between min and max, got value}
     */
    static void range(CommandSpec spec, String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw usage(spec, "option " + option + ": must be between " + min + " and " + max + ", got " + value);
        }
    }

    /**
     * The value of an option that may be left out: {@code absent} when it was, else the value,
     * checked to be within {@code [min, max]} as {@link #range} checks it.
     */
    static int optional(CommandSpec spec, String option, Integer value, int min, int max, int absent) {
        if (value == null) {
            return absent;
        }
        range(spec, option, value, min, max);
        return value;
    }

    /**
     * An option given without another that it depends on: {@code needs} names that option (or what
     * it provides), and may end with the reason.
     */
    static ParameterException needs(CommandSpec spec, String option, String needs) {
        return usage(spec, "option " + option + ": needs " + needs);
    }

    /** Two options given together that perftest (or jrdma) takes one at a time. */
    static ParameterException exclusive(CommandSpec spec, String option, String other) {
        return usage(spec, "options " + option + " and " + other + " exclude each other");
    }

    /** {@link #exclusive(CommandSpec, String, String)} with the reason in parentheses after it. */
    static ParameterException exclusive(CommandSpec spec, String option, String other, String reason) {
        return usage(spec, "options " + option + " and " + other + " exclude each other (" + reason + ")");
    }
}
