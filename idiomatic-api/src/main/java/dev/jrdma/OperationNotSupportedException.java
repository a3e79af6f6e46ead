// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.shim.Errno;

/**
 * The device or provider does not implement the operation (EOPNOTSUPP). Callers that can do
 * without a capability catch this type rather than testing errno values.
 */
public final class OperationNotSupportedException extends RdmaException {
    private static final long serialVersionUID = 1L;

    OperationNotSupportedException(Verb verb, String object, String detail) {
        super(verb, object, Errno.EOPNOTSUPP, detail);
    }
}
