// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * The control-path calls {@link NativeResource#hold} began on some resources; closing it ends
 * them, newest first.
 */
final class Hold implements AutoCloseable {
    private final NativeResource[] resources;
    private int entered;

    private Hold(NativeResource[] resources) {
        this.resources = resources;
    }

    /** Enters every non-null resource of {@code resources}, or none of them if one is closed. */
    static Hold enter(NativeResource... resources) {
        Hold hold = new Hold(resources);
        try {
            for (NativeResource r : resources) {
                if (r != null) {
                    r.enter();
                }
                hold.entered++;
            }
        } catch (RuntimeException e) {
            hold.close();
            throw e;
        }
        return hold;
    }

    @Override
    public void close() {
        for (int i = entered - 1; i >= 0; i--) {
            if (resources[i] != null) {
                resources[i].exit();
            }
        }
        entered = 0;
    }
}
