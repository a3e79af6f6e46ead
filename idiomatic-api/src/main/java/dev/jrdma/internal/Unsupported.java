// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

import dev.jrdma.Context;
import dev.jrdma.OperationNotSupportedException;
import dev.jrdma.bindings.shim.Errno;

/**
 * The message detail of a verb the device may not implement: for EOPNOTSUPP it names the device
 * and the capability it lacks, so that an {@link OperationNotSupportedException} reads, e.g.,
 * {@code ibv_open_xrcd(context rxe0) failed: errno 95 (Operation not supported): rxe0 does not
 * implement XRC domains}.
 */
public final class Unsupported {
    private Unsupported() {}

    /** {@code "<device> does not implement <capability>"} for EOPNOTSUPP, else {@code what} (may be null). */
    public static String detail(Context context, int errno, String capability, String what) {
        return errno == Errno.EOPNOTSUPP ? context.name() + " does not implement " + capability : what;
    }

    /** As {@link #detail(Context, int, String, String)} with no detail for other errno values. */
    public static String detail(Context context, int errno, String capability) {
        return detail(context, errno, capability, null);
    }
}
