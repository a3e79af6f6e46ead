// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.shim.Errno;
import org.junit.jupiter.api.function.Executable;

/** The one shape of a refusal: an {@link OperationNotSupportedException} of the verb, naming device, capability and errno. */
final class Refusals {
    private Refusals() {}

    static OperationNotSupportedException assertRefused(Executable call, Verb verb, Context context, String capability) {
        OperationNotSupportedException e = assertThrows(OperationNotSupportedException.class, call);
        assertEquals(verb, e.verb());
        assertEquals(Errno.EOPNOTSUPP, e.errno());
        String message = e.getMessage();
        assertTrue(message.startsWith(verb + "("), message);
        assertTrue(message.contains("errno " + Errno.EOPNOTSUPP + " "), message);
        assertTrue(message.contains(context.name() + " does not implement " + capability), message);
        return e;
    }
}
