// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

import dev.jrdma.bindings.generated.rdma_h;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The check the entry points ({@link dev.jrdma.Rdma#devices()},
 * {@link dev.jrdma.cm.CmEventChannel#create()}) make before any native call: both jrdma modules
 * need native access.
 *
 * <p>Why jrdma checks instead of leaving it to the JDK: JDK 22 and 23 print a warning on the
 * first restricted call of a module without native access, and JDK 24 and 25
 * ({@code --illegal-native-access=warn}, the default) do the same, naming the module that made
 * the call. That module is jrdma's internal {@code dev.jrdma.bindings}, which users never
 * name, and the JDK's warning does not say that {@code dev.jrdma} needs the flag too. Under
 * {@code --illegal-native-access=deny} (a future JDK's default) the call fails instead. So jrdma
 * fails the same way on every JDK, before any restricted call, with the exact flag to add; a
 * JVM started with {@code --illegal-native-access=allow} is let through.
 */
public final class NativeAccess {
    private static volatile boolean checked;

    private NativeAccess() {}

    /**
     * Returns when native access is enabled for jrdma's modules.
     *
     * @throws IllegalCallerException naming the {@code --enable-native-access} flag to add
     */
    public static void require() {
        if (checked) {
            return;
        }
        Optional<String> problem = problem(NativeAccess.class.getModule(), rdma_h.class.getModule(),
                explicitlyAllowed());
        if (problem.isPresent()) {
            throw new IllegalCallerException(problem.get());
        }
        checked = true;
    }

    /** The message for the JVM's state, or empty when jrdma may call native code. */
    public static Optional<String> problem(Module api, Module bindings, boolean allowed) {
        if (allowed) {
            return Optional.empty();
        }
        List<String> missing = new ArrayList<>();
        for (Module m : new Module[] {api, bindings}) {
            String name = m.isNamed() ? m.getName() : "ALL-UNNAMED";
            if (!m.isNativeAccessEnabled() && !missing.contains(name)) {
                missing.add(name);
            }
        }
        if (missing.isEmpty()) {
            return Optional.empty();
        }
        String flag = "--enable-native-access=" + String.join(",", missing);
        String where = api.isNamed()
                ? "jrdma is on the module path (modules dev.jrdma and dev.jrdma.bindings)"
                : "jrdma is on the class path";
        return Optional.of("jrdma calls libibverbs through java.lang.foreign and needs native access: start the JVM with "
                + flag + " (" + where + "; for java -jar, the manifest attribute 'Enable-Native-Access: ALL-UNNAMED'"
                + " does the same for the class path)");
    }

    /** {@code --illegal-native-access=allow} on the command line: the user accepts native calls. */
    private static boolean explicitlyAllowed() {
        String[] args = ProcessHandle.current().info().arguments().orElse(new String[0]);
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--illegal-native-access=allow")
                    || (args[i].equals("--illegal-native-access") && i + 1 < args.length && args[i + 1].equals("allow"))) {
                return true;
            }
        }
        return false;
    }
}
